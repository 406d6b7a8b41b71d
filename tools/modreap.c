// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modreap: report rotting module memory and reclaim it in bulk.
 *
 * Each pass reads one snapshot under the reclaim lock, groups the rotting
 * instances by name, chooses names, and makes one delete_module call per
 * chosen name. --watch repeats passes until SIGHUP, SIGINT or SIGTERM;
 * any reclaiming run told to stop so finishes the reclaim in flight,
 * reports what it freed, and exits 128 + the signal.
 *
 * Rotting instances also keep their per-CPU areas, which come from a small
 * fixed reserve (/proc/module_percpu): --percpu and --percpu-floor choose
 * names by the per-CPU bytes they hold, and check the kernel's own count
 * of what is free after each round of reclaims.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "columns.h"
#include "jsonwrt.h"
#include "modrot.h"
#include "progress.h"
#include "reclaim-report.h"
#include "reserve-pick.h"
#include "stopsignal.h"

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
};

/* A name the kernel refused as still in use, and how many instances it had then. */
struct refusal {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
};

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
	enum cli_exit fatal_exit;
};

/* A pass could not start: its one line is printed, r->fatal_exit says how
 * the run ends. */
#define ERR_FATAL (-ECANCELED)

static void help(void)
{
	printf("Usage: %s [OPTIONS] [NAME...]\n"
	       "Report rotting module memory, or reclaim it.\n"
	       "\n"
	       "With no NAME and no -a, --down-to or --percpu, report the rotting\n"
	       "instances by name. Reclaiming frees memory that a stray pointer may\n"
	       "still reach, so it taints the kernel R.\n"
	       "\n"
	       "Options:\n"
	       "  NAME...               reclaim every rotting instance of these names\n"
	       "  -a, --all             reclaim everything that rots\n"
	       "      --down-to SIZE    reclaim, largest names first, until at most SIZE\n"
	       "                        rots (e.g. 16M, 512K)\n"
	       "      --percpu[=SIZE]   reclaim the fewest names that leave SIZE bytes of\n"
	       "                        the per-CPU module reserve free in one piece; with\n"
	       "                        no SIZE, every name that holds per-CPU bytes\n"
	       "  -f, --force           first stop the timers and work left in the instances\n"
	       "                        (pinned or entered ones stay)\n"
	       "  -n, --dry-run         say what would be freed, free nothing\n"
	       "      --watch           keep running: reclaim whenever rot exceeds --down-to\n"
	       "                        or less than --percpu-floor is free in one piece\n"
	       "      --percpu-floor SIZE\n"
	       "                        with --watch: bytes of the per-CPU reserve to keep\n"
	       "                        free in one piece\n"
	       "      --interval SECS   how often --watch looks (default 1)\n"
	       "  -J, --json            JSON output\n"
	       "  -q, --quiet           print nothing but errors\n"
	       "  -h, --help            show this help\n"
	       "  -V, --version         show the version\n",
	       cli_progname());
}

static bool reclaiming(const struct reap_opts *o)
{
	return o->all || o->has_down_to || o->nnames || o->percpu || o->has_floor;
}

/* Whether names are chosen by the per-CPU bytes they hold. */
static bool percpu_mode(const struct reap_opts *o)
{
	return o->percpu || o->has_floor;
}

