/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modprobe -r's own pieces: modprobe-remove.c walks kmod's order and
 * unloads; modprobe-remove-rule.c holds what this run unloaded (its gone
 * marks) and the in-use rule's verdicts; modprobe-remove-rot.c says and
 * reclaims what each unload leaves rotting (--reclaim). The two call
 * nothing in modprobe-remove.c.
 */
#ifndef MODROT_MODPROBE_REMOVE_H
#define MODROT_MODPROBE_REMOVE_H

#include "modprobe.h"

/* room for a reason that names a path */
#define WHY_MAX (4096 + 256)

/*
 * The rule's verdict on m (lib's rule on a rot kernel: what this run
 * unloaded holds nothing), with its reason in words. An input the rule
 * cannot read makes the verdict unknown, which is never "unused".
 */
enum verdict { UNUSED, IN_USE, UNKNOWN };

/* modprobe-remove-rule.c */
/* The rule's inputs (mount table, modules.alias), read once per run; 0, or
 * -errno with why saying which input could not be read. */
int rm_usage_inputs(struct modprobe_run *r, char *why, size_t cap);
const struct gone_marks *rm_gone_marks(struct modprobe_run *r);
bool rm_unloaded_by_run(struct modprobe_run *r, const char *name);
void rm_mark_gone(struct modprobe_run *r, const char *name);
enum verdict rm_in_use(struct modprobe_run *r, struct kmod_module *mod, char *why, size_t cap);
enum verdict rm_in_use_now(struct modprobe_run *r, const char *name, char *why, size_t cap);
enum verdict rm_dependency_verdict(struct modprobe_run *r, struct kmod_module *dep, char *why,
				   size_t cap);

/* modprobe-remove-rot.c */
bool rm_reclaim_rotting(struct modprobe_run *r, const char *name);
void rm_report_rot(struct modprobe_run *r, const char *name);

#endif
