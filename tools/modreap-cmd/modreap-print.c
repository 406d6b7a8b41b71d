// SPDX-License-Identifier: GPL-2.0-or-later
/* modreap's output: the rot by name (a table or JSON), and a run's summary. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "columns.h"
#include "json-keys.h"
#include "jsonwrt.h"
#include "modreap.h"
#include "reasons.h"
#include "sizewords.h"

/* The columns of rot by name; JSON keys say whether it rots or was reclaimed. */
static const struct column_info rotting_cols[] = {
	{ "NAME", 0.3, 0, "module name", JK_NAME },
	{ "INSTANCES", 9, SCOLS_FL_RIGHT, "rotting instances", JK_ROTTING_INSTANCES },
	{ "BYTES", 12, SCOLS_FL_RIGHT, "bytes they hold", JK_ROTTING_BYTES },
	{ "PERCPU", 8, SCOLS_FL_RIGHT, "per-CPU reserve bytes they hold", JK_ROTTING_PERCPU_BYTES },
};
static const struct column_info reclaimed_cols[] = {
	{ "NAME", 0.3, 0, "module name", JK_NAME },
	{ "INSTANCES", 9, SCOLS_FL_RIGHT, "reclaimed instances", JK_RECLAIMED_INSTANCES },
	{ "BYTES", 12, SCOLS_FL_RIGHT, "bytes freed", JK_RECLAIMED_BYTES },
	{ "PERCPU", 8, SCOLS_FL_RIGHT, "per-CPU reserve bytes freed", JK_RECLAIMED_PERCPU_BYTES },
};

/*
 * The rows of rot by name: a table, or the named array (JK_ROTTING or
 * JK_RECLAIMED) of a JSON document. percpu[i] is the per-CPU bytes row i
 * holds (or freed); NULL when the kernel does not report its reserve: the
 * table has no PERCPU column and the JSON rows say null.
 */
static int print_groups(const struct rot_group *g, const uint64_t *percpu, size_t n,
			struct json_writer *w, const char *array_name)
{
	static const int ids[] = { 0, 1, 2, 3 };
	const bool reclaimed = w && strcmp(array_name, JK_RECLAIMED) == 0;
	struct table_style style = { .json = w != NULL, .json_name = array_name };
	struct listing l;
	size_t ncols = percpu || w ? 4 : 3;

