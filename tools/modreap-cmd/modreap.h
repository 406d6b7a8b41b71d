/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modreap's parts, one job each, and the one way they call each other:
 * docs/architecture.md, "Layout" (tests/libmodrot.bats checks it).
 */
#ifndef MODROT_MODREAP_H
#define MODROT_MODREAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cli-exit.h"
#include "modrot.h"
#include "progress.h"
#include "reclaim-report.h"

struct reap_opts {
	bool all;
	bool dry_run;
	bool force;
	bool json;
	bool quiet;
	bool watch;
	bool has_down_to;
	uint64_t down_to;
	bool percpu;          /* --percpu: choose by per-CPU bytes */
	bool has_percpu_size; /* --percpu SIZE: until SIZE is free in one piece */
	uint64_t percpu_size;
	bool has_floor; /* --watch --percpu-floor SIZE */
	uint64_t floor;
	double interval;
	char (*names)[ROT_NAME_MAX + 1];
	size_t nnames;
};

/* What a run freed, per name, summed over its passes. */
struct reaped {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
	uint64_t bytes;
	uint64_t percpu;
	/* --watch -J: what the current pass freed of it */
	size_t pass_instances;
	uint64_t pass_bytes;
	uint64_t pass_percpu;
};

/* A name the kernel refused as still in use, and how many instances it had
 * then. --watch asks again once it changes, and otherwise after `wait` more
 * passes: a back-off that doubles with each refusal in a row, so that a
 * name freed later (the user went) is reclaimed without asking every pass. */
struct refusal {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
	unsigned wait;    /* passes left before it is asked again */
	unsigned backoff; /* the passes it waited last time */
};

/* The longest a refused, unchanged name waits between two asks, in passes. */
#define REFUSAL_BACKOFF_MAX 16

/* A name a reclaim kept instances of, and the kernel's reply saying why. */
struct kept_name {
	char name[ROT_NAME_MAX + 1];
	struct rot_reclaim_result reply;
};

struct reap_run {
	const struct reap_opts *opts;
	struct kept_name *kept; /* -J: the last reply per name that kept some */
	size_t nkept;
	struct reaped *reaped;
	size_t nreaped;
	size_t instances;
	uint64_t bytes;
	size_t refused;           /* instances left rotting as still in use */
	struct refusal *refusals; /* --watch: not asked again until they change */
	size_t nrefusals;
	uint64_t rot_left;
	struct run_taint taint;
	struct cli_outcome outcome;

	/* The per-CPU reserve as last read; NULL when this kernel does not
	 * report it (no /proc/module_percpu) or it could not be read. */
	struct rot_percpu *pc;
	bool pc_fresh;    /* read since the last reclaim that freed per-CPU bytes */
	uint64_t percpu;  /* per-CPU bytes freed (or, dry, that would be) */
	bool floor_unmet; /* --watch: the floor could not be kept; said once */
	/* Per pass, per group: the per-CPU bytes it holds (as the kernel
	 * lists them), what reclaiming it gives back to the reserve (each
	 * area in whole 4-byte units), and whether this pass has already
	 * reclaimed (or tried) it. */
	uint64_t *held;
	uint64_t *gives;
	bool *taken;
	uint64_t gave; /* dry run: what the names chosen would give back */
};

/*
 * How a pass ended: err 0 it ran, else a negative errno. said: it could
 * not start and has printed its one line already; exit is then how the
 * run ends when nothing was freed (a per-CPU target this kernel cannot
 * serve, a reserve that cannot be read).
 */
struct reap_status {
	int err;
	bool said;
	enum cli_exit exit;
};

static inline bool reclaiming(const struct reap_opts *o)
{
	return o->all || o->has_down_to || o->nnames || o->percpu || o->has_floor;
}

/* Whether names are chosen by the per-CPU bytes they hold. */
static inline bool percpu_mode(const struct reap_opts *o)
{
	return o->percpu || o->has_floor;
}

/* The group of name, or NULL. */
static inline const struct rot_group *find_group(const struct rot_group *g, size_t n,
						 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return &g[i];
	return NULL;
}

static inline uint64_t total_bytes(const struct rot_group *g, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += g[i].bytes;
	return t;
}

/* The free per-CPU bytes after this run: read, or (dry) predicted. */
static inline uint64_t reserve_free_after(const struct reap_run *r)
{
	uint64_t free_now = rot_percpu_free_bytes(r->pc);
	return r->opts->dry_run ? free_now + r->gave : free_now;
}

/* ---- modreap-pass.c ---- */

/* One look at the kernel: read, choose, reclaim. */
struct reap_status reap_pass(struct reap_run *r, bool first);
/* --watch: passes until a stop signal. */
struct reap_status reap_watch(struct reap_run *r);

/* ---- modreap-percpu.c ---- */

/* Reads /proc/module_percpu again (r->pc NULL: this kernel has none). */
int read_reserve(struct reap_run *r);
void reserve_read_failed(struct reap_run *r, int err);
/* The reserve at the start of a pass, and what each group holds of it. */
struct reap_status pass_reserve(struct reap_run *r, const struct rot_group *groups, size_t n);
/* Frees what pass_reserve() set up. */
void pass_reserve_end(struct reap_run *r);
/* The per-CPU bytes a reclaim of name gave back. */
uint64_t percpu_freed(struct reap_run *r, const char *name, uint64_t held,
		      const struct rot_reclaim_result *out);
/* --percpu and --percpu-floor, one round: how many names to reclaim it put
 * in pick; 0 when size fits, or no name left helps (said). */
size_t reserve_choose(struct reap_run *r, const uint64_t *candidates, size_t n, uint64_t size,
		      bool all, size_t *pick);
/* After a round's reclaims: whether to choose again (the reserve read again). */
bool reserve_round_end(struct reap_run *r, uint64_t size);

/* ---- modreap-print.c ---- */

/* No reclaiming asked: the rotting instances g by name. */
int reap_print_rot(struct reap_run *r, const struct rot_group *g, size_t n);
/* What the run reclaimed; a summary that could not be made is a failure. */
int reap_print_summary(struct reap_run *r);
/* --watch -J: one line for pass number pass (from 1), which had failures
 * failures; pass 0 is the whole run's summary document instead. */
int reap_print_pass(struct reap_run *r, unsigned pass, unsigned failures);

#endif
