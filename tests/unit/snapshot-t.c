// SPDX-License-Identifier: GPL-2.0-or-later
/* The snapshot parser against kernel-format text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "kernfs-hash.h"
#include "internal.h"
#include "modrot.h"
#include "tap.h"

/* What the build with two parsers answered (see below). */
#define CHANGED_TEXTS_DIGEST 0xb215e934a4719403ull
#define SIZES_DIGEST 0x9779f17e141e6dd4ull

static struct rot_snapshot *parse(const char *modules, const char *rotting, int *err)
{
	struct rot_snapshot *s = NULL;
	*err = snapshot_parse(modules, strlen(modules), rotting,
				  rotting ? strlen(rotting) : 0, NULL, 0, &s);
	return s;
}

static void live_fields_are_parsed(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"beta 16384 0 - Live 0xffffffffc0004000 (OE)\n"
		"alpha 8192 0 beta,gamma,[permanent], Live 0xffffffffc0000000\n", "", &err);
	is_int(err, 0, "live lines parse");
	is_int(rot_snapshot_count(s), 2, "two modules");
	is_int(rot_snapshot_live_count(s), 2, "both live");
	ok(rot_snapshot_has_rot(s), "an empty rotting file still means a rot kernel");

	const struct rot_module *b = rot_snapshot_module(s, 0);
	is_str(rot_module_name(b), "beta", "newest first, as the kernel lists them");
	is_int(rot_module_size(b), 16384, "size");
	is_str(rot_module_taints(b), "OE", "taint letters without parentheses");
	ok(rot_module_address(b) == 0xffffffffc0004000ull, "address");
	is_int(rot_module_holder_count(b), 0, "'-' means no holders");

	const struct rot_module *a = rot_snapshot_find_live(s, "alpha");
	ok(a != NULL, "find_live finds alpha");
	is_int(rot_module_holder_count(a), 2, "[permanent] is not a holder");
	ok(rot_module_is_permanent(a), "[permanent] marks the module");
	is_str(rot_module_taints(a), "", "no taints");
	ok(rot_snapshot_find_live(s, "delta") == NULL, "find_live of an absent name is NULL");
	rot_snapshot_free(s);
}

static void holders_come_in_sysfs_order(void)
{
	int err;
	struct rot_snapshot *s = parse("a 1 3 zeta,eta,theta, Live 0x1000\n", NULL, &err);
	const struct rot_module *a = rot_snapshot_module(s, 0);
	is_int(rot_module_holder_count(a), 3, "three holders");
	int sorted = 1;
	for (size_t i = 1; i < 3; i++)
		sorted &= kernfs_hash(rot_module_holder(a, i - 1)) <=
			  kernfs_hash(rot_module_holder(a, i));
	ok(sorted, "holders are ordered by kernfs hash");
	ok(!rot_snapshot_has_rot(s), "no rotting file means a stock kernel");
	is_int(rot_module_refcnt(a), 3, "stock refcount kept");
	rot_snapshot_free(s);
}

static void rotting_instances_follow_live(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"a 4096 0 - Live 0xffffffffc0010000\n",
		"a 8192 0 [rotting], Rotting 0xffffffffc0002000\n"
		"a 8192 0 [rotting], Rotting 0xffffffffc0001000\n", &err);
	is_int(err, 0, "rotting lines parse");
	is_int(rot_snapshot_count(s), 3, "one live, two rotting");
	const struct rot_module *r = rot_snapshot_module(s, 1);
	ok(rot_module_is_rotting(r), "second entry rots");
	is_int(rot_module_holder_count(r), 0, "[rotting] is not a holder");
	is_str(rot_state_name(rot_module_state(r)), "rotting", "state name");
	rot_snapshot_free(s);
}

