/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The words rmmod --reclaim and modreap use for what they freed. */
#ifndef MODROT_RECLAIM_REPORT_H
#define MODROT_RECLAIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "delta: reclaimed 2 instances, 32768 bytes" (or "would reclaim"). */
void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run);

/* "kernel taint: none -> R (8)", or "kernel taint would go: ..." when predicted. */
void report_taint_change(unsigned long before, unsigned long after, bool predicted);

/* "2 instances" / "1 instance" */
const char *instances_word(size_t n);

#endif
