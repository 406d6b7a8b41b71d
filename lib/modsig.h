/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module signatures as the kernel's sign-file appends them: a detached
 * PKCS#7 (CMS) signature over the uncompressed module, then a struct
 * module_signature, then the magic "~Module signature appended~\n".
 * Verification uses OpenSSL against a keyring of X.509 certificates.
 */
#ifndef MODROT_MODSIG_H
#define MODROT_MODSIG_H

#include <stddef.h>
#include <stdint.h>

#define ROT_MODSIG_MAGIC "~Module signature appended~\n"

struct rot_keyring;

/*
 * Loads every X.509 certificate (PEM or DER) from a file, or from the
 * regular files of a directory. -ENOENT: no such path; -ENOKEY: nothing in
 * it parsed as a certificate; other negative errno values from reading.
 */
int rot_keyring_load(const char *path, struct rot_keyring **out);
void rot_keyring_free(struct rot_keyring *kr);
size_t rot_keyring_count(const struct rot_keyring *kr);

enum rot_sig_status {
	ROT_SIG_VALID,       /* verified against a certificate of the keyring */
	ROT_SIG_UNSIGNED,    /* no signature trailer */
	ROT_SIG_MALFORMED,   /* trailer present, but its struct, lengths or PKCS#7 data are wrong */
	ROT_SIG_UNSUPPORTED, /* a signature type other than PKCS#7 */
	ROT_SIG_UNKNOWN_KEY, /* signed by a key that is not in the keyring */
	ROT_SIG_BAD,         /* signed by a keyring key, but the module does not match */
	ROT_SIG_UNCHECKED,   /* signed by a keyring key, but OpenSSL failed before it could
			      * compare (a key or digest it could not set up) */
};

struct rot_sig_info {
	enum rot_sig_status status;
	size_t content_len;  /* bytes the signature covers: the image without the trailer */
	char signer[256];    /* signer's subject CN (or its issuer's, when the key is unknown); "" if none */
	char key_id[128];    /* hex subject key identifier of the signing certificate, or
			      * "serial " + hex serial when the key is unknown; "" if none */
	char detail[256];    /* OpenSSL's reason for MALFORMED, BAD or UNCHECKED; "" otherwise */
};

/*
 * Finds the signature trailer of an uncompressed module image. Fills
 * info->status (VALID here only means "a well-formed PKCS#7 trailer is
 * present"; nothing is verified), info->content_len and, when signed, the
 * signer and key id the signature names. Never fails on bad data: the
 * status says what is wrong. Returns 0, or -ENOMEM.
 */
int rot_modsig_inspect(const void *image, size_t len, struct rot_sig_info *info);

/* Inspects, then verifies the signature against the keyring. Returns 0 or -ENOMEM;
 * the verdict is info->status. */
int rot_modsig_verify(const struct rot_keyring *kr, const void *image, size_t len,
		      struct rot_sig_info *info);

#endif
