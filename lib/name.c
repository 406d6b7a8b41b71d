// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <string.h>

#include "modrot.h"

/* Extensions a module file may carry; the longest ones first. */
static const char *const module_exts[] = { ".ko.zst", ".ko.xz", ".ko.gz", ".ko" };

int rot_name_normalise(const char *typed, char buf[ROT_NAME_MAX + 1])
{
	const char *start = strrchr(typed, '/');
	start = start ? start + 1 : typed;
	size_t len = strlen(start);

	for (size_t i = 0; i < sizeof(module_exts) / sizeof(module_exts[0]); i++) {
		size_t el = strlen(module_exts[i]);
		if (len >= el && strcmp(start + len - el, module_exts[i]) == 0) {
			len -= el;
			break;
		}
	}
	if (len == 0)
		return -EINVAL;
	if (len > ROT_NAME_MAX)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++)
		buf[i] = start[i] == '-' ? '_' : start[i];
	buf[len] = '\0';
	return 0;
}
