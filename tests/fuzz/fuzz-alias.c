// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Alias patterns against device modaliases, as insmod --match-devices
 * matches them. The input's first line is the pattern, each further line
 * a present device's modalias.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	const char *nl = memchr(p, '\n', size);
	char *pattern = strndup(p, nl ? (size_t)(nl - p) : size);
	struct rot_devices *devs = devices_new();
	if (!pattern || !devs)
		abort();
	for (p = nl ? nl + 1 : end; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
		if (devices_add_modalias(devs, p, len) < 0)
			abort();
		p += len + 1;
	}
	bool any = rot_devices_match(devs, pattern);
	/* A pattern without wildcards or escapes matches exactly itself. */
	if (!strpbrk(pattern, "*?[\\") && any) {
		bool equal = false;
		for (p = nl ? nl + 1 : end; p < end && !equal;) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
			equal = strnlen(p, len) == strlen(pattern) && strncmp(p, pattern, len) == 0;
			p += len + 1;
		}
		if (!equal)
			abort();
	}
	rot_devices_free(devs);
	free(pattern);
	return 0;
}
