// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>

#include "cli-escape.h"
#include "outbuf.h"
#include "promlabel.h"

void prom_label_escape(struct outbuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len = p[i] ? cli_utf8_len(p + i, n - i) : 0;
		if (len == 0) {
			/* \xHH of the first layer; its backslash escaped by the second. */
			char esc[5] = { '\\', '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
			outbuf_put(o, esc, sizeof(esc));
			i++;
		} else if (p[i] == '\\') {
			/* Two backslashes in the first layer, each escaped. */
			outbuf_put(o, "\\\\\\\\", 4);
			i++;
		} else if (p[i] == '"') {
			outbuf_put(o, "\\\"", 2);
			i++;
		} else if (p[i] == '\n') {
			outbuf_put(o, "\\n", 2);
			i++;
		} else {
			outbuf_put(o, s + i, len);
			i += len;
		}
	}
}

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

long prom_label_decode(const char *text, size_t n, char *out)
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