	int err =
		listing_start(&l, reclaimed ? reclaimed_cols : rotting_cols, ids, ncols, &style, w);
	for (size_t i = 0; err == 0 && i < n; i++) {
		err = listing_row(&l);
		listing_str(&l, 0, g[i].name);
		listing_u64(&l, 1, g[i].instances);
		listing_size(&l, 2, g[i].bytes);
		if (percpu)
			listing_size(&l, 3, percpu[i]);
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

/* The sums of a document's rows, under the rows' own keys. */
struct row_sums {
	size_t names;
	size_t instances;
	uint64_t bytes;
	uint64_t percpu; /* meaningful only when the rows have per-CPU bytes */
};

static void summary_json(struct json_writer *w, const struct reap_run *r, bool reclaimed,
			 const struct row_sums *sum)
{
	const struct reap_opts *o = r->opts;
	const bool known = r->pc != NULL;
	/* A dry run can predict the free bytes, not where they lie. */
	const bool largest_known = known && !(o->dry_run && r->percpu);

	report_json_summary_common(w, o->dry_run, r->outcome.failures, &r->taint);
	json_u64(w, reclaimed ? JK_RECLAIMED_NAMES : JK_ROTTING_NAMES, sum->names);
	json_u64(w, reclaimed ? JK_RECLAIMED_INSTANCES : JK_ROTTING_INSTANCES, sum->instances);
	json_u64(w, reclaimed ? JK_RECLAIMED_BYTES : JK_ROTTING_BYTES, sum->bytes);
	json_known_u64(w, reclaimed ? JK_RECLAIMED_PERCPU_BYTES : JK_ROTTING_PERCPU_BYTES, known,
		       sum->percpu);
	/* After a reclaim: what still rots. */
	if (reclaimed)
		json_u64(w, JK_ROTTING_BYTES, r->rot_left);
	json_u64(w, JK_KEPT_INSTANCES, r->refused);
	json_open_array(w, JK_KEPT);
	for (size_t i = 0; i < r->nkept; i++) {
		json_open_object(w, NULL);
		json_string(w, JK_NAME, r->kept[i].name);
		json_string(w, JK_REASON, reason_for_errno(REASON_RECLAIM, -EBUSY));
		report_json_kept(w, &r->kept[i].reply);
		json_close_object(w);
	}
	json_close_array(w);
	json_known_u64(w, JK_PERCPU_RESERVE_BYTES, known, known ? rot_percpu_reserve(r->pc) : 0);
	json_known_u64(w, JK_PERCPU_FREE_BYTES, known, known ? reserve_free_after(r) : 0);
	json_known_u64(w, JK_PERCPU_LARGEST_BYTES, largest_known,
		       known ? rot_percpu_largest(r->pc) : 0);
	json_close_object(w);
}

static struct row_sums sum_rows(const struct rot_group *g, const uint64_t *percpu, size_t n)
{
	struct row_sums sum = { .names = n };
	for (size_t i = 0; i < n; i++) {
		sum.instances += g[i].instances;
		sum.bytes += g[i].bytes;
		sum.percpu += percpu ? percpu[i] : 0;
	}
	return sum;
}

/* A JSON document: the array, then the summary (--watch: on one line). */
static int print_json(struct reap_run *r, const struct rot_group *g, const uint64_t *percpu,
		      size_t n, const char *array_name)
{
	struct json_writer w;
	const struct row_sums sum = sum_rows(g, percpu, n);
	int err = json_start_stdout(&w, r->opts->watch);

	if (err == 0)
		err = print_groups(g, percpu, n, &w, array_name);
	if (err == 0)
		summary_json(&w, r, strcmp(array_name, JK_RECLAIMED) == 0, &sum);
	int fin = json_finish(&w);
	return err ? err : fin;
}

/* "; per-CPU reserve: 692 of 8192 bytes free, 692 in one piece" */
static void print_reserve_words(const struct reap_run *r, uint64_t free_bytes, bool predicted)
{
	char f[SIZE_WORDS_MAX], all[SIZE_WORDS_MAX], piece[SIZE_WORDS_MAX];
	size_words(free_bytes, "", f);
	size_words(rot_percpu_reserve(r->pc), "bytes", all);
	if (predicted) {
		printf("per-CPU reserve would have %s of %s free", f, all);
		return;
	}
	printf("per-CPU reserve: %s of %s free, %s in one piece", f, all,
	       size_words(rot_percpu_largest(r->pc), "", piece));
}

/*
 * No reclaiming asked: the rotting instances g by name, their per-CPU
 * bytes r->held when the kernel reports its reserve (r->pc). -J: r->taint
 * and r->rot_left are set. Returns the output's error.
 */
int reap_print_rot(struct reap_run *r, const struct rot_group *g, size_t n)
{
	const uint64_t *held = r->pc ? r->held : NULL;

	if (r->opts->json)
		return print_json(r, g, held, n, JK_ROTTING);
	if (r->opts->quiet)
		return 0;
	const struct row_sums sum = sum_rows(g, held, n);
	int err = n ? print_groups(g, held, n, NULL, NULL) : 0;
	char size[SIZE_WORDS_MAX];
	printf("total: %zu rotting %s of %zu %s, %s", sum.instances, instances_word(sum.instances),
	       n, n == 1 ? "name" : "names", size_words(sum.bytes, "bytes", size));
	if (r->pc) {
		printf(", %s; ", size_words(sum.percpu, "per-CPU bytes", size));
		print_reserve_words(r, rot_percpu_free_bytes(r->pc), false);
	}
	putchar('\n');
	return err;
}

/* What was reclaimed, by name: the whole run's, as the summary's document
 * (pass 0), or what one pass of --watch -J reclaimed, on one line. */
int reap_print_pass(struct reap_run *r, unsigned pass, unsigned failures)
{
	struct rot_group *g = calloc(r->nreaped + 1, sizeof(*g));
	uint64_t *percpu = calloc(r->nreaped + 1, sizeof(*percpu));
	struct json_writer w;
	size_t n = 0;
	int err = !g || !percpu ? -ENOMEM : pass ? json_start_stdout(&w, true) : 0;

	for (size_t i = 0; err == 0 && i < r->nreaped; i++) {
		const struct reaped *e = &r->reaped[i];
		if (!pass)
			g[n] = (struct rot_group){ e->name, e->instances, e->bytes };
		else if (e->pass_instances)
			g[n] = (struct rot_group){ e->name, e->pass_instances, e->pass_bytes };
		else
			continue;
		percpu[n++] = pass ? e->pass_percpu : e->percpu;
	}
	if (err == 0 && !pass)
		err = print_json(r, g, r->pc ? percpu : NULL, n, JK_RECLAIMED);
	else if (err == 0) {
		const struct row_sums sum = sum_rows(g, percpu, n);
		json_u64(&w, JK_PASS, pass);
		err = print_groups(g, r->pc ? percpu : NULL, n, &w, JK_RECLAIMED);
		json_u64(&w, JK_RECLAIMED_NAMES, sum.names);
		json_u64(&w, JK_RECLAIMED_INSTANCES, sum.instances);
		json_u64(&w, JK_RECLAIMED_BYTES, sum.bytes);
		json_known_u64(&w, JK_RECLAIMED_PERCPU_BYTES, r->pc != NULL, sum.percpu);
		json_u64(&w, JK_ROTTING_BYTES, r->rot_left);
		json_u64(&w, JK_FAILURES, failures);
		int fin = json_finish(&w);
		err = err ? err : fin;
	}
	free(g);
	free(percpu);
	return err;
}

/* A summary that could not be made is a failure of the run: it says so. */
int reap_print_summary(struct reap_run *r)
{
	const bool dry = r->opts->dry_run;

	run_taint_after(&r->taint, dry, r->instances ? ROT_TAINT_FORCED_RMMOD : 0, &r->outcome);
	if (r->opts->json)
		return reap_print_pass(r, 0, 0);
	if (r->opts->quiet)
		return 0;
	/* Per-CPU words only where per-CPU bytes are what the run is about. */
	bool percpu_words = r->pc && (r->percpu || percpu_mode(r->opts));
	char size[SIZE_WORDS_MAX];
	printf("total: %s %zu %s, %s", dry ? "would reclaim" : "reclaimed", r->instances,
	       instances_word(r->instances), size_words(r->bytes, "bytes", size));
	if (percpu_words)
		printf(", %s", size_words(r->percpu, "per-CPU bytes", size));
	printf("; %s %s rot; ", size_words(r->rot_left, "bytes", size),
	       dry ? "would still" : "still");
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