static void parse_options(int argc, char *argv[], struct reap_opts *o)
{
	enum { OPT_DOWN_TO = 256, OPT_WATCH, OPT_INTERVAL, OPT_PERCPU, OPT_PERCPU_FLOOR };
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "down-to", required_argument, NULL, OPT_DOWN_TO },
		{ "percpu", optional_argument, NULL, OPT_PERCPU },
		{ "percpu-floor", required_argument, NULL, OPT_PERCPU_FLOOR },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "watch", no_argument, NULL, OPT_WATCH },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "json", no_argument, NULL, 'J' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	static const int exclusive[][CLI_EXCLUSIVE_MAX] = {
		{ 'J', 'q' },
		{ OPT_WATCH, 'n' },
	};
	bool has_interval = false;
	int c;

	cli_exclusive_options(exclusive, 2);
	o->interval = 1.0;
	while ((c = cli_next_option(argc, argv, "afnJqhV", longopts)) != -1) {
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case OPT_DOWN_TO:
			if (cli_parse_size(optarg, &o->down_to) < 0)
				cli_usage_fail("'%s' is not a size (like 16M, 512K or 4096)",
					       optarg);
			o->has_down_to = true;
			break;
		case OPT_PERCPU:
			o->percpu = true;
			/* --percpu SIZE as well as --percpu=SIZE: the word after it
			 * is its size when it reads as one (no module is named so). */
			if (!optarg && optind < argc &&
			    cli_parse_size(argv[optind], &o->percpu_size) == 0) {
				o->has_percpu_size = true;
				optind++;
			} else if (optarg) {
				if (cli_parse_size(optarg, &o->percpu_size) < 0)
					cli_usage_fail("'%s' is not a size (like 4K, 1500 or 512)",
						       optarg);
				o->has_percpu_size = true;
			}
			break;
		case OPT_PERCPU_FLOOR:
			if (cli_parse_size(optarg, &o->floor) < 0)
				cli_usage_fail("'%s' is not a size (like 4K, 1500 or 512)", optarg);
			o->has_floor = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'f':
			o->force = true;
			break;
		case OPT_WATCH:
			o->watch = true;
			break;
		case OPT_INTERVAL:
			if (cli_parse_interval(optarg, &o->interval) < 0)
				cli_usage_fail("'%s' is not an interval in seconds (0 < SECS <= 86400)",
					       optarg);
			has_interval = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		}
	}

	o->nnames = (size_t)(argc - optind);
	if (o->percpu && o->watch)
		cli_usage_fail(
			"--watch keeps per-CPU reserve free with --percpu-floor SIZE, not --percpu");
	if ((o->all ? 1 : 0) + (o->has_down_to ? 1 : 0) + (o->nnames ? 1 : 0) + (o->percpu ? 1 : 0) >
	    1)
		cli_usage_fail("NAME, --all, --down-to and --percpu exclude each other");
	if (o->watch && o->nnames)
		cli_usage_fail("--watch chooses the names itself: give no NAME");
	if (o->watch && o->all)
		cli_usage_fail("--watch and --all exclude each other");
	if (o->watch && !o->has_down_to && !o->has_floor)
		cli_usage_fail("--watch needs --down-to SIZE, --percpu-floor SIZE or both");
	if (o->has_floor && !o->watch)
		cli_usage_fail("--percpu-floor only makes sense with --watch (once: --percpu SIZE)");
	if (has_interval && !o->watch)
		cli_usage_fail("--interval only makes sense with --watch");
	if (o->force && !reclaiming(o))
		cli_usage_fail(
			"--force only makes sense when reclaiming (NAME, --all, --down-to or --percpu)");

	o->names = cli_module_names(argv + optind, o->nnames);
}

/* -ENOMEM: the totals count it, the per-name report cannot list it. */
static int remember(struct reap_run *r, const struct rot_group *g, uint64_t percpu)
{
	r->instances += g->instances;
	r->bytes += g->bytes;
	r->percpu += percpu;
	for (size_t i = 0; i < r->nreaped; i++) {
		if (strcmp(r->reaped[i].name, g->name) == 0) {
			r->reaped[i].instances += g->instances;
			r->reaped[i].bytes += g->bytes;
			r->reaped[i].percpu += percpu;
			return 0;
		}
	}
	struct reaped *grown = realloc(r->reaped, (r->nreaped + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->reaped = grown;
	struct reaped *e = &r->reaped[r->nreaped++];
	snprintf(e->name, sizeof(e->name), "%s", g->name);
	e->instances = g->instances;
	e->bytes = g->bytes;
	e->percpu = percpu;
	return 0;
}

/* ---- the per-CPU reserve ---- */

/*
 * Reads /proc/module_percpu again. A kernel without it leaves r->pc NULL
 * and is not an error here: only --percpu and --percpu-floor need it, and
 * they check. Returns the reader's other errors.
 */
static int read_reserve(struct reap_run *r)
{
	struct rot_percpu *pc = NULL;
	int err = rot_percpu_read(&pc);
	if (err == -ENOENT) {
		rot_percpu_free(r->pc);
		r->pc = NULL;
		return 0;
	}
	if (err < 0)
		return err;
	rot_percpu_free(r->pc);
	r->pc = pc;
	r->pc_fresh = true;
	return 0;
}

static void reserve_read_failed(struct reap_run *r, int err)
{
	char why[256];
	cli_error("could not read the per-CPU reserve: %s", cli_read_error(err, why, sizeof(why)));
	cli_outcome_failed(&r->outcome, err);
}

/* The per-CPU bytes the rotting instances of name hold now, by the kernel's count. */
static int percpu_held_now(const struct rot_percpu *pc, const char *name, uint64_t *held)
{
	struct rot_group *pg;
	size_t n;
	int err = rot_percpu_rotting_groups(pc, &pg, &n);
	if (err < 0)
		return err;
	*held = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(pg[i].name, name) == 0)
			*held = pg[i].bytes;
	free(pg);
	return 0;
}

static const struct rot_group *group_of(const struct rot_group *g, size_t n, const char *name,
					size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(g[i].name, name) == 0) {
			*at = i;
			return &g[i];
		}
	}
	return NULL;
}

