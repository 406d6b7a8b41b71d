// SPDX-License-Identifier: GPL-2.0-or-later
/* The snapshot parser against kernel-format text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>

#include "kernfs-hash.h"
#include "modrot.h"
#include "snapshot-same.h"
#include "tap.h"

static struct rot_snapshot *parse(const char *modules, const char *rotting, int *err)
{
	struct rot_snapshot *s = NULL;
	*err = snapshot_parse(modules, strlen(modules), rotting,
				  rotting ? strlen(rotting) : 0, &s);
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
		err = snapshot_parse(bad[i], strlen(bad[i]), NULL, 0, &s);
		ok(err == -EPROTO && !s && rot_parse_error_last(), "refused with a position: %.*s",
		   (int)strcspn(bad[i], "\n"), bad[i]);
	}
	/* A NUL byte would cut the name short for every reader after us. */
	static const char nul[] = "ab\0cd 1 0 - Live 0x1\n";
	s = NULL;
	err = snapshot_parse(nul, sizeof(nul) - 1, NULL, 0, &s);
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
	int err = snapshot_parse(text, (size_t)(p - text), NULL, 0, &s);
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
	err = snapshot_parse(text, (size_t)(p - text), NULL, 0, &s);
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
		int err = snapshot_parse(line, strlen(line), NULL, 0, &s);
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

/*
 * The one-pass parser takes the lines a kernel prints and hands anything
 * else to parse_line(): whatever the line, both ways must agree. Lines of
 * every shape, each changed at random (a byte replaced by one that
 * matters to the grammar, removed, or doubled), parsed both ways.
 */
static void both_parsers_agree_on_every_line(void)
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
	size_t tried = 0, differ = 0;
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
		char why[768];
		const char *diff = snapshot_both_ways(m, ml, (round % 4) < 2 ? r : NULL, rl, why,
						      sizeof(why));
		tried++;
		if (diff && differ++ < 3)
			printf("# %s\n#   modules: %.*s#   rotting: %.*s\n", diff, (int)ml, m, (int)rl,
			       r);
	}
	is_int(differ, 0, "the one-pass parser and parse_line() agree on 40,000 changed texts");
	ok(tried == 40000, "every text tried");

	/* The edges of each field, on lines the one-pass parser takes up */
	static const char *const edges[] = {
		"a 1 2147483647 - Live 0x0000000000001000\n",
		"a 1 2147483648 - Live 0x0000000000001000\n",
		"a 1 -2147483647 - Live 0x0000000000001000\n",
		"a 1 -2147483648 - Live 0x0000000000001000\n",
		"a 1 4294967296 - Live 0x0000000000001000\n",
		"a 1 99999999999 - Live 0x0000000000001000\n",
		"a 1 -0 - Live 0x0000000000001000\n",
		"a 1 - - Live 0x0000000000001000\n",
		"a 1 007 - Live 0x0000000000001000\n",
		"a 9999999999999999999 0 - Live 0x0000000000001000\n",
		"a 18446744073709551615 0 - Live 0x0000000000001000\n",
		"a 18446744073709551616 0 - Live 0x0000000000001000\n",
		"a 0018446744073709551615 0 - Live 0x0000000000001000\n",
		"a 1 -1 [rotting], Rotting 0x0000000000001000\n",
		"a 1 1 [rotting], Live 0x0000000000001000\n",
		"a 1 1 [other], Live 0x0000000000001000\n",
		"a 1 1 [permanent],[permanent], Live 0x0000000000001000\n",
		"a 1 1 x,x, Live 0x0000000000001000\n",
		"a 1 1 .,b, Live 0x0000000000001000\n",
		"a 1 1 ..,b, Live 0x0000000000001000\n",
		"a 1 1 ...,b, Live 0x0000000000001000\n",
		"a 1 1 b,,c, Live 0x0000000000001000\n",
		"a 1 1 b,c Live 0x0000000000001000\n",
		". 1 0 - Live 0x0000000000001000\n",
		".. 1 0 - Live 0x0000000000001000\n",
		"... 1 0 - Live 0x0000000000001000\n",
		"a 1 0 - Live 0x0000000000001000 ()\n",
		"a 1 0 - Live 0x0000000000001000 (\n",
		"a 1 0 - Live 0x0000000000001000 (O)E)\n",
		"a 1 0 - Live 0x0000000000001000 (O E)\n",
		"a 1 0 - Live 0x0000000000001000 (OE) \n",
		"a 1 0 - Live 0x0000000000001000 \n",
		"a 1 0 - Live 0x00000000000010000\n",
		"a 1 0 - Live 0x000000000000100g\n",
		"a 1 0 - Live 0X0000000000001000\n",
		"a 1 0 - Live 0x0000000000001000",
		"a 1 0 - Live 0x0000000000001000 (OE)",
		"a  1 0 - Live 0x0000000000001000\n",
		"a 1 0 -  Live 0x0000000000001000\n",
		"a 1 0 - Live  0x0000000000001000\n",
		"a 1 0 - Livex 0x0000000000001000\n",
		"a 1 0 - Rottingx 0x0000000000001000\n",
		"\n\na 1 0 - Live 0x0000000000001000\n\n",
	};
	char why[768];
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		size_t len = strlen(edges[i]);
		ok(!snapshot_both_ways(edges[i], len, NULL, 0, why, sizeof(why)) &&
			   !snapshot_both_ways("", 0, edges[i], len, why, sizeof(why)),
		   "both ways alike: %.*s", (int)strcspn(edges[i] + (edges[i][0] == '\n') * 2, "\n"),
		   edges[i] + (edges[i][0] == '\n') * 2);
	}
	char name[80], line[200];
	for (size_t n = 54; n <= 57; n++) {
		memset(name, 'n', n);
		name[n] = '\0';
		snprintf(line, sizeof(line), "%s 1 0 %s, Live 0x0000000000001000\n", name, name);
		ok(!snapshot_both_ways(line, strlen(line), NULL, 0, why, sizeof(why)),
		   "a name and a holder of %zu bytes: both ways alike", n);
	}
	/* sizes of one to nine digits, leading zeros, counts of one to three */
	size_t sizes_differ = 0;
	unsigned long long size = 0;
	for (int i = 0; i < 3000; i++) {
		size = i < 20 ? (unsigned long long)i : size * 7 + 13;
		size %= 1000000000ull;
		snprintf(line, sizeof(line), "a %s%llu %d - Live 0x0000000000001000\n",
			 i % 5 == 0 ? "0" : "", size, i % 300);
		sizes_differ += snapshot_both_ways(line, strlen(line), NULL, 0, why, sizeof(why)) != NULL;
	}
	is_int(sizes_differ, 0, "3,000 sizes and counts: both ways alike");
	const char *all = "a 1 0 - Live 0x1000\nb 2 0 a, Live 0x2000\n";
	ok(!snapshot_both_ways(all, strlen(all), NULL, 0, why, sizeof(why)), "the harness itself");
	/* 64 holders stay on the fast path, 65 go to parse_line(): both agree */
	char wide[2048];
	for (size_t n = 63; n <= 66; n++) {
		char *p = wide + sprintf(wide, "hub 1 0 ");
		for (size_t i = 0; i < n; i++)
			p += sprintf(p, "h%zu,", i);
		p += sprintf(p, " Live 0x0000000000001000\n");
		ok(!snapshot_both_ways(wide, (size_t)(p - wide), NULL, 0, why, sizeof(why)),
		   "%zu holders parse alike both ways", n);
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
	both_parsers_agree_on_every_line();
	return tap_done();
}
