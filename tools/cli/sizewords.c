// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sizewords.h"

static bool in_bytes;

void size_words_set_bytes(bool on)
{
	in_bytes = on;
}

const char *size_human(uint64_t bytes, char *buf)
{
	static const char letters[] = "BKMGTPE";
	unsigned shift = 0;
	/* the largest power of 1024 not above bytes */
	while (shift < 60 && bytes >> (shift + 10))
		shift += 10;
	uint64_t whole = bytes >> shift;
	uint64_t rest = shift ? bytes & ((UINT64_C(1) << shift) - 1) : 0;
	/* tenths, rounded half up from the thousandths, as lsblk rounds:
	 * the thousandths first (rest * 1000 / unit, without overflow) */
	uint64_t thousandths = rest >= UINT64_MAX / 1000
				       ? (rest >> 10) * 1000 / (UINT64_C(1) << (shift - 10))
				       : rest * 1000 / (UINT64_C(1) << shift);
	unsigned tenths = (unsigned)((thousandths + 50) / 100);
	if (tenths == 10) {
		whole++;
		tenths = 0;
	}
	char letter = letters[shift / 10];
	if (tenths)
		snprintf(buf, SIZE_WORDS_MAX, "%" PRIu64 ".%u%c", whole, tenths, letter);
	else
		snprintf(buf, SIZE_WORDS_MAX, "%" PRIu64 "%c", whole, letter);
	return buf;
}

const char *size_words(uint64_t bytes, const char *unit, char *buf)
{
	if (in_bytes) {
		snprintf(buf, SIZE_WORDS_MAX, "%" PRIu64 "%s%s", bytes, *unit ? " " : "", unit);
		return buf;
	}
	/* the unit's words but its last "bytes": the letter says it */
	size_t n = strlen(unit);
	if (n >= 5 && !strcmp(unit + n - 5, "bytes"))
		n -= 5;
	while (n && unit[n - 1] == ' ')
		n--;
	size_human(bytes, buf);
	size_t used = strlen(buf);
	if (n && used + 1 + n < SIZE_WORDS_MAX) {
		buf[used++] = ' ';
		memcpy(buf + used, unit, n);
		buf[used + n] = '\0';
	}
	return buf;
}
