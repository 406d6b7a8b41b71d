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
	static const char file[] = "/proc/sys/kernel/tainted";
	char *buf;
	size_t len;
	parse_error_clear();
	int err = proc_read_whole(file, &buf, &len);
	if (err < 0)
		return err;

	/* The kernel prints "%lu\n": digits only (strtoul would take a sign,
	 * blanks and a negative number wrapped around). */
	const char *reason = NULL;
	unsigned long v = 0;
	size_t i = 0;
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++)
		if (__builtin_mul_overflow(v, 10ul, &v) ||
		    __builtin_add_overflow(v, (unsigned long)(buf[i] - '0'), &v)) {
			reason = "the taint mask does not fit an unsigned long";
			break;
		}
	if (!reason && i == 0)
		reason = "the taint mask is not a decimal number";
	else if (!reason && !(i == len || (buf[i] == '\n' && i + 1 == len)))
		reason = "more than one decimal number";
	free(buf);
	if (reason)
		return parse_failed(-EPROTO, file, 1, reason);
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
