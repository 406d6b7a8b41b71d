/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The words for a module signature that failed to verify, shared by
 * insmod --verify and modinfo --verify so both say the same thing.
 */
#ifndef MODROT_SIGWORDS_H
#define MODROT_SIGWORDS_H

#include <stddef.h>

#include "modrot.h"

/* Why sig (NULL: nothing readable) is not a valid signature, in words;
 * keyring_path names the keyring it was checked against. */
void sig_describe_failure(const struct rot_sig_info *sig, const char *keyring_path, char *buf,
			  size_t len);

/* A short fixed word for the verdict ("valid", "unsigned", "unknown key",
 * ...), for a field or a JSON member. */
const char *sig_status_word(enum rot_sig_status status);

#endif