static void unload_between_reads_is_counted_once(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"b 4096 0 - Live 0xffffffffc0020000\n"
		"a 4096 0 - Unloading 0xffffffffc0010000\n",
		"a 4096 0 [rotting], Rotting 0xffffffffc0010000\n", &err);
	is_int(rot_snapshot_count(s), 2, "the module that rotted in between shows once");
	is_int(rot_snapshot_live_count(s), 1, "and only as rotting");
	ok(rot_snapshot_find_live(s, "a") == NULL, "a is not live");
	rot_snapshot_free(s);

	/* Without kernel pointers, addresses are zero and nothing is dropped. */
	s = parse("a 4096 0 - Live 0x0000000000000000\n",
		  "a 4096 0 [rotting], Rotting 0x0000000000000000\n", &err);
	is_int(rot_snapshot_count(s), 2, "zero addresses are never matched");
	rot_snapshot_free(s);

	/* One dropped among others, after a zero address: the rest keep their order. */
	s = parse("z 4096 0 - Live 0x0000000000000000\n"
		  "b 4096 0 - Live 0xffffffffc0020000\n"
		  "a 4096 0 - Unloading 0xffffffffc0010000\n"
		  "c 4096 0 - Live 0xffffffffc0030000\n",
		  "a 4096 0 [rotting], Rotting 0xffffffffc0010000\n"
		  "d 4096 0 [rotting], Rotting 0xffffffffc0040000\n",
		  &err);
	char order[8] = "";
	for (size_t i = 0; i < rot_snapshot_count(s) && i < 7; i++)
		order[i] = rot_module_name(rot_snapshot_module(s, i))[0];
	is_str(order, "zbcad", "the one that rotted goes, the others stay in order");
	is_int(rot_snapshot_live_count(s), 3, "three still live");
	rot_snapshot_free(s);
}

static void malformed_lines_are_refused(void)
{
	static const char *const bad[] = {
		"a 4096 0 - Live\n",                       /* no address */
		"a x 0 - Live 0x1000\n",                   /* size not a number */
		"a 4096 0 - Sleeping 0x1000\n",            /* unknown state */
		"a 4096 0 - Live 1000\n",                  /* address without 0x */
		"a 4096 0 - Live 0x1000 OE\n",             /* taints without () */
		"a 4096 0 - Live 0x1000 (O) extra\n",      /* trailing field */
		"a 99999999999999999999999 0 - Live 0x1\n",/* overflow */
		"a 4096 0 [rotting], Rotting 0x1000\n",    /* rotting line in /proc/modules */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err;
		struct rot_snapshot *s = parse(bad[i], NULL, &err);
		ok(err < 0 && s == NULL, "refused: %.*s", (int)strcspn(bad[i], "\n"), bad[i]);
	}
	int err;
	struct rot_snapshot *s = parse("", "a 1 0 - Live 0x1000\n", &err);
	ok(err == -EPROTO && !s, "a live line in /proc/rotting_modules is refused");
}


