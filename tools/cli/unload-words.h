/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How a refusal to unload or reclaim is worded: rmmod's words for what
 * stops an unload (kmod's rmmod's, or more precise ones), and the words
 * rmmod, modreap and modprobe share for what stops a reclaim. The one
 * place to read them; load-words.h is its twin for what stops a load.
 *
 * Words only: what is in use and what a reclaim kept are lib's to decide.
 * What a run has done that the words depend on (which holders it already
 * unloaded) comes in as a struct unload_scene. Depends on lib and the CLI
 * helper (libcli.a) alone: the tools call these, never the other way round.
 *
 * Each writes one line, without the "prog: ERROR: " a tool puts before it,
 * into buf (cut at cap), and those that refuse return the JSON "reason"
 * token (reasons.h) of the refusal.
 */
#ifndef MODROT_UNLOAD_WORDS_H
#define MODROT_UNLOAD_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "gone-marks.h"
#include "modrot.h"

/* What a run has done that its refusals name. */
struct unload_scene {
	const struct rot_snapshot *snap; /* the run's one snapshot */
	const struct gone_marks *gone;   /* unloaded by this run: no holder any more */
};

/*
 * Why an unload of name failed with err, a negative errno from
 * rot_module_unload_check() or rot_unload(); m is its live module in the
 * snapshot, or NULL. "Module alpha is in use by: beta" names the holders
 * still present; "Module ext4 is builtin.", "Module zeta is not currently
 * loaded", "Module m is busy: its init is still running", "Module m is
 * permanent (...); -f forces it ...", "could not remove module m: ...".
 */
const char *unload_refusal(const struct unload_scene *s, const char *name,
			   const struct rot_module *m, int err, char *buf, size_t cap);

/*
 * rmmod --unused refuses to unload anything when the in-use rule cannot be
 * read (it fails closed): "cannot tell which modules are unused: could not
 * read WHAT: WHY; nothing unloaded". WHAT is what, an input of the rule
 * (rot_usage_ctx_read()), or, when module is not NULL, that module's
 * /sys/module/MODULE/drivers. Returns buf.
 */
const char *unused_unknown_words(char *buf, size_t cap, const char *what, const char *module,
				 int err);

/* "Module ext4 is builtin.": kmod's words in rmmod and modprobe alike. */
void builtin_words(char *buf, size_t cap, const char *name);

/*
 * Why rot_reclaim() of name failed with err (not -EBUSY: what it kept is
 * refused_message()'s). was_live: name had a live module, so -ENOENT only
 * says nothing rots ("Module zeta has no rotting instances", plus " and is
 * not currently loaded" when it had none).
 */
const char *reclaim_refusal(const char *name, int err, bool was_live, char *buf, size_t cap);

/* "Module zeta has no rotting instances" (not_loaded: "... and is not
 * currently loaded"). */
void no_rotting_words(char *buf, size_t cap, const char *name, bool not_loaded);

/* "could not reclaim module delta: Operation not permitted" (and the
 * errno's hint): a reclaim request the kernel failed, in every tool. */
void reclaim_error_words(char *buf, size_t cap, const char *name, int err);

/* The words for a result's recount_err, e.g. "delta: what the reclaim
 * freed could not be counted: Cannot allocate memory". */
void count_error_message(char *buf, size_t cap, const char *name, int err);

/*
 * The one line for instances the kernel kept. With a revision-3 reply it
 * says why, e.g. "could not reclaim foo: 2 rotting instances kept: 3
 * pins, 1 task inside its code, 1 timer pointing into it; 'rmmod
 * --reclaim -f foo' stops the timers and work left in them" (the hint
 * only when forcing would stop something). Without one (revision 2),
 * "straytimer: 1 rotting instance still in use (...); not reclaimed;
 * 'rmmod --reclaim -f straytimer' frees it anyway, ...". force_cmd is the
 * command that forces, without the name; forced says this run did.
 */
void refused_message(char *buf, size_t cap, const char *name, const struct rot_reclaim_result *o,
		     const char *force_cmd, bool forced);

#endif
