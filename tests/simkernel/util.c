// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small file helpers. They call the libc entry points the preload wraps, so
 * they must only ever be given paths inside the state directory, which the
 * wrappers pass through untouched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

int sim_write_file(int dirfd, const char *name, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			return err;
		}
		data += n;
		len -= (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* Readers must never see half a file: write beside it, then rename over. */
int sim_write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)gettid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	int err = sim_write_file(AT_FDCWD, tmp, data, len);
	if (err == 0 && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int sim_rm_rf_at(int dirfd, const char *name)
{
	/* most entries are files or links: try that first, it is one syscall */
	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
			sim_rm_rf_at(fd, e->d_name);
		else
			unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

void sim_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *sim_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

/* Rendering 10,000 lines with printf costs more than everything else. */
char *sim_fmt_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *sim_fmt_hex16(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 15; i >= 0; i--)
		*p++ = hex[(v >> (i * 4)) & 0xf];
	return p;
}

/* Letters of the taints a module can carry, in bit order (kernel/panic.c). */
void sim_taint_letters(uint32_t taints, char *buf)
{
	static const struct { int bit; char c; } mod_taints[] = {
		{ 0, 'P' }, { 1, 'F' }, { 10, 'C' }, { 12, 'O' }, { 13, 'E' },
		{ 15, 'K' }, { 16, 'X' }, { 17, 'T' }, { 18, 'N' },
	};
	for (size_t i = 0; i < sizeof(mod_taints) / sizeof(mod_taints[0]); i++)
		if (taints & (1u << mod_taints[i].bit))
			*buf++ = mod_taints[i].c;
	*buf = '\0';
}

