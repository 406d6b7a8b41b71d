// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module syscalls, answered by the simulator. Reached three ways: the
 * glibc wrappers init_module and delete_module, a finit_module wrapper for
 * programs built against a libc that has one, and syscall(SYS_...), which
 * is how libkmod calls finit_module. None of them ever enters the kernel.
 * So does rot-abi.md revision 3's reclaim, ioctl(ROT_IOC_RECLAIM) on
 * /proc/rotting_modules: that request number never reaches the kernel
 * either, whatever the fd.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

int init_module(void *image, unsigned long len, const char *params);
int finit_module(int fd, const char *params, int flags);
int delete_module(const char *name, unsigned int flags);
int ioctl(int fd, unsigned long request, ...);

static long fail(int err)
{
	errno = -err;
	return -1;
}

static int permitted(const char **dir)
{
	*dir = sk_dir();
	if (!*dir)
		return -ENOSYS;
	if (sk_nocap())
		return -EPERM; /* may_init_module() / capable(CAP_SYS_MODULE) */
	return 0;
}

static long sk_init_module(const void *image, unsigned long len, const char *params)
{
	const char *dir;
	int err = permitted(&dir);
	if (err)
		return fail(err);
	if (!image || !params)
		return fail(-EFAULT);
	err = sim_sys_load(dir, image, len, params, 0);
	return err ? fail(err) : 0;
}

/* kernel_read_file() and load_module(): the whole file, then the load. */
static int read_and_load(const char *dir, int fd, size_t len, const char *params, unsigned flags)
{
	size_t got = 0;
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return n < 0 ? -errno : -EIO;
		}
		got += (size_t)n;
	}
	int err = sim_sys_load(dir, buf, len, params, flags);
	free(buf);
	return err;
}

static long sk_finit_module(int fd, const char *params, int flags)
{
	const char *dir;
	struct stat st;
	int err = permitted(&dir);
	if (err)
		return fail(err);
	if (flags & ~3) /* IGNORE_MODVERSIONS | IGNORE_VERMAGIC */
		return fail(-EINVAL);
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY || fstat(fd, &st) < 0)
		return fail(-EBADF);
	if (!S_ISREG(st.st_mode))
		return fail(-EINVAL);
	if (!params)
		return fail(-EFAULT);
	struct sim_idem idem;
	int result = 0;
	err = sim_idem_begin(dir, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &idem, &result);
	if (err <= 0)
		return err < 0 ? fail(err) : result ? fail(result) : 0;
	err = read_and_load(dir, fd, (size_t)st.st_size, params, (unsigned)flags);
	sim_idem_end(&idem, err);
	return err ? fail(err) : 0;
}

static long sk_delete_module(const char *name, unsigned flags)
{
	const char *dir;
	int err = permitted(&dir);
	if (err)
		return fail(err);
	if (!name)
		return fail(-EFAULT);
	err = sim_sys_delete(dir, name, flags);
	return err < 0 ? fail(err) : err; /* reclaim: the number freed */
}

/*
 * Whether fd is the simulated /proc/rotting_modules, either variant, even
 * if a render has replaced the file since it was opened (the link then
 * ends in " (deleted)").
 */
