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
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "modprobe.h"

/* libkmod 30's default directories (libkmod.c), and Debian's /lib one. */
static const char *const default_dirs[] = {
	"/etc/modprobe.d",     "/run/modprobe.d", "/usr/local/lib/modprobe.d",
	"/usr/lib/modprobe.d", "/lib/modprobe.d", NULL,
};

/* /dev/null reads as an empty file: kmod reads "-C /dev/null" as an empty
 * configuration, and a NAME.conf linked to it masks that file (as
 * systemd's configuration directories are masked). Any other device may
 * block or never end. */
static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

int mp_config_path_check(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) &&
	    !is_dev_null(&st)) {
		cli_error("-C %s: %s, not a configuration file or directory", path,
			  cli_file_kind(st.st_mode & S_IFMT));
		return -EINVAL;
	}
	return 0;
}

/* The names libkmod reads in a directory (conf_files_filter_out()). */
static bool read_by_libkmod(const char *name)
{
	const char *dot = strrchr(name, '.');
	return name[0] != '.' && dot && (!strcmp(dot, ".conf") || !strcmp(dot, ".alias"));
}

/* An entry libkmod would read that is neither a file nor a directory
 * (a FIFO, a device, a socket, or a link to one): named, and -EINVAL.
 * The kernel gives most entries' types with their names; only a link or
 * an entry of unknown type costs a stat. */
static int entry_check(int dfd, const char *dir, const char *name, unsigned char type)
{
	struct stat st;
	if (!read_by_libkmod(name) || type == DT_REG || type == DT_DIR)
		return 0;
	if (fstatat(dfd, name, &st, 0) < 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
	    is_dev_null(&st))
		return 0;
	cli_error("%s/%s: %s, not a configuration file; nothing done", dir, name,
		  cli_file_kind(st.st_mode & S_IFMT));
	return -EINVAL;
}

static int dir_check(const char *dir)
{
	/* Missing, unreadable or not a directory (O_DIRECTORY): libkmod
	 * reads nothing there either. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (dfd < 0)
		return 0;
	union {
		struct dirent64 first;
		char bytes[16384];
	} buf;
	ssize_t n;
	int err = 0;
	while (!err && (n = getdents64(dfd, buf.bytes, sizeof(buf))) > 0) {
		for (ssize_t off = 0; !err && off < n;) {
			const struct dirent64 *e = (const struct dirent64 *)(buf.bytes + off);
			off += e->d_reclen;
			err = entry_check(dfd, dir, e->d_name, e->d_type);
		}
	}
	close(dfd);
	return err;
}

int mp_config_dirs_check(const char *const *paths)
{
	const char *const *dirs = paths ? paths : default_dirs;
	for (size_t i = 0; dirs[i]; i++)
		if (dir_check(dirs[i]) < 0)
			return -EINVAL;
	return 0;
}
