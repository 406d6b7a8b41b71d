// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modreap's per-CPU strategy. Rotting instances keep their per-CPU areas,
 * which come from a small fixed reserve (/proc/module_percpu): --percpu
 * and --percpu-floor choose names by the per-CPU bytes they hold
 * (reserve-pick.c picks the fewest), and check the kernel's own count of
 * what is free after each round of reclaims. This file decides and says
 * why a target cannot be met; modreap-pass.c does the reclaims it picks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "modreap.h"
#include "reserve-pick.h"

/*
 * Reads /proc/module_percpu again. A kernel without it leaves r->pc NULL
 * and is not an error here: only --percpu and --percpu-floor need it, and
 * they check. Returns the reader's other errors.
 */
int read_reserve(struct reap_run *r)
{
	struct rot_percpu *pc = NULL;
	int err = rot_percpu_read(&pc);
	if (err < 0 && err != -ENOENT)
		return err;
	rot_percpu_free(r->pc);
	r->pc = err ? NULL : pc;
	r->pc_fresh |= err == 0;
	return 0;
}

void reserve_read_failed(struct reap_run *r, int err)
{
	cli_outcome_failed(&r->outcome, cli_read_failed("the per-CPU reserve", err));
}

/* The per-CPU bytes the rotting instances of name hold now, by the kernel's count. */
static int percpu_held_now(const struct rot_percpu *pc, const char *name, uint64_t *held)
{
	struct rot_group *pg;
	size_t n;
	int err = rot_percpu_rotting_groups(pc, &pg, &n);
	if (err < 0)
		return err;
	const struct rot_group *of = find_group(pg, n, name);
	*held = of ? of->bytes : 0;
	free(pg);
	return 0;
}

/* This pass's per-group per-CPU bytes (r->held, r->gives), from the
 * reserve as read. Few instances hold per-CPU bytes: a scan of the groups
 * for each is cheap. */
static void fill_held(struct reap_run *r, const struct rot_group *g, size_t n)
{
	for (size_t j = 0; r->pc && j < rot_percpu_count(r->pc); j++) {
		const struct rot_group *of = find_group(g, n, rot_percpu_name(r->pc, j));
		if (rot_percpu_state(r->pc, j) != ROT_STATE_ROTTING || !of)
			continue;
		size_t i = (size_t)(of - g);
		r->held[i] += rot_percpu_bytes(r->pc, j);
		r->gives[i] += rot_percpu_need(rot_percpu_bytes(r->pc, j));
	}
}

/*
 * The per-CPU bytes a reclaim of name gave back: all it held when the
 * kernel freed every instance, else what the kernel no longer counts.
 */
uint64_t percpu_freed(struct reap_run *r, const char *name, uint64_t held,
		      const struct rot_reclaim_result *out)
{
	if (!held || !out->freed)
		return 0;
	r->pc_fresh = false;
	if (r->opts->dry_run || !out->kept)
		return held;
	uint64_t left = held;
	int err = read_reserve(r);
	if (err == 0 && r->pc)
		err = percpu_held_now(r->pc, name, &left);
	if (err < 0)
		reserve_read_failed(r, err);
	return held > left ? held - left : 0;
}

/* What to give back so that size bytes may be free in one piece: the
 * missing free bytes, or, when enough is free but in pieces, at least the
 * gap between the largest piece and size. */
static uint64_t reserve_need(const struct rot_percpu *pc, uint64_t size)
{
	uint64_t want = rot_percpu_need(size);
	uint64_t free_now = rot_percpu_free_bytes(pc);
	uint64_t largest = rot_percpu_largest(pc);
	if (want > free_now)
		return want - free_now;
	return want > largest ? want - largest : 0;
}

/* The target was not met: one line (with --watch, once until it is met). */
static void reserve_short(struct reap_run *r, uint64_t size)
{
	const struct reap_opts *o = r->opts;
	if (o->watch && r->floor_unmet)
		return;
	r->floor_unmet = true;
	if (o->dry_run)
		cli_error("would not free %" PRIu64 " bytes of the per-CPU reserve: %" PRIu64
			  " of %" PRIu64 " bytes would be free, and no rotting name left to "
			  "reclaim holds any of the rest",
			  size, reserve_free_after(r), rot_percpu_reserve(r->pc));
	else
		cli_error("could not %s %" PRIu64 " bytes of the per-CPU reserve free in one piece: "
			  "the largest free piece is %" PRIu64 " bytes (%" PRIu64 " of %" PRIu64
			  " free), and no rotting name left to reclaim holds any of the rest",
			  o->watch ? "keep" : "make", size, rot_percpu_largest(r->pc),
			  rot_percpu_free_bytes(r->pc), rot_percpu_reserve(r->pc));
	cli_outcome_failed(&r->outcome, -ENOSPC);
}

