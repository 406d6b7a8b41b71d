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
#include "modrot.h"
#include "progress.h"
#include "reclaim-report.h"
#include "stopsignal.h"

struct reap_opts {
	bool all;
	bool dry_run;
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

struct reap_run {
	const struct reap_opts *opts;
	struct reaped *reaped;
	size_t nreaped;
	size_t instances;
	uint64_t bytes;
	uint64_t rot_left;
	unsigned long taint_before;
	unsigned failures;
	unsigned perm_failures;
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
		{ "watch", no_argument, NULL, OPT_WATCH },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "json", no_argument, NULL, 'J' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	bool has_interval = false;
	int c;

	o->interval = 1.0;
	while ((c = cli_next_option(argc, argv, "anJqhV", longopts)) != -1) {
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
		case OPT_WATCH:
			o->watch = true;
			break;
		case OPT_INTERVAL: {
			char *end;
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->interval > 0) ||
			    o->interval > 86400)
				cli_usage_fail("'%s' is not an interval in seconds (0 < SECS <= 86400)",
					       optarg);
			has_interval = true;
			break;
		}
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
	if (o->watch && o->dry_run)
		cli_usage_fail("--watch and --dry-run exclude each other");
	if (o->json && o->quiet)
		cli_usage_fail("--json and --quiet exclude each other");

	o->names = cli_module_names(argv + optind, o->nnames);
}

static bool reclaiming(const struct reap_opts *o)
{
	return o->all || o->has_down_to || o->nnames;
}

static void fail(struct reap_run *r, int err)
{
	r->failures++;
	if (err == -EPERM || err == -EACCES)
		r->perm_failures++;
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

/* Which groups this pass reclaims, in order; NULL entries are names with no rot. */
static size_t choose(const struct reap_opts *o, const struct rot_group *g, size_t n,
		     const struct rot_group **chosen, uint64_t total)
{
	size_t k = 0;

	if (o->nnames) {
		for (size_t i = 0; i < o->nnames; i++)
			chosen[k++] = find_group(g, n, o->names[i]);
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		if (o->has_down_to && total <= o->down_to)
			break;
		chosen[k++] = &g[i];
		total -= g[i].bytes;
	}
	return k;
}

static void reclaim_chosen(struct reap_run *r, const struct rot_snapshot *snap,
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
			fail(r, -ENOENT);
			continue;
		}
		int err = o->dry_run ? 0 : rot_reclaim(snap, g->name);
		if (err < 0) {
			cli_error("could not reclaim module %s: %s%s", g->name, strerror(-err),
				  cli_errno_hint(err));
			fail(r, err);
			continue;
		}
		if (remember(r, g) < 0) {
			cli_error("reclaimed module %s, but out of memory to report it", g->name);
			fail(r, -ENOMEM);
		}
		r->rot_left -= g->bytes;
		if (!o->quiet && !o->json) {
			progress_clear(&bar);
			report_reclaimed(g->name, g->instances, g->bytes, o->dry_run);
			/* The bar is on stderr: the line must be out before it is redrawn. */
			fflush(stdout);
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
	if (first) {
		int terr = rot_taint_read(&r->taint_before);
		if (terr < 0) {
			cli_error("could not read the kernel taint: %s", strerror(-terr));
			fail(r, terr);
		}
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
		fail(r, -ENOMEM);
	} else {
		size_t k = choose(r->opts, groups, ngroups, chosen, r->rot_left);
		reclaim_chosen(r, snap, chosen, k);
	}
	free(chosen);
	free(groups);
	rot_snapshot_free(snap);
	rot_reclaim_unlock(lock);
	return err;
}

static int print_report_table(const struct rot_group *g, size_t n, bool json)
{
	static const struct column_info cols[] = {
		{ "NAME", 0.3, 0, SCOLS_JSON_STRING, "module name" },
		{ "INSTANCES", 9, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "rotting instances" },
		{ "BYTES", 12, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "bytes they hold" },
	};
	static const int ids[] = { 0, 1, 2 };
	struct table_style style = { .json = json, .json_name = "rotting" };
	struct libscols_table *tb = columns_table_new(cols, ids, 3, &style);
	if (!tb)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char inst[24], bytes[24];
		if (!ln) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
		snprintf(inst, sizeof(inst), "%zu", g[i].instances);
		snprintf(bytes, sizeof(bytes), "%" PRIu64, g[i].bytes);
		if (scols_line_set_data(ln, 0, g[i].name) < 0 ||
		    scols_line_set_data(ln, 1, inst) < 0 || scols_line_set_data(ln, 2, bytes) < 0) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
	}
	/* The JSON object gets a summary member after the table's array. */
	char *text = NULL;
	int err = json ? scols_print_table_to_string(tb, &text) : scols_print_table(tb);
	if (err == 0 && json && !text)
		err = -ENOMEM;
	if (err == 0 && json) {
		size_t len = strlen(text);
		while (len && (text[len - 1] == '\n' || text[len - 1] == '}'))
			text[--len] = '\0';
		fputs(text, stdout);
	}
	free(text);
	scols_unref_table(tb);
	return err;
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
		err = print_report_table(g, n, true);
		if (err == 0)
			printf(",\n   \"summary\": {\"names\": %zu, \"instances\": %zu, \"bytes\": %" PRIu64
			       "}\n}\n", n, instances, bytes);
	} else if (!r->opts->quiet) {
		if (n)
			err = print_report_table(g, n, false);
		printf("total: %zu rotting %s of %zu %s, %" PRIu64 " bytes\n", instances,
		       instances_word(instances), n, n == 1 ? "name" : "names", bytes);
	}
	free(g);
	rot_snapshot_free(snap);
	return err;
}

