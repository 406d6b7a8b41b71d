/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A few TAP helpers for the C unit tests; automake's TAP driver reads them. */
#ifndef MODROT_TAP_H
#define MODROT_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed;

#include <stdarg.h>

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	return pass;
}

static inline void tap_is_str(const char *got, const char *want, const char *file, int line,
			      const char *what)
{
	if (!tap_ok(got && strcmp(got, want) == 0, file, line, "%s", what))
		printf("#   got '%s', want '%s'\n", got ? got : "(null)", want);
}

static inline void tap_is_int(intmax_t got, intmax_t want, const char *file, int line,
			      const char *what)
{
	if (!tap_ok(got == want, file, line, "%s", what))
		printf("#   got %jd, want %jd\n", got, want);
}

#define is_str(got, want, what) tap_is_str((got), (want), __FILE__, __LINE__, (what))
#define is_int(got, want, what) tap_is_int((intmax_t)(got), (intmax_t)(want), __FILE__, __LINE__, (what))

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

/* A built fixture's bytes (at most 1 MiB), NULL when it cannot be read:
 * the unit tests that take a module image apart start from one. */
static inline unsigned char *tap_fixture(const char *name, size_t *len)
{
	const char *top = getenv("top_builddir");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fixtures/out/%s", top ? top : ".", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = malloc(1 << 20);
	*len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

#endif
