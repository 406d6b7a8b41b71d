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

/* open() and openat(): the mode is there only when the flags ask for one. */
#define SHIM_OPEN_BODY(call)                     \
	char buf[PATH_MAX];                      \
	va_list ap;                              \
	va_start(ap, flags);                     \
	int mode = open_mode(flags, ap);         \
	va_end(ap);                              \
	return call;
#define SHIM_OPEN(name)                                                          \
	int name(const char *path, int flags, ...)                               \
	{                                                                        \
		SHIM_OPEN_BODY(NEXT(name)(shim(path, buf), flags, mode))         \
	}
#define SHIM_OPENAT(name)                                                        \
	int name(int dirfd, const char *path, int flags, ...)                    \
	{                                                                        \
		SHIM_OPEN_BODY(NEXT(name)(dirfd, shim(path, buf), flags, mode))  \
	}

SHIM_OPEN(open)
SHIM_OPEN(open64)
SHIM_OPENAT(openat)
SHIM_OPENAT(openat64)

/* Functions whose first argument is the path: the path served, the rest
 * passed on. */
#define SHIM1(ret, name, t1)                                 \
	ret name(const char *path, t1 a1)                    \
	{                                                    \
		char buf[PATH_MAX];                          \
		return NEXT(name)(shim(path, buf), a1);      \
	}
#define SHIM2(ret, name, t1, t2)                             \
	ret name(const char *path, t1 a1, t2 a2)             \
	{                                                    \
		char buf[PATH_MAX];                          \
		return NEXT(name)(shim(path, buf), a1, a2);  \
	}

SHIM1(int, __open_2, int)
SHIM1(int, __open64_2, int)
SHIM1(FILE *, fopen, const char *)
SHIM1(FILE *, fopen64, const char *)
SHIM1(int, stat, struct stat *)
SHIM1(int, stat64, struct stat64 *)
SHIM1(int, lstat, struct stat *)
SHIM1(int, lstat64, struct stat64 *)
SHIM1(int, access, int)
SHIM2(ssize_t, readlink, char *, size_t)

DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	return NEXT(opendir)(shim(path, buf));
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
