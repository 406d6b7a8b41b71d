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
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "gone-marks.h"
#include "json-keys.h"
#include "jsonwrt.h"
#include "reasons.h"
#include "modrot.h"
#include "reclaim-lock.h"
#include "reclaim-report.h"
#include "stopsignal.h"
#include "sizewords.h"
#include "unload-words.h"

struct rmmod_opts {
	unsigned unload_flags;
	bool remove_holders;
	bool reclaim;
	bool unused;
	bool dry_run;
	bool json;
};

/* One thing a run did or failed to do, for -J. */
struct rmmod_record {
	char name[ROT_NAME_MAX + 1];
	const char *result; /* "unloaded", "reclaimed", "would unload" or "failed" */
	int err;
	const char *reason; /* reasons.h */
	/* "unloaded", "would unload": bytes unloaded; "reclaimed": instances
	 * and bytes freed */
	size_t instances;
	uint64_t bytes;
	char *message; /* malloc'd; NULL when there is nothing to say */
	bool has_kept; /* a reclaim kept instances: kept says why */
	struct rot_reclaim_result kept;
};

struct rmmod_run {
	const struct rmmod_opts *opts;
	struct rot_snapshot *snap;
	struct gone_marks gone; /* what this run unloaded */
	bool *failed;           /* per snapshot index: this run's unload of it failed */
	bool talk;              /* say what rots: -v, or stderr is a terminal */
	/* To say what rots: per snapshot index, the per-CPU bytes each module
	 * holds, and the reserve they come from. NULL when not read. */
	struct rot_percpu *pc;
	uint64_t *percpu;
	struct cli_outcome outcome;
	unsigned reclaimed; /* names reclaimed, for the taint line */
	struct rmmod_record *records;
	size_t nrecords;
	bool records_lost; /* out of memory while keeping them */
};

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

static const struct rot_module *find_present(const struct rmmod_run *r, const char *name)
{
	const struct rot_module *m = rot_snapshot_find_live(r->snap, name);
	if (gone_marks_has(&r->gone, m))
		return NULL;
	return m;
}

static void record(struct rmmod_run *r, const char *name, const char *result, int err,
		   const char *reason, size_t instances, uint64_t bytes, char *message)
{
	if (!r->opts->json) {
		free(message);
		return;
	}
	struct rmmod_record *grown = realloc(r->records, (r->nrecords + 1) * sizeof(*grown));
	if (!grown) {
		r->records_lost = true;
		free(message);
		return;
	}
	r->records = grown;
	struct rmmod_record *rec = &r->records[r->nrecords++];
	snprintf(rec->name, sizeof(rec->name), "%s", name);
	rec->result = result;
	rec->err = err;
	rec->reason = reason;
	rec->instances = instances;
	rec->bytes = bytes;
	rec->message = message;
	rec->has_kept = false;
}

/* A failure: one line on stderr, or (with -J) a record that carries it.
 * cascade: it only follows from a failure already counted. */
static void failed(struct rmmod_run *r, const char *name, int err, bool cascade, const char *reason,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void failed(struct rmmod_run *r, const char *name, int err, bool cascade, const char *reason,
		   const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cascade)
		cli_outcome_cascaded(&r->outcome);
	else
		cli_outcome_failed(&r->outcome, err);
	if (!r->opts->json) {
		cli_error("%s", msg);
		return;
	}
	char *copy = strdup(msg);
	if (!copy)
		r->records_lost = true;
	record(r, name, "failed", err, reason, 0, 0, copy);
}

/* True when every holder still present is one this run failed to unload:
 * the module stays in use only because of that earlier failure. */
static bool held_only_by_failures(const struct rmmod_run *r, const struct rot_module *m)
{
	bool any = false;
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		const struct rot_module *h = find_present(r, rot_module_holder(m, i));
		if (!h)
			continue;
		if (!r->failed[rot_snapshot_index_of(r->snap, h)])
			return false;
		any = true;
	}
	return any;
}

