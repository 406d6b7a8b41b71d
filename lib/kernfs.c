// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysfs lists a directory in kernfs order: by a hash of each name. kmod's
 * lsmod prints holders in that order, so a tool that takes holders from
 * /proc/modules sorts them by this hash to print the same line.
 */
#include <limits.h>

#include "modrot.h"

uint32_t rot_kernfs_hash(const char *name)
{
	unsigned long hash = 0; /* init_name_hash(NULL namespace) */

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		hash = (hash + ((unsigned long)*c << 4) + (*c >> 4)) * 11;
	uint32_t h = (uint32_t)hash * 0x61C88647u; /* end_name_hash */
	h &= 0x7fffffffu;
	if (h < 2)
		h += 2;
	if (h >= INT_MAX)
		h = INT_MAX - 1;
	return h;
}
