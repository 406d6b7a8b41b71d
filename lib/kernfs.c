// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sysfs lists a directory in kernfs order: by a hash of each name. kmod's
 * lsmod prints holders in that order, so a tool that takes holders from
 * /proc/modules sorts them by this hash to print the same line.
 */
#include <stdbool.h>
#include <sys/utsname.h>

#include "kernfs-hash.h"
#include "modrot.h"

/* The running kernel's char, read once: 1 signed, 2 unsigned, 0 not yet
 * known. Two threads that both look it up store the same answer. */
static int running_char;

uint32_t kernfs_hash(const char *name)
{
	int known = __atomic_load_n(&running_char, __ATOMIC_RELAXED);
	if (!known) {
		struct utsname u;
		bool sgn = uname(&u) == 0 ? kernfs_char_signed(u.release) : (char)-1 < 0;
		known = sgn ? 1 : 2;
		__atomic_store_n(&running_char, known, __ATOMIC_RELAXED);
	}
	return kernfs_name_hash(name, known == 1);
}
