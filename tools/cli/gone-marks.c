// SPDX-License-Identifier: GPL-2.0-or-later
/* What this run unloaded, per index of its snapshot. */

#include <errno.h>
#include <stdlib.h>

#include "gone-marks.h"

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