/* An unload refused: unload-words.c words it. It only follows from an
 * earlier failure (a cascade) when the holders still there are ones this
 * run failed to unload. */
static void report_unload_error(struct rmmod_run *r, const char *name, const struct rot_module *m,
				int err)
{
	const struct unload_scene scene = { r->snap, &r->gone };
	char msg[1024];
	const char *reason = unload_refusal(&scene, name, m, err, msg, sizeof(msg));
	bool cascade = err == -EWOULDBLOCK && m && held_only_by_failures(r, m);
	failed(r, name, err, cascade, reason, "%s", msg);
}

/*
 * What each module holds of the per-CPU reserve, to say so when it rots.
 * Only words depend on it: a kernel without /proc/module_percpu, or one
 * that cannot be read, leaves r->percpu NULL (the latter with a warning).
 * An unload does not change what is free: the rotting instance keeps its
 * area, so the count read now stays true for the message.
 */
static void read_percpu(struct rmmod_run *r)
{
	int err = rot_percpu_read(&r->pc);
	if (err == -ENOENT)
		return;
	if (err < 0) {
		char why[256];
		cli_warn("could not read the per-CPU reserve: %s",
			 cli_read_error(err, why, sizeof(why)));
		r->pc = NULL;
		return;
	}
	r->percpu = calloc(rot_snapshot_count(r->snap) + 1, sizeof(*r->percpu));
	if (r->percpu)
		rot_percpu_per_module(r->pc, r->snap, r->percpu);
}

static int unload_one(struct rmmod_run *r, const char *name)
{
	const struct rot_module *m = find_present(r, name);
	/* what the snapshot already tells costs no syscall */
	int err = rot_module_unload_check(r->snap, m, r->gone.marks, r->opts->unload_flags);

	if (err == 0)
		err = rot_unload(name, r->opts->unload_flags);
	if (err < 0) {
		report_unload_error(r, name, m, err);
		if (m)
			r->failed[rot_snapshot_index_of(r->snap, m)] = true;
		return err;
	}
	gone_marks_set(&r->gone, m);
	record(r, name, "unloaded", 0, REASON_NONE, 0, m ? rot_module_size(m) : 0, NULL);
	if (r->opts->json)
		return 0;
	uint64_t percpu = m && r->percpu ? r->percpu[rot_snapshot_index_of(r->snap, m)] : 0;
	char size[SIZE_WORDS_MAX], pcpu[SIZE_WORDS_MAX], f[SIZE_WORDS_MAX], all[SIZE_WORDS_MAX];
	size_words(m ? rot_module_size(m) : 0, "bytes", size);
	if (rot_snapshot_has_rot(r->snap) && r->talk && !r->opts->reclaim && percpu)
		cli_notice("%s now rots: %s stay allocated, and %s of the per-CPU module reserve "
			   "(%s of %s free); 'rmmod --reclaim %s' frees them and taints the kernel",
			   name, size, size_words(percpu, "bytes", pcpu),
			   size_words(rot_percpu_free_bytes(r->pc), "", f),
			   size_words(rot_percpu_reserve(r->pc), "", all), name);
	else if (rot_snapshot_has_rot(r->snap) && r->talk && !r->opts->reclaim)
		cli_notice("%s now rots: %s stay allocated; "
			   "'rmmod --reclaim %s' frees them and taints the kernel",
			   name, size, name);
	else
		cli_info("%s unloaded", name);
	return 0;
}

/* Holders first, deepest first, each once: a post-order walk of the holder graph. */
static int unload_holders(struct rmmod_run *r, const struct rot_module *m, unsigned depth)
{
	if (depth > 4096)
		return -ELOOP;
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		const struct rot_module *h = find_present(r, rot_module_holder(m, i));
		if (stop_signal())
			return -EINTR;
		if (!h)
			continue;
		int err = unload_holders(r, h, depth + 1);
		if (err == 0 && find_present(r, rot_module_name(h)))
			err = unload_one(r, rot_module_name(h));
		if (err < 0)
			return err;
	}
	return 0;
}

