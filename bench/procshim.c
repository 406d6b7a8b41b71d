// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procshim: a second instrument for bench/startup.sh, independent of the
 * simulated kernel. Preloaded, it serves /proc/... and /sys/... from
 * PROCSHIM_ROOT/proc/... and PROCSHIM_ROOT/sys/... (a tree the simulator
 * rendered, then left alone) and does nothing else: no state, no
 * rendering, no locks. A figure measured under both instruments does not
 * owe itself to the simulator's own costs.
 *
 * It guards nothing: the bench runs it under simkernel-guard, whose
 * seccomp filter every timed process inherits.
 *
 *   cc -O2 -shared -fPIC -o procshim.so procshim.c -ldl
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root(void)
{
	static const char *r;
	if (!r) {
		r = getenv("PROCSHIM_ROOT");
		if (!r)
			r = "";
	}
	return r;
}

/* PATH under the root when it is a /proc or /sys path, else PATH. */
static const char *shim(const char *path, char *buf)
{
	if (!path || path[0] != '/' ||
	    (strncmp(path, "/proc/", 6) != 0 && strncmp(path, "/sys/", 5) != 0) || !*root())
		return path;
	int n = snprintf(buf, PATH_MAX, "%s%s", root(), path);
	return n > 0 && n < PATH_MAX ? buf : path;
}

/* libc's function, looked up once */
#define NEXT(name)                                                        \
	({                                                                \
		static __typeof__(&name) next_;                           \
		if (!next_)                                               \
			next_ = (__typeof__(&name))dlsym(RTLD_NEXT, #name); \
		next_;                                                    \
	})

static int open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	va_start(ap, flags);
	int mode = open_mode(flags, ap);
	va_end(ap);
	return NEXT(open)(shim(path, buf), flags, mode);
}

int open64(const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	va_start(ap, flags);
	int mode = open_mode(flags, ap);
	va_end(ap);
	return NEXT(open64)(shim(path, buf), flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	va_start(ap, flags);
	int mode = open_mode(flags, ap);
	va_end(ap);
	return NEXT(openat)(dirfd, shim(path, buf), flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	va_start(ap, flags);
	int mode = open_mode(flags, ap);
	va_end(ap);
	return NEXT(openat64)(dirfd, shim(path, buf), flags, mode);
}

int __open_2(const char *path, int flags)
{
	char buf[PATH_MAX];
	return NEXT(open)(shim(path, buf), flags);
}

int __open64_2(const char *path, int flags)
{
	char buf[PATH_MAX];
	return NEXT(open64)(shim(path, buf), flags);
}

FILE *fopen(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	return NEXT(fopen)(shim(path, buf), mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	return NEXT(fopen64)(shim(path, buf), mode);
}

DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	return NEXT(opendir)(shim(path, buf));
}

int stat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	return NEXT(stat)(shim(path, buf), st);
}

int stat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	return NEXT(stat64)(shim(path, buf), st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	return NEXT(lstat)(shim(path, buf), st);
}

int lstat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	return NEXT(lstat64)(shim(path, buf), st);
}

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	return NEXT(fstatat)(dirfd, shim(path, buf), st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	char buf[PATH_MAX];
	return NEXT(fstatat64)(dirfd, shim(path, buf), st, flags);
}

int access(const char *path, int mode)
{
	char buf[PATH_MAX];
	return NEXT(access)(shim(path, buf), mode);
}

ssize_t readlink(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX];
	return NEXT(readlink)(shim(path, buf), out, len);
}
