// SPDX-License-Identifier: GPL-2.0-or-later
/* The tools' output helpers: the sanitiser, the JSON writer, the module
 * name rules and the exit-code rule. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli-escape.h"
#include "cli-exit.h"
#include "jsonwrt.h"
#include "modrot.h"
#include "outbuf.h"
#include "promlabel-decode.h"
#include "promlabel.h"
#include "sizewords.h"
#include "tap.h"

static void sanitiser_escapes_what_a_terminal_obeys(void)
{
	char buf[256];
	is_str(cli_safe("snd_pcm", buf, sizeof(buf)), "snd_pcm", "plain ASCII is kept");
	is_str(cli_safe("a\033[2Jb", buf, sizeof(buf)), "a\\x1b[2Jb", "ESC is escaped");
	is_str(cli_safe("\r\a\t\x7f", buf, sizeof(buf)), "\\x0d\\x07\\x09\\x7f", "CR, BEL, TAB, DEL");
	is_str(cli_safe("a\\b", buf, sizeof(buf)), "a\\x5cb", "the backslash, so escapes are unambiguous");
	is_str(cli_safe("caf\xc3\xa9", buf, sizeof(buf)), "caf\xc3\xa9", "valid UTF-8 is kept");
	is_str(cli_safe("\xc2\x9b" "1m", buf, sizeof(buf)), "\\xc2\\x9b1m", "a C1 control (CSI) is escaped");
	is_str(cli_safe("\xff\xc3", buf, sizeof(buf)), "\\xff\\xc3", "invalid and cut UTF-8");
	is_str(cli_safe("\xe0\x80\x80", buf, sizeof(buf)), "\\xe0\\x80\\x80", "an overlong form");
	is_str(cli_safe("\xed\xa0\x80", buf, sizeof(buf)), "\\xed\\xa0\\x80", "a surrogate");
	is_str(cli_safe("ab\033cd", buf, 6), "ab", "truncation never splits an escape");
	ok(cli_text_is_safe("alpha beta", 10), "a blank is safe");
	/* Every unsafe byte, at every place in and after the first words. */
	const unsigned char unsafe[] = { 0x01, 0x1b, 0x1f, 0x7f, '\\', 0x80, 0xff };
	char text[40];
	bool all_found = true;
	for (size_t u = 0; u < sizeof(unsafe); u++) {
		for (size_t at = 0; at < 24; at++) {
			memset(text, '~', sizeof(text));
			text[at] = (char)unsafe[u];
			all_found &= !cli_text_is_safe(text, 24);
			memset(text, ' ', sizeof(text));
			all_found &= cli_text_is_safe(text, 24);
		}
	}
	ok(all_found, "an unsafe byte is found wherever it is, and '~' and ' ' pass");
	ok(!cli_text_is_safe("x\ny", 3), "a newline is not");
	char *dup = cli_safe_dup("\033");
	is_str(dup, "\\x1b", "cli_safe_dup escapes too");
	free(dup);
	struct outbuf o;
	outbuf_init(&o, 16);
	cli_put_safe(&o, "n\033");
	outbuf_putc(&o, '\0');
	is_str(o.buf, "n\\x1b", "cli_put_safe appends the escaped text");
	outbuf_release(&o);
}

static const char *json_of(void (*write)(struct json_writer *))
{
	static struct outbuf o;
	struct json_writer w;
	outbuf_release(&o);
	outbuf_init(&o, 64);
	w = (struct json_writer){ .out = &o };
	json_open_object(&w, NULL);
	write(&w);
	json_close_object(&w);
	outbuf_putc(&o, '\0');
	return o.buf;
}

static void strings(struct json_writer *w)
{
	json_string(w, "s", "q\"b\\c\033\r\xff\xc3\xa9");
	json_string(w, "empty", NULL);
}

static void empty_containers(struct json_writer *w)
{
	json_open_array(w, "list");
	json_close_array(w);
	json_open_object(w, "obj");
	json_close_object(w);
}

static void typed(struct json_writer *w)
{
	json_bool(w, "t", true);
	json_bool(w, "f", false);
	json_u64(w, "big", UINT64_MAX);
	json_i64(w, "neg", -3);
	json_null(w, "unknown");
	json_open_array(w, "a");
	json_string(w, NULL, "x");
	json_string(w, NULL, "y");
	json_close_array(w);
}

