// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The signature trailer and its PKCS#7 data: inspected, then verified
 * against a keyring of one certificate (tests/fuzz/keyring.pem).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

#ifndef FUZZ_KEYRING
#define FUZZ_KEYRING "tests/fuzz/keyring.pem"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rot_keyring *keyring;

/* Whatever the bytes, the verdict is a known one over no more than them,
 * and every string is terminated (ASan reads each to its end). */
static void sane(const struct rot_sig_info *info, size_t size)
{
	if (info->content_len > size || rot_sig_info_status(info) > ROT_SIG_UNCHECKED)
		abort();
	volatile size_t n = strlen(rot_sig_info_signer(info)) + strlen(rot_sig_info_key_id(info)) +
			    strlen(rot_sig_info_detail(info));
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!keyring && rot_keyring_load(FUZZ_KEYRING, &keyring) < 0)
		abort();
	struct rot_sig_info *info;
	if (modsig_inspect(data, size, &info) == 0) {
		sane(info, size);
		rot_sig_info_free(info);
	}
	if (rot_modsig_verify(keyring, data, size, &info) == 0) {
		sane(info, size);
		rot_sig_info_free(info);
	}
	return 0;
}
