/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modprobe NAME's own pieces: modprobe-insert.c runs libkmod's insert of
 * the plan that modprobe-insert-plan.c collected and preflighted first,
 * and checks it against that plan. The plan's file calls nothing in
 * modprobe-insert.c.
 */
#ifndef MODROT_MODPROBE_INSERT_H
#define MODROT_MODPROBE_INSERT_H

#include <stdbool.h>
#include <stddef.h>

#include "modprobe.h"

struct plan_step {
	struct kmod_module *mod;
	char *options;          /* libkmod's: modprobe.d's, and the command line's for the target */
	struct rot_modfile *mf; /* read and preflighted: what the kernel is given */
	bool install;           /* an install command runs instead */
	bool acted;             /* the real run inserted it or ran its command (or tried) */
};
struct plan {
	struct plan_step *v;
	size_t n, cap;
	bool oom;
};

/*
 * The plan libkmod would run for mod (its dry run, with flags and the
 * command line's options extra), each module of it read and preflighted,
 * in order: symbols that earlier modules of the plan define count as
 * offered. Returns 0 when the whole plan may run, with *out to be freed
 * by mp_plan_free(); else the failure, said.
 */
int mp_preflight_plan(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
		      const char *extra, struct plan *out);
void mp_plan_free(struct plan *p);

/*
 * libkmod 30 passes over a dependency or softdep it could not look up
 * for want of memory, and still returns 0: whatever the plan held that
 * the real run neither tried nor finds loaded was lost on the way. 0, or
 * the failure, said.
 */
int mp_plan_check(struct modprobe_run *r, struct kmod_module *mod, const struct plan *plan);

#endif