static void refusals_name_the_file_line_and_reason(void)
{
	int err;
	struct rot_snapshot *s = parse("a 1 0 - Live 0x1000\n\nb 1 0 x Live 0x2000\n", NULL, &err);
	ok(err == -EPROTO && !s, "a holder without its comma is refused");
	const struct rot_parse_error *pe = rot_parse_error_last();
	ok(pe != NULL, "and the parser says where");
	if (pe) {
		is_str(pe->file, "/proc/modules", "the file");
		is_int(pe->line, 3, "the line, counting the blank one");
		is_str(pe->reason, "the holders field is not \"-\" nor a list ending in a comma",
		       "the reason");
	}
	s = parse("a 1 0 - Live 0x1000\n", "a 1 0 [rotting], Rotting 0x10000000000000000\n", &err);
	pe = rot_parse_error_last();
	ok(err == -EPROTO && pe && strcmp(pe->file, "/proc/rotting_modules") == 0 && pe->line == 1,
	   "a 65-bit address in /proc/rotting_modules line 1");
	if (pe)
		is_str(pe->reason, "the address does not fit 64 bits", "named as such");
	s = parse("a 1 0 - Live 0x1000\n", NULL, &err);
	ok(err == 0 && rot_parse_error_last() == NULL, "a good parse clears the last error");
	rot_snapshot_free(s);

	static const char *const bad[] = {
		"a 1 0 x Live 0x1\n",          /* holders without trailing commas */
		"a 1 0 b,c Live 0x1\n",
		"a 1 0 ,, Live 0x1\n",         /* empty holder names */
		"a 1 0 ../b, Live 0x1\n",      /* a holder that names another directory */
		"a 1 0 [permanent, Live 0x1\n",
		".. 1 0 - Live 0x1\n",
		"a/b 1 0 - Live 0x1\n",
		"a 1 0 - Live 0x1ffffffffffffffff\n",
		"a 1 0 - Live 0x\n",
		"a 1 2147483648 - Live 0x1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = NULL;
		err = snapshot_parse(bad[i], strlen(bad[i]), NULL, 0, NULL, 0, &s);
		ok(err == -EPROTO && !s && rot_parse_error_last(), "refused with a position: %.*s",
		   (int)strcspn(bad[i], "\n"), bad[i]);
	}
	/* A NUL byte would cut the name short for every reader after us. */
	static const char nul[] = "ab\0cd 1 0 - Live 0x1\n";
	s = NULL;
	err = snapshot_parse(nul, sizeof(nul) - 1, NULL, 0, NULL, 0, &s);
	ok(err == -EPROTO && !s && rot_parse_error_last() &&
	   strcmp(rot_parse_error_last()->reason, "a NUL byte inside the line") == 0,
	   "a NUL byte inside a line is refused");
}

static void a_huge_fan_in_sorts_fast_and_in_order(void)
{
	/* 65,535 holders: the most a module line may have; the old insertion
	 * sort took half a minute. */
	size_t n = 65535, cap = 32 + n * 8;
	char *text = malloc(cap), *p = text;
	p += sprintf(p, "hub 1 0 ");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "h%zu,", n - i);
	p += sprintf(p, " Live 0x1000\n");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct rot_snapshot *s;
	int err = snapshot_parse(text, (size_t)(p - text), NULL, 0, NULL, 0, &s);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	is_int(err, 0, "65,535 holders parse");
	ok(ms < 1000, "in %.1f ms (under a second)", ms);
	const struct rot_module *m = rot_snapshot_module(s, 0);
	is_int(rot_module_holder_count(m), n, "every holder kept");
	int sorted = 1;
	for (size_t i = 1; i < n; i++) {
		const char *a = rot_module_holder(m, i - 1), *b = rot_module_holder(m, i);
		uint32_t ha = kernfs_hash(a), hb = kernfs_hash(b);
		sorted &= ha < hb || (ha == hb && strcmp(a, b) < 0);
	}
	ok(sorted, "in kernfs order: hash, then name");
	rot_snapshot_free(s);

	p = text + sprintf(text, "hub 1 0 ");
	for (size_t i = 0; i <= n; i++)
		p += sprintf(p, "h%zu,", i);
	p += sprintf(p, " Live 0x1000\n");
	err = snapshot_parse(text, (size_t)(p - text), NULL, 0, NULL, 0, &s);
	ok(err == -EPROTO && rot_parse_error_last() &&
	   strcmp(rot_parse_error_last()->reason, "more than 65535 holders") == 0,
	   "65,536 holders are refused, not cut short");
	free(text);
}

static void taint_letters_follow_linux_6_1(void)
{
	char buf[40];
	is_int(rot_taint_letters(0, buf, sizeof(buf)), 4, "zero is 'none'");
	is_str(buf, "none", "zero is 'none'");
	rot_taint_letters(ROT_TAINT_FORCED_RMMOD, buf, sizeof(buf));
	is_str(buf, "R", "bit 3 is R");
	rot_taint_letters(8 | 4096 | 8192, buf, sizeof(buf));
	is_str(buf, "ROE", "R, O and E in bit order");
	rot_taint_letters(1UL << 18, buf, sizeof(buf));
	is_str(buf, "N", "bit 18 is N");
	rot_taint_letters(1UL << 19, buf, sizeof(buf));
	is_str(buf, "?", "an unknown bit shows as ?");
	is_int(rot_taint_letters(0xff, buf, 4), -ENOSPC, "short buffer is ENOSPC");
}

