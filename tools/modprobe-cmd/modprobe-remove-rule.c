// SPDX-License-Identifier: GPL-2.0-or-later
/* modprobe -r's in-use rule: what this run unloaded, and whether a module
 * is in use (lib's rule on a rot kernel, never the reference count). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli-errors.h"
#include "modprobe-remove.h"

/* The gone marks, made when the snapshot is first read (none without one,
 * or out of memory: lib takes none as nothing gone). */
const struct gone_marks *rm_gone_marks(struct modprobe_run *r)
{
	if (!r->gone.marks && mp_snapshot(r))
		gone_marks_init(&r->gone, r->snap);
	return &r->gone;
}

bool rm_unloaded_by_run(struct modprobe_run *r, const char *name)
{
	const struct rot_snapshot *snap = r->gone.marks ? r->snap : NULL;
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, name) : NULL;
	return gone_marks_has(&r->gone, m);
}

void rm_mark_gone(struct modprobe_run *r, const char *name)
{
	const struct rot_module *m = r->snap ? rot_snapshot_find_live(r->snap, name) : NULL;
	rm_gone_marks(r);
	gone_marks_set(&r->gone, m);
}

static enum verdict usage_verdict(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
				  const struct rot_module *m, const bool *gone, char *why,
				  size_t cap)
{
	struct rot_usage u = { .size = sizeof(u) };
	int err = rot_module_usage(ctx, snap, m, gone, &u);
	const char *input = rot_usage_ctx_failed_input(ctx);
	if (err < 0 && input) {
		/* an input of the rule (a mount table, /proc/module_pins) that
		 * could not be read or trusted tells nothing of its users */
		snprintf(why, cap, "could not read %s: %s", input, cli_input_error(err));
		return UNKNOWN;
	}
	if (err < 0) {
		/* devices that cannot be counted are not known to be none */
		snprintf(why, cap, "could not read /sys/module/%s/drivers: %s", rot_module_name(m),
			 cli_strerror(err));
		return UNKNOWN;
	}
	if (!rot_usage_in_use(&u))
		return UNUSED;
	if (u.holders)
		snprintf(why, cap, ": %zu live %s on it", u.holders,
			 u.holders == 1 ? "module depends" : "modules depend");
	else if (u.devices)
		snprintf(why, cap, ": %zu %s bound to its drivers", u.devices,
			 u.devices == 1 ? "device is" : "devices are");
	else if (u.mounts && u.mount_pid)
		snprintf(why, cap,
			 ": a %s file system is mounted on %s in the mount namespace of process %ld",
			 u.mount_type, u.mount_target, u.mount_pid);
	else if (u.mounts)
		snprintf(why, cap, ": a %s file system is mounted on %s", u.mount_type,
			 u.mount_target);
	else if (u.pins)
		snprintf(why, cap, ": pinned %lu %s", u.pins, u.pins == 1 ? "time" : "times");
	return IN_USE;
}

/* The rule's inputs (mount table, modules.alias), read once per run; 0, or
 * -errno with why saying which input could not be read. */
int rm_usage_inputs(struct modprobe_run *r, char *why, size_t cap)
{
	if (!r->usage_read) {
		r->usage_read = true;
		r->usage_err = rot_usage_ctx_read(mp_snapshot(r), r->moddir, &r->usage,
						  r->usage_what, sizeof(r->usage_what));
	}
	if (r->usage_err < 0)
		snprintf(why, cap, "could not read %s: %s",
			 r->usage_what[0] ? r->usage_what : "its inputs",
			 cli_input_error(r->usage_err));
	return r->usage_err;
}

enum verdict rm_in_use(struct modprobe_run *r, struct kmod_module *mod, char *why, size_t cap)
{
	const char *name = kmod_module_get_name(mod);
	why[0] = '\0';
	if (!r->rot) {
		/* as kmod, by the reference count; one that cannot be read (the
		 * module loaded) tells nothing */
		int refs = kmod_module_get_refcnt(mod);
		if (refs < 0 && refs != -ENOENT && kmod_module_get_initstate(mod) >= 0) {
			snprintf(why, cap, "could not read /sys/module/%s/refcnt: %s", name,
				 strerror(-refs));
			return UNKNOWN;
		}
		return refs > 0 ? IN_USE : UNUSED;
	}
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, name) : NULL;
	const struct gone_marks *gone = rm_gone_marks(r);
	if (!m || gone_marks_has(gone, m))
		return UNUSED; /* not live: the unload will say so */
	if (rm_usage_inputs(r, why, cap) < 0)
		return UNKNOWN;
	return usage_verdict(r->usage, snap, m, gone->marks, why, cap);
}

/* For -w: the rule on the kernel as it is now (a fresh snapshot and mount
 * table), since what the run read first is what it waits to change. An
 * input that cannot be read now is no sign the user is gone (UNKNOWN). */
enum verdict rm_in_use_now(struct modprobe_run *r, const char *name, char *why, size_t cap)
{
	struct rot_snapshot *snap = NULL;
	struct rot_usage_ctx *ctx = NULL;
	char what[4096];
	enum verdict v = UNUSED;
	why[0] = '\0';
	int err = rot_snapshot_read(&snap);
	if (err < 0) {
		snprintf(why, cap, "could not read the module list: %s", cli_strerror(err));
		return UNKNOWN;
	}
	err = rot_usage_ctx_read(snap, r->moddir, &ctx, what, sizeof(what));
	const struct rot_module *m = err < 0 ? NULL : rot_snapshot_find_live(snap, name);
	if (err < 0) {
		snprintf(why, cap, "could not read %s: %s", what[0] ? what : "its inputs",
			 cli_input_error(err));
		v = UNKNOWN;
	} else if (m) {
		v = usage_verdict(ctx, snap, m, NULL, why, cap);
	}
	rot_usage_ctx_free(ctx);
	rot_snapshot_free(snap);
	return v;
}

/* A dependency goes when live and unused: kmod asks for a zero refcount,
 * which a module not loaded does not have either (IN_USE here: it stays). */
enum verdict rm_dependency_verdict(struct modprobe_run *r, struct kmod_module *dep, char *why,
				   size_t cap)
{
	if (!r->rot)
		return kmod_module_get_refcnt(dep) == 0 ? UNUSED : IN_USE;
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, kmod_module_get_name(dep))
					  : NULL;
	if (!m || gone_marks_has(&r->gone, m))
		return IN_USE;
	return rm_in_use(r, dep, why, cap);
}
