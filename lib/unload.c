// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

/* glibc exports the wrapper without declaring it in a header. */
extern int delete_module(const char *name, unsigned int flags);

/* delete_module's answer: a negative errno, or what it returned (0, or a reclaim's count). */
static int call_delete_module(const char *name, unsigned flags)
{
	int ret = delete_module(name, flags);
	return ret < 0 ? -errno : ret;
}

int rot_unload(const char *name, unsigned flags)
{
	unsigned kflags = O_NONBLOCK;
	if (flags & ROT_UNLOAD_FORCE)
		kflags |= O_TRUNC;
	return call_delete_module(name, kflags);
}

static int snapshot_rotting_count(const struct rot_snapshot *snap, const char *name)
{
	int n = 0;
	for (size_t i = rot_snapshot_live_count(snap); i < rot_snapshot_count(snap); i++)
		if (strcmp(rot_module_name(rot_snapshot_module(snap, i)), name) == 0)
			n++;
	return n;
}

static bool live_now(const char *name)
{
	char path[sizeof("/sys/module//initstate") + ROT_NAME_MAX];
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

static int reclaim(const struct rot_snapshot *snap, const char *name, bool force)
{
	if (!rot_snapshot_has_rot(snap))
		return -EOPNOTSUPP;
	unsigned flags = ROT_MODULE_RECLAIM | O_NONBLOCK;
	int ret = call_delete_module(name, force ? flags | O_TRUNC : flags);
	/* A revision-1 kernel refuses the combination, and it checks nothing
	 * anyway: a plain reclaim frees everything there. */
	if (ret == -EINVAL && force && rot_reclaim_checks() == -ENOENT)
		ret = call_delete_module(name, flags);
	if (ret != 0)
		return ret;
	/* Revision 1 returned 0 and freed every instance: what the snapshot
	 * saw rot is the best count there is, plus the live instance it saw
	 * if that has been unloaded since (by the caller, typically), and at
	 * least the one it freed. */
	int seen = snapshot_rotting_count(snap, name);
	if (rot_snapshot_find_live(snap, name) && !live_now(name))
		seen++;
	return seen > 0 ? seen : 1;
}

int rot_reclaim(const struct rot_snapshot *snap, const char *name)
{
	return reclaim(snap, name, false);
}

int rot_reclaim_force(const struct rot_snapshot *snap, const char *name)
{
	return reclaim(snap, name, true);
}

int rot_reclaim_checks(void)
{
	char *buf;
	size_t len;
	int err = proc_read_whole("/sys/module/module/parameters/rot_reclaim_checks", &buf, &len);
	if (err < 0)
		return err;
	int ret = -EINVAL;
	if (len >= 1 && (len == 1 || buf[1] == '\n') && (buf[0] == 'Y' || buf[0] == 'N'))
		ret = buf[0] == 'Y';
	free(buf);
	return ret;
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
