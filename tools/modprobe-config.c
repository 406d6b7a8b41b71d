// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe.d, checked before libkmod reads it. libkmod 30 opens every
 * NAME.conf or NAME.alias of a configuration directory that is not itself
 * a directory, and reads it to its end: a FIFO there blocks kmod_new()
 * for ever, a link to /dev/zero reads until memory runs out. kmod's
 * modprobe does both; here the file is named and nothing is done.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "modprobe.h"

/* libkmod 30's default directories (libkmod.c), and Debian's /lib one. */
static const char *const default_dirs[] = {
	"/etc/modprobe.d",     "/run/modprobe.d", "/usr/local/lib/modprobe.d",
	"/usr/lib/modprobe.d", "/lib/modprobe.d", NULL,
};

int mp_config_path_check(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		cli_error("-C %s: %s, not a configuration file or directory", path,
			  cli_file_kind(st.st_mode & S_IFMT));
		return -EINVAL;
	}
	return 0;
}

/* The names libkmod reads in a directory (conf_files_filter_out()). */
static bool read_by_libkmod(const char *name)
{
	size_t n = strlen(name);
	if (name[0] == '.')
		return false;
	return (n >= 6 && !strcmp(name + n - 5, ".conf")) ||
	       (n >= 7 && !strcmp(name + n - 6, ".alias"));
}

static int dir_check(const char *dir)
{
	DIR *d = opendir(dir);
	int err = 0;
	if (!d)
		return 0; /* missing or unreadable: libkmod reads nothing there either */
	for (struct dirent *e; !err && (e = readdir(d));) {
		struct stat st;
		if (!read_by_libkmod(e->d_name) || fstatat(dirfd(d), e->d_name, &st, 0) < 0)
			continue;
		if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			continue;
		cli_error("%s/%s: %s, not a configuration file; nothing done", dir, e->d_name,
			  cli_file_kind(st.st_mode & S_IFMT));
		err = -EINVAL;
	}
	closedir(d);
	return err;
}

int mp_config_dirs_check(const char *const *paths)
{
	const char *const *dirs = paths ? paths : default_dirs;
	for (size_t i = 0; dirs[i]; i++) {
		struct stat st;
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode) && dir_check(dirs[i]) < 0)
			return -EINVAL;
	}
	return 0;
}
