// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modrot-metrics' label escaping (tools/cli/promlabel.c): the input, as a
 * module name of any bytes, escapes to text the exposition format accepts
 * (UTF-8, no raw quote or newline, every backslash a known escape) and
 * decodes back to itself, so two names never share a label:
 * escape(a) == escape(b) implies a == b. The input read as label text is
 * decoded too: never past its length, and what decodes escapes back to
 * text that decodes to the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/promlabel-decode.h"
#include "cli-escape.h"
#include "outbuf.h"
#include "promlabel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *t, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (t[i] == '"' || t[i] == '\n' || t[i] == '\0')
			abort();
		if (t[i] == '\\') {
			if (i + 1 >= n || !strchr("\\\"n", t[i + 1]))
				abort();
			i += 2;
			continue;
		}
		size_t len = cli_utf8_len((const unsigned char *)t + i, n - i);
		if (!len)
			abort();
		i += len;
	}
}

/* The escaped text of s[0..n), malloc'd in o. */
static void escape(struct outbuf *o, const char *s, size_t n)
{
	if (outbuf_init(o, 5 * n + 1) < 0)
		abort();
	prom_label_escape(o, s, n);
	if (outbuf_failed(o))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct outbuf o;
	escape(&o, s, size);
	check_text(o.buf, o.len);
	char *back = malloc(o.len + 1);
	if (!back)
		abort();
	long n = prom_label_decode(o.buf, o.len, back);
	if (n != (long)size || memcmp(back, s, size) != 0)
		abort();
	free(back);
	outbuf_release(&o);

	/* The input as label text. */
	char *bytes = malloc(size + 1);
	if (!bytes)
		abort();
	n = prom_label_decode(s, size, bytes);
	if (n > (long)size)
		abort();
	if (n >= 0) {
		struct outbuf again;
		escape(&again, bytes, (size_t)n);
		char *twice = malloc(again.len + 1);
		if (!twice)
			abort();
		long m = prom_label_decode(again.buf, again.len, twice);
		if (m != n || memcmp(twice, bytes, (size_t)n) != 0)
			abort();
		free(twice);
		outbuf_release(&again);
	}
	free(bytes);
	return 0;
}
