// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reclaim accounting (lib/unload.c): what a run saw rot, and what the
 * freed instances held when the kernel's count differs from it. These are
 * the parts that make no syscall; the syscalls themselves are tested on
 * the simulated kernel (tests/rmmod.bats, modreap.bats, simkernel-*.bats).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"
#include "tap.h"

static struct rot_snapshot *parse(const char *modules, const char *rotting)
{
	struct rot_snapshot *s = NULL;
	int err = snapshot_parse(modules, strlen(modules), rotting,
				     rotting ? strlen(rotting) : 0, NULL, 0, &s);
	if (err < 0)
		printf("# parse failed: %d\n", err);
	return s;
}

/* Newest first, as the kernel lists them. */
static const char rotting[] = "delta 3000 0 [rotting], Rotting 0x3000\n"
			      "other 500 0 [rotting], Rotting 0x2800\n"
			      "delta 2000 0 [rotting], Rotting 0x2000\n"
			      "delta 1000 0 [rotting], Rotting 0x1000\n";

static void the_per_name_count_is_one_query(void)
{
	struct rot_snapshot *s = parse("delta 4096 0 - Live 0x4000\n", rotting);
	uint64_t bytes, newest;
	is_int(rot_snapshot_rotting_of(s, "delta", &bytes, &newest), 3, "three instances of delta");
	is_int(bytes, 6000, "their bytes");
	is_int(newest, 3000, "the newest's size");
	is_int(rot_snapshot_rotting_of(s, "other", NULL, NULL), 1, "outputs may be NULL");
	is_int(rot_snapshot_rotting_of(s, "none", &bytes, &newest), 0, "a name that does not rot");
	ok(bytes == 0 && newest == 0, "has no bytes and no newest");
	rot_snapshot_free(s);
}

static void what_was_seen_comes_from_the_snapshot(void)
{
	struct rot_snapshot *s = parse("delta 4096 0 - Live 0x4000\n"
				       "gamma 8192 0 - Loading 0x5000\n",
				       rotting);
	struct reclaim_seen seen;

	reclaim_seen_of(s, "delta", 0, &seen);
	is_int(seen.instances, 3, "seen: the rotting instances");
	is_int(seen.bytes, 6000, "seen: their bytes");
	is_int(seen.unit, 4096, "a concurrent unload would leave the live module's size");

	reclaim_seen_of(s, "delta", ROT_RECLAIM_UNLOADED, &seen);
	is_int(seen.instances, 4, "ROT_RECLAIM_UNLOADED: the live one the caller unloaded rots too");
	is_int(seen.bytes, 6000 + 4096, "at its size");

	reclaim_seen_of(s, "other", ROT_RECLAIM_UNLOADED, &seen);
	is_int(seen.instances, 1, "no live module: the flag adds nothing");
	is_int(seen.unit, 500, "and the unit is the newest rotting instance's size");

	reclaim_seen_of(s, "gamma", 0, &seen);
	is_int(seen.unit, 0, "a Loading module's size counts init memory: no unit from it");
	rot_snapshot_free(s);
}

static void freed_bytes_are_accounted(void)
{
	struct reclaim_seen seen = { .instances = 3, .bytes = 6000, .unit = 4096 };
	struct rot_reclaim_result res = { .freed = 2 };

	/* One of three stayed (1000 bytes): the other two held 5000. */
	reclaim_estimate(&seen, 1, 1000, &res);
	is_int(res.bytes, 5000, "freed bytes: what was seen less what stays");
	is_int(res.kept, 1, "one kept");
	is_int(res.kept_bytes, 1000, "holding 1000 bytes");

	/* A concurrent unload added one instance: four freed, none left. */
	res = (struct rot_reclaim_result){ .freed = 4 };
	reclaim_estimate(&seen, 0, 0, &res);
	is_int(res.bytes, 6000 + 4096, "one instance beyond those seen counts at the unit");
	is_int(res.kept, 0, "nothing kept");

	/* More rot now than was seen: not ours to judge, left is clamped. */
	res = (struct rot_reclaim_result){ .freed = 1 };
	reclaim_estimate(&seen, 7, 9999, &res);
	is_int(res.kept, 3, "left is clamped to what was seen");
	is_int(res.kept_bytes, 6000, "and so are its bytes");

	/* Another caller freed some first: fewer freed than expected. */
	res = (struct rot_reclaim_result){ .freed = 1 };
	reclaim_estimate(&seen, 0, 0, &res);
	is_int(res.bytes, 2000, "each freed instance at the seen average");
}

