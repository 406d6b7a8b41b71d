// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-escape.h"
#include "cli-run.h"
#include "jsonwrt.h"

/* No byte below 0x20, at or above 0x7f, '"' or '\\' in these eight: the
 * sanitiser's test, and the same haszero trick for the quote. */
static bool json_word_is_plain(const unsigned char *p)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t w, quote;
	memcpy(&w, p, 8);
	quote = w ^ (ones * '"');
	return !cli_word_needs_care(w) && !((quote - ones) & ~quote & highs);
}

static void put_quoted(struct outbuf *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), plain = 0;

	outbuf_putc(o, '"');
	for (size_t i = 0; i < n;) {
		/* Eight plain bytes at a time while there are. */
		if (i + 8 <= n && json_word_is_plain(p + i)) {
			i += 8;
			plain += 8;
			continue;
		}
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			plain++;
			continue;
		}
		/* Runs of plain bytes go out in one copy. */
		outbuf_put(o, s + i - plain, plain);
		plain = 0;
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			outbuf_put(o, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			outbuf_put(o, esc, 6);
			i++;
		} else {
			size_t len = cli_utf8_len(p + i, n - i);
			if (len)
				outbuf_put(o, s + i, len);
			else
				outbuf_puts(o, "\\ufffd");
			i += len ? len : 1;
		}
	}
	outbuf_put(o, s + n - plain, plain);
	outbuf_putc(o, '"');
}

/* The comma, line break, indentation and name before a value. */
static void begin_value(struct json_writer *w, const char *name)
{
	if (w->has_member[w->depth])
		outbuf_putc(w->out, ',');
	if (!w->compact && (w->depth > 0 || w->has_member[0]))
		outbuf_putc(w->out, '\n');
	w->has_member[w->depth] = true;
	if (!w->compact)
		outbuf_pad(w->out, ' ', 3 * w->depth);
	/* Member names are the tools' own constants: plain ASCII, no escaping. */
	if (name) {
		outbuf_putc(w->out, '"');
		outbuf_puts(w->out, name);
		outbuf_put(w->out, "\": ", w->compact ? 2 : 3);
	}
}

static void open_container(struct json_writer *w, const char *name, char open)
{
	begin_value(w, name);
	/* Deeper than the writer tracks would close wrongly: the document is
	 * refused as a whole (json_finish() says -E2BIG) instead of written
	 * invalid. The tools' documents have a fixed shape, well within. */
	if (w->depth == JSON_DEPTH_MAX) {
		if (!w->out->err)
			w->out->err = -E2BIG;
		w->overflow++;
		return;
	}
	outbuf_putc(w->out, open);
	w->depth++;
	w->has_member[w->depth] = false;
	w->closer[w->depth] = open == '{' ? '}' : ']';
}

static void close_container(struct json_writer *w, char close)
{
	if (w->overflow) {
		w->overflow--;
		return;
	}
	bool had = w->has_member[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had && !w->compact) {
		outbuf_putc(w->out, '\n');
		outbuf_pad(w->out, ' ', 3 * w->depth);
	}
	outbuf_putc(w->out, close);
	if (w->depth == 0)
		outbuf_putc(w->out, '\n');
}

int json_start_stdout(struct json_writer *w, bool compact)
{
	memset(w, 0, sizeof(*w));
	w->compact = compact;
	/* What stdio holds goes first, so the two never interleave. */
	cli_flush_stdout();
	int err = outbuf_init_stream(&w->buf, STDOUT_FILENO, 64 * 1024);
	if (err < 0)
		return err;
	w->out = &w->buf;
	json_open_object(w, NULL);
	return 0;
}

int json_finish(struct json_writer *w)
{
	if (!w->out)
		return -ENOMEM;
	while (w->depth > 0)
		close_container(w, w->closer[w->depth]);
	int err = outbuf_flush(w->out);
	outbuf_release(w->out);
	w->out = NULL;
	return err;
}

void json_open_object(struct json_writer *w, const char *name)
{
	open_container(w, name, '{');
}

void json_close_object(struct json_writer *w)
{
	close_container(w, '}');
}

void json_open_array(struct json_writer *w, const char *name)
{
	open_container(w, name, '[');
}

void json_close_array(struct json_writer *w)
{
	close_container(w, ']');
}

void json_string(struct json_writer *w, const char *name, const char *value)
{
	begin_value(w, name);
	put_quoted(w->out, value ? value : "");
}

void json_u64(struct json_writer *w, const char *name, uint64_t value)
{
	begin_value(w, name);
	outbuf_put_u64_right(w->out, value, 0);
}

void json_i64(struct json_writer *w, const char *name, int64_t value)
{
	begin_value(w, name);
	outbuf_put_long(w->out, (long)value);
}

void json_bool(struct json_writer *w, const char *name, bool value)
{
	begin_value(w, name);
	outbuf_puts(w->out, value ? "true" : "false");
}

void json_null(struct json_writer *w, const char *name)
{
	begin_value(w, name);
	outbuf_puts(w->out, "null");
}

void json_string_or_null(struct json_writer *w, const char *name, const char *value)
{
	if (value)
		json_string(w, name, value);
	else
		json_null(w, name);
}
