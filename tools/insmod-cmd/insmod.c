// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insmod: load one module, or an installer's thousands. Each module is
 * checked before the kernel sees it (preflight), because on a rot kernel a
 * module whose init fails leaves its memory rotting. A single module is a
 * batch of one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "insmod.h"
#include "json-keys.h"
#include "jsonwrt.h"
#include "reclaim-report.h"
#include "sigwords.h"
#include "stopsignal.h"
#include "sizewords.h"

static void help(void)
{
	printf("Usage: %s [OPTIONS] FILE [PARAM=VALUE...]\n"
	       "       %s --batch [OPTIONS] FILE...\n"
	       "Load kernel modules from files (.ko, .ko.xz, .ko.zst). Each module is\n"
	       "checked before the kernel sees it: on a rot kernel a failed init\n"
	       "leaves its memory rotting.\n"
	       "\n"
	       "Options:\n"
	       "  -f, --force              --force-vermagic and --force-modversion\n"
	       "      --force-vermagic     load although built for another kernel release\n"
	       "      --force-modversion   load although symbol versions disagree\n"
	       "      --check              check the modules, load nothing\n"
	       "      --verify KEYRING     load only modules signed by a certificate in\n"
	       "                           KEYRING (a PEM or DER file, or a directory)\n"
	       "      --batch              load many modules: every argument is a FILE\n"
	       "      --from LIST          read FILEs (one per line, optionally followed\n"
	       "                           by parameters) from LIST; implies --batch\n"
	       "      --match-devices      load only the modules whose aliases match a\n"
	       "                           present device; implies --batch\n"
	       "  -j, --jobs N             load on N threads (default: number of CPUs)\n"
	       "  -b, --bytes              sizes in bytes, not as 4.9K, 1.2M\n"
	       "  -J, --json               one JSON record per module, and a summary\n"
	       "  -s, --syslog             report errors to syslog instead of stderr\n"
	       "  -v, --verbose            report each module loaded\n"
	       "  -h, --help               show this help\n"
	       "  -V, --version            show the version\n",
	       cli_progname(), cli_progname());
}

static unsigned parse_jobs(const char *arg)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || v > 1024)
		cli_usage_fail("'%s' is not a number of jobs (1 to 1024)", arg);
	return (unsigned)v;
}

static int parse_options(int argc, char *argv[], struct insmod_opts *o)
{
	enum {
		OPT_FORCE_VERMAGIC = 256,
		OPT_FORCE_MODVERSION,
		OPT_CHECK,
		OPT_VERIFY,
		OPT_BATCH,
		OPT_FROM,
		OPT_MATCH_DEVICES
	};
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "force-vermagic", no_argument, NULL, OPT_FORCE_VERMAGIC },
		{ "force-modversion", no_argument, NULL, OPT_FORCE_MODVERSION },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "verify", required_argument, NULL, OPT_VERIFY },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "match-devices", no_argument, NULL, OPT_MATCH_DEVICES },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "bytes", no_argument, NULL, 'b' },
		CLI_OPTIONS_SYSLOG_VERBOSE,
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_store stores[] = {
		{ 'f', .bits = &o->load_flags, .mask = LOAD_FORCE_VERMAGIC | LOAD_FORCE_MODVERSION },
		{ OPT_FORCE_VERMAGIC, .bits = &o->load_flags, .mask = LOAD_FORCE_VERMAGIC },
		{ OPT_FORCE_MODVERSION, .bits = &o->load_flags, .mask = LOAD_FORCE_MODVERSION },
		{ OPT_CHECK, .flag = &o->check_only },
		{ OPT_VERIFY, .arg = &o->keyring_path },
		{ OPT_BATCH, .flag = &o->batch },
		{ OPT_FROM, .arg = &o->list_path, .flag = &o->batch },
		{ OPT_MATCH_DEVICES, .flag = &o->match_devices },
		{ OPT_MATCH_DEVICES, .flag = &o->batch },
		{ 'J', .flag = &o->json },
		{ 'b', .set = size_words_set_bytes },
		{ 0 },
	};

	/* Options end at the file: what follows it are module parameters.
	 * Only -j is left to read here. */
	while (cli_next_option(argc, argv, "+fj:bJsvhV", longopts, stores) != -1)
		o->jobs = parse_jobs(optarg);
	/* In a batch, options may also follow files; after "--" nothing is
	 * an option, and a file may begin with '-'. */
	if (o->batch && optind < argc && argv[optind][0] == '-' && argv[optind][1] &&
	    strcmp(argv[optind - 1], "--") != 0)
		cli_usage_fail("options go before the files");
	if (!o->list_path && optind >= argc)
		cli_usage_fail("missing module file");
	if (o->jobs && !o->batch)
		cli_usage_fail("--jobs only makes sense with --batch");
	/* Forcing strips vermagic or __versions from the image: the kernel
	 * would get other bytes than those the signature covers. */
	if (o->keyring_path && o->load_flags)
		cli_usage_fail("--verify excludes --force, --force-vermagic and --force-modversion");
	if (!o->jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		o->jobs = o->batch && cpus > 0 ? (unsigned)cpus : 1;
	}
	return optind;
}

