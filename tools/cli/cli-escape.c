// SPDX-License-Identifier: GPL-2.0-or-later
/* The one sanitiser for text from outside on its way to a terminal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli-escape.h"

size_t cli_utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	/* The lead byte says the length and holds the first bits (0x80 to
	 * 0xc1 only continue or begin an overlong form; past 0xf4 is past
	 * U+10FFFF). */
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (s[0] < 0xc2 || s[0] > 0xf4 || n < len)
		return 0;
	uint32_t cp = s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, and past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Length of the printable UTF-8 sequence at s (n bytes left), or 0 for a
 * byte to escape: C0 controls, DEL, the backslash, the C1 controls (U+0080
 * to U+009F, which some terminals obey as escapes) and invalid UTF-8. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 0;
	size_t len = cli_utf8_len(s, n);
	if (len == 2 && c == 0xc2 && s[1] < 0xa0)
		return 0;
	return len;
}

bool cli_text_is_safe_from(const char *s, size_t n, size_t i)
{
	const unsigned char *p = (const unsigned char *)s;
	while (i < n) {
		size_t len = printable_utf8(p + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* s, n bytes, sanitised into buf (cap bytes, cut between escapes and
 * kept terminated); returns the length written. */
static size_t escape(const char *s, size_t n, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	for (size_t i = 0; i < n;) {
		size_t len = printable_utf8(p + i, n - i);
		char esc[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
		size_t out = len ? len : sizeof(esc);
		if (used + out >= cap)
			break;
		memcpy(buf + used, len ? s + i : esc, out);
		used += out;
		i += len ? len : 1;
	}
	buf[used] = '\0';
	return used;
}

void cli_put_escaped(struct outbuf *o, const char *s, size_t n)
{
	/* An escape is four bytes for one: room for all of them is never cut. */
	if (outbuf_reserve(o, 4 * n + 1))
		o->len += escape(s, n, o->buf + o->len, 4 * n + 1);
}

char *cli_safe_dup(const char *s)
{
	size_t cap = 4 * strlen(s) + 1;
	char *buf = malloc(cap);
	return buf ? (char *)cli_safe(s, buf, cap) : NULL;
}

const char *cli_safe(const char *s, char *buf, size_t cap)
{
	escape(s, strlen(s), buf, cap);
	return buf;
}