static void names_are_normalised(void)
{
	char name[ROT_NAME_MAX + 1];
	is_int(rot_name_normalise("snd-pcm", name), 0, "dash name");
	is_str(name, "snd_pcm", "dashes become underscores");
	rot_name_normalise("/lib/modules/x/snd-hda-intel.ko.zst", name);
	is_str(name, "snd_hda_intel", "a path gives its basename without extension");
	rot_name_normalise("a.ko.xz", name);
	is_str(name, "a", ".ko.xz is stripped");
	rot_name_normalise("x.ko", name);
	is_str(name, "x", ".ko is stripped");
	is_int(rot_name_normalise(".ko", name), -EINVAL, "nothing but an extension");
	is_int(rot_name_normalise("", name), -EINVAL, "empty");
	char longname[80];
	memset(longname, 'a', 56);
	longname[56] = '\0';
	is_int(rot_name_normalise(longname, name), -ENAMETOOLONG, "56 bytes is too long");
	longname[55] = '\0';
	is_int(rot_name_normalise(longname, name), 0, "55 bytes fits");
}

static void kernfs_hash_matches_the_kernel(void)
{
	/* Linux 6.1's kernfs_name_hash(name, NULL) on a 64-bit kernel, with a
	 * signed char (x86 before 6.2) and an unsigned one (6.2 on, arm64):
	 * the kernel's own definition compiled both ways (see
	 * tests/simkernel-render.bats). Bytes up to 0x7f hash alike. */
	static const struct {
		const char *name;
		uint32_t with_signed, with_unsigned;
	} v[] = {
		{ "a", 573381588, 573381588 },
		{ "snd", 1795955646, 1795955646 },
		{ "\xc3\xa9", 1490632645, 586328901 },
		{ "caf\xc3\xa9", 1180589465, 276285720 },
		{ "\xff", 579201663, 682799989 },
		{ "\x80x", 1050659434, 42757364 },
	};
	if (sizeof(unsigned long) == 8) {
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			is_int(kernfs_name_hash(v[i].name, true), v[i].with_signed,
			       "kernfs hash of a name (signed char)");
			is_int(kernfs_name_hash(v[i].name, false), v[i].with_unsigned,
			       "kernfs hash of a name (unsigned char)");
		}
	}
	ok(kernfs_name_hash("", true) == 2 && kernfs_name_hash("", false) == 2,
	   "empty name hashes to 2 (hash < 2 is bumped)");
	ok(kernfs_hash("snd") != kernfs_hash("dns"), "order of bytes matters");

	bool abi_signed = (char)-1 < 0;
	ok(kernfs_char_signed("6.1.0-rot") == abi_signed, "6.1 has its architecture's char");
	ok(kernfs_char_signed("5.10.0") == abi_signed, "5.10 has its architecture's char");
	ok(!kernfs_char_signed("6.2.0"), "6.2 has an unsigned char");
	ok(!kernfs_char_signed("6.18.4-1"), "6.18 has an unsigned char");
	ok(!kernfs_char_signed("7.0"), "7.0 has an unsigned char");

	/* The public hash is the running kernel's. */
	struct utsname u;
	ok(uname(&u) == 0, "uname");
	is_int(kernfs_hash("caf\xc3\xa9"),
	       kernfs_name_hash("caf\xc3\xa9", kernfs_char_signed(u.release)),
	       "kernfs_hash hashes as the running kernel does");
}

/* The reference: a digit at a time, as strtoull would, but strict. */
static bool reference_hex(const char *s, uint64_t *v)
{
	*v = 0;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		*v = *v << 4 | d;
	}
	return true;
}

/*
 * 16-digit addresses take eight digits at a time (snapshot.c, hex8()):
 * every byte next to a range boundary, in every position, and random mixes,
 * against the reference, through the parser itself.
 */
