/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inside of a keyring, shared by keyring.c (which fills it) and
 * modsig.c (which verifies against it); modrot.h keeps it opaque so that
 * tools need no OpenSSL headers.
 */
#ifndef MODROT_KEYRING_INTERNAL_H
#define MODROT_KEYRING_INTERNAL_H

#include "dl-crypto.h"

struct rot_keyring {
	STACK_OF(X509) *certs;
};

#endif
