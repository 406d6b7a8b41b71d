// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "modrot.h"
#include "reclaim-report.h"

const char *instances_word(size_t n)
{
	return n == 1 ? "instance" : "instances";
}

void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run)
{
	char safe[4 * ROT_NAME_MAX + 8];
	printf("%s: %s %zu %s, %" PRIu64 " bytes\n", cli_safe(name, safe, sizeof(safe)),
	       dry_run ? "would reclaim" : "reclaimed", instances, instances_word(instances),
	       bytes);
}

void report_taint_change(unsigned long before, unsigned long after, bool predicted)
{
	char b[40], a[40];
	rot_taint_letters(before, b, sizeof(b));
	rot_taint_letters(after, a, sizeof(a));
	printf("kernel taint%s: %s -> %s (%lu)\n", predicted ? " would go" : "", b, a, after);
}

void run_taint_before(struct run_taint *t)
{
	t->before_known = rot_taint_read(&t->before) == 0;
	if (!t->before_known)
		cli_warn("could not read the kernel taint");
}

void run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits)
{
	if (dry_run) {
		t->after_known = t->before_known;
		t->after = t->before | predicted_bits;
		return;
	}
	t->after_known = rot_taint_read(&t->after) == 0;
	if (!t->after_known)
		cli_warn("could not read the kernel taint after the run");
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
