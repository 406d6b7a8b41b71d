/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the pieces of libsimkernel.so. A wrapper reaches the next
 * definition of its entry point (normally libc's) through NEXT(name),
 * resolved with dlsym(RTLD_NEXT) on first use.
 */
#ifndef SIMKERNEL_PRELOAD_H
#define SIMKERNEL_PRELOAD_H

#include <dlfcn.h>
#include <stddef.h>

#include "sim.h"

#define SK_EXPORT __attribute__((visibility("default")))

static inline void *sk_next(void **slot, const char *name)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}
#define NEXT(name) ((__typeof__(&name))sk_next(&next_##name, #name))
#define DECLARE_NEXT(name) static void *next_##name

const char *sk_dir(void);
int sk_nocap(void);
const struct sim_header *sk_header(void);

/* Where PATH is served from, in BUF; NULL when it passes through. *sysfs is
 * set for directories whose listing must come back in kernfs order. */
const char *sk_redirect(const char *path, char *buf, size_t len, int *sysfs);

/* sysdir.c */
void sk_sysdir_register(void *dir);

#endif
