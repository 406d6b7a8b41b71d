// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outbuf.h"

int outbuf_init(struct outbuf *o, size_t hint)
{
	*o = (struct outbuf){ .fd = -1, .cap = hint < 256 ? 256 : hint };
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

int outbuf_init_stream(struct outbuf *o, int fd, size_t cap)
{
	int err = outbuf_init(o, cap);
	o->fd = fd;
	return err;
}

int outbuf_flush(struct outbuf *o)
{
	const char *p = o->buf;
	size_t left = o->len;

	while (o->fd >= 0 && left && !o->err) {
		ssize_t n = write(o->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			o->err = -errno;
			break;
		}
		p += n;
		left -= (size_t)n;
	}
	if (o->fd >= 0)
		o->len = 0;
	return o->err;
}

void outbuf_release(struct outbuf *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

bool outbuf_failed(const struct outbuf *o)
{
	return o->err != 0;
}

bool outbuf_grow(struct outbuf *o, size_t n)
{
	/* outbuf_reserve() asked whether n fits already. */
	if (o->err)
		return false;
	if (o->fd >= 0 && outbuf_flush(o) < 0)
		return false;
	if (o->cap - o->len >= n)
		return true;
	size_t cap = o->cap;
	while (cap - o->len < n)
		cap *= 2;
	char *grown = realloc(o->buf, cap);
	if (!grown) {
		o->err = -ENOMEM;
		return false;
	}
	o->buf = grown;
	o->cap = cap;
	return true;
}

/* Two digits per division, written from the right end (p) back. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
				  "25262728293031323334353637383940414243444546474849"
				  "50515253545556575859606162636465666768697071727374"
				  "75767778798081828384858687888990919293949596979899";

/* v's digits ending at p: in 64-bit arithmetic only while v needs it. */
static void put_digits(char *p, uint64_t v)
{
	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	uint32_t x = (uint32_t)v;
	while (x >= 100) {
		uint32_t r = x % 100;
		x /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
	}
	if (x >= 10)
		memcpy(p - 2, digit_pairs + 2 * x, 2);
	else
		p[-1] = (char)('0' + x);
}

char *outbuf_u64_right_at(char *p, uint64_t v, size_t width)
{
	static const uint32_t pow10[10] = { 1,      10,      100,      1000,      10000,
					    100000, 1000000, 10000000, 100000000, 1000000000 };
	size_t n;
	if (v <= UINT32_MAX) {
		/* digits from the bit length: floor(log10) is t or t - 1 */
		uint32_t x = (uint32_t)v;
		unsigned t = ((32u - (unsigned)__builtin_clz(x | 1)) * 1233u) >> 12;
		n = t + (x >= pow10[t]) + (x == 0);
	} else {
		n = 10;
		for (uint64_t ten = 10000000000u; n < 20 && v >= ten; ten *= 10)
			n++;
	}
	size_t pad = n < width ? width - n : 0;
	/* A constant 16 is two stores, not a call: the common width. */
	if (pad > 16)
		memset(p, ' ', pad);
	else
		memset(p, ' ', 16);
	p += pad + n;
	put_digits(p, v);
	return p;
}

void outbuf_put_u64_right(struct outbuf *o, uint64_t v, size_t width)
{
	if (!outbuf_reserve(o, OUTBUF_U64_ROOM(width)))
		return;
	char *end = outbuf_u64_right_at(o->buf + o->len, v, width);
	o->len = (size_t)(end - o->buf);
}

void outbuf_put_long(struct outbuf *o, long v)
{
	if (v < 0)
		outbuf_putc(o, '-');
	outbuf_put_u64_right(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 0);
}
