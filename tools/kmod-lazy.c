// SPDX-License-Identifier: GPL-2.0-or-later
/* libkmod opened on first use, for modinfo and modprobe (kmod-lazy.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kmod-lazy.h"

#define KMOD_LAZY_DEFINE(fn) __typeof__(fn) *lazy_##fn;
KMOD_LAZY_FUNCTIONS(KMOD_LAZY_DEFINE)

#define KMOD_LAZY_NAME(fn) #fn,
#define KMOD_LAZY_SLOT(fn) (void *)&lazy_##fn,
static const char *const names[] = { KMOD_LAZY_FUNCTIONS(KMOD_LAZY_NAME) };
static void *const slots[] = { KMOD_LAZY_FUNCTIONS(KMOD_LAZY_SLOT) };

static const char soname[] = "libkmod.so.2";
static int state; /* 0: not tried, 1: open, -ELIBACC */
static char why[256];

/* Contexts are made by the main thread, before any job starts: no lock. */
int kmod_lazy_open(void)
{
	if (state)
		return state > 0 ? 0 : state;
	/* RTLD_NOW: a library without one of the functions fails here, once. */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *err = h ? NULL : dlerror();
	size_t i;
	for (i = 0; h && i < sizeof(names) / sizeof(names[0]); i++) {
		void *fn = dlsym(h, names[i]);
		if (!fn) {
			err = dlerror();
			break;
		}
		memcpy(slots[i], &fn, sizeof(fn));
	}
	if (h && i == sizeof(names) / sizeof(names[0]))
		return state = 1, 0;
	/* The loader short of memory says so in words, rarely with errno's
	 * text (lib/dynlib.c's rule): out of memory, and tried again next
	 * time rather than remembered as a missing library. */
	if (err && (strstr(err, "allocate") || strstr(err, "cannot create ") ||
		    strstr(err, "out of memory")))
		return -ENOMEM;
	/* dlerror() starts with the file's name when it has one. */
	size_t n = strlen(soname);
	if (err && strncmp(err, soname, n) == 0 && strncmp(err + n, ": ", 2) == 0)
		err += n + 2;
	snprintf(why, sizeof(why), "%s could not be loaded: %s", soname,
		 err ? err : "unknown reason");
	return state = -ELIBACC;
}

const char *kmod_lazy_error(void)
{
	return why;
}
