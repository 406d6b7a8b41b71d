/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this run unloaded, per index of its snapshot: rmmod and modprobe -r
 * read the kernel once, so a module they unloaded is still in it. lib's
 * rules take the marks as `const bool *gone`: what is gone holds nothing.
 */
#ifndef MODROT_GONE_MARKS_H
#define MODROT_GONE_MARKS_H

#include <stdbool.h>

#include "modrot.h"

struct gone_marks {
	const struct rot_snapshot *snap;
	bool *marks; /* per snapshot index; NULL: none made (lib takes NULL as none gone) */
};

/* Makes the marks of snap, none set. 0, or -ENOMEM (then g->marks is NULL). */
int gone_marks_init(struct gone_marks *g, const struct rot_snapshot *snap);
void gone_marks_free(struct gone_marks *g);

/* Marks m (a module of the snapshot; NULL is ignored) unloaded by this run. */
void gone_marks_set(struct gone_marks *g, const struct rot_module *m);
/* Whether this run unloaded m (false for NULL, or when no marks were made). */
bool gone_marks_has(const struct gone_marks *g, const struct rot_module *m);

#endif
