// SPDX-License-Identifier: GPL-2.0-or-later
/* libkmod opened on first use, for modinfo and modprobe (kmod-lazy.h). */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * libkmod 30 brings libcrypto, whose thousands of references to its own
 * functions are each looked up in order through the program's scope (the
 * program, a preload, libmodrot, libc, the loader), then through the scope
 * of the dlopen() that loaded it: five objects passed per reference, where
 * kmod's modprobe, which links it, passes four. Opened first and alone with
 * RTLD_DEEPBIND, its references look in its own scope first and find
 * themselves at once: modprobe -D of one of Debian's modules runs 3.15M
 * instructions instead of 4.23M (kmod 3.70M). libkmod then takes the copy
 * already loaded.
 *
 * Binding to itself first also binds its calls into libc to libc, past a
 * preload. What a preload must see still reaches it:
 * CRYPTO_set_mem_functions() sends every OPENSSL_malloc(), realloc and
 * free to the program's own malloc(), which a preload (the fault injector,
 * an allocator) replaces as before; libcrypto's direct calls to libc are
 * its configuration and directory reads (not made when it only decodes,
 * below), getrandom() through syscall() and uname(), none of which the
 * simulated kernel serves. A libcrypto already loaded (lib/dynlib.c's, for
 * a keyring) keeps how it was loaded, and its allocator. ASan refuses
 * RTLD_DEEPBIND (its allocator must see every call), so a sanitised build
 * opens libcrypto as before. Its SONAME is the one lib/dynlib.c opens; a
 * system whose libkmod has no libcrypto pays for one open that fails or a
 * library it need not have mapped, nothing else.
 *
 * A tool that verifies no signature has libkmod's libcrypto decode them
 * only (d2i_PKCS7_bio and the getters of what it holds): started here
 * without openssl.cnf, which configures providers no decoding uses, and
 * without the texts of its error codes, which neither libkmod nor lib
 * prints. Left to start itself at the first signature, it loaded both:
 * a quarter of a signed module's modinfo. A start that fails is out of
 * memory, and said so here: libcrypto remembers a failed start, and
 * every signature after would be shown as none, in silence.
 */
static bool crypto_decode_only;
static bool no_signatures;

void kmod_lazy_crypto_decode_only(void)
{
	crypto_decode_only = true;
}

/* OPENSSL_malloc() and its kin, to the program's allocator. */
static void *crypto_malloc(size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return malloc(n);
}

static void *crypto_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file, (void)line;
	return realloc(p, n);
}

static void crypto_free(void *p, const char *file, int line)
{
	(void)file, (void)line;
	free(p);
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define CRYPTO_BIND 0
#else
#define CRYPTO_BIND RTLD_DEEPBIND
#endif

static int crypto_first(void)
{
	void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL | CRYPTO_BIND);
	if (!h)
		return 0;
	/* Refused (returns 0) once libcrypto has allocated: then it was
	 * loaded before, and allocates as it was loaded to. */
	__typeof__(CRYPTO_set_mem_functions) *set_mem;
	void *fn = dlsym(h, "CRYPTO_set_mem_functions");
	if (fn) {
		memcpy(&set_mem, &fn, sizeof(set_mem));
		set_mem(crypto_malloc, crypto_realloc, crypto_free);
	}
	if (!crypto_decode_only)
		return 0;
	__typeof__(OPENSSL_init_crypto) *init;
	fn = dlsym(h, "OPENSSL_init_crypto");
	if (!fn)
		return 0;
	memcpy(&init, &fn, sizeof(init));
	return init(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL)
		       ? 0
		       : -ENOMEM;
}

/*
 * A run that reads no signature (kmod_lazy_no_signatures()) has libkmod
 * take tools/libcrypto-none.c for libcrypto.so.3: loaded first, by its
 * path, its SONAME is what libkmod's DT_NEEDED finds already loaded. It is
 * in modrot/ beside the libmodrot.so.1 this program runs with (the build
 * tree's or the installed one: the loader says which), never found
 * through a search path. NULL when there is none to take: that library
 * was not found by an absolute path, or the file is missing or will not
 * load (then libcrypto is loaded as ever).
 */
static void *crypto_none(void)
{
	/* The loader's own record of where libmodrot.so.1 came from: not
	 * dladdr() of one of its functions, which in a program built without
	 * PIE is the program's PLT entry, named by argv[0]. */
	void *self = dlopen("libmodrot.so.1", RTLD_LAZY | RTLD_NOLOAD);
	struct link_map *map = NULL;
	char path[PATH_MAX];
	bool found = self && dlinfo(self, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
		     map->l_name[0] == '/';
	static const char leaf[] = "modrot/libcrypto-none.so";
	size_t dir = found ? (size_t)(strrchr(map->l_name, '/') - map->l_name) + 1 : 0;
	if (found && dir + sizeof(leaf) <= sizeof(path)) {
		memcpy(path, map->l_name, dir);
		memcpy(path + dir, leaf, sizeof(leaf));
	} else {
		found = false;
	}
	if (self)
		dlclose(self);
	return found ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
}

void kmod_lazy_no_signatures(void)
{
	no_signatures = true;
}

/* Contexts are made by the main thread, before any job starts: no lock. */
int kmod_lazy_open(void)
{
	if (state)
		return state > 0 ? 0 : state;
	/* RTLD_NOW: a library without one of the functions fails here, once. */
	void *none = no_signatures ? crypto_none() : NULL;
	void *h = none ? dlopen(soname, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (none && !h) {
		/* A libkmod that needs more of libcrypto than the stand-in has
		 * (a newer one): without it, as if there were none. */
		dlclose(none);
		dlerror();
	}
	if (!h) {
		if (crypto_first() < 0)
			return -ENOMEM;
		h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	}
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
