/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How rmmod --reclaim and modreap reclaim one name, and the words they use for it. */
#ifndef MODROT_RECLAIM_REPORT_H
#define MODROT_RECLAIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modrot.h"

/* What this run knows rots under a name before reclaiming it. */
struct reclaim_seen {
	size_t instances;
	uint64_t bytes;
	/* The size of one instance it did not see: one a concurrent unload
	 * left (the live module's size when known). */
	uint64_t unit;
};

/* What one reclaim of a name did. */
struct reclaim_outcome {
	int err;         /* 0, or the negative errno (-EBUSY: all still in use) */
	size_t freed;    /* as the kernel counted them */
	uint64_t bytes;  /* what they held */
	size_t refused;  /* left rotting because still in use */
	uint64_t refused_bytes;
};

/*
 * One delete_module call for name (forced: O_TRUNC too). The count freed
 * is the kernel's; when it differs from what the run saw (a concurrent
 * unload added an instance, or some were still in use),
 * /proc/rotting_modules is read once more to tell how many stay and what
 * the freed ones held.
 */
void reclaim_name(const struct rot_snapshot *snap, const char *name, const struct reclaim_seen *seen,
		  bool force, struct reclaim_outcome *out);

/* "delta: reclaimed 2 instances, 32768 bytes" (or "would reclaim"). */
void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run);

/*
 * One line on stderr for instances the kernel refused as still in use,
 * e.g. "straytimer: 1 rotting instance still in use (...); not reclaimed;
 * --force frees it anyway". force_hint names the option that overrides.
 */
void report_refused(const char *name, size_t refused, const char *force_hint);

/* "kernel taint: none -> R (8)", or "kernel taint would go: ..." when predicted. */
void report_taint_change(unsigned long before, unsigned long after, bool predicted);

/* "2 instances" / "1 instance" */
const char *instances_word(size_t n);

#endif