static void addresses_parse_as_a_digit_at_a_time_would(void)
{
	static const char edge[] = "0123456789abcdefABCDEF/:@G`gz\x7f\x80\xc3\xff\x10\x19\x06";
	size_t nedge = sizeof(edge) - 1;
	unsigned seed = 1;
	int wrong = 0, tried = 0;
	for (int round = 0; round < 20000; round++) {
		char digits[17];
		for (int i = 0; i < 16; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Mostly valid digits, so that one odd byte decides. */
			digits[i] = edge[(seed >> 16) % (round % 2 ? nedge : 22)];
		}
		digits[16] = '\0';
		if (round < 16 * (int)nedge) {
			memcpy(digits, "ffffffffc0001000", 16);
			digits[round % 16] = edge[round / 16];
		}
		char line[64];
		snprintf(line, sizeof(line), "a 4096 0 - Live 0x%s\n", digits);
		struct rot_snapshot *s = NULL;
		int err = snapshot_parse(line, strlen(line), NULL, 0, NULL, 0, &s);
		uint64_t want;
		bool valid = reference_hex(digits, &want);
		tried++;
		if (valid ? err != 0 || rot_module_address(rot_snapshot_module(s, 0)) != want
			  : err != -EPROTO) {
			if (wrong++ < 5)
				printf("# 0x%s: err %d\n", digits, err);
		}
		rot_snapshot_free(s);
	}
	is_int(wrong, 0, "16-digit addresses agree with a digit-at-a-time parse");
	ok(tried == 20000, "every case tried");
}

/* FNV-1a of len bytes at p, onto h. */
static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	for (const unsigned char *c = p; len--; c++)
		h = (h ^ *c) * 1099511628211ull;
	return h;
}

/* The parser's whole answer to a text, onto h: the refusal (error, file,
 * line, reason), or every field of every module. */
static uint64_t answer(uint64_t h, const char *modules, size_t mlen, const char *rotting,
		       size_t rlen)
{
	struct rot_snapshot *s = NULL;
	char buf[512];
	int err = snapshot_parse(modules, mlen, rotting, rlen, NULL, 0, &s);
	const struct rot_parse_error *pe = rot_parse_error_last();
	if (err < 0) {
		int n = snprintf(buf, sizeof(buf), "E %d %s:%zu:%s\n", err, pe ? pe->file : "-",
				 pe ? pe->line : 0, pe ? pe->reason : "-");
		return fnv(h, buf, (size_t)n);
	}
	int n = snprintf(buf, sizeof(buf), "OK %zu %zu %d\n", rot_snapshot_count(s),
			 rot_snapshot_live_count(s), rot_snapshot_has_rot(s));
	h = fnv(h, buf, (size_t)n);
	for (size_t i = 0; i < rot_snapshot_count(s); i++) {
		const struct rot_module *m = rot_snapshot_module(s, i);
		n = snprintf(buf, sizeof(buf), " [%s] %llu %ld %d %llx [%s] %d %lu %d %d %zu:",
			     rot_module_name(m), (unsigned long long)rot_module_size(m),
			     rot_module_refcnt(m), rot_module_state(m),
			     (unsigned long long)rot_module_address(m), rot_module_taints(m),
			     rot_module_is_permanent(m), rot_module_pins(m),
			     rot_module_pins_known(m), rot_module_is_rot_safe(m),
			     rot_module_holder_count(m));
		h = fnv(h, buf, (size_t)n);
		for (size_t k = 0; k < rot_module_holder_count(m); k++)
			h = fnv(h, rot_module_holder(m, k), strlen(rot_module_holder(m, k)) + 1);
	}
	rot_snapshot_free(s);
	return h;
}

/*
 * Lines of every shape, each changed at random (a byte replaced by one
 * that matters to the grammar, removed, or doubled): the parser's answers,
 * every refusal and every field, are those of the build that had two
 * parsers (a one-pass one for the kernel's own lines, and parse_line()
 * for the rest), which were compared with each other on these texts.
 * The digest changes when any answer does.
 */
