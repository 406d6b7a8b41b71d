// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-msg.h"
#include "json-keys.h"
#include "modrot.h"
#include "reclaim-report.h"
#include "sizewords.h"

const char *instances_word(size_t n)
{
	return n == 1 ? "instance" : "instances";
}

void report_reclaimed(const char *name, size_t instances, uint64_t bytes, uint64_t percpu,
		      bool dry_run)
{
	char safe[4 * ROT_NAME_MAX + 8], size[SIZE_WORDS_MAX];
	printf("%s: %s %zu %s, %s", cli_safe(name, safe, sizeof(safe)),
	       dry_run ? "would reclaim" : "reclaimed", instances, instances_word(instances),
	       size_words(bytes, "bytes", size));
	if (percpu)
		printf(", %s", size_words(percpu, "per-CPU bytes", size));
	putchar('\n');
}

void report_json_kept(struct json_writer *w, const struct rot_reclaim_result *reply)
{
	/* ROT_KEPT_* by bit: revision 3's, then revision 4's (R10, P7) */
	static const char *const words[] = { "pin", "task",   "timer",    "work",
					     "rcu", "kprobe", "running",  "object",
					     "ref", "user",   "unscanned" };
	json_u64(w, JK_KEPT_INSTANCES, reply->kept);
	json_open_array(w, JK_WHY);
	for (unsigned b = 0; b < sizeof(words) / sizeof(words[0]); b++)
		if (reply->why & (1u << b))
			json_string(w, NULL, words[b]);
	json_close_array(w);
	json_u64(w, JK_PINS, reply->pins);
	json_u64(w, JK_TASKS, reply->tasks);
	json_u64(w, JK_CALLBACKS, reply->callbacks);
	json_u64(w, JK_PROBES, reply->probes);
	/* revision 4 (R11): the scan's references, and where it found the first */
	json_u64(w, JK_REFS, reply->refs);
	json_string_or_null(w, JK_WHERE, reply->where && reply->where[0] ? reply->where : NULL);
}

void report_taint_change(unsigned long before, unsigned long after, bool predicted)
{
	char b[40], a[40];
	rot_taint_letters(before, b, sizeof(b));
	rot_taint_letters(after, a, sizeof(a));
	printf("kernel taint%s: %s -> %s (%lu)\n", predicted ? " would go" : "", b, a, after);
}

/* A malformed mask is the kernel's to fix: the run goes on, warned. A
 * mask that could not be read at all (no memory, an I/O error) leaves the
 * report wrong without it: an error the run counts. */
static int taint_read(unsigned long *mask, bool *known, const char *when,
		      struct cli_outcome *outcome)
{
	int err = rot_taint_read(mask);
	*known = err == 0;
	if (*known)
		return 0;
	char why[256];
	void (*say)(const char *fmt, ...) = err == -EPROTO ? cli_warn : cli_error;
	say("could not read the kernel taint%s: %s", when, cli_read_error(err, why, sizeof(why)));
	if (err == -EPROTO)
		return 0;
	if (outcome)
		cli_outcome_failed(outcome, err);
	return err;
}

int run_taint_before(struct run_taint *t, struct cli_outcome *outcome)
{
	return taint_read(&t->before, &t->before_known, "", outcome);
}

int run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits,
		    struct cli_outcome *outcome)
{
	if (dry_run) {
		t->after_known = t->before_known;
		t->after = t->before | predicted_bits;
		return 0;
	}
	return taint_read(&t->after, &t->after_known, " after the run", outcome);
}

static void taint_members(struct json_writer *w, const char *name, const char *value_name,
			  bool known, unsigned long mask)
{
	char letters[72];
	if (!known) {
		json_null(w, name);
		json_null(w, value_name);
		return;
	}
	if (mask == 0)
		letters[0] = '\0';
	else
		rot_taint_letters(mask, letters, sizeof(letters));
	json_string(w, name, letters);
	json_u64(w, value_name, mask);
}

void report_json_summary_common(struct json_writer *w, bool dry_run, unsigned failures,
				const struct run_taint *t)
{
	json_open_object(w, JK_SUMMARY);
	json_bool(w, JK_DRY_RUN, dry_run);
	json_u64(w, JK_FAILURES, failures);
	taint_members(w, JK_TAINT_BEFORE, JK_TAINT_BEFORE_VALUE, t->before_known, t->before);
	taint_members(w, JK_TAINT_AFTER, JK_TAINT_AFTER_VALUE, t->after_known, t->after);
}
