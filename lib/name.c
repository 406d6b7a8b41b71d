// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "modrot.h"

/* Extensions a module file may carry; the longest ones first. */
static const char *const module_exts[] = { ".ko.zst", ".ko.xz", ".ko.gz", ".ko" };

static size_t module_ext_len(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(module_exts) / sizeof(module_exts[0]); i++) {
		size_t el = strlen(module_exts[i]);
		if (len >= el && strcmp(s + len - el, module_exts[i]) == 0)
			return el;
	}
	return 0;
}

/* A byte a module name may hold: printable ASCII but for the blank, which
 * separates fields in /proc/modules, and '/', which separates path parts. */
static bool name_byte(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '/';
}

int rot_name_normalise(const char *typed, char buf[ROT_NAME_MAX + 1])
{
	size_t typed_len = strlen(typed);
	const char *slash = strrchr(typed, '/');
	const char *start = slash ? slash + 1 : typed;
	size_t len = strlen(start);
	size_t ext = module_ext_len(start, len);

	/* With a '/', the argument must be a module file's path: "a/b" or
	 * "../.." name nothing, and must never reach a /sys/module/ path. */
	if (slash && !ext)
		return -EINVAL;
	for (size_t i = 0; i < typed_len; i++)
		if ((unsigned char)typed[i] < ' ' || (unsigned char)typed[i] == 0x7f)
			return -EINVAL;
	len -= ext;
	if (len == 0)
		return -EINVAL;
	if (len > ROT_NAME_MAX)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < len; i++)
		if (!name_byte((unsigned char)start[i]))
			return -EINVAL;
	if ((len == 1 && start[0] == '.') || (len == 2 && start[0] == '.' && start[1] == '.'))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		buf[i] = start[i] == '-' ? '_' : start[i];
	buf[len] = '\0';
	return 0;
}

int rot_alias_check(const char *typed)
{
	return strnlen(typed, ROT_ALIAS_MAX + 1) > ROT_ALIAS_MAX ? -ENAMETOOLONG : 0;
}
