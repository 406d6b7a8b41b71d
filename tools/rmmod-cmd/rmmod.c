// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rmmod: unload modules. On a rot kernel an unloaded module rots: its exit
 * has run and its name is free, but its memory stays until reclaimed.
 *
 * One snapshot is read up front; each module then costs one delete_module
 * call. Unloaded modules are marked in the snapshot's index space so that
 * later arguments and --remove-holders see them as gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "reasons.h"
#include "reclaim-lock.h"
#include "rmmod.h"
#include "sizewords.h"
#include "stopsignal.h"

static void help(void)
{
	printf("Usage: %s [OPTIONS] MODULE...\n"
	       "       %s --unused [-n] [--reclaim] [OPTIONS]\n"
	       "Unload modules. On a rot kernel an unloaded module's memory stays\n"
	       "allocated (it rots) until it is reclaimed.\n"
	       "\n"
	       "Options:\n"
	       "  -f, --force            unload even a permanent module (taints the kernel R);\n"
	       "                         with --reclaim, first stop the timers and work left\n"
	       "                         in its instances (pinned or entered ones stay)\n"
	       "      --remove-holders   first unload the live modules that depend on MODULE\n"
	       "      --unused           unload every live module that nothing uses (no\n"
	       "                         holders, no bound device), holders first; no MODULE\n"
	       "  -n, --dry-run          with --unused: list what would be unloaded, unload nothing\n"
	       "      --reclaim          unload MODULE if live, then free all its rotting\n"
	       "                         instances (taints the kernel R)\n"
	       "  -b, --bytes            sizes in bytes, not as 4.9K, 1.2M\n"
	       "  -J, --json             report what was done as JSON\n"
	       "  -s, --syslog           report errors to syslog instead of stderr\n"
	       "  -v, --verbose          say what each unload leaves behind\n"
	       "  -h, --help             show this help\n"
	       "  -V, --version          show the version\n",
	       cli_progname(), cli_progname());
}

static void parse_options(int argc, char *argv[], struct rmmod_opts *o)
{
	enum { OPT_REMOVE_HOLDERS = 256, OPT_RECLAIM, OPT_UNUSED };
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "unused", no_argument, NULL, OPT_UNUSED },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "remove-holders", no_argument, NULL, OPT_REMOVE_HOLDERS },
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "json", no_argument, NULL, 'J' },
		{ "bytes", no_argument, NULL, 'b' },
		CLI_OPTIONS_SYSLOG_VERBOSE,
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	static const int exclusive[][CLI_EXCLUSIVE_MAX] = {
		{ OPT_UNUSED, OPT_REMOVE_HOLDERS },
	};
	const struct cli_store stores[] = {
		{ 'f', .bits = &o->unload_flags, .mask = ROT_UNLOAD_FORCE },
		{ 'J', .flag = &o->json },
		{ OPT_UNUSED, .flag = &o->unused },
		{ 'n', .flag = &o->dry_run },
		{ OPT_REMOVE_HOLDERS, .flag = &o->remove_holders },
		{ OPT_RECLAIM, .flag = &o->reclaim },
		{ 'b', .set = size_words_set_bytes },
		{ 0 },
	};

	cli_exclusive_options(exclusive, 1);
	/* Every option is one of the table's, or the helper's own. */
	while (cli_next_option(argc, argv, "fnbJsvhV", longopts, stores) != -1)
		continue;
	if (o->unused && optind < argc)
		cli_usage_fail("--unused chooses the modules itself: give no MODULE");
	if (o->dry_run && !o->unused)
		cli_usage_fail("--dry-run only makes sense with --unused");
	if (!o->unused && optind >= argc)
		cli_usage_fail("missing module name");
}

