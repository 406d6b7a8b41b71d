// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mount namespaces and the processes in them, as /proc shows them: the
 * link /proc/PID/ns/mnt ("mnt:[INODE]") names a process's namespace, and
 * /proc/PID/mounts shows that namespace's mounts. Tests make processes
 * that are not there (`simkernel process DIR PID --ns NAME`), so that a
 * file system mounted only inside a "container" can be seen by what
 * looks at every namespace, and not by what reads /proc/self alone.
 *
 * The initial namespace is inode 4026531840 (the kernel's first); each
 * other one, DIR/mntns/NAME/, gets the next free number from 4026532200
 * up, in the order they are made, kept in DIR/mntns/NAME/ino. A process
 * is DIR/root/proc/PID/ with ns/mnt (a symlink to the "mnt:[INODE]" text,
 * as the kernel's readlink shows it) and mounts; /proc/self/ns/mnt is the
 * initial namespace's. A process caught exiting keeps its directory and
 * loses the files the kernel would already have taken (see sim.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define SIM_MNTNS_FIRST_INO 4026532200ull

static int valid_ns(const char *ns)
{
	size_t n = strlen(ns);
	if (n == 0 || n > 64 || ns[0] == '.')
		return 0;
	for (const char *p = ns; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '-' && *p != '_' && *p != '.')
			return 0;
	return 1;
}

static void ns_link(uint64_t ino, char *buf, size_t cap)
{
	snprintf(buf, cap, "mnt:[%" PRIu64 "]", ino);
}

/* The link of path, replaced atomically (a new name renamed over it). */
static int link_put(const char *path, const char *target)
{
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	if (symlink(target, tmp) < 0)
		return -errno;
	if (rename(tmp, path) < 0) {
		int err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

int sim_procns_init(const char *dir)
{
	char path[PATH_MAX], link[64];
	sim_path(path, sizeof(path), dir, "root/proc/self/ns");
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	sim_path(path, sizeof(path), dir, "root/proc/self/ns/mnt");
	ns_link(SIM_MNTNS_INIT_INO, link, sizeof(link));
	return link_put(path, link);
}

int sim_mntns_ino(const char *dir, const char *ns, int create, uint64_t *ino)
{
	char rel[128], path[PATH_MAX];
	if (!ns) {
		*ino = SIM_MNTNS_INIT_INO;
		return 0;
	}
	if (!valid_ns(ns))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "mntns/%s/ino", ns);
	sim_path(path, sizeof(path), dir, rel);
	char *text = sim_read_file(path, NULL);
	if (text) {
		int ok = sscanf(text, "%" SCNu64, ino) == 1;
		free(text);
		return ok ? 0 : -EIO;
	}
	if (errno != ENOENT)
		return -errno;
	if (!create)
		return -ENOENT;
	/* the next number: one past how many namespaces there are */
	uint64_t n = 0;
	sim_path(path, sizeof(path), dir, "mntns");
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	snprintf(rel, sizeof(rel), "mntns/%s", ns);
	sim_path(path, sizeof(path), dir, rel);
	if (mkdir(path, 0755) < 0)
		return -errno;
	char num[32];
	*ino = SIM_MNTNS_FIRST_INO + n;
	int len = snprintf(num, sizeof(num), "%" PRIu64 "\n", *ino);
	snprintf(rel, sizeof(rel), "mntns/%s/ino", ns);
	sim_path(path, sizeof(path), dir, rel);
	return sim_write_atomic(path, num, (size_t)len);
}

/* Whether DIR/root/proc/PID is a process in the namespace whose link is want. */
static int in_ns(const char *procdir, const char *pid, const char *want)
{
	char path[PATH_MAX + 512], link[64];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s/ns/mnt", procdir, pid) >= sizeof(path))
		return 0;
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = '\0';
	return !strcmp(link, want);
}

int sim_procs_publish(const char *dir, const char *ns, const char *text, size_t len)
{
	char procdir[PATH_MAX], want[64], path[PATH_MAX + 512];
	uint64_t ino;
	int err = sim_mntns_ino(dir, ns, 0, &ino);
	if (err)
		return err == -ENOENT ? 0 : err;
	ns_link(ino, want, sizeof(want));
	sim_path(procdir, sizeof(procdir), dir, "root/proc");
	DIR *d = opendir(procdir);
	if (!d)
		return -errno;
	for (struct dirent *e; !err && (e = readdir(d));) {
		struct stat st;
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || !in_ns(procdir, e->d_name, want))
			continue;
		/* one caught exiting keeps the mounts it has (none, or empty) */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/mounts", procdir, e->d_name) >=
			    sizeof(path) ||
		    stat(path, &st) < 0 || st.st_size == 0)
			continue;
		err = sim_write_atomic(path, text, len);
	}
	closedir(d);
	return err;
}

int sim_process(struct sim *s, long pid, const char *ns, const char *stage)
{
	char rel[64], path[PATH_MAX], link[64];
	uint64_t ino;
	if (pid <= 0 || pid > 4194304)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "root/proc/%ld", pid);
	sim_path(path, sizeof(path), s->dir, rel);
	if (stage && !strcmp(stage, "exit")) {
		struct stat st;
		if (lstat(path, &st) < 0)
			return -ESRCH;
		return sim_rm_rf_at(AT_FDCWD, path);
	}
	if (stage && strcmp(stage, "link") && strcmp(stage, "mounts") && strcmp(stage, "empty"))
		return -EINVAL;
	int err = sim_mntns_ino(s->dir, ns, 1, &ino);
	if (err)
		return err;
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(rel, sizeof(rel), "root/proc/%ld/ns", pid);
	sim_path(path, sizeof(path), s->dir, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(rel, sizeof(rel), "root/proc/%ld/ns/mnt", pid);
	sim_path(path, sizeof(path), s->dir, rel);
	ns_link(ino, link, sizeof(link));
	if (stage && !strcmp(stage, "link"))
		err = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	else
		err = link_put(path, link);
	snprintf(rel, sizeof(rel), "root/proc/%ld/mounts", pid);
	sim_path(path, sizeof(path), s->dir, rel);
	if (!err && stage && strcmp(stage, "empty"))
		err = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	else if (!err && stage)
		err = sim_write_atomic(path, "", 0);
	else if (!err) {
		size_t len;
		char *text = sim_mounts_render(s, ns, &len);
		err = text ? sim_write_atomic(path, text, len) : -ENOMEM;
		free(text);
	}
	return err;
}
