// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

/* Linux 6.1 taint letters by bit (kernel/panic.c, taint_flags). */
static const char taint_letters[] = "PFSRMBUDAWCIOELKXTN";

int rot_taint_read(unsigned long *mask)
{
	char *buf;
	size_t len;
	int err = proc_read_whole("/proc/sys/kernel/tainted", &buf, &len);
	if (err < 0)
		return err;

	char *end;
	errno = 0;
	unsigned long v = strtoul(buf, &end, 10);
	bool bad = errno != 0 || end == buf || (*end != '\n' && *end != '\0');
	free(buf);
	if (bad)
		return -EPROTO;
	*mask = v;
	return 0;
}

int rot_taint_letters(unsigned long mask, char *buf, size_t len)
{
	size_t n = 0;

	if (mask == 0) {
		if (len < sizeof("none"))
			return -ENOSPC;
		memcpy(buf, "none", sizeof("none"));
		return 4;
	}
	for (size_t bit = 0; bit < sizeof(unsigned long) * 8; bit++) {
		if (!(mask & (1UL << bit)))
			continue;
		/* A bit newer than 6.1's table still shows, as '?'. */
		char c = bit < sizeof(taint_letters) - 1 ? taint_letters[bit] : '?';
		if (n + 1 >= len)
			return -ENOSPC;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return (int)n;
}
