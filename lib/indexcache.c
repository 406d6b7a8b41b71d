// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The index check of a module directory (rot_moddir_check), and its
 * verdict, kept between runs: docs/architecture.md ("depmod's binary
 * indexes against libkmod before 34") says why. A directory whose indexes
 * all passed is remembered by what stat(2) says of its five indexes: the
 * device, inode, size, mode, modification and change times. Any write to
 * any of them (depmod's rename, an editor, a flipped bit written back)
 * changes the change time, and the check runs again.
 *
 * A verdict is kept only when every file's times are at least
 * FRESH_MARGIN older than the check's start: a file system's clock ticks
 * coarsely, and a file written twice within one tick, the check between
 * the two writes, would keep its times and size. (Damage that no write
 * makes, a failing disk, is not seen until a file changes; neither does
 * libkmod see it.)
 *
 * The verdicts live in MODROT_INDEX_CACHE when set (empty: none kept),
 * else /run/modrot for root and $XDG_RUNTIME_DIR/modrot for others; a
 * verdict file is trusted only when the user running owns it and nobody
 * else can write it, and written only into a directory of that user's
 * that nobody else can write.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#ifdef MODROT_INDEX_CHECK
#define FRESH_MARGIN_SEC 2
/* Changes whenever the check accepts less: older verdicts are then unread. */
static const char cache_magic[16] = "modrot-index-v2";

/* The index files libkmod 30 opens (libkmod.c, index_files[]). */
static const char *const index_names[] = {
	"modules.dep.bin",           "modules.alias.bin",   "modules.symbols.bin",
	"modules.builtin.alias.bin", "modules.builtin.bin",
};
#define INDEX_COUNT (sizeof(index_names) / sizeof(index_names[0]))

/* What stat(2) says of one file: all 64-bit, so a record has no padding. */
struct index_cache_key {
	uint64_t dev, ino, size, mode, mtime_sec, mtime_nsec, ctime_sec, ctime_nsec, absent;
};

struct index_cache_record {
	char magic[16];
	struct index_cache_key key[INDEX_COUNT];
};

struct index_cache {
	struct index_cache_record rec; /* the files as this run found them */
	struct timespec start;
	bool usable; /* a verdict can be kept: every file old enough, stat worked */
	char dir[4096], name[32];
};

static const char *cache_dir(char *buf, size_t size)
{
	const char *env = secure_getenv("MODROT_INDEX_CACHE");

	if (env)
		return env[0] == '/' ? env : NULL;
	if (geteuid() == 0)
		return "/run/modrot";
	env = secure_getenv("XDG_RUNTIME_DIR");
	if (!env || env[0] != '/' || (size_t)snprintf(buf, size, "%s/modrot", env) >= size)
		return NULL;
	return buf;
}

/* FNV-1a of the directory as named: only where its verdict is kept (the
 * verdict itself names each file by device and inode). */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

/* Stats the indexes in moddir: 1 when a verdict kept by an earlier run
 * says they passed as they are now, else 0. */
static int index_cache_begin(struct index_cache *c, const char *moddir)
{
	char dirbuf[PATH_MAX], path[PATH_MAX + sizeof(c->name)];
	const char *dir = cache_dir(dirbuf, sizeof(dirbuf));
	struct index_cache_record rec;
	struct stat st;

	memset(c, 0, sizeof(*c));
	if (!dir)
		return 0;
	if ((size_t)snprintf(c->dir, sizeof(c->dir), "%s", dir) >= sizeof(c->dir) ||
	    (size_t)snprintf(c->name, sizeof(c->name), "index-%016llx",
			     (unsigned long long)name_hash(moddir)) >= sizeof(c->name))
		return 0;
	if (clock_gettime(CLOCK_REALTIME, &c->start) < 0)
		return 0;
	memcpy(c->rec.magic, cache_magic, sizeof(cache_magic));
	c->usable = true;
	for (size_t i = 0; i < INDEX_COUNT; i++) {
		struct index_cache_key *k = &c->rec.key[i];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", moddir, index_names[i]) >=
		    sizeof(path)) {
			c->usable = false;
			return 0;
		}
		if (stat(path, &st) < 0) {
			/* Absent is a state a verdict can hold; anything else is not. */
			k->absent = 1;
			if (errno != ENOENT)
				c->usable = false;
			continue;
		}
		*k = (struct index_cache_key){ .dev = st.st_dev,
					       .ino = st.st_ino,
					       .size = (uint64_t)st.st_size,
					       .mode = st.st_mode,
					       .mtime_sec = (uint64_t)st.st_mtim.tv_sec,
					       .mtime_nsec = (uint64_t)st.st_mtim.tv_nsec,
					       .ctime_sec = (uint64_t)st.st_ctim.tv_sec,
					       .ctime_nsec = (uint64_t)st.st_ctim.tv_nsec };
		/* Written within the margin: the times may not tell a later write. */
		if (st.st_mtim.tv_sec > c->start.tv_sec - FRESH_MARGIN_SEC ||
		    st.st_ctim.tv_sec > c->start.tv_sec - FRESH_MARGIN_SEC)
			c->usable = false;
	}
	if (!c->usable)
		return 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", c->dir, c->name) >= sizeof(path))
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	bool hit = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		   !(st.st_mode & 022) && st.st_size == (off_t)sizeof(rec) &&
		   read(fd, &rec, sizeof(rec)) == (ssize_t)sizeof(rec) &&
		   memcmp(&rec, &c->rec, sizeof(rec)) == 0;
	close(fd);
	return hit;
}

/* Keeps the verdict "passed" for the files index_cache_begin() found,
 * when it can: failures only lose the saving. */
static void index_cache_store(const struct index_cache *c)
{
	char tmp[sizeof(c->name) + 32];
	struct stat st;
	int dfd, fd;

	if (!c->usable)
		return;
	/* Made private, or used only when it is ours and nobody else's to write. */
	if (mkdir(c->dir, 0700) < 0 && errno != EEXIST)
		return;
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return;
	if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))
		goto out;
	snprintf(tmp, sizeof(tmp), ".%s.%ld", c->name, (long)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	bool ok = write(fd, &c->rec, sizeof(c->rec)) == (ssize_t)sizeof(c->rec);
	/* Renamed whole into place: a reader sees the old verdict or the new. */
	if (close(fd) < 0 || !ok || renameat(dfd, tmp, dfd, c->name) < 0)
		unlinkat(dfd, tmp, 0);
out:
	close(dfd);
}

int rot_moddir_check(const char *moddir, const char **index)
{
	char path[PATH_MAX];
	struct index_cache *cache = malloc(sizeof(*cache));
	bool keep = true;
	int err = 0;

	*index = NULL;
	if (!cache)
		return -ENOMEM;
	if (index_cache_begin(cache, moddir) == 1)
		goto out;
	for (size_t i = 0; i < INDEX_COUNT && !err; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", moddir, index_names[i]) >=
		    sizeof(path))
			err = -ENAMETOOLONG;
		else
			err = index_check_file(path);
		/* Absent or empty: libkmod reads it as no index, safely. One this
		 * user cannot read is refused like a damaged one, rather than
		 * turned into "not found". No directory at all is libkmod's own
		 * case, and no verdict is kept for it. */
		if (err == -ENOENT || err == -ENODATA || err == -ENOTDIR) {
			keep = keep && err != -ENOTDIR;
			err = 0;
		} else if (err < 0) {
			*index = index_names[i];
		}
	}
	if (!err && keep)
		index_cache_store(cache);
out:
	free(cache);
	return err;
}
#else
int rot_moddir_check(const char *moddir, const char **index)
{
	(void)moddir;
	*index = NULL;
	return 0;
}
#endif
