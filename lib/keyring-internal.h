/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inside of a keyring, shared by keyring.c (which fills it) and
 * modsig.c (which verifies against it); modrot.h keeps it opaque so that
 * tools need no OpenSSL headers.
 */
#ifndef MODROT_KEYRING_INTERNAL_H
#define MODROT_KEYRING_INTERNAL_H

#include <stdbool.h>

#include "dl-crypto.h"

struct rot_keyring {
	STACK_OF(X509) *certs;
};

/* Whether the OpenSSL call that just failed ran out of memory (modsig.c
 * says how it tells); empties OpenSSL's error queue. */
bool openssl_out_of_memory(void);

#endif
