/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DYNLIB_H
#define MODROT_DYNLIB_H
/*
 * The optional libraries (OpenSSL's libcrypto, libelf, libzstd and liblzma)
 * are opened on first use, not linked: lsmod, rmmod, modreap and
 * modrot-metrics read no module file and no signature, and need none of
 * them. libkmod is not among them: lib does not use it, and the tools that
 * do (insmod, modinfo, modprobe) link it, which brings libcrypto, libzstd
 * and liblzma already loaded.
 *
 * Each lib/dl-NAME.h includes the library's own headers, then turns every
 * function this library calls into a call through a pointer (dl_FUNCTION)
 * that dl_NAME() fills the first time. Code calls dl_NAME() before the
 * library's first function on each path in: it returns 0, -ENOMEM, or
 * -ELIBACC with the reason kept for rot_library_error(). A function called
 * but missing from its header's list is an undefined symbol, which the
 * link of libmodrot.so (-z defs) refuses.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

struct dynlib {
	const char *soname;
	const char *const *names; /* the functions, in the order of slots */
	void *const *slots;       /* each a pointer to its dl_FUNCTION */
	size_t count;
	pthread_mutex_t lock;
	atomic_int state; /* 0: not tried or out of memory, 1: open, -ELIBACC */
	char why[256];
};

int dynlib_open(struct dynlib *lib);

/* The pointer each library header declares, and dynlib.c defines. */
#define DYNLIB_DECLARE(fn) extern __typeof__(fn) *dl_##fn;

int dl_crypto(void);
int dl_elf(void);
int dl_zstd(void);
int dl_lzma(void);

#endif
