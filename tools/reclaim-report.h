/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What rmmod, modreap and insmod share to tell what a run did: the words
 * for what a reclaim freed, and the members every JSON summary has.
 */
#ifndef MODROT_RECLAIM_REPORT_H
#define MODROT_RECLAIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonwrt.h"

/* "delta: reclaimed 2 instances, 32768 bytes" (or "would reclaim"). */
void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run);

/* "kernel taint: none -> R (8)", or "kernel taint would go: ..." when predicted. */
void report_taint_change(unsigned long before, unsigned long after, bool predicted);

/* "2 instances" / "1 instance" */
const char *instances_word(size_t n);

/* The kernel taint around a run; a value that could not be read is unknown. */
struct run_taint {
	bool before_known, after_known;
	unsigned long before, after;
};

/* Reads the taint before the run; warns once when it cannot. */
void run_taint_before(struct run_taint *t);
/* Reads it after the run (a dry run predicts instead: predicted_bits are
 * what the run would have added). */
void run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits);

/*
 * The members every tool's JSON summary starts with (modrot(7)):
 * "dry_run", "failures", and "taint_before", "taint_before_value",
 * "taint_after", "taint_after_value" (letters, "" when untainted; null
 * only when the taint could not be read).
 */
void report_json_summary_common(struct json_writer *w, bool dry_run, unsigned failures,
				const struct run_taint *t);

#endif
