// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Devices, seen from sysfs: which are present (their modalias) and which a
 * module's drivers have bound. On a rot kernel a module's reference count
 * says nothing; bound devices are what "in use" means besides holders.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

static bool is_dot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* Symlinks in one driver directory, but "module", which points back.
 * A driver gone meanwhile has none: the kernel removes the module's link
 * to it first, so the entry is gone too. An entry that stays but is no
 * directory (a file, a FIFO, a link leading nowhere) or a directory that
 * cannot be read (no memory, say) is an error, not a count of zero. */
static int devices_of_driver(const char *path, size_t *n)
{
	DIR *d = opendir(path);
	if (!d) {
		int err = errno;
		struct stat st;
		if (err == ENOENT && lstat(path, &st) < 0 && errno == ENOENT)
			return 0;
		return err == ENOENT ? -ENOTDIR : -err;
	}
	errno = 0;
	for (struct dirent *e; (e = readdir(d)); errno = 0) {
		struct stat st;
		if (is_dot(e->d_name) || strcmp(e->d_name, "module") == 0)
			continue;
		*n += fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISLNK(st.st_mode);
	}
	int err = -errno;
	closedir(d);
	return err;
}

int rot_name_bound_devices(const char *name, size_t *count)
{
	char path[sizeof("/sys/module//drivers") + ROT_NAME_MAX];
	*count = 0;
	snprintf(path, sizeof(path), "/sys/module/%s/drivers", name);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	int err = 0;
	errno = 0;
	for (struct dirent *e; err == 0 && (e = readdir(d)); errno = 0) {
		char drv[sizeof(path) + NAME_MAX + 1];
		if (is_dot(e->d_name))
			continue;
		snprintf(drv, sizeof(drv), "%s/%s", path, e->d_name);
		err = devices_of_driver(drv, count);
	}
	if (err == 0)
		err = -errno;
	closedir(d);
	return err;
}

struct rot_devices {
	char **modalias;
	size_t n;
};

int devices_add_modalias(struct rot_devices *devs, const char *modalias, size_t len)
{
	char *text = strndup(modalias, len);
	if (!text)
		return -ENOMEM;
	char **grown = realloc(devs->modalias, (devs->n + 1) * sizeof(*grown));
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	devs->modalias = grown;
	devs->modalias[devs->n++] = text;
	return 0;
}

struct rot_devices *devices_new(void)
{
	return calloc(1, sizeof(struct rot_devices));
}

static int add_device(struct rot_devices *devs, const char *bus, const char *id)
{
	char file[PATH_MAX], *text;
	size_t len;
	snprintf(file, sizeof(file), "/sys/bus/%s/devices/%s/modalias", bus, id);
	/* Devices without a modalias match no module. */
	int err = proc_read_whole(file, &text, &len);
	if (err == -ENOENT)
		return 0;
	if (err < 0)
		return err;
	/* One line; a NUL inside would hide the rest from fnmatch. */
	err = devices_add_modalias(devs, text, strcspn(text, "\n"));
	free(text);
	return err;
}

int rot_devices_read(struct rot_devices **out)
{
	struct rot_devices *devs = calloc(1, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	DIR *buses = opendir("/sys/bus");
	/* No sysfs buses: no devices present. */
	int err = buses || errno == ENOENT ? 0 : -errno;
	for (struct dirent *b; buses && err == 0 && (b = readdir(buses));) {
		char path[PATH_MAX];
		if (is_dot(b->d_name))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/%s/devices", b->d_name);
		DIR *d = opendir(path);
		if (!d && errno != ENOENT)
			err = -errno;
		if (!d)
			continue;
		for (struct dirent *e; err == 0 && (e = readdir(d));)
			if (!is_dot(e->d_name))
				err = add_device(devs, b->d_name, e->d_name);
		closedir(d);
	}
	if (buses)
		closedir(buses);
	if (err < 0) {
		rot_devices_free(devs);
		return err;
	}
	*out = devs;
	return 0;
}

void rot_devices_free(struct rot_devices *devs)
{
	if (!devs)
		return;
	for (size_t i = 0; i < devs->n; i++)
		free(devs->modalias[i]);
	free(devs->modalias);
	free(devs);
}

bool rot_devices_match(const struct rot_devices *devs, const char *pattern)
{
	for (size_t i = 0; i < devs->n; i++)
		if (fnmatch(pattern, devs->modalias[i], 0) == 0)
			return true;
	return false;
}