/*
 * --percpu and --percpu-floor, one round: the fewest names whose per-CPU
 * bytes make size free in one piece (all: every name holding some), by
 * what each would give back (candidates[i], 0 for a name not to ask).
 * Returns how many it put in pick; 0 when size fits already, or when no
 * name left helps (said). The pass reclaims them, then asks
 * reserve_round_end() whether to choose again.
 */
size_t reserve_choose(struct reap_run *r, const uint64_t *candidates, size_t n, uint64_t size,
		      bool all, size_t *pick)
{
	/* size bytes free in one piece: what a module with that much per-CPU
	 * data needs to load (the reserve's largest free extent) */
	if (!all && rot_percpu_fit(r->pc, size, 0) == ROT_PERCPU_FITS) {
		r->floor_unmet = false;
		return 0;
	}
	size_t k = all ? reserve_pick_all(candidates, n, pick)
		       : reserve_pick(candidates, n, reserve_need(r->pc, size), pick);
	if (k == 0 && !all)
		reserve_short(r, size);
	return k;
}

/*
 * After a round of reclaims: whether to choose again. Freed bytes may lie
 * apart from the free piece they were meant to join, and names may be
 * refused as still in use: the kernel's count, read again, says whether
 * size fits. A dry run cannot read what it did not do: it predicts, once.
 */
bool reserve_round_end(struct reap_run *r, uint64_t size)
{
	if (r->opts->dry_run) {
		if (reserve_free_after(r) < rot_percpu_need(size))
			reserve_short(r, size);
		return false;
	}
	int err = read_reserve(r);
	if (err == 0 && !r->pc)
		err = -ENOENT; /* it was there a moment ago */
	if (err < 0)
		reserve_read_failed(r, err);
	return err == 0;
}

/*
 * The reserve at the start of a pass, and what each group holds of it.
 * Without --percpu or --percpu-floor it only adds to the report: a read
 * error is said and the reclaims go on. With them, a kernel that does not
 * report it, a size past the whole reserve or a read error is said, and
 * nothing is reclaimed: the status says how the run ends.
 */
struct reap_status pass_reserve(struct reap_run *r, const struct rot_group *groups, size_t n)
{
	const struct reap_opts *o = r->opts;
	r->held = calloc(n + 1, sizeof(*r->held));
	r->gives = calloc(n + 1, sizeof(*r->gives));
	r->taken = calloc(n + 1, sizeof(*r->taken));
	if (!r->held || !r->gives || !r->taken)
		return (struct reap_status){ .err = -ENOMEM };
	int err = read_reserve(r);
	if (err == 0)
		fill_held(r, groups, n);
	if (err == -ENOMEM)
		return (struct reap_status){ .err = err };
	if (err < 0) {
		rot_percpu_free(r->pc);
		r->pc = NULL;
		reserve_read_failed(r, err);
	}
	if (!percpu_mode(o))
		return (struct reap_status){ 0 };
	if (err < 0)
		return (struct reap_status){ err, true, cli_exit_for_errno(err) };
	if (!r->pc) {
		cli_error("this kernel does not report its per-CPU module reserve "
			  "(/proc/module_percpu is missing): %s needs a rot kernel that does",
			  o->has_floor ? "--percpu-floor" : "--percpu");
		return (struct reap_status){ -ENOENT, true, CLI_EXIT_UNSUPPORTED };
	}
	uint64_t size = o->has_floor ? o->floor : o->percpu_size;
	if ((o->has_floor || o->has_percpu_size) &&
	    rot_percpu_fit(r->pc, size, 0) == ROT_PERCPU_NEVER) {
		cli_error("%s %" PRIu64
			  ": the per-CPU module reserve of this kernel is only %" PRIu64 " bytes",
			  o->has_floor ? "--percpu-floor" : "--percpu", size,
			  rot_percpu_reserve(r->pc));
		return (struct reap_status){ -ERANGE, true, CLI_EXIT_UNSUPPORTED };
	}
	return (struct reap_status){ 0 };
}

void pass_reserve_end(struct reap_run *r)
{
	free(r->held);
	free(r->gives);
	free(r->taken);
	r->held = r->gives = NULL;
	r->taken = NULL;
}
