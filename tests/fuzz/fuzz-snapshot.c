// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The snapshot parser on hostile /proc/modules and /proc/rotting_modules
 * text. The first byte chooses how the input splits: even, the whole input
 * is /proc/modules on a stock kernel; odd, the part up to the first 0xff
 * byte is /proc/modules and the rest /proc/rotting_modules. With bit 1 set
 * too, the rotting part ends at a second 0xff and the rest is a revision-4
 * kernel's /proc/module_pins, laid onto the live modules.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernfs-hash.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1, mlen = len;
	const char *rot = NULL;
	size_t rlen = 0;
	const char *pins = NULL;
	size_t plen = 0;
	if (data[0] & 1) {
		const char *sep = memchr(text, 0xff, len);
		mlen = sep ? (size_t)(sep - text) : len;
		rot = sep ? sep + 1 : "";
		rlen = sep ? len - mlen - 1 : 0;
		const char *psep = (data[0] & 2) ? memchr(rot, 0xff, rlen) : NULL;
		if (psep) {
			pins = psep + 1;
			plen = rlen - (size_t)(psep - rot) - 1;
			rlen = (size_t)(psep - rot);
		}
	}
	if (pins) {
		/* Pins laid onto the live modules: only a live module has
		 * them, and only one a line named. */
		struct rot_snapshot *ps;
		if (snapshot_parse(text, mlen, rot, rlen, pins, plen, &ps) < 0) {
			if (ps)
				abort(); /* a refusal leaves nothing behind */
			return 0;
		}
		for (size_t i = 0; i < rot_snapshot_count(ps); i++) {
			const struct rot_module *m = rot_snapshot_module(ps, i);
			if (!rot_module_is_rotting(m) && !rot_module_pins_known(m) &&
			    (rot_module_pins(m) != 0 || rot_module_is_rot_safe(m)))
				abort();
		}
		if (!rot_snapshot_has_pins(ps))
			abort();
		rot_snapshot_free(ps);
		return 0;
	}
	struct rot_snapshot *s;
	if (snapshot_parse(text, mlen, rot, rlen, NULL, 0, &s) < 0) {
		/* A refusal says where, within the input's lines. */
		const struct rot_parse_error *pe = rot_parse_error_last();
		if (pe && (pe->line == 0 || !pe->reason || !pe->file))
			abort();
		return 0;
	}
	size_t n = rot_snapshot_count(s), live = rot_snapshot_live_count(s);
	if (live > n)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct rot_module *m = rot_snapshot_module(s, i);
		size_t nl = strlen(rot_module_name(m));
		if (nl == 0 || nl > ROT_NAME_MAX || (i < live) == rot_module_is_rotting(m))
			abort();
		(void)strlen(rot_module_taints(m));
		uint32_t prev = 0;
		for (size_t h = 0; h < rot_module_holder_count(m); h++) {
			uint32_t key = kernfs_hash(rot_module_holder(m, h));
			if (key < prev)
				abort(); /* holders come in kernfs order */
			prev = key;
		}
		if (i < live && rot_snapshot_find_live(s, rot_module_name(m)) == NULL)
			abort();
	}
	struct rot_group *g;
	size_t ng;
	if (rot_snapshot_rotting_groups(s, &g, &ng) == 0)
		free(g);
	rot_snapshot_free(s);
	return 0;
}