static void json_writer_writes_valid_typed_json(void)
{
	is_str(json_of(strings),
	       "{\n   \"s\": \"q\\\"b\\\\c\\u001b\\u000d\\ufffd\xc3\xa9\",\n   \"empty\": \"\"\n}\n",
	       "strings: quotes, backslashes, controls escaped; bad UTF-8 is U+FFFD");
	is_str(json_of(empty_containers), "{\n   \"list\": [],\n   \"obj\": {}\n}\n",
	       "empty containers are [] and {}");
	is_str(json_of(typed),
	       "{\n   \"t\": true,\n   \"f\": false,\n   \"big\": 18446744073709551615,\n"
	       "   \"neg\": -3,\n   \"unknown\": null,\n   \"a\": [\n      \"x\",\n      \"y\"\n   ]\n}\n",
	       "booleans, numbers, null and arrays");
}

/* Nesting past JSON_DEPTH_MAX is refused as a whole, never written with
 * its closers wrong; at the limit the document is still whole. */
static void json_writer_refuses_what_it_cannot_nest(void)
{
	for (unsigned extra = 0; extra <= 1; extra++) {
		struct outbuf o;
		struct json_writer w;
		outbuf_init(&o, 64);
		w = (struct json_writer){ .out = &o };
		json_open_object(&w, NULL);
		for (unsigned i = 1; i < JSON_DEPTH_MAX + extra; i++)
			json_open_array(&w, i == 1 ? "a" : NULL);
		json_u64(&w, NULL, 1);
		for (unsigned i = 1; i < JSON_DEPTH_MAX + extra; i++)
			json_close_array(&w);
		json_close_object(&w);
		if (extra)
			is_int(o.err, -E2BIG, "a container past JSON_DEPTH_MAX makes the document an error");
		else
			ok(o.err == 0 && w.depth == 0 && w.overflow == 0,
			   "JSON_DEPTH_MAX levels are written whole");
		outbuf_release(&o);
	}
}

static const char *special_text;

static void special(struct json_writer *w)
{
	json_string(w, NULL, special_text);
}

static void json_writer_escapes_wherever_the_byte_is(void)
{
	const unsigned char specials[] = { '"', '\\', 0x01, 0x1f, 0x7f, 0xff };
	char text[25];
	bool all_escaped = true;
	special_text = text;
	for (size_t k = 0; k < sizeof(specials); k++) {
		for (size_t at = 0; at < 24; at++) {
			memset(text, '~', 24);
			text[24] = '\0';
			text[at] = (char)specials[k];
			const char *out = json_of(special);
			size_t backslashes = 0;
			for (const char *c = out; *c; c++)
				backslashes += *c == '\\';
			/* Each special becomes one escape: \", \\ (two), \u00XX, \ufffd. */
			all_escaped &= backslashes == (specials[k] == '\\' ? 2u : 1u);
			all_escaped &= memchr(out, specials[k], strlen(out)) == NULL ||
				       specials[k] == '"' || specials[k] == '\\';
		}
	}
	ok(all_escaped, "a byte JSON must escape is escaped at every place in a string");
}

