/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DYNLIB_H
#define MODROT_DYNLIB_H
/*
 * The optional libraries (OpenSSL's libcrypto, libelf, libzstd and liblzma)
 * are opened on first use, not linked: docs/architecture.md ("libkmod and
 * the optional libraries") says why.
 *
 * Each lib/dl-NAME.h includes the library's own headers, then turns every
 * function this library calls into a call through a pointer (dl_FUNCTION)
 * that dl_NAME() fills the first time. Code calls dl_NAME() before the
 * library's first function on each path in: it returns 0, -ENOMEM, or
 * -ELIBACC with the reason kept for rot_library_error(). A function called
 * but missing from its header's list is an undefined symbol, which the
 * link of libmodrot.so (-z defs) refuses.
 */

/* The pointer each library header declares, and dynlib.c defines. */
#define DYNLIB_DECLARE(fn) extern __typeof__(fn) *dl_##fn;

int dl_crypto(void);
int dl_elf(void);
int dl_zstd(void);
int dl_lzma(void);

#endif