int main(int argc, char *argv[])
{
	struct rmmod_opts o = { 0 };
	struct rmmod_run r = { .opts = &o };
	struct run_taint taint = { 0 };

	cli_init("rmmod", help);
	parse_options(argc, argv, &o);
	int nnames = argc - optind;
	char(*names)[ROT_NAME_MAX + 1] = cli_module_names(argv + optind, (size_t)nnames);

	/* Counts of what a reclaim frees come from this snapshot: hold off other
	 * reclaiming runs until we are done. */
	int lock = -1, code = CLI_EXIT_PARTIAL, done = 0;
	if (o.reclaim) {
		enum cli_exit lock_code = CLI_EXIT_PARTIAL;
		lock = reclaim_lock_take(&lock_code);
		if (lock < 0) {
			code = stop_signal() ? stop_exit_code() : (int)lock_code;
			goto out;
		}
	}
	int err = rot_snapshot_read(&r.snap);
	if (err < 0) {
		code = cli_snapshot_error(err);
		goto out;
	}
	if (o.reclaim && !rot_snapshot_has_rot(r.snap)) {
		cli_error("this kernel has no module rot support: nothing to reclaim");
		code = CLI_EXIT_UNSUPPORTED;
		goto out;
	}
	/* The taint change cannot be told: the reclaims can still be done. */
	if (o.reclaim || o.json)
		run_taint_before(&taint, &r.outcome);

	int gone_err = gone_marks_init(&r.gone, r.snap);
	r.failed = calloc(rot_snapshot_count(r.snap) + 1, sizeof(*r.failed));
	if (gone_err < 0 || !r.failed) {
		cli_error("out of memory");
		goto out;
	}
	r.talk = cli_verbosity() > 0 || isatty(STDERR_FILENO);
	if (r.talk && !o.json && !o.reclaim && rot_snapshot_has_rot(r.snap))
		rmmod_read_percpu(&r);
	/* Told to stop, a run finishes the unload in flight and starts no other. */
	stop_signals_catch(true);

	if (o.unused)
		rmmod_unload_unused(&r);
	for (int i = 0; i < nnames && !stop_signal(); i++, done++) {
		const char *name = names[i];
		const char *typed = argv[optind + i];
		struct stat st;
		/* A path names the module of the file at it, as kmod's rmmod reads
		 * it (stat, then the file's name): with no file there it names
		 * no loaded module, whatever its last component says. */
		if (strchr(typed, '/') && stat(typed, &st) < 0) {
			int why = -errno;
			rmmod_failed(&r, name, why, false, REASON_OTHER,
				     "%s: %s; a path names the module in that file, so this one names "
				     "no loaded module",
				     typed,
				     why == -ENOENT ? "no such module file" : cli_strerror(why));
			continue;
		}
		const struct rot_module *m = rmmod_find_present(&r, name);
		if (o.remove_holders && m && rmmod_unload_holders(&r, m, 0) < 0)
			continue;
		if (o.reclaim)
			rmmod_reclaim_one(&r, name);
		else
			rmmod_unload_one(&r, name);
	}
	if (o.json) {
		run_taint_after(&taint, o.dry_run, 0, &r.outcome);
		if (r.records_lost) {
			cli_error("out of memory");
			cli_outcome_failed(&r.outcome, -ENOMEM);
		} else {
			rmmod_print_json(&r, &taint);
		}
	} else if (o.reclaim && r.reclaimed) {
		run_taint_after(&taint, false, 0, &r.outcome);
		if (taint.before_known && taint.after_known)
			report_taint_change(taint.before, taint.after, false);
	}
	code = cli_outcome_exit(&r.outcome);
	if (stop_signal()) {
		if (o.unused)
			cli_error("interrupted by %s: stopped unloading unused modules",
				  stop_signal_name());
		else
			cli_error("interrupted by %s: %d of %d %s not handled", stop_signal_name(),
				  nnames - done, nnames,
				  nnames == 1 ? "module was" : "modules were");
		code = stop_exit_code();
	}
out:
	rot_reclaim_unlock(lock);
	rot_percpu_free(r.pc);
	free(r.percpu);
	for (size_t i = 0; i < r.nrecords; i++)
		free(r.records[i].message);
	free(r.records);
	gone_marks_free(&r.gone);
	free(r.failed);
	rot_snapshot_free(r.snap);
	free(names);
	return code;
}