static const char *result_word(const struct load_job *j)
{
	static const char *const words[] = {
		[JOB_PENDING] = "not_started", /* a stop signal came first */
		[JOB_LOADED] = "loaded",       [JOB_CHECKED] = "ok",
		[JOB_REFUSED] = "refused",     [JOB_FAILED] = "failed",
		[JOB_SKIPPED] = "skipped",     [JOB_UNMATCHED] = "unmatched",
	};
	return job_already_loaded(j) ? "present" : words[j->result];
}

struct tally {
	size_t by[JOB_UNMATCHED + 1]; /* how many ended with each result (PENDING: not started) */
	size_t rotted;
	size_t present; /* not loaded only because live already: not failures */
	size_t refused_percpu, failed_percpu; /* for want of per-CPU reserve */
	uint64_t rot_bytes;
	struct cli_outcome outcome;
};

static struct tally count(const struct load_job *jobs, size_t n)
{
	struct tally t = { 0 };
	for (size_t i = 0; i < n; i++) {
		const struct load_job *j = &jobs[i];
		if (job_already_loaded(j)) {
			t.present++;
			continue;
		}
		t.by[j->result]++;
		/* A file that could not be read or a kernel that said no has an
		 * errno; a preflight refusal is the module's own fault; a module
		 * skipped for its dependency only follows from that one. */
		if (j->result == JOB_SKIPPED && j->cascaded)
			cli_outcome_cascaded(&t.outcome);
		else if (j->result == JOB_REFUSED || j->result == JOB_FAILED ||
			 j->result == JOB_SKIPPED)
			cli_outcome_failed(&t.outcome, j->err        ? j->err
						       : j->read_err ? j->read_err
								     : -EINVAL);
		t.refused_percpu += j->percpu_short && j->result == JOB_REFUSED;
		t.failed_percpu += j->percpu_short && j->result == JOB_FAILED;
		t.rotted += j->rot_bytes != 0;
		t.rot_bytes += j->rot_bytes;
	}
	return t;
}

