// SPDX-License-Identifier: GPL-2.0-or-later
/* How a refusal to unload or reclaim is worded (unload-words.h), and what
 * this run unloaded (gone-marks.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-escape.h"
#include "json-keys.h"
#include "reasons.h"
#include "reclaim-report.h"
#include "unload-words.h"

/* The gone marks (gone-marks.h), which the words read. */
int gone_marks_init(struct gone_marks *g, const struct rot_snapshot *snap)
{
	g->snap = snap;
	/* + 1: calloc(0) may be NULL, which here means out of memory */
	g->marks = calloc(rot_snapshot_count(snap) + 1, sizeof(*g->marks));
	return g->marks ? 0 : -ENOMEM;
}

void gone_marks_free(struct gone_marks *g)
{
	free(g->marks);
	g->marks = NULL;
}

void gone_marks_set(struct gone_marks *g, const struct rot_module *m)
{
	if (m && g->marks)
		g->marks[rot_snapshot_index_of(g->snap, m)] = true;
}

bool gone_marks_has(const struct gone_marks *g, const struct rot_module *m)
{
	return m && g->marks && g->marks[rot_snapshot_index_of(g->snap, m)];
}

/* kmod's "is in use by:" and the holders still present, each after a
 * space, written straight into buf (cut there): nothing to allocate. */
static void in_use_words(const struct unload_scene *s, const struct rot_module *m, char *buf,
			 size_t cap)
{
	snprintf(buf, cap, "Module %s is in use by:", rot_module_name(m));
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		/* only a holder of the snapshot this run has not unloaded */
		const char *h = rot_module_holder(m, i);
		const struct rot_module *live = rot_snapshot_find_live(s->snap, h);
		if (!live || gone_marks_has(s->gone, live))
			continue;
		cli_appendf(buf, cap, "", " %s", h);
	}
}

void builtin_words(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "Module %s is builtin.", name);
}

/* delete_module's answer in kmod's words, or better ones. */
const char *unload_refusal(const struct unload_scene *s, const char *name,
			   const struct rot_module *m, int err, char *buf, size_t cap)
{
	switch (-err) {
	case ENOENT:
		if (rot_name_is_builtin(name)) {
			builtin_words(buf, cap, name);
			return REASON_BUILTIN;
		}
		snprintf(buf, cap, "Module %s is not currently loaded", name);
		break;
	case EWOULDBLOCK:
		if (m && rot_module_holder_count(m) &&
		    rot_module_live_holders(s->snap, m, s->gone ? s->gone->marks : NULL))
			in_use_words(s, m, buf, cap);
		else if (m && rot_snapshot_has_pins(s->snap) && rot_module_pins(m) &&
			 !rot_module_is_rot_safe(m))
			/* rot-abi.md U8: the kernel runs no exit not written for users still inside */
			snprintf(buf, cap,
				 "Module %s is in use (pinned %lu %s) and does not declare MODULE_ROT_SAFE: "
				 "the kernel will not run its exit while it is used",
				 name, rot_module_pins(m),
				 rot_module_pins(m) == 1 ? "time" : "times");
		else if (m && rot_module_holder_count(m))
			in_use_words(s, m, buf, cap);
		else
			snprintf(buf, cap, "Module %s is in use", name);
		break;
	case EBUSY: /* the kernel says busy; the snapshot says why, where it can */
		if (m && rot_module_state(m) == ROT_STATE_LOADING)
			snprintf(buf, cap, "Module %s is busy: its init is still running", name);
		else if (m && rot_module_state(m) == ROT_STATE_UNLOADING)
			snprintf(buf, cap, "Module %s is busy: it is already unloading", name);
		else if (m && rot_module_is_permanent(m))
			snprintf(buf, cap,
				 "Module %s is permanent (it has no exit function); "
				 "-f forces it and taints the kernel",
				 name);
		else
			snprintf(buf, cap, "Module %s is busy", name);
		break;
	default:
		snprintf(buf, cap, "could not remove module %s: %s%s", name, strerror(-err),
			 cli_errno_hint(err));
	}
	return reason_for_errno(REASON_UNLOAD, err);
}

const char *unused_unknown_words(char *buf, size_t cap, const char *what, const char *module,
				 int err)
{
	char drivers[ROT_NAME_MAX + 24]; /* a name of the snapshot is no longer */
	if (module)
		snprintf(drivers, sizeof(drivers), "/sys/module/%s/drivers", module);
	snprintf(buf, cap,
		 "cannot tell which modules are unused: could not read %s: %s; nothing unloaded",
		 module ? drivers : what, module ? strerror(-err) : cli_input_error(err));
	return buf;
}

void no_rotting_words(char *buf, size_t cap, const char *name, bool not_loaded)
{
	snprintf(buf, cap, "Module %s has no rotting instances%s", name,
		 not_loaded ? " and is not currently loaded" : "");
}

void reclaim_error_words(char *buf, size_t cap, const char *name, int err)
{
	snprintf(buf, cap, "could not reclaim module %s: %s%s", name, strerror(-err),
		 cli_errno_hint(err));
}

const char *reclaim_refusal(const char *name, int err, bool was_live, char *buf, size_t cap)
{
	if (err == -ENOENT)
		no_rotting_words(buf, cap, name, !was_live);
	else
		reclaim_error_words(buf, cap, name, err);
	return reason_for_errno(REASON_RECLAIM, err);
}

