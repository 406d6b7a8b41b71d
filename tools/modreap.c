// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modreap: report rotting module memory and reclaim it in bulk.
 *
 * Each pass reads one snapshot under the reclaim lock, groups the rotting
 * instances by name, chooses names, and makes one delete_module call per
 * chosen name. --watch repeats passes until SIGHUP, SIGINT or SIGTERM;
 * any reclaiming run told to stop so finishes the reclaim in flight,
 * reports what it freed, and exits 128 + the signal.
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
	double interval;
	char (*names)[ROT_NAME_MAX + 1];
	size_t nnames;
};

/* What a run freed, per name, summed over its passes. */
struct reaped {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
	uint64_t bytes;
};

/* A name the kernel refused as still in use, and how many instances it had then. */
struct refusal {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
};

struct reap_run {
	const struct reap_opts *opts;
	struct reaped *reaped;
	size_t nreaped;
	size_t instances;
	uint64_t bytes;
	size_t refused;   /* instances left rotting as still in use */
	struct refusal *refusals; /* --watch: not asked again until they change */
	size_t nrefusals;
	uint64_t rot_left;
	struct run_taint taint;
	struct cli_outcome outcome;
};

static void help(void)
{
	printf("Usage: %s [OPTIONS] [NAME...]\n"
	       "Report rotting module memory, or reclaim it.\n"
	       "\n"
	       "With no NAME and no -a or --down-to, report the rotting instances by\n"
	       "name. Reclaiming frees memory that a stray pointer may still reach,\n"
	       "so it taints the kernel R.\n"
	       "\n"
	       "Options:\n"
	       "  NAME...               reclaim every rotting instance of these names\n"
	       "  -a, --all             reclaim everything that rots\n"
	       "      --down-to SIZE    reclaim, largest names first, until at most SIZE\n"
	       "                        rots (e.g. 16M, 512K)\n"
	       "  -f, --force           free even instances the kernel sees still in use\n"
	       "                        (an armed timer, queued work): may crash the machine\n"
	       "  -n, --dry-run         say what would be freed, free nothing\n"
	       "      --watch           keep running: reclaim whenever rot exceeds --down-to\n"
	       "      --interval SECS   how often --watch looks (default 1)\n"
	       "  -J, --json            JSON output\n"
	       "  -q, --quiet           print nothing but errors\n"
	       "  -h, --help            show this help\n"
	       "  -V, --version         show the version\n",
	       cli_progname());
}

static void parse_options(int argc, char *argv[], struct reap_opts *o)
{
	enum { OPT_DOWN_TO = 256, OPT_WATCH, OPT_INTERVAL };
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "down-to", required_argument, NULL, OPT_DOWN_TO },
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
				cli_usage_fail("'%s' is not a size (like 16M, 512K or 4096)", optarg);
			o->has_down_to = true;
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
	if ((o->all ? 1 : 0) + (o->has_down_to ? 1 : 0) + (o->nnames ? 1 : 0) > 1)
		cli_usage_fail("NAME, --all and --down-to exclude each other");
	if (o->watch && !o->has_down_to)
		cli_usage_fail("--watch needs --down-to SIZE");
	if (has_interval && !o->watch)
		cli_usage_fail("--interval only makes sense with --watch");
	if (o->force && !(o->all || o->has_down_to || o->nnames))
		cli_usage_fail("--force only makes sense when reclaiming (NAME, --all or --down-to)");

	o->names = cli_module_names(argv + optind, o->nnames);
}

static bool reclaiming(const struct reap_opts *o)
{
	return o->all || o->has_down_to || o->nnames;
}

/* -ENOMEM: the totals count it, the per-name report cannot list it. */
static int remember(struct reap_run *r, const struct rot_group *g)
{
	r->instances += g->instances;
	r->bytes += g->bytes;
	for (size_t i = 0; i < r->nreaped; i++) {
		if (strcmp(r->reaped[i].name, g->name) == 0) {
			r->reaped[i].instances += g->instances;
			r->reaped[i].bytes += g->bytes;
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
	return 0;
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
		if (refused_before(r, &g[i]))
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
		if (refused_before(r, &g[i]))
			continue;
		chosen[k++] = &g[i];
		break;
	}
	return k;
}

/* Reclaims one group; returns false when the kernel refused all of it. */
static bool reclaim_group(struct reap_run *r, const struct rot_snapshot *snap,
			  const struct rot_group *g, struct progress *bar)
{
	const struct reap_opts *o = r->opts;
	struct reclaim_outcome out = { .freed = g->instances, .bytes = g->bytes };

	if (!o->dry_run) {
		struct reclaim_seen seen = { g->instances, g->bytes,
					     g->instances ? g->bytes / g->instances : 0 };
		reclaim_name(snap, g->name, &seen, o->force, &out);
	}
	if (out.err < 0 && out.err != -EBUSY) {
		cli_error("could not reclaim module %s: %s%s", g->name, strerror(-out.err),
			  cli_errno_hint(out.err));
		cli_outcome_failed(&r->outcome, out.err);
		return false;
	}
	if (out.count_err < 0) {
		char msg[512];
		progress_clear(bar);
		count_error_message(msg, sizeof(msg), g->name, out.count_err);
		cli_error("%s", msg);
		cli_outcome_failed(&r->outcome, out.count_err);
	}
	if (out.freed) {
		struct rot_group freed = { g->name, out.freed, out.bytes };
		if (remember(r, &freed) < 0) {
			cli_error("reclaimed module %s, but out of memory to report it", g->name);
			cli_outcome_failed(&r->outcome, -ENOMEM);
		}
		r->rot_left = r->rot_left > out.bytes ? r->rot_left - out.bytes : 0;
		if (!o->quiet && !o->json) {
			progress_clear(bar);
			report_reclaimed(g->name, out.freed, out.bytes, o->dry_run);
			/* The bar is on stderr: the line must be out before it is redrawn. */
			cli_flush_stdout();
		}
	}
	if (!out.refused && o->watch)
		forget_refusal(r, g->name);
	if (out.refused) {
		char msg[512];
		progress_clear(bar);
		refused_message(msg, sizeof(msg), g->name, out.refused, "modreap --force");
		cli_error("%s", msg);
		if (!o->watch)
			r->refused += out.refused;
		cli_outcome_failed(&r->outcome, -EBUSY);
		if (o->watch)
			note_refusal(r, g->name, out.refused);
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
		reclaim_group(r, snap, g, &bar);
		/* Refused names leave the target unmet: try the next largest. */
		if (i + 1 == k && o->has_down_to && r->rot_left > o->down_to) {
			size_t more = choose_more(r, groups, ngroups, chosen, k);
			bar.total += more - k;
			k = more;
		}
	}
	progress_end(&bar);
}

static uint64_t total_bytes(const struct rot_group *g, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += g[i].bytes;
	return t;
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
			 "concurrent run reclaims", strerror(-lock));
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

	const struct rot_group **chosen = calloc(ngroups + r->opts->nnames + 1, sizeof(*chosen));
	if (!chosen) {
		cli_error("out of memory");
		cli_outcome_failed(&r->outcome, -ENOMEM);
	} else {
		size_t k = choose(r, groups, ngroups, chosen, r->rot_left);
		reclaim_chosen(r, snap, groups, ngroups, chosen, k);
	}
	free(chosen);
	free(groups);
	rot_snapshot_free(snap);
	rot_reclaim_unlock(lock);
	return err;
}

