/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rmmod's own files, and the one way they call each other:
 * docs/architecture.md, "Layout". */
#ifndef MODROT_RMMOD_H
#define MODROT_RMMOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli-exit.h"
#include "gone-marks.h"
#include "modrot.h"
#include "reclaim-report.h"

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

/* rmmod-record.c */
void rmmod_note(struct rmmod_run *r, const char *name, const char *result, int err,
		const char *reason, size_t instances, uint64_t bytes, char *message);
/* rmmod_note() with a copy of msg, which says what happened (-J only). */
void rmmod_note_said(struct rmmod_run *r, const char *name, const char *result, int err,
		     const char *reason, const char *msg);
/* A failure: one line on stderr, or (with -J) a record that carries it.
 * cascade: it only follows from a failure already counted. */
void rmmod_failed(struct rmmod_run *r, const char *name, int err, bool cascade, const char *reason,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void rmmod_print_json(struct rmmod_run *r, const struct run_taint *taint);

/* rmmod-unload.c */
const struct rot_module *rmmod_find_present(const struct rmmod_run *r, const char *name);
void rmmod_report_unload_error(struct rmmod_run *r, const char *name, const struct rot_module *m,
			       int err);
void rmmod_read_percpu(struct rmmod_run *r);
int rmmod_unload_one(struct rmmod_run *r, const char *name);
int rmmod_unload_holders(struct rmmod_run *r, const struct rot_module *m, unsigned depth);
void rmmod_reclaim_rot(struct rmmod_run *r, const char *name, bool unloaded, bool was_live);
void rmmod_reclaim_one(struct rmmod_run *r, const char *name);

/* rmmod-unused.c */
void rmmod_unload_unused(struct rmmod_run *r);

#endif
