// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"

int outbuf_init(struct outbuf *o, size_t hint)
{
	o->len = 0;
	o->oom = false;
	o->cap = hint < 256 ? 256 : hint;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

void outbuf_release(struct outbuf *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

bool outbuf_failed(const struct outbuf *o)
{
	return o->oom;
}

static bool reserve(struct outbuf *o, size_t n)
{
	if (o->oom)
		return false;
	if (o->cap - o->len >= n)
		return true;
	size_t cap = o->cap;
	while (cap - o->len < n)
		cap *= 2;
	char *grown = realloc(o->buf, cap);
	if (!grown) {
		o->oom = true;
		return false;
	}
	o->buf = grown;
	o->cap = cap;
	return true;
}

void outbuf_put(struct outbuf *o, const char *s, size_t n)
{
	if (!reserve(o, n))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void outbuf_puts(struct outbuf *o, const char *s)
{
	outbuf_put(o, s, strlen(s));
}

void outbuf_putc(struct outbuf *o, char c)
{
	if (reserve(o, 1))
		o->buf[o->len++] = c;
}

void outbuf_pad(struct outbuf *o, char c, size_t n)
{
	if (!reserve(o, n))
		return;
	memset(o->buf + o->len, c, n);
	o->len += n;
}

void outbuf_put_u64_right(struct outbuf *o, uint64_t v, size_t width)
{
	char digits[20];
	size_t n = 0;
	do {
		digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (n < width)
		outbuf_pad(o, ' ', width - n);
	outbuf_put(o, digits + sizeof(digits) - n, n);
}

void outbuf_put_long(struct outbuf *o, long v)
{
	if (v < 0) {
		outbuf_putc(o, '-');
		outbuf_put_u64_right(o, (uint64_t)0 - (uint64_t)v, 0);
		return;
	}
	outbuf_put_u64_right(o, (uint64_t)v, 0);
}
