/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What rmmod, modreap, modprobe and insmod share to tell what a run did:
 * what a reclaim freed (lib counts it), the kernel taint around the run,
 * and the members every JSON summary has. A refused reclaim is worded in
 * unload-words.h.
 */
#ifndef MODROT_RECLAIM_REPORT_H
#define MODROT_RECLAIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli-exit.h"
#include "jsonwrt.h"
#include "modrot.h"

/* "delta: reclaimed 2 instances, 32768 bytes" (or "would reclaim"), with
 * ", 3000 per-CPU bytes" when the instances held some of the per-CPU
 * reserve (percpu > 0). */
void report_reclaimed(const char *name, size_t instances, uint64_t bytes, uint64_t percpu,
		      bool dry_run);

/* A reply's kept_instances, why, ... where members, for a JSON record. */
void report_json_kept(struct json_writer *w, const struct rot_reclaim_result *reply);

/* "kernel taint: none -> R (8)", or "kernel taint would go: ..." when predicted. */
void report_taint_change(unsigned long before, unsigned long after, bool predicted);

/* "2 instances" / "1 instance" */
const char *instances_word(size_t n);

/* The kernel taint around a run; a value that could not be read is unknown. */
struct run_taint {
	bool before_known, after_known;
	unsigned long before, after;
};

/* Reads the taint before the run. A malformed mask is a warning (returns
 * 0); one that could not be read is an error, counted in outcome (unless
 * NULL), and its negative errno is returned. */
int run_taint_before(struct run_taint *t, struct cli_outcome *outcome);
/* Reads it after the run (a dry run predicts instead: predicted_bits are
 * what the run would have added); returns and counts as run_taint_before. */
int run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits,
		    struct cli_outcome *outcome);

/*
 * Opens the "summary" object, for the caller to fill on and close, with
 * the members every tool's summary starts with (modrot(7)): "dry_run",
 * "failures", "taint_before", "taint_before_value", "taint_after" and
 * "taint_after_value" (letters, "" when untainted; null when unread).
 */
void report_json_summary_common(struct json_writer *w, bool dry_run, unsigned failures,
				const struct run_taint *t);

#endif
