// SPDX-License-Identifier: LGPL-2.1-or-later
/* The optional libraries, opened on first use (dynlib.h says why). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dl-crypto.h"
#include "dl-elf.h"
#include "dl-lzma.h"
#include "dl-zstd.h"
#include "modrot.h"

struct dynlib {
	const char *soname;
	const char *const *names; /* the functions, in the order of slots; NULL ends them */
	void *const *slots;       /* each a pointer to its dl_FUNCTION */
	pthread_mutex_t lock;
	atomic_int state; /* 0: not tried or out of memory, 1: open, -ELIBACC */
	char why[256];
};

/* The library whose opening failed last: rot_library_error()'s answer. */
static _Atomic(const char *) last_failure;

/* Only memory was short: worth another try, and told as -ENOMEM. glibc's
 * loader says so in words, often without errno's text: "cannot allocate",
 * "cannot create" (each of those is an allocation), "out of memory". */
static bool short_of_memory(const char *why)
{
	return why && (strstr(why, "allocate") || strstr(why, "cannot create ") ||
		       strstr(why, "out of memory"));
}

static int open_locked(struct dynlib *lib)
{
	/* RTLD_NOW: a library that lacks a function fails here, once, and not
	 * in the middle of a call. Never closed: the pointers stay valid. */
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	const char *why = h ? NULL : dlerror();
	size_t i;
	for (i = 0; h && lib->names[i]; i++) {
		void *fn = dlsym(h, lib->names[i]);
		if (!fn) {
			why = dlerror();
			break;
		}
		memcpy(lib->slots[i], &fn, sizeof(fn));
	}
	if (h && !lib->names[i])
		return 1;
	if (short_of_memory(why))
		return 0;
	/* dlerror() starts with the file's name when it has one. */
	size_t sl = strlen(lib->soname);
	if (why && strncmp(why, lib->soname, sl) == 0 && strncmp(why + sl, ": ", 2) == 0)
		why += sl + 2;
	snprintf(lib->why, sizeof(lib->why), "%s could not be loaded: %s", lib->soname,
		 why ? why : "unknown reason");
	return -ELIBACC;
}

static int dynlib_open(struct dynlib *lib)
{
	int state = atomic_load_explicit(&lib->state, memory_order_acquire);
	if (state == 0) {
		pthread_mutex_lock(&lib->lock);
		state = atomic_load_explicit(&lib->state, memory_order_relaxed);
		if (state == 0) {
			state = open_locked(lib);
			atomic_store_explicit(&lib->state, state, memory_order_release);
		}
		pthread_mutex_unlock(&lib->lock);
	}
	if (state < 0)
		atomic_store(&last_failure, lib->why);
	return state == 1 ? 0 : state == 0 ? -ENOMEM : state;
}

const char *rot_library_error(void)
{
	return atomic_load(&last_failure);
}

/* Each library's pointers, names and loader. The SONAMEs are those of the
 * versions configure asks for (libcrypto >= 3.0). */
#define DYNLIB_DEFINE(fn) __typeof__(dl_##fn) dl_##fn;
#define DYNLIB_NAME(fn) #fn,
#define DYNLIB_SLOT(fn) &dl_##fn,
#define DYNLIB(name, soname_, FUNCTIONS)                                           \
	FUNCTIONS(DYNLIB_DEFINE)                                                   \
	static const char *const name##_names[] = { FUNCTIONS(DYNLIB_NAME) NULL }; \
	static void *const name##_slots[] = { FUNCTIONS(DYNLIB_SLOT) };            \
	static struct dynlib name##_lib = {                                        \
		.soname = soname_,                                                 \
		.names = name##_names,                                             \
		.slots = name##_slots,                                             \
		.lock = PTHREAD_MUTEX_INITIALIZER,                                 \
	};                                                                         \
	int dl_##name(void)                                                        \
	{                                                                          \
		return dynlib_open(&name##_lib);                                   \
	}

DYNLIB(crypto, "libcrypto.so.3", DL_CRYPTO_FUNCTIONS)
DYNLIB(elf, "libelf.so.1", DL_ELF_FUNCTIONS)
DYNLIB(zstd, "libzstd.so.1", DL_ZSTD_FUNCTIONS)
DYNLIB(lzma, "liblzma.so.5", DL_LZMA_FUNCTIONS)