/* One record per module, then the summary (modrot(7) has the schema). */
static int print_json(const struct load_job *jobs, size_t n, const struct tally *t, bool check,
		      const struct run_taint *taint)
{
	struct json_writer w;
	int err = json_start_stdout(&w, false);
	if (err < 0)
		return err;
	json_open_array(&w, JK_MODULES);
	for (size_t i = 0; i < n; i++) {
		const struct load_job *j = &jobs[i];
		int e = j->err ? j->err : j->read_err;
		json_open_object(&w, NULL);
		json_string(&w, JK_NAME, job_name(j));
		json_string(&w, JK_FILENAME, j->path);
		json_string(&w, JK_RESULT, result_word(j));
		json_string(&w, JK_REASON, job_reason(j));
		json_u64(&w, JK_ERRNO, (uint64_t)-e);
		json_string(&w, JK_ERROR, e ? strerrorname_np(-e) : "");
		json_string(&w, JK_MESSAGE, j->message);
		json_u64(&w, JK_ROTTED_BYTES, j->rot_bytes);
		json_u64(&w, JK_PERCPU_BYTES, j->percpu_bytes);
		json_bool(&w, JK_PERCPU_SHORT, j->percpu_short);
		json_close_object(&w);
	}
	json_close_array(&w);
	report_json_summary_common(&w, check, t->outcome.failures, taint);
	json_u64(&w, JK_FILES, n);
	json_u64(&w, JK_LOADED, t->by[JOB_LOADED]);
	json_u64(&w, JK_OK, t->by[JOB_CHECKED]);
	json_u64(&w, JK_REFUSED, t->by[JOB_REFUSED]);
	json_u64(&w, JK_REFUSED_PERCPU, t->refused_percpu);
	json_u64(&w, JK_FAILED, t->by[JOB_FAILED]);
	json_u64(&w, JK_FAILED_PERCPU, t->failed_percpu);
	json_u64(&w, JK_SKIPPED, t->by[JOB_SKIPPED]);
	json_u64(&w, JK_UNMATCHED, t->by[JOB_UNMATCHED]);
	json_u64(&w, JK_PRESENT, t->present);
	json_u64(&w, JK_ROTTED, t->rotted);
	json_u64(&w, JK_ROTTED_BYTES, t->rot_bytes);
	/* Told to stop: what never started, and that the run was cut short. */
	json_u64(&w, JK_NOT_STARTED, t->by[JOB_PENDING]);
	json_bool(&w, JK_INTERRUPTED, stop_signal() != 0);
	json_close_object(&w);
	return json_finish(&w);
}

/* " (N for want of per-CPU reserve)": only when some were */
static void percpu_note(size_t count, const char *open)
{
	if (count)
		printf("%s%s%zu for want of per-CPU reserve)", *open == '(' ? " " : "", open, count);
}

static void print_summary(const struct tally *t, size_t n, bool check, bool matching)
{
	if (matching) {
		printf("%zu of %zu modules match a present device (or one that does needs them)\n",
		       n - t->by[JOB_UNMATCHED], n);
		n -= t->by[JOB_UNMATCHED];
	}
	if (check) {
		printf("%zu of %zu would load", t->by[JOB_CHECKED], n);
	} else {
		printf("%zu of %zu loaded, %zu failed", t->by[JOB_LOADED], n, t->by[JOB_FAILED]);
		char size[SIZE_WORDS_MAX];
		if (t->rotted)
			printf(" (%zu left rot: %s%s", t->rotted,
			       size_words(t->rot_bytes, "bytes", size), t->failed_percpu ? "" : ")");
		percpu_note(t->failed_percpu, t->rotted ? "; " : "(");
	}
	printf(", %zu refused%s", t->by[JOB_REFUSED], check ? "" : " before loading");
	percpu_note(t->refused_percpu, "(");
	printf(", %zu skipped", t->by[JOB_SKIPPED]);
	if (t->present)
		printf(", %zu loaded already", t->present);
	if (t->by[JOB_PENDING])
		printf(", %zu not started", t->by[JOB_PENDING]);
	putchar('\n');
}

/* Returns 0, or the exit code of a run that cannot start (each said in one line). */
static enum cli_exit setup_env(struct load_env *env)
{
	int err = rot_kernel_facts_read(&env->kernel);
	if (err < 0)
		return cli_exit_for_errno(cli_read_failed("what the kernel enforces", err));
	/* --check still judges files on a kernel without modules. */
	err = rot_snapshot_read(&env->snap);
	if (err < 0 && !(err == -ENOENT && env->opts->check_only))
		return cli_snapshot_error(err);
	env->rot = env->snap && rot_snapshot_has_rot(env->snap);
	if (env->opts->keyring_path)
		return sig_keyring_load(env->opts->keyring_path, &env->keyring, CLI_EXIT_PARTIAL);
	return CLI_EXIT_OK;
}