/* This pass's per-group per-CPU bytes (r->held, r->gives), from the
 * reserve as read. Few instances hold per-CPU bytes: a scan of the groups
 * for each is cheap. */
static void fill_held(struct reap_run *r, const struct rot_group *g, size_t n)
{
	for (size_t j = 0; r->pc && j < rot_percpu_count(r->pc); j++) {
		size_t i;
		if (rot_percpu_state(r->pc, j) != ROT_STATE_ROTTING ||
		    !group_of(g, n, rot_percpu_name(r->pc, j), &i))
			continue;
		r->held[i] += rot_percpu_bytes(r->pc, j);
		r->gives[i] += rot_percpu_need(rot_percpu_bytes(r->pc, j));
	}
}

/* Whether size bytes are free in one piece: what a module with that much
 * per-CPU data needs to load (the reserve's largest free extent). */
static bool reserve_fits(const struct rot_percpu *pc, uint64_t size)
{
	return rot_percpu_fit(pc, size, 0) == ROT_PERCPU_FITS;
}

static const struct rot_group *find_group(const struct rot_group *g, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return &g[i];
	return NULL;
}

static struct refusal *find_refusal(const struct reap_run *r, const char *name)
{
	for (size_t i = 0; i < r->nrefusals; i++)
		if (strcmp(r->refusals[i].name, name) == 0)
			return &r->refusals[i];
	return NULL;
}

/* --watch: the kernel refused this group last time and it has not changed since. */
static bool refused_before(const struct reap_run *r, const struct rot_group *g)
{
	const struct refusal *f = find_refusal(r, g->name);
	return f && f->instances == g->instances;
}

static void note_refusal(struct reap_run *r, const char *name, size_t instances)
{
	struct refusal *f = find_refusal(r, name);
	if (!f) {
		struct refusal *grown = realloc(r->refusals, (r->nrefusals + 1) * sizeof(*grown));
		if (!grown)
			return; /* it is only asked again next pass */
		r->refusals = grown;
		f = &r->refusals[r->nrefusals++];
		snprintf(f->name, sizeof(f->name), "%s", name);
	}
	f->instances = instances;
}

/* -J: what kept name's instances, the latest reply per name */
static void note_kept(struct reap_run *r, const char *name, const struct rot_reclaim_result *out)
{
	struct kept_name *k = NULL;
	for (size_t i = 0; i < r->nkept && !k; i++)
		if (!strcmp(r->kept[i].name, name))
			k = &r->kept[i];
	if (!k) {
		struct kept_name *grown = realloc(r->kept, (r->nkept + 1) * sizeof(*grown));
		if (!grown)
			return; /* the summary's refused count still says it */
		r->kept = grown;
		k = &r->kept[r->nkept++];
		snprintf(k->name, sizeof(k->name), "%s", name);
	}
	k->reply = *out;
}

static void forget_refusal(struct reap_run *r, const char *name)
{
	struct refusal *f = find_refusal(r, name);
	if (f)
		*f = r->refusals[--r->nrefusals];
}

/* --watch: what stays refused at the end, not the sum over passes. */
static void count_refusals(struct reap_run *r)
{
	for (size_t i = 0; i < r->nrefusals; i++)
		r->refused += r->refusals[i].instances;
}

/*
 * Which groups this pass reclaims, in order; NULL entries are names with no
 * rot. --down-to takes the largest names until the rest fits, passing over
 * names --watch already saw refused (asking again would only be refused
 * again); reclaim_chosen takes more if the kernel refuses some.
 */
static size_t choose(const struct reap_run *r, const struct rot_group *g, size_t n,
		     const struct rot_group **chosen, uint64_t total)
{
	const struct reap_opts *o = r->opts;
	size_t k = 0;

	if (o->nnames) {
		for (size_t i = 0; i < o->nnames; i++)
			chosen[k++] = find_group(g, n, o->names[i]);
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		if (o->has_down_to && total <= o->down_to)
			break;
		if (refused_before(r, &g[i]) || r->taken[i])
			continue;
		chosen[k++] = &g[i];
		total -= g[i].bytes;
	}
	return k;
}

/* --down-to, after refusals: the next largest groups not yet tried. */
static size_t choose_more(const struct reap_run *r, const struct rot_group *g, size_t n,
			  const struct rot_group **chosen, size_t k)
{
	size_t from = k ? (size_t)(chosen[k - 1] - g) + 1 : 0;
	for (size_t i = from; i < n; i++) {
		if (refused_before(r, &g[i]) || r->taken[i])
			continue;
		chosen[k++] = &g[i];
		break;
	}
	return k;
}

/*
 * The per-CPU bytes a reclaim of name gave back: all it held when the
 * kernel freed every instance, else what the kernel no longer counts.
 */
