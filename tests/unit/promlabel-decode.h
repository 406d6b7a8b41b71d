/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inverse of prom_label_escape() (tools/cli/promlabel.h), for the
 * tests that show the escape is injective: decode(escape(x)) == x. No
 * tool reads a label back, so it lives here, not in the CLI helper.
 */
#ifndef MODROT_TEST_PROMLABEL_DECODE_H
#define MODROT_TEST_PROMLABEL_DECODE_H

#include <stddef.h>
#include <string.h>

#include "cli-escape.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The text format's unescaping, as Prometheus does it; -1 on an escape it
 * does not know or a byte that must have been escaped. */
static long unescape_format(const char *text, size_t n, char *out)
{
	size_t used = 0;
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '"' || text[i] == '\n')
			return -1;
		if (text[i] != '\\') {
			out[used++] = text[i];
			continue;
		}
		if (++i == n)
			return -1;
		if (text[i] == '\\' || text[i] == '"')
			out[used++] = text[i];
		else if (text[i] == 'n')
			out[used++] = '\n';
		else
			return -1;
	}
	return (long)used;
}

/* The bytes that text[0..n) (as prom_label_escape wrote it) stands for,
 * into out (room for n bytes); their number, or -1 when text is not what
 * prom_label_escape writes. */
static long prom_label_decode(const char *text, size_t n, char *out)
{
	long m = unescape_format(text, n, out);
	if (m < 0)
		return -1;
	/* The first layer, in place: it only ever shortens. */
	size_t used = 0;
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < (size_t)m;) {
		if (out[i] != '\\') {
			size_t len = p[i] ? cli_utf8_len(p + i, (size_t)m - i) : 0;
			if (len == 0)
				return -1; /* such a byte is always escaped */
			memmove(out + used, out + i, len);
			used += len;
			i += len;
			continue;
		}
		if (i + 1 < (size_t)m && out[i + 1] == '\\') {
			out[used++] = '\\';
			i += 2;
			continue;
		}
		int hi, lo;
		if (i + 3 >= (size_t)m)
			return -1;
		if (out[i + 1] != 'x' || (hi = hex_digit(out[i + 2])) < 0 ||
		    (lo = hex_digit(out[i + 3])) < 0)
			return -1;
		unsigned char byte = (unsigned char)(hi << 4 | lo);
		/* Only what escape writes: a byte that is valid UTF-8 on its own
		 * (ASCII, not NUL) is never escaped. */
		if (byte != 0 && byte < 0x80)
			return -1;
		out[used++] = (char)byte;
		i += 4;
	}
	return (long)used;
}

#endif