/* Frees what rots under name (lib counts it: unloaded says this run
 * unloaded its live module since the snapshot). */
static void reclaim_rot(struct rmmod_run *r, const char *name, bool unloaded, bool was_live)
{
	struct rot_reclaim_result o = { .size = sizeof(o) };
	bool forced = r->opts->unload_flags & ROT_UNLOAD_FORCE;
	unsigned flags = (forced ? ROT_RECLAIM_FORCE : 0) | (unloaded ? ROT_RECLAIM_UNLOADED : 0);
	int err = rot_reclaim(r->snap, name, flags, &o);
	if (err < 0 && err != -EBUSY) {
		char refusal[1024];
		const char *reason = reclaim_refusal(name, err, was_live, refusal, sizeof(refusal));
		failed(r, name, err, false, reason, "%s", refusal);
		return;
	}
	char msg[512];
	if (o.recount_err < 0) {
		count_error_message(msg, sizeof(msg), name, o.recount_err);
		cli_flush_stdout();
		failed(r, name, o.recount_err, false, reason_for_errno(REASON_READ, o.recount_err),
		       "%s", msg);
	}
	if (o.freed) {
		r->reclaimed++;
		record(r, name, "reclaimed", 0, REASON_NONE, o.freed, o.bytes, NULL);
		if (!r->opts->json)
			report_reclaimed(name, o.freed, o.bytes, false);
	}
	if (o.kept) {
		/* The user asked for all of them: what stays is a failure. */
		refused_message(msg, sizeof(msg), name, &o, "rmmod --reclaim -f", forced);
		cli_flush_stdout();
		failed(r, name, -EBUSY, false, REASON_KEPT_IN_USE, "%s", msg);
		if (r->opts->json && r->nrecords && !strcmp(r->records[r->nrecords - 1].name, name)) {
			struct rmmod_record *rec = &r->records[r->nrecords - 1];
			rec->has_kept = true;
			rec->kept = o;
		}
	}
}

static void reclaim_one(struct rmmod_run *r, const char *name)
{
	const struct rot_module *live = find_present(r, name);
	bool rots = rot_snapshot_rotting_of(r->snap, name, NULL, NULL) > 0;

	/* A live module that will not unload (holders, say) is reported, and
	 * what already rots under its name is still reclaimed. */
	bool unloaded = live && unload_one(r, name) == 0;
	if (live && !unloaded && !rots)
		return;
	reclaim_rot(r, name, unloaded, live != NULL);
}

/*
 * --unused: the live modules lib's in-use rule (holders, bound devices,
 * mounts of its file system types and, on a stock kernel, foreign
 * references) finds unused, holders of them included (rot_snapshot_unused()).
 */
static int unused_set(struct rmmod_run *r, bool **out)
{
	const struct rot_snapshot *snap = r->snap;
	size_t n = rot_snapshot_live_count(snap), at = 0;
	bool *in = calloc(n + 1, sizeof(*in));
	struct rot_usage_ctx *ctx = NULL;
	char what[4096] = "", why[1024];
	int err = in ? rot_usage_ctx_read(snap, NULL, &ctx, what, sizeof(what)) : -ENOMEM;

	/* A rule that cannot be evaluated unloads nothing (fails closed). */
	if (err < 0) {
		if (err == -ENOMEM)
			failed(r, "", err, false, reason_for_errno(REASON_READ, err),
			       "out of memory");
		else
			failed(r, "", err, false, reason_for_errno(REASON_READ, err), "%s",
			       unused_unknown_words(why, sizeof(why), what, NULL, err));
		goto fail;
	}
	unsigned flags = r->opts->unload_flags & ROT_UNLOAD_FORCE ? ROT_UNUSED_PERMANENT : 0;
	err = rot_snapshot_unused(ctx, snap, flags, in, &at);
	if (err == -ENOMEM) {
		failed(r, "", err, false, reason_for_errno(REASON_READ, err), "out of memory");
		goto fail;
	}
	if (err < 0) {
		const char *name = rot_module_name(rot_snapshot_module(snap, at));
		const char *input = rot_usage_ctx_failed_input(ctx);
		failed(r, input ? "" : name, err, false, reason_for_errno(REASON_READ, err), "%s",
		       unused_unknown_words(why, sizeof(why), input, input ? NULL : name, err));
		goto fail;
	}
	rot_usage_ctx_free(ctx);
	*out = in;
	return 0;
fail:
	rot_usage_ctx_free(ctx);
	free(in);
	return err;
}