static void names_that_name_no_module_are_refused(void)
{
	char name[ROT_NAME_MAX + 1];
	const char *bad[] = { ".", "..", "a b", "a/b", "../..", "/x/../..", "a\tb", "x\x7f",
			      "\033", "caf\xc3\xa9", "dir/", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		is_int(rot_name_normalise(bad[i], name), -EINVAL, "a name that names no module");
	is_int(rot_name_normalise("../delta.ko", name), 0, "a relative module file path");
	is_str(name, "delta", "gives its module");
	is_int(rot_name_normalise("/m/snd-pcm.ko.zst", name), 0, "an absolute one");
	is_str(name, "snd_pcm", "gives its module, normalised");
	is_int(rot_name_normalise("nf_conntrack", name), 0, "a plain name");
}

static void permission_failures_and_their_cascades_exit_4(void)
{
	struct cli_outcome o = { 0 };
	is_int(cli_outcome_exit(&o), CLI_EXIT_OK, "no failure: 0");
	cli_outcome_failed(&o, -EACCES);
	is_int(cli_outcome_exit(&o), CLI_EXIT_PERM, "EACCES: 4");
	cli_outcome_cascaded(&o);
	is_int(cli_outcome_exit(&o), CLI_EXIT_PERM, "EACCES and what follows from it: 4");
	cli_outcome_failed(&o, -EPERM);
	is_int(cli_outcome_exit(&o), CLI_EXIT_PERM, "and EPERM: still 4");
	cli_outcome_failed(&o, -ENOENT);
	is_int(cli_outcome_exit(&o), CLI_EXIT_PARTIAL, "with another root cause: 1");
	struct cli_outcome c = { 0 };
	cli_outcome_cascaded(&c);
	is_int(cli_outcome_exit(&c), CLI_EXIT_PARTIAL, "a cascade alone is no permission error");
	is_int(cli_exit_for_errno(-EACCES), CLI_EXIT_PERM, "EACCES maps to 4");
	is_int(cli_exit_for_errno(-EPERM), CLI_EXIT_PERM, "EPERM maps to 4");
}

/* The escaped label of s[0..n), NUL-terminated, in buf. */
static const char *label(const char *s, size_t n, char *buf, size_t cap)
{
	struct outbuf o;
	if (outbuf_init(&o, 64) < 0)
		return "";
	prom_label_escape(&o, s, n);
	size_t len = o.len < cap - 1 ? o.len : cap - 1;
	memcpy(buf, o.buf, len);
	buf[len] = '\0';
	outbuf_release(&o);
	return buf;
}

/* Escaped, decoded back to itself; in the text no raw quote or newline,
 * and every backslash begins a format escape. */
static bool label_round_trips(const char *s, size_t n)
{
	char esc[64], back[64];
	label(s, n, esc, sizeof(esc));
	size_t m = strlen(esc);
	for (size_t i = 0; i < m; i++) {
		if (esc[i] == '"' || esc[i] == '\n')
			return false;
		if (esc[i] == '\\' && (i + 1 == m || !strchr("\\\"n", esc[++i])))
			return false;
	}
	/* All of it UTF-8, as the format requires. */
	for (size_t i = 0, len; i < m; i += len)
		if (!(len = cli_utf8_len((const unsigned char *)esc + i, m - i)))
			return false;
	long k = prom_label_decode(esc, m, back);
	return k == (long)n && !memcmp(back, s, n);
}

static void metrics_labels_are_injective(void)
{
	char buf[64];
	/* The pair node_exporter saw as one series. */
	is_str(label("f\xff", 2, buf, sizeof(buf)), "f\\\\xFF", "a byte that is not UTF-8: \\xHH");
	is_str(label("f\\xFF", 5, buf, sizeof(buf)), "f\\\\\\\\xFF", "a backslash is doubled first, then escaped");
	is_str(label("a\"b\nc", 5, buf, sizeof(buf)), "a\\\"b\\nc", "quote and newline as the format says");
	is_str(label("caf\xc3\xa9", 5, buf, sizeof(buf)), "caf\xc3\xa9", "valid UTF-8 is kept");
	is_str(label("\xed\xa0\x80", 3, buf, sizeof(buf)), "\\\\xED\\\\xA0\\\\x80", "a surrogate is not UTF-8");
	/* Every string of up to two bytes, and three over the bytes that
	 * matter (backslash, quote, newline, 'x', hex digits, NUL, UTF-8 lead
	 * and continuation bytes): each decodes back to itself, so no two
	 * escape alike. */
	bool all = label_round_trips("", 0);
	char s[3];
	for (int a = 0; a < 256; a++) {
		s[0] = (char)a;
		all &= label_round_trips(s, 1);
		for (int b = 0; b < 256; b++) {
			s[1] = (char)b;
			all &= label_round_trips(s, 2);
		}
	}
	static const unsigned char some[] = { 0, '\\', '"', '\n', 'x', 'F', 'f', '0', 'a',
					       0x7f, 0x80, 0xbf, 0xc2, 0xc3, 0xe0, 0xed, 0xf0, 0xf4, 0xff };
	for (size_t a = 0; a < sizeof(some); a++)
		for (size_t b = 0; b < sizeof(some); b++)
			for (size_t c = 0; c < sizeof(some); c++) {
				s[0] = (char)some[a], s[1] = (char)some[b], s[2] = (char)some[c];
				all &= label_round_trips(s, 3);
			}
	ok(all, "every short name decodes back from its label: the escaping is injective");
	char out[16];
	is_int(prom_label_decode("\\\\x41", 5, out), -1, "an escape escape never writes is refused");
	is_int(prom_label_decode("a\\q", 3, out), -1, "an escape the format does not know is refused");
}

static void sizes_read_as_lsblk_prints_them(void)
{
	static const struct {
		uint64_t bytes;
		const char *human;
	} cases[] = {
		{ 0, "0B" },
		{ 1, "1B" },
		{ 1023, "1023B" },
		{ 1024, "1K" },
		{ 1075, "1K" },   /* 1.0498K: 0.049 rounds down */
		{ 1076, "1.1K" }, /* 1.0508K: 0.050 rounds up */
		{ 1920, "1.9K" },
		{ 2047, "2K" }, /* 1.999K: the tenths carry into the whole */
		{ 3328, "3.3K" },
		{ 5000, "4.9K" },
		{ 81920, "80K" },
		{ 1048575, "1024K" }, /* as lsblk: the carry does not change the letter */
		{ 1048576, "1M" },
		{ 1572864, "1.5M" },
		{ UINT64_C(5) << 30, "5G" },
		{ UINT64_C(1) << 40, "1T" },
		{ UINT64_C(3) << 50, "3P" },
		{ UINT64_C(1) << 60, "1E" },
		{ UINT64_MAX, "16E" },
	};
	char buf[SIZE_WORDS_MAX];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "%" PRIu64 " bytes are %s", cases[i].bytes,
			 cases[i].human);
		is_str(size_human(cases[i].bytes, buf), cases[i].human, what);
	}

	size_words_set_bytes(false);
	is_str(size_words(1920, "bytes", buf), "1.9K", "a size in words: the letter says bytes");
	is_str(size_words(1500, "per-CPU bytes", buf), "1.5K per-CPU", "the other words stay");
	is_str(size_words(692, "", buf), "692B", "no words");
	is_str(size_words(5000, "", buf), "4.9K", "a table cell");
	size_words_set_bytes(true);
	is_str(size_words(5000, "", buf), "5000", "-b is remembered");
	is_str(size_words(1920, "bytes", buf), "1920 bytes", "-b: the bytes and the words");
	is_str(size_words(1500, "per-CPU bytes", buf), "1500 per-CPU bytes", "-b: all the words");
	is_str(size_words(692, "", buf), "692", "-b: the bare number");
	is_str(size_words(UINT64_MAX, "", buf), "18446744073709551615", "-b: a table cell");
	size_words_set_bytes(false);
}

