/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growing output buffer written with one write(2) at the end. Listings
 * of thousands of lines cost more in printf than in reading /proc; these
 * few appenders are all a kmod-style row needs.
 */
#ifndef MODROT_OUTBUF_H
#define MODROT_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct outbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom; /* sticky: checked once, at the end */
};

int outbuf_init(struct outbuf *o, size_t hint);
void outbuf_release(struct outbuf *o);
bool outbuf_failed(const struct outbuf *o);

void outbuf_put(struct outbuf *o, const char *s, size_t n);
void outbuf_puts(struct outbuf *o, const char *s);
void outbuf_putc(struct outbuf *o, char c);
void outbuf_pad(struct outbuf *o, char c, size_t n);
/* v right-aligned in width characters (no padding when width is 0). */
void outbuf_put_u64_right(struct outbuf *o, uint64_t v, size_t width);
void outbuf_put_long(struct outbuf *o, long v);

#endif
