/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The words for what stops an unload (kmod's rmmod's, or more precise
 * ones) or a reclaim, shared by rmmod, modreap and modprobe; load-words.h
 * is its twin for a load. Words only: what is in use and what a reclaim
 * kept are lib's to decide.
 *
 * Each writes one line, without the "prog: ERROR: " prefix, into buf (cut
 * at cap); those that refuse return the JSON "reason" token (reasons.h).
 */
#ifndef MODROT_UNLOAD_WORDS_H
#define MODROT_UNLOAD_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "gone-marks.h"
#include "modrot.h"

/* What a run has done that its refusals name (holders it unloaded). */
struct unload_scene {
	const struct rot_snapshot *snap; /* the run's one snapshot */
	const struct gone_marks *gone;   /* unloaded by this run: no holder any more */
};

/*
 * Why an unload of name failed with err, a negative errno from
 * rot_module_unload_check() or rot_unload(); m is its live module in the
 * snapshot, or NULL. "Module alpha is in use by: beta" names only the
 * holders still present.
 */
const char *unload_refusal(const struct unload_scene *s, const char *name,
			   const struct rot_module *m, int err, char *buf, size_t cap);

/*
 * rmmod --unused unloads nothing when the in-use rule cannot be read:
 * "cannot tell which modules are unused: could not read WHAT: WHY; nothing
 * unloaded". WHAT is what (an input of rot_usage_ctx_read()), or, when
 * module is not NULL, /sys/module/MODULE/drivers. Returns buf.
 */
const char *unused_unknown_words(char *buf, size_t cap, const char *what, const char *module,
				 int err);

/* "Module ext4 is builtin.": kmod's words in rmmod and modprobe alike. */
void builtin_words(char *buf, size_t cap, const char *name);

/*
 * Why rot_reclaim() of name failed with err (not -EBUSY: that is
 * refused_message()'s). For -ENOENT, no_rotting_words(), with not_loaded
 * when name had no live module (was_live false).
 */
const char *reclaim_refusal(const char *name, int err, bool was_live, char *buf, size_t cap);

/* "Module zeta has no rotting instances" (not_loaded: "... and is not
 * currently loaded"). */
void no_rotting_words(char *buf, size_t cap, const char *name, bool not_loaded);

/* "could not reclaim module delta: Operation not permitted" (and the
 * errno's hint). */
void reclaim_error_words(char *buf, size_t cap, const char *name, int err);

/* The words for a result's recount_err, e.g. "delta: what the reclaim
 * freed could not be counted: Cannot allocate memory". */
void count_error_message(char *buf, size_t cap, const char *name, int err);

/*
 * The one line for instances the kernel kept, e.g. "could not reclaim
 * foo: 2 rotting instances kept: 3 pins, 1 task inside its code" (a
 * revision-2 reply says no why). force_cmd is the command that forces,
 * without the name; forced says this run did.
 */
void refused_message(char *buf, size_t cap, const char *name, const struct rot_reclaim_result *o,
		     const char *force_cmd, bool forced);

#endif
