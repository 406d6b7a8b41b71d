// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * /proc/module_pins (rot-abi.md revision 4, C5): one line per module of
 * /proc/modules, in its order, `NAME PINS SAFE`, where PINS is the live
 * module's outstanding pins and SAFE is `safe` for a module that declared
 * MODULE_ROT_SAFE() (C4), `-` otherwise. Its presence is what tells a
 * revision-4 kernel (D5). Read whole, once, with the snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One line, split in place; -EBADMSG for anything but the kernel's form. */
static int pins_line(char *line, const char **name, uint32_t *pins, bool *safe)
{
	char *save = NULL;
	char *n = strtok_r(line, " ", &save);
	char *p = n ? strtok_r(NULL, " ", &save) : NULL;
	char *s = p ? strtok_r(NULL, " ", &save) : NULL;
	uint64_t v;
	if (!s || strtok_r(NULL, " ", &save) || !valid_name(n, strlen(n)) ||
	    parse_u64(p, 10, &v) < 0 || v > UINT32_MAX)
		return -EBADMSG;
	if (strcmp(s, "safe") && strcmp(s, "-"))
		return -EBADMSG;
	*name = n;
	*pins = (uint32_t)v;
	*safe = !strcmp(s, "safe");
	return 0;
}

int pins_parse(char *buf, size_t len, pins_fn fn, void *arg)
{
	char *end = buf + len;
	for (char *line = buf; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			return -EBADMSG; /* a file cut short: every line ends */
		*nl = '\0';
		const char *name;
		uint32_t pins;
		bool safe;
		int err = pins_line(line, &name, &pins, &safe);
		if (err < 0)
			return err;
		err = fn(arg, name, pins, safe);
		if (err < 0)
			return err;
		line = nl + 1;
	}
	return 0;
}
