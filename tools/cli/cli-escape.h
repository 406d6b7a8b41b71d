/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one sanitiser for text that came from outside (argv, module files,
 * kernel files) on its way to a terminal: control bytes, C1 controls, DEL,
 * bytes that are not valid UTF-8 and the backslash itself are written as
 * \xHH escapes, as util-linux does; valid UTF-8 is kept. Messages through
 * cli_error() and its siblings are sanitised whole; listings call these.
 */
#ifndef MODROT_CLI_ESCAPE_H
#define MODROT_CLI_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "outbuf.h"

/* The length of the valid UTF-8 sequence at s (n >= 1 bytes left; 1 for
 * ASCII), or 0 when it is not valid UTF-8. */
size_t cli_utf8_len(const unsigned char *s, size_t n);

/* cli_text_is_safe() from byte i on, a character at a time. */
bool cli_text_is_safe_from(const char *s, size_t n, size_t i);
/* s, n bytes, with what needs it escaped. */
void cli_put_escaped(struct outbuf *o, const char *s, size_t n);

/* Bytes of a word: any below 0x20, at or above 0x7f, or a backslash? The
 * classic bit tricks (haszero, hasless) answer for eight bytes at once;
 * they never miss one. */
static inline bool cli_word_needs_care(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t below_space = (w - ones * 0x20) & ~w & highs;
	uint64_t del = w ^ (ones * 0x7f), backslash = w ^ (ones * '\\');
	uint64_t is_del = (del - ones) & ~del & highs;
	uint64_t is_backslash = (backslash - ones) & ~backslash & highs;
	return ((w & highs) | below_space | is_del | is_backslash) != 0;
}

/* Whether s, n bytes, needs no escape. Inline: a listing asks of every
 * name and holder. Plain ASCII, the common case, is checked a word at a
 * time; the last few bytes as one word too, padded with a safe letter. */
static inline bool cli_text_is_safe(const char *s, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (cli_word_needs_care(w))
			return cli_text_is_safe_from(s, n, i);
	}
	if (i == n)
		return true;
	uint64_t w = 0x6161616161616161u;
	memcpy(&w, s + i, n - i);
	return !cli_word_needs_care(w) || cli_text_is_safe_from(s, n, i);
}

/* s, sanitised. */
static inline void cli_put_safe(struct outbuf *o, const char *s)
{
	size_t n = strlen(s);
	if (cli_text_is_safe(s, n))
		outbuf_put(o, s, n);
	else
		cli_put_escaped(o, s, n);
}
/* A sanitised copy (malloc'd), or NULL when out of memory. */
char *cli_safe_dup(const char *s);
/* Sanitised into buf (cap bytes, truncated between escapes); returns buf. */
const char *cli_safe(const char *s, char *buf, size_t cap);

#endif
