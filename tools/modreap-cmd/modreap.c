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
 * This file is the options and main; --percpu and --percpu-floor are
 * modreap-percpu.c's; docs/architecture.md, "Layout", has the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "modreap.h"
#include "stopsignal.h"
#include "sizewords.h"

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
	       "  -b, --bytes           sizes in bytes, not as 4.9K, 1.2M\n"
	       "  -J, --json            JSON output\n"
	       "  -q, --quiet           print nothing but errors\n"
	       "  -h, --help            show this help\n"
	       "  -V, --version         show the version\n",
	       cli_progname());
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
		{ "bytes", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	static const int exclusive[][CLI_EXCLUSIVE_MAX] = {
		{ 'J', 'q' },
		{ OPT_WATCH, 'n' },
	};
	const struct cli_store stores[] = {
		{ 'a', .flag = &o->all },
		{ 'n', .flag = &o->dry_run },
		{ 'f', .flag = &o->force },
		{ OPT_WATCH, .flag = &o->watch },
		{ 'J', .flag = &o->json },
		{ 'q', .flag = &o->quiet },
		{ 'b', .set = size_words_set_bytes },
		{ OPT_DOWN_TO, .size = &o->down_to, .flag = &o->has_down_to,
		  .examples = "like 16M, 512K or 4096" },
		{ OPT_PERCPU_FLOOR, .size = &o->floor, .flag = &o->has_floor,
		  .examples = "like 4K, 1500 or 512" },
		{ 0 },
	};
	bool has_interval = false;
	int c;

	cli_exclusive_options(exclusive, 2);
	o->interval = 1.0;
	while ((c = cli_next_option(argc, argv, "afnbJqhV", longopts, stores)) != -1) {
		switch (c) {
		case OPT_PERCPU:
			o->percpu = true;
			/* --percpu SIZE as well as --percpu=SIZE: the word after it
			 * is its size when it reads as one (no module is named so). */
			if (!optarg && optind < argc &&
			    cli_parse_size(argv[optind], &o->percpu_size) == 0)
				optarg = argv[optind++];
			if (optarg && cli_parse_size(optarg, &o->percpu_size) < 0)
				cli_usage_fail("'%s' is not a size (like 4K, 1500 or 512)", optarg);
			o->has_percpu_size |= optarg != NULL;
			break;
		case OPT_INTERVAL:
			if (cli_parse_interval(optarg, &o->interval) < 0)
				cli_usage_fail("'%s' is not an interval in seconds (0 < SECS <= 86400)",
					       optarg);
			has_interval = true;
			break;
		}
	}

	o->nnames = (size_t)(argc - optind);
	if (o->percpu && o->watch)
		cli_usage_fail(
			"--watch keeps per-CPU reserve free with --percpu-floor SIZE, not --percpu");
	if (o->all + o->has_down_to + (o->nnames > 0) + o->percpu > 1)
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

/*
 * No reclaiming asked: one look at the kernel, printed. Returns a
 * negative errno only when the kernel could not be read; what fails in
 * the output is said here and counted in the run's outcome.
 */
static int reap_report(struct reap_run *r)
{
	struct rot_snapshot *snap;
	struct rot_group *g;
	size_t n;

	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return err;
	err = rot_snapshot_has_rot(snap) ? rot_snapshot_rotting_groups(snap, &g, &n) : -EOPNOTSUPP;
	if (err < 0) {
		rot_snapshot_free(snap);
		return err;
	}
	/* The per-CPU bytes are an addition: the report goes on without them. */
	int perr = pass_reserve(r, g, n).err;
	if (perr == 0 && r->opts->json) {
		/* Nothing is reclaimed: the taint is what it is, before and after. */
		run_taint_before(&r->taint, &r->outcome);
		r->taint.after_known = r->taint.before_known;
		r->taint.after = r->taint.before;
		r->rot_left = total_bytes(g, n);
	}
	if (perr == 0)
		err = reap_print_rot(r, g, n);
	pass_reserve_end(r);
	free(g);
	rot_snapshot_free(snap);
	if (perr < 0)
		return perr;
	/* The kernel was read: what failed now is the output. */
	if (err == -ENOMEM)
		cli_error("out of memory");
	else if (err < 0)
		cli_output_failed(err);
	if (err < 0)
		cli_outcome_failed(&r->outcome, err);
	return 0;
}

int main(int argc, char *argv[])
{
	struct reap_opts o = { 0 };
	struct reap_run r = { .opts = &o };

	cli_init("modreap", help);
	parse_options(argc, argv, &o);

	struct reap_status st = { 0 };
	if (!reclaiming(&o)) {
		st.err = reap_report(&r);
	} else {
		/* No SA_RESTART: a stop signal must cut --watch's sleep and a
		 * wait for the reclaim lock short. */
		stop_signals_catch(false);
		st = o.watch ? reap_watch(&r) : reap_pass(&r, true);
	}

	int err = st.err;
	if (err == -EOPNOTSUPP && !st.said) {
		cli_error("this kernel has no module rot support (/proc/rotting_modules is missing)");
		err = CLI_EXIT_UNSUPPORTED;
	} else if (st.said && r.instances == 0) {
		err = (int)st.exit;
	} else if (err < 0 && r.instances == 0) {
		if (err == -ENOMEM)
			cli_error("out of memory");
		err = err == -ENOMEM ? CLI_EXIT_PARTIAL : cli_snapshot_error(err);
	} else {
		/* A later --watch pass that failed does not hide what earlier ones freed. */
		if (st.said) {
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
		int out = reclaiming(&o) ? reap_print_summary(&r) : 0;
		if (out == -ENOMEM)
			cli_error("out of memory");
		else if (out < 0)
			cli_output_failed(out);
		err = out < 0 ? CLI_EXIT_PARTIAL : (int)cli_outcome_exit(&r.outcome);
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
