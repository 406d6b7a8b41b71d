// SPDX-License-Identifier: LGPL-2.1-or-later
/* kernfs_name_hash() of Linux 6.1 (fs/kernfs/dir.c, include/linux/
 * stringhash.h, include/linux/hash.h), shared as source with the simulated
 * kernel (kernfs-hash.h). */
#include <stdio.h>

#include "kernfs-hash.h"

uint32_t kernfs_name_hash(const char *name, bool char_signed)
{
	unsigned long hash = 0; /* init_name_hash(NULL namespace) */

	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		unsigned long ch = char_signed ? (unsigned long)(long)(signed char)*c : *c;
		hash = kernfs_hash_step(hash, ch);
	}
	return kernfs_hash_end(hash);
}

bool kernfs_char_signed(const char *release)
{
	unsigned major = 0, minor = 0;
	bool abi_signed = (char)-1 < 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return abi_signed;
	return abi_signed && (major < 6 || (major == 6 && minor < 2));
}