/* Numbers right-aligned as printf("%*llu") aligns them, at every width,
 * through each digit count and the 32-bit edge. */
static void numbers_align_as_printf_does(void)
{
	static const uint64_t values[] = { 0,	       1,	    9,		10,	     99,
					   100,	       12345,	    99999999,	100000000,   4294967295u,
					   4294967296u, 9999999999u, 10000000000u, UINT64_MAX };
	struct outbuf o;
	outbuf_init(&o, 64);
	size_t wrong = 0, tried = 0;
	char want[64];
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		for (size_t width = 0; width < 26; width++) {
			o.len = 0;
			outbuf_put_u64_right(&o, values[i], width);
			snprintf(want, sizeof(want), "%*" PRIu64, (int)width, values[i]);
			wrong += o.len != strlen(want) || memcmp(o.buf, want, o.len) != 0;
			tried++;
		}
	for (uint64_t v = 1; v < UINT64_MAX / 3; v = v * 3 + 1) {
		o.len = 0;
		outbuf_put_u64_right(&o, v, 8);
		snprintf(want, sizeof(want), "%8" PRIu64, v);
		wrong += o.len != strlen(want) || memcmp(o.buf, want, o.len) != 0;
		tried++;
	}
	is_int(wrong, 0, "outbuf_put_u64_right() aligns as printf does");
	ok(tried > 400, "%zu numbers and widths tried", tried);
	outbuf_release(&o);
}

int main(void)
{
	numbers_align_as_printf_does();
	sanitiser_escapes_what_a_terminal_obeys();
	json_writer_writes_valid_typed_json();
	json_writer_refuses_what_it_cannot_nest();
	json_writer_escapes_wherever_the_byte_is();
	names_that_name_no_module_are_refused();
	permission_failures_and_their_cascades_exit_4();
	metrics_labels_are_injective();
	sizes_read_as_lsblk_prints_them();
	return tap_done();
}
