// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

static _Thread_local struct rot_parse_error last_error;

int parse_failed(int err, const char *file, size_t line, const char *reason)
{
	if (err != -EPROTO && err != -ERANGE)
		return err;
	last_error = (struct rot_parse_error){ file, line, reason };
	return -EPROTO;
}

void parse_error_clear(void)
{
	last_error = (struct rot_parse_error){ 0 };
}

const struct rot_parse_error *rot_parse_error_last(void)
{
	return last_error.file ? &last_error : NULL;
}

char *text_copy(const char *text, size_t len)
{
	char *copy = text ? malloc(len + 1) : NULL;
	if (copy) {
		memcpy(copy, text, len);
		copy[len] = '\0';
	}
	return copy;
}

int file_open_regular(const char *path, struct stat *st)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOCTTY:
	 * a terminal named by mistake must not become this process's. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	int err = fstat(fd, st) < 0 ? -errno : S_ISREG(st->st_mode) ? 0 : -EINVAL;
	if (err < 0) {
		close(fd);
		return err;
	}
	/* O_NONBLOCK stays: Linux reads regular files the same either way,
	 * and file_read() clears it on the rare file system that answers
	 * EAGAIN, so that the common case costs no fcntl calls. */
	return fd;
}

ssize_t file_read(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -1;
		int flags = fcntl(fd, F_GETFL);
		if (flags < 0 || !(flags & O_NONBLOCK))
			return -1; /* EAGAIN from a blocking read: the caller's error */
		if (fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
			return -1;
	}
}

int rot_file_check(const char *path, uint64_t limit)
{
	struct stat st;
	int fd = file_open_regular(path, &st);
	if (fd < 0)
		return fd;
	close(fd);
	return (uint64_t)st.st_size > limit ? -EFBIG : 0;
}

/*
 * The one read loop of lib: fd to its end, at most limit bytes (more is
 * -EFBIG), into a NUL-terminated buffer of cap bytes that doubles, since
 * the size a file reports is only a hint (it may grow; /proc's say 0).
 * sized: cap is the file's own size, so the whole buffer will be filled
 * and is prefaulted; a guessed one is not, only what growing adds.
 * interruptible: the caller's descriptor, read with plain read(2), so a
 * signal that does not restart ends it and its O_NONBLOCK is left alone.
 */
static int read_fd_whole(int fd, size_t cap, bool sized, bool interruptible, size_t limit,
			 char **out, size_t *len)
{
	size_t used = 0;
	if (cap < 4096)
		cap = 4096;
	if (cap > limit + 2)
		cap = limit + 2;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	if (sized)
		mem_prefault(buf, cap);
	for (;;) {
		if (used + 1 == cap) {
			if (used > limit)
				break;
			size_t grown_cap = cap > (limit + 2) / 2 ? limit + 2 : cap * 2;
			char *grown = realloc(buf, grown_cap);
			if (!grown) {
				free(buf);
				return -ENOMEM;
			}
			mem_prefault(grown + cap, grown_cap - cap);
			buf = grown;
			cap = grown_cap;
		}
		ssize_t n = interruptible ? read(fd, buf + used, cap - used - 1)
					  : file_read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			int err = -errno;
			free(buf);
			return err;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	if (used > limit) {
		free(buf);
		return -EFBIG;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

/* A file's size, when it tells one, sizes the buffer; a /proc file
 * reports 0 and is read into a guessed one. A sized one gets a byte to
 * spare beyond its size and the NUL, so that the read that finds its end
 * needs no larger buffer. */
static int read_stat_sized(int fd, const struct stat *st, bool interruptible, size_t limit,
			   char **out, size_t *len)
{
	if (limit >= SIZE_MAX - 1 || (uint64_t)st->st_size > limit)
		return -EFBIG;
	if (st->st_size <= 0)
		return read_fd_whole(fd, 64 * 1024, false, interruptible, limit, out, len);
	return read_fd_whole(fd, (size_t)st->st_size + 2, true, interruptible, limit, out, len);
}

int rot_file_read(const char *path, size_t limit, char **out, size_t *len)
{
	struct stat st;
	int fd = file_open_regular(path, &st);
	if (fd < 0)
		return fd;
	return file_read_whole(fd, &st, limit, out, len);
}

int rot_fd_read(int fd, size_t limit, char **out, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		st.st_size = 0; /* a pipe's or a device's size says nothing */
	return read_stat_sized(fd, &st, true, limit, out, len);
}

int file_read_whole(int fd, const struct stat *st, size_t limit, char **out, size_t *len)
{
	int err = read_stat_sized(fd, st, false, limit, out, len);
	close(fd);
	return err;
}

/*
 * Anything but a regular file (a directory, a FIFO that would block or
 * read as empty, a device such as /dev/zero that never ends) cannot be an
 * input of the in-use rule.
 */
int usage_input_read(const char *path, char **out)
{
	struct stat st = { 0 };
	size_t len;
	*out = NULL;
	int fd = file_open_regular(path, &st);
	if (fd == -EINVAL && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (fd < 0)
		return fd;
	int err = file_read_whole(fd, &st, USAGE_INPUT_MAX, out, &len);
	if (err == 0 && memchr(*out, '\0', len)) {
		free(*out);
		*out = NULL;
		err = -EBADMSG;
	}
	return err;
}

int proc_read_whole(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* /proc files report size 0; anything else that is served here (a
	 * regular file) says how big a buffer one read needs. */
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= SIZE_MAX / 4)
		st.st_size = 0;
	int err = read_stat_sized(fd, &st, false, SIZE_MAX / 4, out, len);
	close(fd);
	return err;
}
