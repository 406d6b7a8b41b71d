// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "modrot.h"
#include "reclaim-report.h"

const char *instances_word(size_t n)
{
	return n == 1 ? "instance" : "instances";
}

/*
 * The kernel's count is exact; what the freed instances held is known from
 * what the run saw. When the two disagree, what still rots now tells which
 * seen instances stayed (still in use); instances freed beyond those seen
 * rotted after the snapshot, from a concurrent unload, and are counted at
 * the size of one instance.
 */
/* The run saw nothing of name: a module of that name loaded again now has the size of the one freed. */
static int size_now(const char *name, uint64_t *size)
{
	struct rot_snapshot *snap;
	*size = 0;
	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return err;
	const struct rot_module *m = rot_snapshot_find_live(snap, name);
	if (m && rot_module_state(m) != ROT_STATE_LOADING) /* Loading: init memory too */
		*size = rot_module_size(m);
	rot_snapshot_free(snap);
	return 0;
}

static void account(const char *name, const struct reclaim_seen *seen, struct reclaim_outcome *out)
{
	size_t left;
	uint64_t left_bytes;

	if (out->freed == seen->instances) {
		out->bytes = seen->bytes;
		return;
	}
	int err = rot_rotting_total(name, &left, &left_bytes);
	if (err < 0) {
		out->count_err = err;
		left = 0;
		left_bytes = 0;
	}
	if (left > seen->instances) { /* more rotted since: not ours to judge */
		left = seen->instances;
		left_bytes = seen->bytes;
	}
	size_t expected = seen->instances - left;
	uint64_t expected_bytes = seen->bytes > left_bytes ? seen->bytes - left_bytes : 0;
	if (out->freed >= expected) {
		uint64_t unit = seen->unit;
		if (!unit && (err = size_now(name, &unit)) < 0)
			out->count_err = err;
		out->bytes = expected_bytes + (out->freed - expected) * unit;
	} else {
		/* another caller reclaimed some of them first */
		out->bytes = expected ? expected_bytes / expected * out->freed : 0;
	}
	out->refused = left;
	out->refused_bytes = left_bytes;
}

void reclaim_name(const struct rot_snapshot *snap, const char *name,
		  const struct reclaim_seen *seen, bool force, struct reclaim_outcome *out)
{
	*out = (struct reclaim_outcome){ 0 };
	int ret = force ? rot_reclaim_force(snap, name) : rot_reclaim(snap, name);
	if (ret == -EBUSY) {
		out->err = ret;
		size_t left;
		uint64_t left_bytes;
		int err = rot_rotting_total(name, &left, &left_bytes);
		if (err < 0)
			out->count_err = err;
		if (err < 0 || left == 0) {
			left = seen->instances;
			left_bytes = seen->bytes;
		}
		out->refused = left;
		out->refused_bytes = left_bytes;
		return;
	}
	if (ret < 0) {
		out->err = ret;
		return;
	}
	out->freed = (size_t)ret;
	account(name, seen, out);
}

void count_error_message(char *buf, size_t cap, const char *name, int err)
{
	char safe[4 * ROT_NAME_MAX + 8], why[256];
	snprintf(buf, cap, "%s: what the reclaim freed could not be counted: %s",
		 cli_safe(name, safe, sizeof(safe)), cli_read_error(err, why, sizeof(why)));
}

void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run)
{
	report_reclaimed_percpu(name, instances, bytes, 0, dry_run);
}

void report_reclaimed_percpu(const char *name, size_t instances, uint64_t bytes, uint64_t percpu,
			     bool dry_run)
{
	char safe[4 * ROT_NAME_MAX + 8];
	printf("%s: %s %zu %s, %" PRIu64 " bytes", cli_safe(name, safe, sizeof(safe)),
	       dry_run ? "would reclaim" : "reclaimed", instances, instances_word(instances), bytes);
	if (percpu)
		printf(", %" PRIu64 " per-CPU bytes", percpu);
	putchar('\n');
}

void refused_message(char *buf, size_t cap, const char *name, size_t refused, const char *force_cmd)
{
	char safe[4 * ROT_NAME_MAX + 8];
	const char *them = refused == 1 ? "it" : "them";
	cli_safe(name, safe, sizeof(safe));
	snprintf(buf, cap,
		 "%s: %zu rotting %s still in use (an armed timer, queued work or a probe "
		 "points into %s); not reclaimed; '%s %s' frees %s anyway, at the risk of a crash",
		 safe, refused, instances_word(refused), them, force_cmd, safe, them);
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
static int taint_unknown(int err, const char *when)
{
	char why[256];
	if (err == -EPROTO) {
		cli_warn("could not read the kernel taint%s: %s", when,
			 cli_read_error(err, why, sizeof(why)));
		return 0;
	}
	cli_error("could not read the kernel taint%s: %s", when,
		  cli_read_error(err, why, sizeof(why)));
	return err;
}

int run_taint_before(struct run_taint *t)
{
	int err = rot_taint_read(&t->before);
	t->before_known = err == 0;
	return t->before_known ? 0 : taint_unknown(err, "");
}

int run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits)
{
	if (dry_run) {
		t->after_known = t->before_known;
		t->after = t->before | predicted_bits;
		return 0;
	}
	int err = rot_taint_read(&t->after);
	t->after_known = err == 0;
	return t->after_known ? 0 : taint_unknown(err, " after the run");
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
	json_bool(w, "dry_run", dry_run);
	json_u64(w, "failures", failures);
	taint_members(w, "taint_before", "taint_before_value", t->before_known, t->before);
	taint_members(w, "taint_after", "taint_after_value", t->after_known, t->after);
}
