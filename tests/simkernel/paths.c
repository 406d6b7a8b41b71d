// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Path redirection: the kernel's files (/proc/modules, /sys/module/...)
 * are served from DIR/root. Every libc entry point that takes a path and
 * that module tools use is wrapped, because inside glibc fopen, opendir and
 * the stat family do not go through open().
 *
 * The common case must cost next to nothing: a path that does not begin
 * with /p, /s or /l is passed on after two byte compares.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preload.h"

/* not declared by glibc 2.36's headers, still exported for old binaries */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

static int is_path(const char *path, const char *prefix, size_t n)
{
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

/*
 * The per-process files the simulator serves, PID being digits or "self":
 * PID/wchan, kernel.c's model of a load waiting for a name (only a waiting
 * load has the file; the scenarios' handshake reads it), and PID/ns/mnt
 * and PID/mounts, procns.c's processes and their mount namespaces.
 */
static int is_pid_file(const char *p)
{
	if (!strncmp(p, "self/", 5))
		return !strcmp(p + 5, "ns/mnt") || !strcmp(p + 5, "mounts");
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strcmp(p, "/wchan") || !strcmp(p, "/ns/mnt") || !strcmp(p, "/mounts");
}

const char *sk_redirect(const char *path, char *buf, size_t len, int *sysfs)
{
	const char *dir, *rel = NULL, *root = "root";
	int lazy = -1;

	if (sysfs)
		*sysfs = 0;
	if (!path || path[0] != '/' || (path[1] != 'p' && path[1] != 's' && path[1] != 'l'))
		return NULL;
	if (!(dir = sk_dir()))
		return NULL;
	if (path[1] == 'p') {
		if (strncmp(path, "/proc", 5))
			return NULL;
		const char *p = path + 5; /* "" or "/..." */
		if (*p && *p != '/')
			return NULL;
		p += *p == '/';
		rel = path;
		if (!*p)
			rel = "/proc"; /* its listing: the processes procns.c made */
		else if (!strcmp(p, "modules") || !strcmp(p, "rotting_modules") || !strcmp(p, "module_pins"))
			lazy = SIM_LAZY_PROC;
		else if (!strcmp(p, "module_percpu"))
			lazy = SIM_LAZY_PERCPU;
		else if (!strcmp(p, "kallsyms"))
			lazy = SIM_LAZY_KALLSYMS;
		else if (strcmp(p, "sys/kernel/tainted") && strcmp(p, "cmdline") &&
			 strcmp(p, "mounts") && !is_pid_file(p))
			return NULL;
		if (lazy >= 0 && sk_nocap())
			root = "root/.nocap";
	} else if (path[1] == 's') {
		if (!is_path(path, "/sys/module", 11) && !is_path(path, "/sys/bus", 8))
			return NULL;
		rel = path;
		if (sysfs)
			*sysfs = 1;
	} else {
		if (strncmp(path, "/lib/modules/", 13))
			return NULL;
		const struct sim_header *h = sk_header();
		if (!h || !is_path(path + 13, h->release, strlen(h->release)))
			return NULL;
		rel = path;
	}
	int n = snprintf(buf, len, "%s/%s%s", dir, root, rel);
	if (n < 0 || (size_t)n >= len)
		return NULL;
	if (lazy >= 0) {
		const struct sim_header *h = sk_header();
		int saved = errno;
		if (h)
			sim_ensure_rendered(dir, h, (enum sim_lazy)lazy);
		errno = saved;
	}
	return buf;
}

#define REDIRECT(path)                                                     \
	char sk_buf_[PATH_MAX];                                            \
	const char *sk_r_ = sk_redirect((path), sk_buf_, sizeof(sk_buf_), NULL); \
	if (sk_r_)                                                         \
		path = sk_r_

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

DECLARE_NEXT(open);
SK_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	REDIRECT(path);
	return NEXT(open)(path, flags, mode);
}

DECLARE_NEXT(open64);
SK_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	REDIRECT(path);
	return NEXT(open64)(path, flags, mode);
}

DECLARE_NEXT(openat);
SK_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	REDIRECT(path);
	return NEXT(openat)(dirfd, path, flags, mode);
}

DECLARE_NEXT(openat64);
SK_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (needs_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	REDIRECT(path);
	return NEXT(openat64)(dirfd, path, flags, mode);
}

DECLARE_NEXT(__open_2);
SK_EXPORT int __open_2(const char *path, int flags)
{
	REDIRECT(path);
	return NEXT(__open_2)(path, flags);
}

DECLARE_NEXT(__open64_2);
SK_EXPORT int __open64_2(const char *path, int flags)
{
	REDIRECT(path);
	return NEXT(__open64_2)(path, flags);
}

DECLARE_NEXT(__openat_2);
SK_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	REDIRECT(path);
	return NEXT(__openat_2)(dirfd, path, flags);
}