void count_error_message(char *buf, size_t cap, const char *name, int err)
{
	char safe[4 * ROT_NAME_MAX + 8], why[256];
	snprintf(buf, cap, "%s: what the reclaim freed could not be counted: %s",
		 cli_safe(name, safe, sizeof(safe)), cli_read_error(err, why, sizeof(why)));
}

/* "1 timer pointing into it", "3 callbacks pointing into it (timers, work items)" */
static void callbacks_words(char *buf, size_t cap, const struct rot_reclaim_result *k)
{
	static const struct {
		unsigned bit;
		const char *one, *many;
	} kinds[] = {
		{ ROT_KEPT_TIMER, "timer", "timers" },
		{ ROT_KEPT_WORK, "work item", "work items" },
		{ ROT_KEPT_RCU, "RCU callback", "RCU callbacks" },
	};
	unsigned nkinds = 0, only = 0;
	for (unsigned i = 0; i < 3; i++)
		if (k->why & kinds[i].bit) {
			nkinds++;
			only = i;
		}
	if (nkinds == 1) {
		snprintf(buf, cap, "%u %s pointing into it", k->callbacks,
			 k->callbacks == 1 ? kinds[only].one : kinds[only].many);
		return;
	}
	char list[128] = "";
	for (unsigned i = 0; i < 3; i++)
		if (k->why & kinds[i].bit)
			cli_appendf(list, sizeof(list), ", ", "%s", kinds[i].many);
	snprintf(buf, cap, "%u callbacks pointing into it (%s)", k->callbacks, list);
}

/* "3 pins, 1 task inside its code, 1 timer pointing into it" */
static void kept_reasons(char *buf, size_t cap, const struct rot_reclaim_result *k)
{
	buf[0] = '\0';
	if (k->why & ROT_KEPT_PIN)
		cli_appendf(buf, cap, ", ", "%u %s", k->pins, k->pins == 1 ? "pin" : JK_PINS);
	if (k->why & ROT_KEPT_TASK)
		cli_appendf(buf, cap, ", ", "%u %s inside its code", k->tasks,
			    k->tasks == 1 ? "task" : JK_TASKS);
	if (k->why & (ROT_KEPT_TIMER | ROT_KEPT_WORK | ROT_KEPT_RCU)) {
		char cb[160];
		callbacks_words(cb, sizeof(cb), k);
		cli_appendf(buf, cap, ", ", "%s", cb);
	}
	/* probes counts instances with a kprobe, not kprobes (rot-abi R4) */
	if ((k->why & ROT_KEPT_KPROBE) && k->kept > 1)
		cli_appendf(buf, cap, ", ", "kprobes on the code of %u", k->probes);
	else if (k->why & ROT_KEPT_KPROBE)
		cli_appendf(buf, cap, ", ", "kprobes on its code");
	/* R5: the kernel marks every instance a forced reclaim still kept when its wait ran out */
	if (k->why & ROT_KEPT_RUNNING)
		cli_appendf(buf, cap, ", ", "still in use when the forced reclaim's wait ran out");
	/* revision 4: what the scan found (R10), the users it keeps for (P7) */
	if (k->why & ROT_KEPT_REF)
		cli_appendf(buf, cap, ", ", "%u %s into it from outside", k->refs,
			    k->refs == 1 ? "reference" : "references");
	if (k->why & ROT_KEPT_USER)
		cli_appendf(buf, cap, ", ", "a rotting module that used it still calls it");
	if (k->why & ROT_KEPT_UNSCANNED)
		cli_appendf(buf, cap, ", ", "memory the kernel's scan could not read");
	if (!buf[0])
		snprintf(buf, cap, "the kernel did not say why");
}

void refused_message(char *buf, size_t cap, const char *name, const struct rot_reclaim_result *o,
		     const char *force_cmd, bool forced)
{
	char safe[4 * ROT_NAME_MAX + 8];
	size_t refused = o->kept;
	const char *them = refused == 1 ? "it" : "them";
	cli_safe(name, safe, sizeof(safe));
	if (o->revision < 3) {
		snprintf(buf, cap,
			 "%s: %zu rotting %s still in use (an armed timer, queued work or a probe "
			 "points into %s); not reclaimed; '%s %s' frees %s anyway, at the risk of a crash",
			 safe, refused, instances_word(refused), them, force_cmd, safe, them);
		return;
	}
	char why[512];
	kept_reasons(why, sizeof(why), o);
	/* R5: forcing stops timers, work and RCU callbacks, nothing else */
	char hint[sizeof(safe) + 128] = "";
	if (!forced && o->revision == 3 && (o->why & (ROT_KEPT_TIMER | ROT_KEPT_WORK | ROT_KEPT_RCU)))
		snprintf(hint, sizeof(hint), "; '%s %s' stops the timers and work left in %s",
			 force_cmd, safe, them);
	/* R11: where the kernel found the first reference, in its words */
	char where[4 * 128 + 40] = "";
	if (o->revision >= 4 && o->where && o->where[0]) {
		char w[4 * 128 + 8];
		snprintf(where, sizeof(where), "; the first reference is from %s",
			 cli_safe(o->where, w, sizeof(w)));
	}
	snprintf(buf, cap, "could not reclaim %s: %zu rotting %s kept: %s%s%s", safe, refused,
		 instances_word(refused), why, where, hint);
}
