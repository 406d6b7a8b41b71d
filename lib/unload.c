// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modrot.h"

/* glibc exports the wrapper without declaring it in a header. */
extern int delete_module(const char *name, unsigned int flags);

static int call_delete_module(const char *name, unsigned flags)
{
	return delete_module(name, flags) < 0 ? -errno : 0;
}

int rot_unload(const char *name, unsigned flags)
{
	unsigned kflags = O_NONBLOCK;
	if (flags & ROT_UNLOAD_FORCE)
		kflags |= O_TRUNC;
	return call_delete_module(name, kflags);
}

int rot_reclaim(const struct rot_snapshot *snap, const char *name)
{
	if (!rot_snapshot_has_rot(snap))
		return -EOPNOTSUPP;
	return call_delete_module(name, ROT_MODULE_RECLAIM | O_NONBLOCK);
}

bool rot_module_is_builtin(const char *name)
{
	char path[sizeof("/sys/module//initstate") + ROT_NAME_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

int rot_reclaim_lock(void)
{
	/* /sys/module is the one directory every tool on this kernel sees the
	 * same way; an advisory lock on it needs no file of our own. */
	int fd = open("/sys/module", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* EINTR is returned, not retried: a signal must be able to end a
	 * wait behind another run. */
	if (flock(fd, LOCK_EX) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void rot_reclaim_unlock(int lock)
{
	if (lock >= 0)
		close(lock);
}