static int print_reclaim_json(const struct reap_run *r, unsigned long taint_after)
{
	struct rot_group *g = calloc(r->nreaped + 1, sizeof(*g));
	char before[40], after[40];

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < r->nreaped; i++)
		g[i] = (struct rot_group){ r->reaped[i].name, r->reaped[i].instances,
					   r->reaped[i].bytes };
	/* Same shape as the report: an array, then the summary. */
	int err = print_report_table(g, r->nreaped, true);
	free(g);
	if (err < 0)
		return err;
	rot_taint_letters(r->taint_before, before, sizeof(before));
	rot_taint_letters(taint_after, after, sizeof(after));
	printf(",\n   \"summary\": {\"dry_run\": %s, \"instances\": %zu, \"bytes\": %" PRIu64
	       ", \"rot_left\": %" PRIu64 ", \"taint_before\": \"%s\", \"taint_after\": \"%s\""
	       ", \"taint_after_value\": %lu, \"failures\": %u}\n}\n",
	       r->opts->dry_run ? "true" : "false", r->instances, r->bytes, r->rot_left, before,
	       after, taint_after, r->failures);
	return 0;
}

/* A summary that could not be made is a failure of the run: it says so. */
static void print_summary(struct reap_run *r)
{
	unsigned long after = r->taint_before;
	const bool dry = r->opts->dry_run;

	if (dry) {
		if (r->instances)
			after |= ROT_TAINT_FORCED_RMMOD;
	} else {
		int err = rot_taint_read(&after);
		if (err < 0) {
			cli_error("could not read the kernel taint after reclaiming: %s",
				  strerror(-err));
			fail(r, err);
		}
	}
	if (r->opts->json) {
		int err = print_reclaim_json(r, after);
		if (err < 0) {
			cli_error("could not print the report: %s", strerror(-err));
			fail(r, err);
		}
		return;
	}
	if (r->opts->quiet)
		return;
	printf("total: %s %zu %s, %" PRIu64 " bytes; %" PRIu64 " bytes %s rot; ",
	       dry ? "would reclaim" : "reclaimed", r->instances, instances_word(r->instances),
	       r->bytes, r->rot_left, dry ? "would still" : "still");
	report_taint_change(r->taint_before, after, dry);
}

static int watch(struct reap_run *r)
{
	struct timespec pause = {
		.tv_sec = (time_t)r->opts->interval,
		.tv_nsec = (long)((r->opts->interval - (double)(time_t)r->opts->interval) * 1e9),
	};
	for (bool first = true; !stop_signal(); first = false) {
		int err = reap_pass(r, first);
		if (err < 0)
			return err;
		fflush(stdout);
		if (!stop_signal())
			nanosleep(&pause, NULL);
	}
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
			fail(&r, err);
		}
		if (reclaiming(&o))
			print_summary(&r);
		err = r.failures == 0 ? CLI_EXIT_OK
			: r.perm_failures == r.failures ? CLI_EXIT_PERM : CLI_EXIT_PARTIAL;
	}
	free(r.reaped);
	free(o.names);
	/* ferror: a write that failed earlier (a flush after each line) left
	 * nothing for this flush to fail on. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error("could not write the report: %s", strerror(errno));
		return CLI_EXIT_PARTIAL;
	}
	if (stop_signal() && err != CLI_EXIT_UNSUPPORTED) {
		if (!o.watch)
			cli_error("interrupted by %s: stopped reclaiming", stop_signal_name());
		return stop_exit_code();
	}
	return err;
}