static uint64_t percpu_freed(struct reap_run *r, const char *name, uint64_t held,
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

/* Reclaims groups[i]; returns false when the kernel refused all of it. */
static bool reclaim_group(struct reap_run *r, const struct rot_snapshot *snap,
			  const struct rot_group *groups, size_t i, struct progress *bar)
{
	const struct rot_group *g = &groups[i];
	const struct reap_opts *o = r->opts;
	struct rot_reclaim_result out = { .freed = (unsigned)g->instances, .bytes = g->bytes };
	int err = 0;

	if (!o->dry_run)
		err = rot_reclaim(snap, g->name, o->force ? ROT_RECLAIM_FORCE : 0, &out);
	if (err < 0 && err != -EBUSY) {
		cli_error("could not reclaim module %s: %s%s", g->name, strerror(-err),
			  cli_errno_hint(err));
		cli_outcome_failed(&r->outcome, err);
		return false;
	}
	if (out.recount_err < 0) {
		char msg[512];
		progress_clear(bar);
		count_error_message(msg, sizeof(msg), g->name, out.recount_err);
		cli_error("%s", msg);
		cli_outcome_failed(&r->outcome, out.recount_err);
	}
	if (out.freed) {
		struct rot_group freed = { g->name, out.freed, out.bytes };
		uint64_t percpu = percpu_freed(r, g->name, r->held[i], &out);
		if (o->dry_run)
			r->gave += r->gives[i];
		if (remember(r, &freed, percpu) < 0) {
			cli_error("reclaimed module %s, but out of memory to report it", g->name);
			cli_outcome_failed(&r->outcome, -ENOMEM);
		}
		r->rot_left = r->rot_left > out.bytes ? r->rot_left - out.bytes : 0;
		if (!o->quiet && !o->json) {
			progress_clear(bar);
			report_reclaimed_percpu(g->name, out.freed, out.bytes, percpu, o->dry_run);
			/* The bar is on stderr: the line must be out before it is redrawn. */
			cli_flush_stdout();
		}
	}
	if (!out.kept && o->watch)
		forget_refusal(r, g->name);
	if (out.kept) {
		char msg[512];
		progress_clear(bar);
		refused_message(msg, sizeof(msg), g->name, &out, "modreap --force", o->force);
		cli_error("%s", msg);
		if (o->json)
			note_kept(r, g->name, &out);
		if (!o->watch)
			r->refused += out.kept;
		cli_outcome_failed(&r->outcome, -EBUSY);
		if (o->watch)
			note_refusal(r, g->name, out.kept);
	}
	return out.freed > 0;
}

static void reclaim_chosen(struct reap_run *r, const struct rot_snapshot *snap,
			   const struct rot_group *groups, size_t ngroups,
			   const struct rot_group **chosen, size_t k)
{
	const struct reap_opts *o = r->opts;
	struct progress bar;

	progress_start(&bar, o->dry_run ? "checking" : "reclaiming", o->quiet ? 0 : k);
	for (size_t i = 0; i < k && !stop_signal(); i++) {
		const struct rot_group *g = chosen[i];
		progress_step(&bar);
		if (!g) {
			cli_error("Module %s has no rotting instances", o->names[i]);
			cli_outcome_failed(&r->outcome, -ENOENT);
			continue;
		}
		r->taken[g - groups] = true;
		reclaim_group(r, snap, groups, (size_t)(g - groups), &bar);
		/* Refused names leave the target unmet: try the next largest. */
		if (i + 1 == k && o->has_down_to && r->rot_left > o->down_to) {
			size_t more = choose_more(r, groups, ngroups, chosen, k);
			bar.total += more - k;
			k = more;
		}
	}
	progress_end(&bar);
}

/* The free per-CPU bytes after this run: read, or (dry) predicted. */
static uint64_t reserve_free_after(const struct reap_run *r)
{
	uint64_t free_now = rot_percpu_free_bytes(r->pc);
	return r->opts->dry_run ? free_now + r->gave : free_now;
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
 * --percpu and --percpu-floor: reclaim the fewest names whose per-CPU
 * bytes make size free in one piece (all: every name holding some), then
 * ask the kernel. Freed bytes may lie apart from the free piece they were
 * meant to join, and names may be refused as still in use: while the
 * kernel says size does not fit, choose again among the names left.
 */
static void reclaim_for_reserve(struct reap_run *r, const struct rot_snapshot *snap,
				const struct rot_group *groups, size_t n, uint64_t size, bool all)
{
	const struct reap_opts *o = r->opts;
	size_t *pick = calloc(n + 1, sizeof(*pick));
	uint64_t *candidates = calloc(n + 1, sizeof(*candidates));
	struct progress bar;

	if (!pick || !candidates) {
		cli_error("out of memory");
		cli_outcome_failed(&r->outcome, -ENOMEM);
		goto out;
	}
	progress_start(&bar, o->dry_run ? "checking" : "reclaiming", 0);
	for (;;) {
		if (!all && reserve_fits(r->pc, size)) {
			r->floor_unmet = false;
			break;
		}
		for (size_t i = 0; i < n; i++)
			candidates[i] = r->taken[i] || refused_before(r, &groups[i]) ? 0
										     : r->gives[i];
		size_t k = all ? reserve_pick_all(candidates, n, pick)
			       : reserve_pick(candidates, n, reserve_need(r->pc, size), pick);
		if (k == 0) {
			if (!all)
				reserve_short(r, size);
			break;
		}
		for (size_t j = 0; j < k && !stop_signal(); j++) {
			r->taken[pick[j]] = true;
			reclaim_group(r, snap, groups, pick[j], &bar);
		}
		if (stop_signal() || all)
			break;
		if (o->dry_run) {
			if (reserve_free_after(r) < rot_percpu_need(size))
				reserve_short(r, size);
			break;
		}
		int err = read_reserve(r);
		if (err == 0 && !r->pc)
			err = -ENOENT; /* it was there a moment ago */
		if (err < 0) {
			reserve_read_failed(r, err);
			break;
		}
	}
	progress_end(&bar);
out:
	free(pick);
	free(candidates);
}

static uint64_t total_bytes(const struct rot_group *g, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += g[i].bytes;
	return t;
}

/*
 * The reserve at the start of a pass, and what each group holds of it.
 * Without --percpu or --percpu-floor it only adds per-CPU bytes to the
 * report: a reserve that cannot be read is an error line, and the
 * reclaims go on. With them it is what the run is about: when the kernel
 * does not report it, or the size asked is more than the whole reserve,
 * or it cannot be read, nothing is reclaimed (ERR_FATAL).
 */
static int pass_reserve(struct reap_run *r, const struct rot_group *groups, size_t n)
{
	const struct reap_opts *o = r->opts;
	r->held = calloc(n + 1, sizeof(*r->held));
	r->gives = calloc(n + 1, sizeof(*r->gives));
	r->taken = calloc(n + 1, sizeof(*r->taken));
	if (!r->held || !r->gives || !r->taken)
		return -ENOMEM;
	int err = read_reserve(r);
	if (err == 0)
		fill_held(r, groups, n);
	if (err == -ENOMEM)
		return err;
	if (err < 0) {
		rot_percpu_free(r->pc);
		r->pc = NULL;
		reserve_read_failed(r, err);
		r->fatal_exit = cli_exit_for_errno(err);
		return percpu_mode(o) ? ERR_FATAL : 0;
	}
	if (!percpu_mode(o))
		return 0;
	if (!r->pc) {
		cli_error("this kernel does not report its per-CPU module reserve "
			  "(/proc/module_percpu is missing): %s needs a rot kernel that does",
			  o->has_floor ? "--percpu-floor" : "--percpu");
		r->fatal_exit = CLI_EXIT_UNSUPPORTED;
		return ERR_FATAL;
	}
	uint64_t size = o->has_floor ? o->floor : o->percpu_size;
	if ((o->has_floor || o->has_percpu_size) &&
	    rot_percpu_fit(r->pc, size, 0) == ROT_PERCPU_NEVER) {
		cli_error("%s %" PRIu64
			  ": the per-CPU module reserve of this kernel is only %" PRIu64 " bytes",
			  o->has_floor ? "--percpu-floor" : "--percpu", size,
			  rot_percpu_reserve(r->pc));
		r->fatal_exit = CLI_EXIT_UNSUPPORTED;
		return ERR_FATAL;
	}
	return 0;
}

/* One look at the kernel: read, choose, reclaim. Returns a negative errno
 * only when the kernel could not be read at all. */
static int reap_pass(struct reap_run *r, bool first)
{
	int lock = rot_reclaim_lock();
	if (lock == -EINTR)
		return 0; /* a stop signal arrived while another run held the lock */
	if (lock < 0)
		cli_warn("could not take the reclaim lock (%s): counts may include what a "
			 "concurrent run reclaims",
			 strerror(-lock));
	struct rot_snapshot *snap;
	struct rot_group *groups;
	size_t ngroups;

	int err = rot_snapshot_read(&snap);
	if (err < 0) {
		rot_reclaim_unlock(lock);
		return err;
	}
	if (!rot_snapshot_has_rot(snap)) {
		rot_snapshot_free(snap);
		rot_reclaim_unlock(lock);
		return -EOPNOTSUPP;
	}
	/* The taint change cannot be told: the reclaims can still be done. */
	if (first) {
		int terr = run_taint_before(&r->taint);
		if (terr < 0)
			cli_outcome_failed(&r->outcome, terr);
	}
	err = rot_snapshot_rotting_groups(snap, &groups, &ngroups);
	if (err < 0) {
		rot_snapshot_free(snap);
		rot_reclaim_unlock(lock);
		return err;
	}
	r->rot_left = total_bytes(groups, ngroups);
	err = pass_reserve(r, groups, ngroups);
	if (err < 0)
		goto out;

	const struct reap_opts *o = r->opts;
	if (percpu_mode(o) && r->pc)
		reclaim_for_reserve(r, snap, groups, ngroups,
				    o->has_floor ? o->floor : o->percpu_size,
				    o->percpu && !o->has_percpu_size);
	if ((o->all || o->has_down_to || o->nnames) && !stop_signal()) {
		const struct rot_group **chosen = calloc(ngroups + o->nnames + 1, sizeof(*chosen));
		if (!chosen) {
			cli_error("out of memory");
			cli_outcome_failed(&r->outcome, -ENOMEM);
		} else {
			size_t k = choose(r, groups, ngroups, chosen, r->rot_left);
			reclaim_chosen(r, snap, groups, ngroups, chosen, k);
		}
		free(chosen);
	}
	/* The summary tells the reserve as the kernel now counts it. */
	if (r->pc && !r->pc_fresh && !o->dry_run) {
		int rerr = read_reserve(r);
		if (rerr < 0)
			reserve_read_failed(r, rerr);
	}
out:
	free(r->held);
	free(r->gives);
	free(r->taken);
	r->held = NULL;
	r->gives = NULL;
	r->taken = NULL;
	free(groups);
	rot_snapshot_free(snap);
	rot_reclaim_unlock(lock);
	return err;
}

/*
 * The rows of rot by name: a table, or the named array of a JSON document.
 * percpu[i] is the per-CPU bytes row i holds (or freed); NULL when the
 * kernel does not report its reserve: the table has no PERCPU column and
 * the JSON rows say null.
 */
static int print_groups(const struct rot_group *g, const uint64_t *percpu, size_t n,
			struct json_writer *w, const char *array_name)
{
	static const struct column_info cols[] = {
		{ "NAME", 0.3, 0, "module name" },
		{ "INSTANCES", 9, SCOLS_FL_RIGHT, "rotting instances" },
		{ "BYTES", 12, SCOLS_FL_RIGHT, "bytes they hold" },
		{ "PERCPU", 8, SCOLS_FL_RIGHT, "per-CPU reserve bytes they hold" },
	};
	static const int ids[] = { 0, 1, 2, 3 };
	struct table_style style = { .json = w != NULL, .json_name = array_name };
	struct listing l;
	size_t ncols = percpu || w ? 4 : 3;

	int err = listing_start(&l, cols, ids, ncols, &style, w);
	for (size_t i = 0; err == 0 && i < n; i++) {
		err = listing_row(&l);
		listing_str(&l, 0, g[i].name);
		listing_u64(&l, 1, g[i].instances);
		listing_u64(&l, 2, g[i].bytes);
		if (percpu)
			listing_u64(&l, 3, percpu[i]);
		else if (ncols == 4)
			listing_unknown(&l, 3);
	}
	int end = listing_end(&l);
	return err ? err : end;
}

/* A number the kernel may not report: null when it does not. */
static void json_known_u64(struct json_writer *w, const char *name, bool known, uint64_t v)
{
	if (known)
		json_u64(w, name, v);
	else
		json_null(w, name);
}

static void summary_json(struct json_writer *w, const struct reap_run *r, size_t names,
			 size_t instances, uint64_t bytes, uint64_t percpu)
{
	const struct reap_opts *o = r->opts;
	const bool known = r->pc != NULL;
	/* A dry run can predict the free bytes, not where they lie. */
	const bool largest_known = known && !(o->dry_run && r->percpu);

	json_open_object(w, "summary");
	report_json_summary_common(w, o->dry_run, r->outcome.failures, &r->taint);
	json_u64(w, "names", names);
	json_u64(w, "instances", instances);
	json_u64(w, "bytes", bytes);
	json_u64(w, "refused", r->refused);
	json_open_array(w, "kept");
	for (size_t i = 0; i < r->nkept; i++) {
		json_open_object(w, NULL);
		json_string(w, "name", r->kept[i].name);
		report_json_kept(w, &r->kept[i].reply);
		json_close_object(w);
	}
	json_close_array(w);
	json_u64(w, "rot_left", r->rot_left);
	json_known_u64(w, "percpu", known, percpu);
	json_known_u64(w, "percpu_reserve", known, known ? rot_percpu_reserve(r->pc) : 0);
	json_known_u64(w, "percpu_free", known, known ? reserve_free_after(r) : 0);
	json_known_u64(w, "percpu_largest", largest_known, known ? rot_percpu_largest(r->pc) : 0);
	json_close_object(w);
}

/* A JSON document: the array, then the summary. */
static int print_json(struct reap_run *r, const struct rot_group *g, const uint64_t *percpu,
		      size_t n, const char *array_name)
{
	struct json_writer w;
	size_t instances = 0;
	uint64_t bytes = 0, percpu_total = 0;
	int err = json_start_stdout(&w);

	for (size_t i = 0; i < n; i++) {
		instances += g[i].instances;
		bytes += g[i].bytes;
		percpu_total += percpu ? percpu[i] : 0;
	}
	if (err == 0)
		err = print_groups(g, percpu, n, &w, array_name);
	if (err == 0)
		summary_json(&w, r, n, instances, bytes, percpu_total);
	int fin = json_finish(&w);
	return err ? err : fin;
}

/* "; per-CPU reserve: 692 of 8192 bytes free, 692 in one piece" */
static void print_reserve_words(const struct reap_run *r, uint64_t free_bytes, bool predicted)
{
	if (predicted) {
		printf("per-CPU reserve would have %" PRIu64 " of %" PRIu64 " bytes free",
		       free_bytes, rot_percpu_reserve(r->pc));
		return;
	}
	printf("per-CPU reserve: %" PRIu64 " of %" PRIu64 " bytes free, %" PRIu64 " in one piece",
	       free_bytes, rot_percpu_reserve(r->pc), rot_percpu_largest(r->pc));
}

static int report(struct reap_run *r)
{
	struct rot_snapshot *snap;
	struct rot_group *g;
	size_t n, instances = 0;

	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return err;
	if (!rot_snapshot_has_rot(snap)) {
		rot_snapshot_free(snap);
		return -EOPNOTSUPP;
	}
	err = rot_snapshot_rotting_groups(snap, &g, &n);
	if (err < 0) {
		rot_snapshot_free(snap);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		instances += g[i].instances;
	uint64_t bytes = total_bytes(g, n), percpu = 0;

	/* The per-CPU bytes are an addition: the report goes on without them. */
	int perr = pass_reserve(r, g, n);
	if (perr < 0) {
		free(g);
		rot_snapshot_free(snap);
		return perr;
	}
	for (size_t i = 0; r->pc && i < n; i++)
		percpu += r->held[i];
	const uint64_t *held = r->pc ? r->held : NULL;

	if (r->opts->json) {
		/* Nothing is reclaimed: the taint is what it is, before and after. */
		int terr = run_taint_before(&r->taint);
		if (terr < 0)
			cli_outcome_failed(&r->outcome, terr);
		r->taint.after_known = r->taint.before_known;
		r->taint.after = r->taint.before;
		r->rot_left = bytes;
		err = print_json(r, g, held, n, "rotting");
	} else if (!r->opts->quiet) {
		if (n)
			err = print_groups(g, held, n, NULL, NULL);
		printf("total: %zu rotting %s of %zu %s, %" PRIu64 " bytes", instances,
		       instances_word(instances), n, n == 1 ? "name" : "names", bytes);
		if (r->pc) {
			printf(", %" PRIu64 " per-CPU bytes; ", percpu);
			print_reserve_words(r, rot_percpu_free_bytes(r->pc), false);
		}
		putchar('\n');
	}
	free(r->held);
	free(r->gives);
	free(r->taken);
	r->held = NULL;
	r->gives = NULL;
	r->taken = NULL;
	free(g);
	rot_snapshot_free(snap);
	/* The kernel was read: what failed now is the output. */
	if (err == -ENOMEM)
		cli_error("out of memory");
	else if (err < 0)
		cli_output_failed(err);
	if (err < 0)
		cli_outcome_failed(&r->outcome, err);
	return 0;
}

static int print_reclaim_json(struct reap_run *r)
{
	struct rot_group *g = calloc(r->nreaped + 1, sizeof(*g));
	uint64_t *percpu = calloc(r->nreaped + 1, sizeof(*percpu));
	int err = -ENOMEM;
	if (g && percpu) {
		for (size_t i = 0; i < r->nreaped; i++) {
			g[i] = (struct rot_group){ r->reaped[i].name, r->reaped[i].instances,
						   r->reaped[i].bytes };
			percpu[i] = r->reaped[i].percpu;
		}
		err = print_json(r, g, r->pc ? percpu : NULL, r->nreaped, "reclaimed");
	}
	free(g);
	free(percpu);
	return err;
}

/* A summary that could not be made is a failure of the run: it says so. */
static int print_summary(struct reap_run *r)
{
	const bool dry = r->opts->dry_run;

	int terr = run_taint_after(&r->taint, dry, r->instances ? ROT_TAINT_FORCED_RMMOD : 0);
	if (terr < 0)
		cli_outcome_failed(&r->outcome, terr);
	if (r->opts->json)
		return print_reclaim_json(r);
	if (r->opts->quiet)
		return 0;
	/* Per-CPU words only where per-CPU bytes are what the run is about. */
	bool percpu_words = r->pc && (r->percpu || percpu_mode(r->opts));
	printf("total: %s %zu %s, %" PRIu64 " bytes", dry ? "would reclaim" : "reclaimed",
	       r->instances, instances_word(r->instances), r->bytes);
	if (percpu_words)
		printf(", %" PRIu64 " per-CPU bytes", r->percpu);
	printf("; %" PRIu64 " bytes %s rot; ", r->rot_left, dry ? "would still" : "still");
	if (percpu_words) {
		print_reserve_words(r, reserve_free_after(r), dry && r->percpu);
		printf("; ");
	}
	if (r->refused)
		printf("%zu %s still in use; ", r->refused, instances_word(r->refused));
	if (r->taint.before_known && r->taint.after_known)
		report_taint_change(r->taint.before, r->taint.after, dry);
	else
		printf("kernel taint unknown\n");
	return 0;
}

static int watch(struct reap_run *r)
{
	struct timespec pause = {
		.tv_sec = (time_t)r->opts->interval,
		.tv_nsec = (long)((r->opts->interval - (double)(time_t)r->opts->interval) * 1e9),
	};
	for (bool first = true; !stop_signal(); first = false) {
		struct cli_outcome before = r->outcome;
		size_t freed_before = r->instances;
		int err = reap_pass(r, first);
		if (err < 0)
			return err;
		cli_flush_stdout();
		/* A pass that only met permission errors would meet them again
		 * every interval: without CAP_SYS_MODULE there is nothing to watch. */
		unsigned failed = r->outcome.failures - before.failures;
		if (failed && r->instances == freed_before &&
		    r->outcome.perm - before.perm + r->outcome.cascaded - before.cascaded == failed) {
			cli_error("stopped watching: reclaiming needs CAP_SYS_MODULE");
			break;
		}
		if (!stop_signal())
			nanosleep(&pause, NULL);
	}
	count_refusals(r);
	return 0;
}

int main(int argc, char *argv[])
{
	struct reap_opts o = { 0 };
	struct reap_run r = { .opts = &o };

	cli_init("modreap", help);
	parse_options(argc, argv, &o);

	/* No SA_RESTART: a stop signal must cut --watch's sleep and a wait
	 * for the reclaim lock short. */
	if (reclaiming(&o))
		stop_signals_catch(false);

	int err;
	if (!reclaiming(&o))
		err = report(&r);
	else if (o.watch)
		err = watch(&r);
	else
		err = reap_pass(&r, true);

	if (err == -EOPNOTSUPP) {
		cli_error("this kernel has no module rot support (/proc/rotting_modules is missing)");
		err = CLI_EXIT_UNSUPPORTED;
	} else if (err == ERR_FATAL && r.instances == 0) {
		err = r.fatal_exit;
	} else if (err < 0 && r.instances == 0) {
		if (err == -ENOMEM)
			cli_error("out of memory");
		err = err == -ENOMEM ? CLI_EXIT_PARTIAL : cli_snapshot_error(err);
	} else {
		/* A later --watch pass that failed does not hide what earlier ones freed. */
		if (err == ERR_FATAL) {
			/* said already; a failed read was counted then */
			if (r.outcome.failures == 0)
				cli_outcome_failed(&r.outcome, -EINVAL);
		} else if (err < 0) {
			if (err == -ENOMEM)
				cli_error("out of memory");
			else
				cli_snapshot_error(err);
			cli_outcome_failed(&r.outcome, err);
		}
		int out = reclaiming(&o) ? print_summary(&r) : 0;
		err = cli_outcome_exit(&r.outcome);
		if (out == -ENOMEM) {
			cli_error("out of memory");
			err = CLI_EXIT_PARTIAL;
		} else if (out < 0) {
			cli_output_failed(out);
			err = CLI_EXIT_PARTIAL;
		}
	}
	free(r.reaped);
	free(r.refusals);
	free(r.kept);
	free(o.names);
	rot_percpu_free(r.pc);
	if (stop_signal() && err != CLI_EXIT_UNSUPPORTED) {
		if (!o.watch)
			cli_error("interrupted by %s: stopped reclaiming", stop_signal_name());
		return stop_exit_code();
	}
	return err;
}
