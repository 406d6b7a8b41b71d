/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keyring of --verify and the words for a module signature that
 * failed to verify, shared by insmod and modinfo so both say the same
 * thing.
 */
#ifndef MODROT_SIGWORDS_H
#define MODROT_SIGWORDS_H

#include <stddef.h>

#include "cli-exit.h"
#include "modrot.h"

/* Loads the keyring at path into *out, or says why not: a usage error
 * (exits 2) for a file that is not a keyring, else the exit code (CLI_EXIT_PERM,
 * CLI_EXIT_PARTIAL for no memory, no_crypto when libcrypto cannot be
 * opened; CLI_EXIT_USAGE there makes that a usage error too). */
enum cli_exit sig_keyring_load(const char *path, struct rot_keyring **out, enum cli_exit no_crypto);

/* Why sig (NULL: nothing readable) is not a valid signature, in words;
 * keyring_path names the keyring it was checked against. */
void sig_describe_failure(const struct rot_sig_info *sig, const char *keyring_path, char *buf,
			  size_t len);

/* A short fixed word for the verdict ("valid", "unsigned", "unknown key",
 * ...), for a field or a JSON member. */
const char *sig_status_word(enum rot_sig_status status);

#endif