static void changed_lines_get_the_answers_they_always_got(void)
{
	static const char *const lines[] = {
		"snd_hda_intel 57344 3 snd_hda_codec,snd_pcm, Live 0xffffffffc0a3c000 (OE)\n",
		"a 1 0 - Live 0x0000000000001000\n",
		"b 16384 0 [permanent], Live 0xffffffffc0004000\n",
		"c 8192 2 x,y,[permanent],z, Live 0xffffffffc0000000\n",
		"d 4096 -1 - Live 0xffffffffc0008000\n",
		"e 4096 0 - Loading 0xffffffffc0009000\n",
		"f 4096 0 - Unloading 0xffffffffc0009000 (P)\n",
		"g 4096 0 - Live 0x1000\n",
		"pop04999 47676 0 [rotting], Rotting 0xffffffffcb9c4000\n",
		"pop04998 60504 3 [rotting],[permanent], Rotting 0xffffffffcb9b5000 (E)\n",
	};
	static const char alphabet[] = " ,\n-[]()09afxAF/.LR";
	const char extra[] = { '\0', (char)0x80, (char)0xc3, (char)0xff, '\t', '\\' };
	unsigned seed = 21;
	uint64_t h = 14695981039346656037ull;
	size_t refused = 0;
	for (int round = 0; round < 40000; round++) {
		char m[512], r[512];
		size_t ml = 0, rl = 0;
		for (size_t i = 0; i < 3; i++) {
			seed = seed * 1103515245u + 12345u;
			const char *l = lines[(seed >> 16) % 10];
			char *to = strstr(l, "Rotting") ? r : m;
			size_t *len = to == r ? &rl : &ml;
			memcpy(to + *len, l, strlen(l));
			*len += strlen(l);
		}
		char *text = (round & 1) ? r : m;
		size_t *len = (round & 1) ? &rl : &ml;
		for (int change = 0; change < 1 + round % 3 && *len > 0; change++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % *len;
			unsigned what = (seed >> 24) % 4;
			seed = seed * 1103515245u + 12345u;
			char c = (seed >> 20) % 8 == 0 ? extra[(seed >> 8) % sizeof(extra)]
						       : alphabet[(seed >> 8) % (sizeof(alphabet) - 1)];
			if (what == 0 || *len > 400) {
				text[at] = c;
			} else if (what == 1) {
				memmove(text + at, text + at + 1, *len - at - 1);
				(*len)--;
			} else if (what == 2) {
				memmove(text + at + 1, text + at, *len - at);
				text[at] = c;
				(*len)++;
			} else {
				size_t n = (*len - at) < 12 ? *len - at : 12;
				memmove(text + at + n, text + at, *len - at);
				*len += n;
			}
		}
		h = answer(h, m, ml, (round % 4) < 2 ? r : NULL, rl);
		refused += rot_parse_error_last() != NULL;
	}
	ok(refused > 10000 && refused < 30000, "%zu of 40,000 changed texts refused", refused);
	printf("# digest %016llx\n", (unsigned long long)h);
	ok(h == CHANGED_TEXTS_DIGEST, "40,000 changed texts: every answer as before");

	/* sizes of one to nine digits, leading zeros, counts of one to three */
	char line[200];
	h = 14695981039346656037ull;
	unsigned long long size = 0;
	for (int i = 0; i < 3000; i++) {
		size = i < 20 ? (unsigned long long)i : size * 7 + 13;
		size %= 1000000000ull;
		snprintf(line, sizeof(line), "a %s%llu %d - Live 0x0000000000001000\n",
			 i % 5 == 0 ? "0" : "", size, i % 300);
		h = answer(h, line, strlen(line), NULL, 0);
	}
	printf("# digest %016llx\n", (unsigned long long)h);
	ok(h == SIZES_DIGEST, "3,000 sizes and counts: every answer as before");
}