/* Holders before what they hold, each once: a post-order walk. */
static void order_unused(const struct rot_snapshot *snap, const bool *in, bool *seen, size_t i,
			 size_t *order, size_t *n, unsigned depth)
{
	if (seen[i] || depth > 4096)
		return;
	seen[i] = true;
	const struct rot_module *m = rot_snapshot_module(snap, i);
	for (size_t h = 0; h < rot_module_holder_count(m); h++) {
		const struct rot_module *holder =
			rot_snapshot_find_live(snap, rot_module_holder(m, h));
		if (holder && in[rot_snapshot_index_of(snap, holder)])
			order_unused(snap, in, seen, rot_snapshot_index_of(snap, holder), order, n,
				     depth + 1);
	}
	order[(*n)++] = i;
}

static void unload_unused(struct rmmod_run *r)
{
	const struct rot_snapshot *snap = r->snap;
	size_t live = rot_snapshot_live_count(snap), n = 0, unloaded = 0;
	uint64_t bytes = 0;
	bool *in = NULL;
	int err = unused_set(r, &in);
	bool *seen = calloc(live + 1, sizeof(*seen));
	size_t *order = calloc(live + 1, sizeof(*order));

	if (err < 0)
		goto out;
	if (!seen || !order) {
		failed(r, "", -ENOMEM, false, reason_for_errno(REASON_READ, -ENOMEM),
		       "out of memory");
		goto out;
	}
	for (size_t i = 0; i < live; i++)
		if (in[i])
			order_unused(snap, in, seen, i, order, &n, 0);
	for (size_t k = 0; k < n && !stop_signal(); k++) {
		const struct rot_module *m = rot_snapshot_module(snap, order[k]);
		const char *name = rot_module_name(m);
		if (r->opts->dry_run) {
			/* the kernel's answer as unload_one would get it, told
			 * from the snapshot */
			int refused = rot_module_unload_predict(snap, m, r->gone.marks,
								r->opts->unload_flags);
			if (refused < 0) {
				report_unload_error(r, name, m, refused);
				r->failed[rot_snapshot_index_of(snap, m)] = true;
				continue;
			}
			gone_marks_set(&r->gone, m);
			record(r, name, "would unload", 0, REASON_NONE, 0, rot_module_size(m), NULL);
			if (!r->opts->json) {
				char safe[4 * ROT_NAME_MAX + 8];
				printf("%s\n", cli_safe(name, safe, sizeof(safe)));
			}
		} else if (unload_one(r, name) < 0) {
			continue;
		} else if (r->opts->reclaim) {
			reclaim_rot(r, name, true, true);
		}
		unloaded++;
		bytes += rot_module_size(m);
	}
	bool rot = rot_snapshot_has_rot(snap);
	if (r->opts->json)
		goto out;
	if (r->opts->dry_run)
		printf("%zu unused %s would be unloaded%s", unloaded,
		       unloaded == 1 ? "module" : "modules", rot && !r->opts->reclaim ? "; " : "\n");
	else
		printf("unloaded %zu unused %s%s", unloaded, unloaded == 1 ? "module" : "modules",
		       rot && !r->opts->reclaim ? "; " : "\n");
	char size[SIZE_WORDS_MAX];
	if (rot && !r->opts->reclaim)
		printf("%s %s\n", size_words(bytes, "bytes", size),
		       r->opts->dry_run ? "would rot" : "now rot");
out:
	free(in);
	free(seen);
	free(order);
}