int main(int argc, char *argv[])
{
	struct insmod_opts o = { 0 };
	struct load_env env = { .opts = &o };
	struct load_job *jobs = NULL;
	struct run_taint taint = { 0 };
	size_t n = 0;

	cli_init("insmod", help);
	int first = parse_options(argc, argv, &o);
	/* Reading the list may wait on a pipe: a signal ends that read. */
	stop_signals_catch(false);
	int err = insmod_make_jobs(&o, argc, argv, first, &jobs, &n);
	if (err < 0 && stop_signal()) {
		cli_error("interrupted by %s while reading the list %s: no module was loaded",
			  stop_signal_name(), o.list_path);
		return stop_exit_code();
	}
	if (err < 0) {
		if (err == -ENOMEM) {
			cli_error("out of memory");
			return CLI_EXIT_PARTIAL;
		}
		if (cli_exit_for_errno(err) == CLI_EXIT_PERM) {
			cli_error("could not read the list %s: %s", o.list_path, cli_strerror(err));
			return CLI_EXIT_PERM;
		}
		char why[128];
		cli_usage_fail("could not read the list %s: %s", o.list_path,
			       err == -EBADMSG ? "it holds a NUL byte"
					       : cli_file_error(err, o.list_path, LIST_MAX, why,
								sizeof(why)));
	}
	/* From here on a module syscall in flight is restarted, never cut short. */
	stop_signals_catch(true);
	if (n == 0)
		cli_usage_fail("no module file in %s", o.list_path);

	enum cli_exit status = setup_env(&env);
	/* A taint that could not be read (not a malformed one) fails the run:
	 * the report's taint would be wrong. */
	int taint_err = 0;
	if (status == CLI_EXIT_OK) {
		if (o.json)
			taint_err = run_taint_before(&taint, NULL);
		err = batch_run(jobs, n, &env);
	}

	struct tally t = count(jobs, n);
	int out = 0;
	if (status == CLI_EXIT_OK && err == 0 && o.json) {
		if (taint_err < 0)
			cli_outcome_failed(&t.outcome, taint_err);
		run_taint_after(&taint, o.check_only, 0, &t.outcome);
		out = print_json(jobs, n, &t, o.check_only, &taint);
	} else if (status == CLI_EXIT_OK && err == 0 && o.batch) {
		print_summary(&t, n, o.check_only, o.match_devices);
	}

	for (size_t i = 0; i < n; i++) {
		job_release(&jobs[i]);
		free((char *)jobs[i].path);
	}
	free(jobs);
	rot_symbols_free(env.kernel_symbols);
	rot_keyring_free(env.keyring);
	rot_snapshot_free(env.snap);
	rot_kernel_facts_free(env.kernel);
	if (status != CLI_EXIT_OK)
		return status;
	if (out < 0 && out != -ENOMEM)
		cli_output_failed(out);
	bool oom = err == -ENOMEM || out == -ENOMEM;
	if (oom)
		cli_error("out of memory");
	if (stop_signal()) {
		cli_error("interrupted by %s: %zu of %zu %s not started", stop_signal_name(),
			  t.by[JOB_PENDING], n, n == 1 ? "module was" : "modules were");
		return stop_exit_code();
	}
	if (oom)
		return CLI_EXIT_PARTIAL;
	if (err < 0) {
		if (!env.err_told)
			cli_error("could not run the batch: %s", cli_strerror(err));
		return cli_exit_for_errno(err);
	}
	if (out < 0)
		return CLI_EXIT_PARTIAL; /* said above */
	if (t.outcome.failures == 0 && t.present > 0)
		return CLI_EXIT_PRESENT;
	return cli_outcome_exit(&t.outcome);
}
