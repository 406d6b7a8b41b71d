// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsimkernel.so: the constructor and the process-wide view of the
 * simulated kernel. The constructor only installs the guard: it must stay
 * cheap, because benchmarks start thousands of processes under this
 * library; everything else is looked up on first use.
 */
#include <stdlib.h>
#include <string.h>

#include "preload.h"

__attribute__((constructor)) static void sk_init(void)
{
	/* A failure leaves the process unguarded; the module wrappers still
	 * never reach the kernel, so carry on rather than break the program. */
	sim_guard_install();
}

static const char *g_dir;
static int g_dir_known;

const char *sk_dir(void)
{
	if (!__atomic_load_n(&g_dir_known, __ATOMIC_ACQUIRE)) {
		const char *d = getenv("SIMKERNEL_DIR");
		char *copy = d && *d ? strdup(d) : NULL;
		const char *expected = NULL;
		if (!__atomic_compare_exchange_n(&g_dir, &expected, copy, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			free(copy);
		__atomic_store_n(&g_dir_known, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&g_dir, __ATOMIC_ACQUIRE);
}

int sk_nocap(void)
{
	const char *v = getenv("SIMKERNEL_NOCAP");
	return v && *v && strcmp(v, "0");
}

static const struct sim_header *g_hdr;

const struct sim_header *sk_header(void)
{
	const struct sim_header *h = __atomic_load_n(&g_hdr, __ATOMIC_ACQUIRE);
	if (h)
		return h;
	const char *dir = sk_dir();
	if (!dir || sim_header_map(dir, &h) < 0)
		return NULL;
	const struct sim_header *expected = NULL;
	if (!__atomic_compare_exchange_n(&g_hdr, &expected, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return expected; /* another thread won; its mapping serves */
	return h;
}
