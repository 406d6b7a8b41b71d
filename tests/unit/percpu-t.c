// SPDX-License-Identifier: GPL-2.0-or-later
/* The per-CPU reserve: /proc/module_percpu, the fit rule, a module file's area. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"
#include "tap.h"

static struct rot_percpu *parse(const char *text, int *err)
{
	struct rot_percpu *pc = NULL;
	*err = percpu_parse(text, strlen(text), &pc);
	return pc;
}

static void file_is_parsed(void)
{
	int err;
	struct rot_percpu *pc = parse("reserve 8192 free 692 largest 676\n"
				      "netfoo 512 Live 0xffffffffc0003000\n"
				      "rot_pcpu 1500 Rotting 0xffffffffc0002000\n"
				      "rot_pcpu 1500 Rotting 0xffffffffc0001000\n",
				      &err);
	is_int(err, 0, "the interface's example parses");
	is_int(rot_percpu_reserve(pc), 8192, "reserve");
	is_int(rot_percpu_free_bytes(pc), 692, "free");
	is_int(rot_percpu_largest(pc), 676, "largest");
	is_int(rot_percpu_count(pc), 3, "three instances");
	is_str(rot_percpu_name(pc, 0), "netfoo", "the live one first");
	is_int(rot_percpu_state(pc, 0), ROT_STATE_LIVE, "Live");
	is_int(rot_percpu_bytes(pc, 1), 1500, "bytes");
	is_int(rot_percpu_state(pc, 2), ROT_STATE_ROTTING, "Rotting");
	ok(percpu_address(pc, 2) == 0xffffffffc0001000ull, "address");
	ok(rot_percpu_name(pc, 3) == NULL, "past the end: NULL");

	struct rot_group *g;
	size_t n;
	is_int(rot_percpu_rotting_groups(pc, &g, &n), 0, "groups");
	is_int(n, 1, "one rotting name");
	is_str(g[0].name, "rot_pcpu", "rot_pcpu");
	is_int(g[0].instances, 2, "two instances");
	is_int(g[0].bytes, 3000, "3000 bytes");
	free(g);
	rot_percpu_free(pc);

	pc = parse("reserve 8192 free 8192 largest 8192", &err);
	is_int(err, 0, "an empty reserve without a final newline parses");
	is_int(rot_percpu_count(pc), 0, "nothing held");
	rot_percpu_free(pc);
}

static void bad_lines_are_named(void)
{
	static const struct {
		const char *text;
		size_t line;
		const char *reason;
	} bad[] = {
		{ "", 1, "the first line is not \"reserve SIZE free FREE largest LARGEST\"" },
		{ "netfoo 512 Live 0x1\n", 1, "the first line is not \"reserve SIZE free FREE largest LARGEST\"" },
		{ "reserve 8192 free 8192\n", 1, "the first line is not \"reserve SIZE free FREE largest LARGEST\"" },
		{ "reserve 8192 free 8192 largest 8192 x\n", 1,
		  "the first line is not \"reserve SIZE free FREE largest LARGEST\"" },
		{ "reserve 8192 free 9000 largest 10\n", 1, "more is free than the reserve holds" },
		{ "reserve 8192 free 100 largest 200\n", 1, "the largest free extent is more than what is free" },
		{ "reserve 99999999999999999999 free 0 largest 0\n", 1, "a size does not fit 64 bits" },
		{ "reserve -1 free 0 largest 0\n", 1, "a size is not a number" },
		{ "reserve 8192 free 0 largest 0\nx 1\n", 2, "fewer fields than the kernel prints" },
		{ "reserve 8192 free 0 largest 0\nx 1 Live 0x1 (O)\n", 2, "more fields than the kernel prints" },
		{ "reserve 8192 free 0 largest 0\n../x 1 Live 0x1\n", 2, "the name is empty, too long or not a module name" },
		{ "reserve 8192 free 0 largest 0\nx 0 Live 0x1\n", 2, "an instance listed with no per-CPU bytes" },
		{ "reserve 8192 free 0 largest 0\nx 1x Live 0x1\n", 2, "the per-CPU size is not a number" },
		{ "reserve 8192 free 0 largest 0\nx 1 Dead 0x1\n", 2, "the state is not Live, Loading, Unloading or Rotting" },
		{ "reserve 8192 free 0 largest 0\nx 1 Live 1\n", 2, "the address is not 0x and hex digits" },
		{ "reserve 8192 free 8000 largest 8000\nx 100 Live 0x1\ny 100 Live 0x2\n", 3,
		  "the instances hold more than the reserve less what is free" },
		{ "reserve 8192 free 0 largest 0\nx 4 Rotting 0x1\ny 4 Live 0x2\n", 3,
		  "a live module after the rotting instances" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err;
		struct rot_percpu *pc = parse(bad[i].text, &err);
		const struct rot_parse_error *pe = rot_parse_error_last();
		ok(err == -EPROTO && !pc && pe && pe->line == bad[i].line && !strcmp(pe->reason, bad[i].reason) &&
			   !strcmp(pe->file, "/proc/module_percpu"),
		   "refused, line %zu: %s", bad[i].line, bad[i].reason);
		if (pe && strcmp(pe->reason, bad[i].reason))
			printf("#   got line %zu: %s\n", pe->line, pe->reason);
	}
	int err;
	struct rot_percpu *pc = parse("reserve 8192 free 8192 largest 8192\n", &err);
	ok(pc && rot_parse_error_last() == NULL, "a good parse clears the last error");
	rot_percpu_free(pc);
}

static void fit_follows_the_allocator(void)
{
	int err;
	struct rot_percpu *pc = parse("reserve 8192 free 692 largest 676\n", &err);
	is_int(rot_percpu_need(1501), 1504, "whole 4-byte units");
	is_int(rot_percpu_fit(pc, 1500, 8), ROT_PERCPU_NO_ROOM, "1500 bytes do not fit 676");
	is_int(rot_percpu_fit(pc, 600, 8), ROT_PERCPU_FITS, "600 bytes aligned to 8 fit 676");
	is_int(rot_percpu_fit(pc, 676, 4), ROT_PERCPU_FITS, "676 bytes aligned to 4 fit exactly");
	is_int(rot_percpu_fit(pc, 673, 0), ROT_PERCPU_FITS, "an alignment below 4 counts as 4");
	is_int(rot_percpu_fit(pc, 660, 64), ROT_PERCPU_MAY_FIT, "aligned to 64: depends on where the extent starts");
	is_int(rot_percpu_fit(pc, 0, 8), ROT_PERCPU_FITS, "no per-CPU data always fits");
	is_int(rot_percpu_fit(pc, 8196, 8), ROT_PERCPU_NEVER, "larger than the reserve: never");
	is_int(rot_percpu_fit(pc, 100, 12), ROT_PERCPU_NEVER, "an alignment not a power of two: never");
	is_int(rot_percpu_fit(pc, 100, 1 << 20), ROT_PERCPU_MAY_FIT, "an alignment over a page is capped at a page, not refused");
	rot_percpu_free(pc);
	pc = parse("reserve 65536 free 65536 largest 65536\n", &err);
	is_int(rot_percpu_fit(pc, 40000, 8), ROT_PERCPU_NEVER, "more than one area can be: never");
	rot_percpu_free(pc);
}

static struct rot_snapshot *snap_of(const char *modules, const char *rotting)
{
	struct rot_snapshot *s = NULL;
	snapshot_parse(modules, strlen(modules), rotting, strlen(rotting), NULL, 0, &s);
	return s;
}

static void modules_are_joined(void)
{
	int err;
	struct rot_snapshot *s = snap_of("b 100 0 - Live 0x3000\na 100 0 - Live 0x2000\n",
					 "b 100 0 [rotting], Rotting 0x1000\nb 100 0 [rotting], Rotting 0x0800\n");
	struct rot_percpu *pc = parse("reserve 8192 free 5092 largest 5092\n"
				      "b 1000 Live 0x3000\nb 1000 Rotting 0x1000\nb 1000 Rotting 0x0800\n"
				      "c 100 Rotting 0x9000\n",
				      &err);
	uint64_t bytes[4];
	is_int(rot_percpu_per_module(pc, s, bytes), 3, "three of four found (c is gone)");
	ok(bytes[0] == 1000 && bytes[1] == 0 && bytes[2] == 1000 && bytes[3] == 1000, "bytes by snapshot position");
	rot_percpu_free(pc);
	rot_snapshot_free(s);

	/* without kernel pointers: by name and kind, in order */
	s = snap_of("b 100 0 - Live 0x0\na 100 0 - Live 0x0\n", "b 100 0 [rotting], Rotting 0x0\n");
	pc = parse("reserve 8192 free 6192 largest 6192\nb 1000 Live 0x0\nb 1000 Rotting 0x0\n", &err);
	is_int(rot_percpu_per_module(pc, s, bytes), 2, "joined without addresses");
	ok(bytes[0] == 1000 && bytes[1] == 0 && bytes[2] == 1000, "live b and rotting b");
	rot_percpu_free(pc);
	rot_snapshot_free(s);
}

static void module_file_area(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];
	static const struct {
		const char *file;
		uint64_t size, align;
	} want[] = { { "pcpu1500.ko", 1500, 8 }, { "pcpualign.ko.xz", 100, 64 }, { "pcpuodd.ko.zst", 1501, 1 },
		     { "alpha.ko", 0, 0 } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct rot_modfile *mf = NULL;
		snprintf(path, sizeof(path), "%s/tests/fixtures/out/%s", top ? top : ".", want[i].file);
		int err = rot_modfile_read(path, &mf);
		uint64_t align = 99;
		uint64_t size = err ? 99 : rot_modfile_percpu(mf, &align);
		ok(!err && size == want[i].size && align == want[i].align, "%s: %ju bytes aligned to %ju",
		   want[i].file, (uintmax_t)want[i].size, (uintmax_t)want[i].align);
		rot_modfile_free(mf);
	}
}

int main(void)
{
	file_is_parsed();
	bad_lines_are_named();
	fit_follows_the_allocator();
	modules_are_joined();
	module_file_area();
	return tap_done();
}