/* The edges of each field, and the reason each is refused for (NULL:
 * taken). In /proc/rotting_modules the same line is refused for the same
 * reason, or, when taken here, as not Rotting. */
static void the_edges_of_each_field(void)
{
	static const struct {
		const char *line, *reason;
	} edges[] = {
		{ "a 1 2147483647 - Live 0x0000000000001000\n", NULL },
		{ "a 1 2147483648 - Live 0x0000000000001000\n", "the reference count does not fit 32 bits" },
		{ "a 1 -2147483647 - Live 0x0000000000001000\n", NULL },
		{ "a 1 -2147483648 - Live 0x0000000000001000\n", "the reference count does not fit 32 bits" },
		{ "a 1 4294967296 - Live 0x0000000000001000\n", "the reference count does not fit 32 bits" },
		{ "a 1 99999999999 - Live 0x0000000000001000\n", "the reference count does not fit 32 bits" },
		{ "a 1 -0 - Live 0x0000000000001000\n", NULL },
		{ "a 1 - - Live 0x0000000000001000\n", NULL },
		{ "a 1 007 - Live 0x0000000000001000\n", NULL },
		{ "a 9999999999999999999 0 - Live 0x0000000000001000\n", NULL },
		{ "a 18446744073709551615 0 - Live 0x0000000000001000\n", NULL },
		{ "a 18446744073709551616 0 - Live 0x0000000000001000\n", "the size does not fit 64 bits" },
		{ "a 0018446744073709551615 0 - Live 0x0000000000001000\n", NULL },
		{ "a 1 -1 [rotting], Rotting 0x0000000000001000\n", "the pin count is not a number" },
		{ "a 1 1 [rotting], Live 0x0000000000001000\n", NULL },
		{ "a 1 1 [other], Live 0x0000000000001000\n", NULL },
		{ "a 1 1 [permanent],[permanent], Live 0x0000000000001000\n", NULL },
		{ "a 1 1 x,x, Live 0x0000000000001000\n", NULL },
		{ "a 1 1 .,b, Live 0x0000000000001000\n", "a holder's name is empty, too long or not a module name" },
		{ "a 1 1 ..,b, Live 0x0000000000001000\n", "a holder's name is empty, too long or not a module name" },
		{ "a 1 1 ...,b, Live 0x0000000000001000\n", NULL },
		{ "a 1 1 b,,c, Live 0x0000000000001000\n", "a holder's name is empty, too long or not a module name" },
		{ "a 1 1 b,c Live 0x0000000000001000\n", "the holders field is not \"-\" nor a list ending in a comma" },
		{ ". 1 0 - Live 0x0000000000001000\n", "the name is empty, too long or not a module name" },
		{ ".. 1 0 - Live 0x0000000000001000\n", "the name is empty, too long or not a module name" },
		{ "... 1 0 - Live 0x0000000000001000\n", NULL },
		{ "a 1 0 - Live 0x0000000000001000 ()\n", NULL },
		{ "a 1 0 - Live 0x0000000000001000 (\n", "the taints are not in parentheses" },
		{ "a 1 0 - Live 0x0000000000001000 (O)E)\n", NULL },
		{ "a 1 0 - Live 0x0000000000001000 (O E)\n", "more fields than the kernel prints" },
		{ "a 1 0 - Live 0x0000000000001000 (OE) \n", "more fields than the kernel prints" },
		{ "a 1 0 - Live 0x0000000000001000 \n", "the taints are not in parentheses" },
		{ "a 1 0 - Live 0x00000000000010000\n", NULL },
		{ "a 1 0 - Live 0x000000000000100g\n", "the address is not 0x and hex digits" },
		{ "a 1 0 - Live 0X0000000000001000\n", "the address is not 0x and hex digits" },
		{ "a 1 0 - Live 0x0000000000001000", NULL },
		{ "a 1 0 - Live 0x0000000000001000 (OE)", NULL },
		{ "a  1 0 - Live 0x0000000000001000\n", "the size is not a number" },
		{ "a 1 0 -  Live 0x0000000000001000\n", "the state is not Live, Loading, Unloading or Rotting" },
		{ "a 1 0 - Live  0x0000000000001000\n", "the address is not 0x and hex digits" },
		{ "a 1 0 - Livex 0x0000000000001000\n", "the state is not Live, Loading, Unloading or Rotting" },
		{ "a 1 0 - Rottingx 0x0000000000001000\n", "the state is not Live, Loading, Unloading or Rotting" },
		{ "\n\na 1 0 - Live 0x0000000000001000\n\n", NULL },
	};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		const char *l = edges[i].line;
		size_t len = strlen(l);
		for (int rotting = 0; rotting < 2; rotting++) {
			struct rot_snapshot *s = NULL;
			int err = rotting ? snapshot_parse("", 0, l, len, NULL, 0, &s)
					  : snapshot_parse(l, len, NULL, 0, NULL, 0, &s);
			const char *want = edges[i].reason;
			if (rotting && !want)
				want = "a module that is not Rotting";
			const struct rot_parse_error *pe = rot_parse_error_last();
			const char *got = err == 0 ? NULL : pe ? pe->reason : "(no reason)";
			ok(want ? got && strcmp(got, want) == 0 : err == 0 && s, "%s: %.*s: %s",
			   rotting ? "rotting" : "modules", (int)strcspn(l + (l[0] == '\n') * 2, "\n"),
			   l + (l[0] == '\n') * 2, want ? want : "taken");
			rot_snapshot_free(s);
		}
	}
	/* names and holders at the limit, and just past it */
	char name[80], line[200];
	for (size_t n = ROT_NAME_MAX - 1; n <= ROT_NAME_MAX + 2; n++) {
		memset(name, 'n', n);
		name[n] = '\0';
		snprintf(line, sizeof(line), "%s 1 0 %s, Live 0x0000000000001000\n", name, name);
		struct rot_snapshot *s = NULL;
		int err = snapshot_parse(line, strlen(line), NULL, 0, NULL, 0, &s);
		ok(n <= ROT_NAME_MAX ? err == 0 : err == -EPROTO, "a name and a holder of %zu bytes: %s",
		   n, n <= ROT_NAME_MAX ? "taken" : "refused");
		rot_snapshot_free(s);
	}
	/* 63 to 66 holders, in kernfs order */
	char wide[2048];
	for (size_t n = 63; n <= 66; n++) {
		char *p = wide + sprintf(wide, "hub 1 0 ");
		for (size_t i = 0; i < n; i++)
			p += sprintf(p, "h%zu,", i);
		p += sprintf(p, " Live 0x0000000000001000\n");
		struct rot_snapshot *s = NULL;
		int err = snapshot_parse(wide, (size_t)(p - wide), NULL, 0, NULL, 0, &s);
		const struct rot_module *m = err ? NULL : rot_snapshot_module(s, 0);
		bool sorted = m && rot_module_holder_count(m) == n;
		for (size_t i = 1; sorted && i < n; i++) {
			const char *x = rot_module_holder(m, i - 1), *y = rot_module_holder(m, i);
			uint32_t hx = kernfs_hash(x), hy = kernfs_hash(y);
			sorted = hx < hy || (hx == hy && strcmp(x, y) < 0);
		}
		ok(sorted, "%zu holders, every one kept, in kernfs order", n);
		rot_snapshot_free(s);
	}
}

int main(void)
{
	live_fields_are_parsed();
	holders_come_in_sysfs_order();
	rotting_instances_follow_live();
	unload_between_reads_is_counted_once();
	malformed_lines_are_refused();
	refusals_name_the_file_line_and_reason();
	a_huge_fan_in_sorts_fast_and_in_order();
	taint_letters_follow_linux_6_1();
	names_are_normalised();
	kernfs_hash_matches_the_kernel();
	addresses_parse_as_a_digit_at_a_time_would();
	changed_lines_get_the_answers_they_always_got();
	the_edges_of_each_field();
	return tap_done();
}