static void the_unit_is_needed_only_beyond_what_was_seen(void)
{
	struct reclaim_seen seen = { .instances = 3, .bytes = 6000, .unit = 0 };
	ok(reclaim_needs_unit(&seen, 4, 0), "four freed of three seen: the extra one needs a size");
	ok(reclaim_needs_unit(&seen, 2, 1), "as many as expected: asked (and counts 0 of it)");
	ok(!reclaim_needs_unit(&seen, 1, 0), "fewer than expected: no unit");
	ok(reclaim_needs_unit(&seen, 3, 9), "left clamped to 3: expected 0, freed 3");
}

static void a_stock_kernel_is_never_asked(void)
{
	struct rot_snapshot *s = parse("delta 4096 0 - Live 0x4000\n", NULL);
	struct rot_reclaim_result res;
	memset(&res, 0xff, sizeof(res));
	res.size = sizeof(res);
	/* No syscall is made: the snapshot says stock before anything is asked. */
	is_int(rot_reclaim(s, "delta", 0, &res), -EOPNOTSUPP,
	       "a stock kernel would unload instead: refused");
	ok(res.freed == 0 && res.kept == 0 && res.bytes == 0 && res.revision == 0,
	   "and the result is zeroed");
	is_int(rot_reclaim(s, "delta", ROT_RECLAIM_FORCE | ROT_RECLAIM_UNLOADED, &res),
	       -EOPNOTSUPP, "whatever the flags");
	rot_snapshot_free(s);
}

/* The result is an extensible struct: the library writes only what the
 * caller's size covers, and refuses a size older than any release. */
static void the_result_size_is_checked(void)
{
	struct rot_snapshot *s = parse("delta 4096 0 - Live 0x4000\n", NULL);
	struct rot_reclaim_result res;
	memset(&res, 0xff, sizeof(res));
	res.size = ROT_RECLAIM_RESULT_SIZE_0_1 - 1;
	is_int(rot_reclaim(s, "delta", 0, &res), -EINVAL, "a size below 0.1's is refused");
	ok(res.freed == ~0u && res.size == ROT_RECLAIM_RESULT_SIZE_0_1 - 1,
	   "and nothing of the caller's struct is written");
	is_int(rot_reclaim(s, "delta", 0, NULL), -EINVAL, "no result is refused too");

	/* A caller built against a later release, with members this one lacks. */
	struct {
		struct rot_reclaim_result known;
		uint64_t later;
	} newer;
	memset(&newer, 0xff, sizeof(newer));
	newer.known.size = sizeof(newer);
	is_int(rot_reclaim(s, "delta", 0, &newer.known), -EOPNOTSUPP,
	       "a larger struct is accepted");
	ok(newer.known.size == sizeof(newer) && newer.known.freed == 0 && newer.later == 0,
	   "its size is kept, what it knows is filled, and what this release lacks is zeroed");
	rot_snapshot_free(s);
}

int main(void)
{
	the_per_name_count_is_one_query();
	what_was_seen_comes_from_the_snapshot();
	freed_bytes_are_accounted();
	the_unit_is_needed_only_beyond_what_was_seen();
	a_stock_kernel_is_never_asked();
	the_result_size_is_checked();
	return tap_done();
}