DECLARE_NEXT(__openat64_2);
SK_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	REDIRECT(path);
	return NEXT(__openat64_2)(dirfd, path, flags);
}

DECLARE_NEXT(fopen);
SK_EXPORT FILE *fopen(const char *path, const char *mode)
{
	REDIRECT(path);
	return NEXT(fopen)(path, mode);
}

DECLARE_NEXT(fopen64);
SK_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	REDIRECT(path);
	return NEXT(fopen64)(path, mode);
}

DECLARE_NEXT(opendir);
SK_EXPORT DIR *opendir(const char *path)
{
	char buf[PATH_MAX];
	int sysfs;
	const char *r = sk_redirect(path, buf, sizeof(buf), &sysfs);
	DIR *d = NEXT(opendir)(r ? r : path);
	if (d && r && sysfs)
		sk_sysdir_register(d);
	return d;
}

DECLARE_NEXT(stat);
SK_EXPORT int stat(const char *path, struct stat *st)
{
	REDIRECT(path);
	return NEXT(stat)(path, st);
}

DECLARE_NEXT(stat64);
SK_EXPORT int stat64(const char *path, struct stat64 *st)
{
	REDIRECT(path);
	return NEXT(stat64)(path, st);
}

DECLARE_NEXT(lstat);
SK_EXPORT int lstat(const char *path, struct stat *st)
{
	REDIRECT(path);
	return NEXT(lstat)(path, st);
}

DECLARE_NEXT(lstat64);
SK_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	REDIRECT(path);
	return NEXT(lstat64)(path, st);
}

DECLARE_NEXT(fstatat);
SK_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REDIRECT(path);
	return NEXT(fstatat)(dirfd, path, st, flags);
}

DECLARE_NEXT(fstatat64);
SK_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REDIRECT(path);
	return NEXT(fstatat64)(dirfd, path, st, flags);
}

DECLARE_NEXT(__xstat);
SK_EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	REDIRECT(path);
	return NEXT(__xstat)(ver, path, st);
}

DECLARE_NEXT(__xstat64);
SK_EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	REDIRECT(path);
	return NEXT(__xstat64)(ver, path, st);
}

DECLARE_NEXT(__lxstat);
SK_EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	REDIRECT(path);
	return NEXT(__lxstat)(ver, path, st);
}

DECLARE_NEXT(__lxstat64);
SK_EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	REDIRECT(path);
	return NEXT(__lxstat64)(ver, path, st);
}

DECLARE_NEXT(__fxstatat);
SK_EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	REDIRECT(path);
	return NEXT(__fxstatat)(ver, dirfd, path, st, flags);
}

DECLARE_NEXT(__fxstatat64);
SK_EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	REDIRECT(path);
	return NEXT(__fxstatat64)(ver, dirfd, path, st, flags);
}

DECLARE_NEXT(statx);
SK_EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *st)
{
	REDIRECT(path);
	return NEXT(statx)(dirfd, path, flags, mask, st);
}

DECLARE_NEXT(access);
SK_EXPORT int access(const char *path, int mode)
{
	REDIRECT(path);
	return NEXT(access)(path, mode);
}

DECLARE_NEXT(faccessat);
SK_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	REDIRECT(path);
	return NEXT(faccessat)(dirfd, path, mode, flags);
}

DECLARE_NEXT(readlink);
SK_EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	REDIRECT(path);
	return NEXT(readlink)(path, buf, len);
}

DECLARE_NEXT(readlinkat);
SK_EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	REDIRECT(path);
	return NEXT(readlinkat)(dirfd, path, buf, len);
}

/* ls -l asks for security labels and ACLs of every entry it lists */
DECLARE_NEXT(getxattr);
SK_EXPORT ssize_t getxattr(const char *path, const char *name, void *value, size_t size)
{
	REDIRECT(path);
	return NEXT(getxattr)(path, name, value, size);
}

DECLARE_NEXT(lgetxattr);
SK_EXPORT ssize_t lgetxattr(const char *path, const char *name, void *value, size_t size)
{
	REDIRECT(path);
	return NEXT(lgetxattr)(path, name, value, size);
}

DECLARE_NEXT(listxattr);
SK_EXPORT ssize_t listxattr(const char *path, char *list, size_t size)
{
	REDIRECT(path);
	return NEXT(listxattr)(path, list, size);
}

DECLARE_NEXT(llistxattr);
SK_EXPORT ssize_t llistxattr(const char *path, char *list, size_t size)
{
	REDIRECT(path);
	return NEXT(llistxattr)(path, list, size);
}

DECLARE_NEXT(uname);
SK_EXPORT int uname(struct utsname *u)
{
	int ret = NEXT(uname)(u);
	const struct sim_header *h;
	if (ret == 0 && sk_dir() && (h = sk_header()))
		snprintf(u->release, sizeof(u->release), "%s", h->release);
	return ret;
}