static int is_rotting_fd(int fd, const char *dir)
{
	char link[64], path[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (!realpath(dir, real))
		return 0;
	if (n <= 0) {
		/* No /proc (a chroot without it, as the package test's root):
		 * the same file, by device and inode. */
		struct stat a, b;
		if (fstat(fd, &a) < 0)
			return 0;
		for (int nocap = 0; nocap < 2; nocap++) {
			snprintf(want, sizeof(want), "%s/root%s/proc/rotting_modules", real,
				 nocap ? "/.nocap" : "");
			if (stat(want, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return 1;
		}
		return 0;
	}
	path[n] = '\0';
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;
	if ((size_t)n > dl && !strcmp(path + n - dl, deleted))
		path[n - dl] = '\0';
	for (int nocap = 0; nocap < 2; nocap++) {
		snprintf(want, sizeof(want), "%s/root%s/proc/rotting_modules", real, nocap ? "/.nocap" : "");
		if (!strcmp(path, want))
			return 1;
	}
	return 0;
}

/* ROT_IOC_RECLAIM or ROT_IOC_RECLAIM4, in the order the kernel checks:
 * the number, the file, the caller, the request */
static long sk_reclaim_ioctl(int fd, unsigned request, void *arg)
{
	const char *dir = sk_dir();
	if (!dir || !is_rotting_fd(fd, dir))
		return fail(-ENOTTY); /* not the file: no such ioctl there */
	const struct sim_header *h = sk_header();
	int four = request == SIM_ROT_IOC_RECLAIM4;
	/* D3: how a revision-2 kernel answers; R11: a revision-3 one knows no 0x02 */
	if (h && sim_abi(h->cfgflags) < (four ? 4 : 3))
		return fail(-ENOTTY);
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_WRONLY)
		return fail(-EBADF);
	if (sk_nocap())
		return fail(-EPERM);
	if (!arg)
		return fail(-EFAULT);
	int ret;
	if (four) {
		struct sim_rot_reclaim4 req;
		memcpy(&req, arg, sizeof(req));
		ret = sim_sys_reclaim4(dir, &req);
		if (ret > 0 || ret == -EBUSY)
			memcpy(arg, &req, sizeof(req)); /* R1: the out fields, on success and on EBUSY */
	} else {
		struct sim_rot_reclaim req;
		memcpy(&req, arg, sizeof(req));
		ret = sim_sys_reclaim(dir, &req);
		if (ret > 0 || ret == -EBUSY)
			memcpy(arg, &req, sizeof(req));
	}
	return ret < 0 ? fail(ret) : ret;
}

/*
 * A system call that succeeds leaves errno alone, and callers rely on it:
 * busybox's insmod and rmmod set errno to 0, call, and test errno rather
 * than the return value. The simulator's own file work may set errno on
 * the way (a stat that finds nothing), so a success restores it.
 */
static long keep_errno(int saved, long ret)
{
	if (ret >= 0)
		errno = saved;
	return ret;
}

SK_EXPORT int init_module(void *image, unsigned long len, const char *params)
{
	int saved = errno;
	return (int)keep_errno(saved, sk_init_module(image, len, params));
}

SK_EXPORT int finit_module(int fd, const char *params, int flags)
{
	int saved = errno;
	return (int)keep_errno(saved, sk_finit_module(fd, params, flags));
}

SK_EXPORT int delete_module(const char *name, unsigned int flags)
{
	int saved = errno;
	return (int)keep_errno(saved, sk_delete_module(name, flags));
}

DECLARE_NEXT(ioctl);
SK_EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if ((unsigned)request == SIM_ROT_IOC_RECLAIM || (unsigned)request == SIM_ROT_IOC_RECLAIM4) {
		int saved = errno;
		return (int)keep_errno(saved, sk_reclaim_ioctl(fd, (unsigned)request, arg));
	}
	return NEXT(ioctl)(fd, request, arg);
}

DECLARE_NEXT(syscall);
SK_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	int saved = errno;
	switch (nr) {
	case SYS_init_module:
		return keep_errno(saved, sk_init_module((const void *)a[0], (unsigned long)a[1], (const char *)a[2]));
	case SYS_finit_module:
		return keep_errno(saved, sk_finit_module((int)a[0], (const char *)a[1], (int)a[2]));
	case SYS_delete_module:
		return keep_errno(saved, sk_delete_module((const char *)a[0], (unsigned)a[1]));
	case SYS_ioctl:
		if ((unsigned)a[1] == SIM_ROT_IOC_RECLAIM || (unsigned)a[1] == SIM_ROT_IOC_RECLAIM4)
			return keep_errno(saved, sk_reclaim_ioctl((int)a[0], (unsigned)a[1], (void *)a[2]));
		break;
	}
	return NEXT(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
