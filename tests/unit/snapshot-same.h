/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The snapshot parser run both ways on the same text, the one-pass line
 * parser first (as every tool runs it) and parse_line() alone, must give
 * the same answer: the same refusal (file, line and reason), or modules
 * alike in every field. For the unit test and the fuzz harness.
 */
#ifndef MODROT_TESTS_SNAPSHOT_SAME_H
#define MODROT_TESTS_SNAPSHOT_SAME_H

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

static inline int snapshot_parse_error_code(const struct rot_parse_error *pe, char *buf,
					    size_t len)
{
	if (!pe)
		return snprintf(buf, len, "(none)");
	return snprintf(buf, len, "%s:%zu: %s", pe->file, pe->line, pe->reason);
}

/* NULL when both ways agree, else what differs (in why). */
static inline const char *snapshot_both_ways(const char *modules, size_t mlen, const char *rotting,
					     size_t rlen, char *why, size_t why_len)
{
	struct rot_snapshot *s[2] = { NULL, NULL };
	int err[2];
	char pe[2][256];
	for (int way = 0; way < 2; way++) {
		err[way] = snapshot_parse_text(modules, mlen, rotting, rlen, way == 0, &s[way]);
		snapshot_parse_error_code(err[way] < 0 ? rot_parse_error_last() : NULL, pe[way],
					  sizeof(pe[way]));
	}
	const char *diff = NULL;
	if (err[0] != err[1] || strcmp(pe[0], pe[1]) != 0) {
		snprintf(why, why_len, "fast %d (%.250s), slow %d (%.250s)", err[0], pe[0], err[1], pe[1]);
		diff = why;
	} else if (err[0] == 0) {
		size_t n = rot_snapshot_count(s[0]);
		if (n != rot_snapshot_count(s[1]) ||
		    rot_snapshot_live_count(s[0]) != rot_snapshot_live_count(s[1]) ||
		    rot_snapshot_has_rot(s[0]) != rot_snapshot_has_rot(s[1])) {
			snprintf(why, why_len, "counts differ");
			diff = why;
		}
		for (size_t i = 0; !diff && i < n; i++) {
			const struct rot_module *a = rot_snapshot_module(s[0], i);
			const struct rot_module *b = rot_snapshot_module(s[1], i);
			bool same = strcmp(rot_module_name(a), rot_module_name(b)) == 0 &&
				    rot_module_size(a) == rot_module_size(b) &&
				    rot_module_refcnt(a) == rot_module_refcnt(b) &&
				    rot_module_state(a) == rot_module_state(b) &&
				    rot_module_address(a) == rot_module_address(b) &&
				    strcmp(rot_module_taints(a), rot_module_taints(b)) == 0 &&
				    rot_module_is_permanent(a) == rot_module_is_permanent(b) &&
				    rot_module_pins(a) == rot_module_pins(b) &&
				    rot_module_pins_known(a) == rot_module_pins_known(b) &&
				    rot_module_is_rot_safe(a) == rot_module_is_rot_safe(b) &&
				    rot_module_holder_count(a) == rot_module_holder_count(b);
			for (size_t h = 0; same && h < rot_module_holder_count(a); h++)
				same = strcmp(rot_module_holder(a, h), rot_module_holder(b, h)) == 0;
			if (!same) {
				snprintf(why, why_len, "module %zu (%s) differs", i,
					 rot_module_name(b));
				diff = why;
			}
		}
	}
	rot_snapshot_free(s[0]);
	rot_snapshot_free(s[1]);
	return diff;
}

#endif
