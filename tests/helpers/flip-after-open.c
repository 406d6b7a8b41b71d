// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An LD_PRELOAD for races that must be won every time: the first open(2)
 * of the path FLIP_LINK that succeeds turns the symlink FLIP_LINK to
 * FLIP_TO (symlink + rename, as an attacker would) before open returns,
 * and appends "flipped" to FLIP_LOG. Whatever the program checks through
 * that descriptor, any later open of the path sees the other file: the
 * flip always lands between the check and a reopen. Built by the tests
 * that use it (cc -shared -fPIC -ldl).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int flipped;

static void flip(const char *path)
{
	const char *link = getenv("FLIP_LINK"), *to = getenv("FLIP_TO"), *log = getenv("FLIP_LOG");
	char tmp[4096];

	if (flipped || !link || !to || strcmp(path, link))
		return;
	flipped = 1;
	snprintf(tmp, sizeof(tmp), "%s.flip", link);
	unlink(tmp);
	if (symlink(to, tmp) < 0 || rename(tmp, link) < 0)
		return;
	if (log) {
		FILE *f = fopen(log, "a");
		if (f) {
			fputs("flipped\n", f);
			fclose(f);
		}
	}
}

static int after(int fd, const char *path)
{
	int saved = errno;
	if (fd >= 0)
		flip(path);
	errno = saved;
	return fd;
}

int open(const char *path, int flags, ...)
{
	static int (*next)(const char *, int, ...);
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!next)
		next = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return after(next(path, flags, mode), path);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*next)(int, const char *, int, ...);
	mode_t mode = 0;
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!next)
		next = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return after(next(dirfd, path, flags, mode), path);
}