/* What a record says it did; a summary is the sum of its records. */
struct rmmod_sums {
	size_t unloaded;
	uint64_t unloaded_bytes;
	size_t reclaimed_names;
	size_t reclaimed_instances;
	uint64_t reclaimed_bytes;
	size_t kept_instances;
};

static struct rmmod_sums record_sums(const struct rmmod_record *rec)
{
	struct rmmod_sums s = { 0 };
	if (!strcmp(rec->result, "unloaded") || !strcmp(rec->result, "would unload")) {
		s.unloaded = 1;
		s.unloaded_bytes = rec->bytes;
	} else if (!strcmp(rec->result, "reclaimed")) {
		s.reclaimed_names = 1;
		s.reclaimed_instances = rec->instances;
		s.reclaimed_bytes = rec->bytes;
	}
	s.kept_instances = rec->has_kept ? rec->kept.kept : 0;
	return s;
}

static void print_json(struct rmmod_run *r, const struct run_taint *taint)
{
	struct json_writer w;
	struct rmmod_sums total = { 0 };
	int err = json_start_stdout(&w);
	if (err == 0) {
		json_open_array(&w, JK_MODULES);
		for (size_t i = 0; i < r->nrecords; i++) {
			const struct rmmod_record *rec = &r->records[i];
			const struct rmmod_sums s = record_sums(rec);
			json_open_object(&w, NULL);
			json_string(&w, JK_NAME, rec->name);
			json_string(&w, JK_RESULT, rec->result);
			json_string(&w, JK_REASON, rec->reason);
			json_u64(&w, JK_ERRNO, (uint64_t)-rec->err);
			json_string(&w, JK_ERROR, rec->err ? strerrorname_np(-rec->err) : "");
			json_string(&w, JK_MESSAGE, rec->message ? rec->message : "");
			json_u64(&w, JK_UNLOADED_BYTES, s.unloaded_bytes);
			json_u64(&w, JK_RECLAIMED_INSTANCES, s.reclaimed_instances);
			json_u64(&w, JK_RECLAIMED_BYTES, s.reclaimed_bytes);
			if (rec->has_kept)
				report_json_kept(&w, &rec->kept);
			else
				json_u64(&w, JK_KEPT_INSTANCES, 0);
			json_close_object(&w);
			total.unloaded += s.unloaded;
			total.unloaded_bytes += s.unloaded_bytes;
			total.reclaimed_names += s.reclaimed_names;
			total.reclaimed_instances += s.reclaimed_instances;
			total.reclaimed_bytes += s.reclaimed_bytes;
			total.kept_instances += s.kept_instances;
		}
		json_close_array(&w);
		json_open_object(&w, JK_SUMMARY);
		report_json_summary_common(&w, r->opts->dry_run, r->outcome.failures, taint);
		json_u64(&w, JK_UNLOADED, total.unloaded);
		json_u64(&w, JK_UNLOADED_BYTES, total.unloaded_bytes);
		json_u64(&w, JK_RECLAIMED_NAMES, total.reclaimed_names);
		json_u64(&w, JK_RECLAIMED_INSTANCES, total.reclaimed_instances);
		json_u64(&w, JK_RECLAIMED_BYTES, total.reclaimed_bytes);
		json_u64(&w, JK_KEPT_INSTANCES, total.kept_instances);
		json_close_object(&w);
	}
	err = json_finish(&w);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		cli_outcome_failed(&r->outcome, err);
	} else if (err < 0) {
		cli_output_failed(err);
	}
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
	int c;

	cli_exclusive_options(exclusive, 1);
	while ((c = cli_next_option(argc, argv, "fnbJsvhV", longopts)) != -1) {
		switch (c) {
		case 'b':
			size_words_set_bytes(true);
			break;
		case 'J':
			o->json = true;
			break;
		case OPT_UNUSED:
			o->unused = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'f':
			o->unload_flags |= ROT_UNLOAD_FORCE;
			break;
		case OPT_REMOVE_HOLDERS:
			o->remove_holders = true;
			break;
		case OPT_RECLAIM:
			o->reclaim = true;
			break;
		}
	}
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
	int lock = -1;
	if (o.reclaim) {
		enum cli_exit lock_code = CLI_EXIT_PARTIAL;
		lock = reclaim_lock_take(&lock_code);
		if (lock < 0) {
			free(names);
			return stop_signal() ? stop_exit_code() : (int)lock_code;
		}
	}
	int err = rot_snapshot_read(&r.snap);
	if (err < 0) {
		rot_reclaim_unlock(lock);
		free(names);
		return cli_snapshot_error(err);
	}
	if (o.reclaim && !rot_snapshot_has_rot(r.snap)) {
		cli_error("this kernel has no module rot support: nothing to reclaim");
		rot_reclaim_unlock(lock);
		rot_snapshot_free(r.snap);
		free(names);
		return CLI_EXIT_UNSUPPORTED;
	}
	/* The taint change cannot be told: the reclaims can still be done. */
	int taint_err = o.reclaim || o.json ? run_taint_before(&taint) : 0;

	int gone_err = gone_marks_init(&r.gone, r.snap);
	r.failed = calloc(rot_snapshot_count(r.snap) + 1, sizeof(*r.failed));
	if (gone_err < 0 || !r.failed) {
		cli_error("out of memory");
		rot_reclaim_unlock(lock);
		rot_snapshot_free(r.snap);
		gone_marks_free(&r.gone);
		free(r.failed);
		free(names);
		return CLI_EXIT_PARTIAL;
	}
	r.talk = cli_is_verbose() || isatty(STDERR_FILENO);
	if (r.talk && !o.json && !o.reclaim && rot_snapshot_has_rot(r.snap))
		read_percpu(&r);
	if (taint_err < 0)
		cli_outcome_failed(&r.outcome, taint_err);
	/* Told to stop, a run finishes the unload in flight and starts no other. */
	stop_signals_catch(true);

	if (o.unused)
		unload_unused(&r);
	int done = 0;
	for (int i = 0; i < nnames && !stop_signal(); i++, done++) {
		const char *name = names[i];
		const char *typed = argv[optind + i];
		struct stat st;
		/* A path names the module of the file at it, as kmod's rmmod reads
		 * it (stat, then the file's name): with no file there it names
		 * no loaded module, whatever its last component says. */
		if (strchr(typed, '/') && stat(typed, &st) < 0) {
			int why = -errno;
			failed(&r, name, why, false, REASON_OTHER,
			       "%s: %s; a path names the module in that file, so this one names "
			       "no loaded module",
			       typed, why == -ENOENT ? "no such module file" : cli_strerror(why));
			continue;
		}
		const struct rot_module *m = find_present(&r, name);
		if (o.remove_holders && m && unload_holders(&r, m, 0) < 0)
			continue;
		if (o.reclaim)
			reclaim_one(&r, name);
		else
			unload_one(&r, name);
	}
	if (o.json) {
		taint_err = run_taint_after(&taint, o.dry_run, 0);
		if (taint_err < 0)
			cli_outcome_failed(&r.outcome, taint_err);
		if (r.records_lost) {
			cli_error("out of memory");
			cli_outcome_failed(&r.outcome, -ENOMEM);
		} else {
			print_json(&r, &taint);
		}
	} else if (o.reclaim && r.reclaimed) {
		taint_err = run_taint_after(&taint, false, 0);
		if (taint_err < 0)
			cli_outcome_failed(&r.outcome, taint_err);
		if (taint.before_known && taint.after_known)
			report_taint_change(taint.before, taint.after, false);
	}
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
	if (stop_signal()) {
		if (o.unused)
			cli_error("interrupted by %s: stopped unloading unused modules",
				  stop_signal_name());
		else
			cli_error("interrupted by %s: %d of %d %s not handled", stop_signal_name(),
				  nnames - done, nnames,
				  nnames == 1 ? "module was" : "modules were");
		return stop_exit_code();
	}
	return cli_outcome_exit(&r.outcome);
}
