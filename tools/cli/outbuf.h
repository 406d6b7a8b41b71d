/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An output buffer for listings. Thousands of lines cost more in printf
 * than in reading /proc; these few appenders are all a kmod-style row
 * needs. A buffer bound to a descriptor writes itself out in chunks, so a
 * long listing touches little memory; an unbound one grows.
 */
#ifndef MODROT_OUTBUF_H
#define MODROT_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct outbuf {
	char *buf;
	size_t len;
	size_t cap;
	int fd;  /* -1: grow instead of writing out */
	int err; /* sticky negative errno (ENOMEM, a write error): no more appends take effect */
};

int outbuf_init(struct outbuf *o, size_t hint);
/* A buffer of cap bytes that writes itself to fd when full. */
int outbuf_init_stream(struct outbuf *o, int fd, size_t cap);
/* Writes out what is buffered (stream buffers); returns o->err. */
int outbuf_flush(struct outbuf *o);
void outbuf_release(struct outbuf *o);
bool outbuf_failed(const struct outbuf *o);

/* Makes room for n more bytes; false (and err set) when it cannot. */
bool outbuf_grow(struct outbuf *o, size_t n);

/* The appenders run for every field of every row: the common case, room
 * already there, stays inline. */
static inline bool outbuf_reserve(struct outbuf *o, size_t n)
{
	return (!o->err && o->cap - o->len >= n) || outbuf_grow(o, n);
}

static inline void outbuf_put(struct outbuf *o, const char *s, size_t n)
{
	if (!outbuf_reserve(o, n))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void outbuf_puts(struct outbuf *o, const char *s)
{
	outbuf_put(o, s, strlen(s));
}

static inline void outbuf_putc(struct outbuf *o, char c)
{
	if (outbuf_reserve(o, 1))
		o->buf[o->len++] = c;
}

static inline void outbuf_pad(struct outbuf *o, char c, size_t n)
{
	if (!outbuf_reserve(o, n))
		return;
	memset(o->buf + o->len, c, n);
	o->len += n;
}
/* v right-aligned in width characters (no padding when width is 0). */
void outbuf_put_u64_right(struct outbuf *o, uint64_t v, size_t width);
/* The same written at p, which has OUTBUF_U64_ROOM(width) bytes of room
 * (it may write spaces past the number): returns the number's end. For a
 * row that reserves its room once. */
char *outbuf_u64_right_at(char *p, uint64_t v, size_t width);
#define OUTBUF_U64_ROOM(width) ((width) > 16 ? (width) + 20 : 36)
void outbuf_put_long(struct outbuf *o, long v);

#endif
