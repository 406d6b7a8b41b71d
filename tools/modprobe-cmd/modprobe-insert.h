/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modprobe NAME's own pieces: modprobe-insert-plan.c asks libkmod what to
 * load (its dry run) and checks each module of that plan; modprobe-insert.c
 * runs the checked plan, step by step. The plan's file calls nothing in
 * modprobe-insert.c.
 */
#ifndef MODROT_MODPROBE_INSERT_H
#define MODROT_MODPROBE_INSERT_H

#include "modprobe.h"

struct plan_step {
	struct kmod_module *mod;
	char *options;          /* libkmod's: modprobe.d's, and the command line's for the target */
	struct rot_modfile *mf; /* read and preflighted: what the kernel is given */
	bool install;           /* its install command runs instead */
};
struct plan {
	struct plan_step *v;
	size_t n, cap;
	bool oom;
	int kmod_err; /* libkmod's answer to the dry run: >0 blacklisted, -EEXIST, ... */
};

/*
 * The plan libkmod would run for mod (its dry run, with flags and the
 * command line's options extra), in order, into *out (mp_plan_free()
 * frees it, also after a failure): 0, and libkmod's own answer in
 * out->kmod_err; or a failure of the dry run itself, said.
 */
int mp_plan_collect(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
		    const char *extra, struct plan *out);

/*
 * Reads and preflights each module of the plan, in order: symbols that
 * earlier modules of the plan define count as offered. 0 when the whole
 * plan may run; else the failure, said, and nothing was loaded.
 */
int mp_plan_preflight(struct modprobe_run *r, struct kmod_module *mod, struct plan *plan);
void mp_plan_free(struct plan *p);

#endif