/* The rows of rot by name: a table, or the named array of a JSON document. */
static int print_groups(const struct rot_group *g, size_t n, struct json_writer *w,
			const char *array_name)
{
	static const struct column_info cols[] = {
		{ "NAME", 0.3, 0, "module name" },
		{ "INSTANCES", 9, SCOLS_FL_RIGHT, "rotting instances" },
		{ "BYTES", 12, SCOLS_FL_RIGHT, "bytes they hold" },
	};
	static const int ids[] = { 0, 1, 2 };
	struct table_style style = { .json = w != NULL, .json_name = array_name };
	struct listing l;

	int err = listing_start(&l, cols, ids, 3, &style, w);
	for (size_t i = 0; err == 0 && i < n; i++) {
		err = listing_row(&l);
		listing_str(&l, 0, g[i].name);
		listing_u64(&l, 1, g[i].instances);
		listing_u64(&l, 2, g[i].bytes);
	}
	int end = listing_end(&l);
	return err ? err : end;
}

static void summary_json(struct json_writer *w, const struct reap_run *r, size_t names,
			 size_t instances, uint64_t bytes)
{
	json_open_object(w, "summary");
	report_json_summary_common(w, r->opts->dry_run, r->outcome.failures, &r->taint);
	json_u64(w, "names", names);
	json_u64(w, "instances", instances);
	json_u64(w, "bytes", bytes);
	json_u64(w, "refused", r->refused);
	json_u64(w, "rot_left", r->rot_left);
	json_close_object(w);
}

/* A JSON document: the array, then the summary. */
static int print_json(struct reap_run *r, const struct rot_group *g, size_t n,
		      const char *array_name)
{
	struct json_writer w;
	size_t instances = 0;
	uint64_t bytes = 0;
	int err = json_start_stdout(&w);

	for (size_t i = 0; i < n; i++) {
		instances += g[i].instances;
		bytes += g[i].bytes;
	}
	if (err == 0)
		err = print_groups(g, n, &w, array_name);
	if (err == 0)
		summary_json(&w, r, n, instances, bytes);
	int fin = json_finish(&w);
	return err ? err : fin;
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
	uint64_t bytes = total_bytes(g, n);

	if (r->opts->json) {
		/* Nothing is reclaimed: the taint is what it is, before and after. */
		int terr = run_taint_before(&r->taint);
		if (terr < 0)
			cli_outcome_failed(&r->outcome, terr);
		r->taint.after_known = r->taint.before_known;
		r->taint.after = r->taint.before;
		r->rot_left = bytes;
		err = print_json(r, g, n, "rotting");
	} else if (!r->opts->quiet) {
		if (n)
			err = print_groups(g, n, NULL, NULL);
		printf("total: %zu rotting %s of %zu %s, %" PRIu64 " bytes\n", instances,
		       instances_word(instances), n, n == 1 ? "name" : "names", bytes);
	}
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
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < r->nreaped; i++)
		g[i] = (struct rot_group){ r->reaped[i].name, r->reaped[i].instances,
					   r->reaped[i].bytes };
	int err = print_json(r, g, r->nreaped, "reclaimed");
	free(g);
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
	printf("total: %s %zu %s, %" PRIu64 " bytes; %" PRIu64 " bytes %s rot; ",
	       dry ? "would reclaim" : "reclaimed", r->instances, instances_word(r->instances),
	       r->bytes, r->rot_left, dry ? "would still" : "still");
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
	} else if (err < 0 && r.instances == 0) {
		if (err == -ENOMEM)
			cli_error("out of memory");
		err = err == -ENOMEM ? CLI_EXIT_PARTIAL : cli_snapshot_error(err);
	} else {
		/* A later --watch pass that failed does not hide what earlier ones freed. */
		if (err < 0) {
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
	free(o.names);
	if (stop_signal() && err != CLI_EXIT_UNSUPPORTED) {
		if (!o.watch)
			cli_error("interrupted by %s: stopped reclaiming", stop_signal_name());
		return stop_exit_code();
	}
	return err;
}
