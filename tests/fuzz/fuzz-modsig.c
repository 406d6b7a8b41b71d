// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The signature trailer and its PKCS#7 data: inspected, then verified
 * against a keyring of one certificate (tests/fuzz/keyring.pem).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modrot.h"

#ifndef FUZZ_KEYRING
#define FUZZ_KEYRING "tests/fuzz/keyring.pem"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rot_keyring *keyring;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!keyring && rot_keyring_load(FUZZ_KEYRING, &keyring) < 0)
		abort();
	struct rot_sig_info info;
	memset(&info, 0xa5, sizeof(info));
	if (rot_modsig_inspect(data, size, &info) == 0) {
		if (info.content_len > size || !memchr(info.signer, 0, sizeof(info.signer)) ||
		    !memchr(info.key_id, 0, sizeof(info.key_id)) ||
		    !memchr(info.detail, 0, sizeof(info.detail)))
			abort();
	}
	memset(&info, 0x5a, sizeof(info));
	if (rot_modsig_verify(keyring, data, size, &info) == 0) {
		if (info.content_len > size || !memchr(info.signer, 0, sizeof(info.signer)) ||
		    !memchr(info.detail, 0, sizeof(info.detail)))
			abort();
	}
	return 0;
}
