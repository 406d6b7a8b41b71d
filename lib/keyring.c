// SPDX-License-Identifier: LGPL-2.1-or-later
/* Keyrings: the X.509 certificates module signatures are checked against. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "keyring-internal.h"
#include "modrot.h"

/* The default PEM callback asks for a password on the terminal when a
 * block says it is encrypted; a library must never prompt. */
static int refuse_password(char *buf, int size, int rwflag, void *u)
{
	return -1;
}

static int push_cert(STACK_OF(X509) *certs, X509 *x)
{
	if (sk_X509_push(certs, x) > 0)
		return 0;
	X509_free(x);
	return -ENOMEM;
}

/* Adds every certificate of a PEM text, or the one certificate of a DER
 * file; returns how many, or -ENOMEM. Anything else in the file (keys,
 * prose) is skipped, so a key+cert PEM bundle works as a keyring file. */
static int certs_from_buffer(STACK_OF(X509) *certs, const unsigned char *buf, size_t len)
{
	if (len > INT_MAX)
		return 0;
	ERR_clear_error();
	BIO *bio = BIO_new_mem_buf(buf, (int)len);
	if (!bio)
		return -ENOMEM;
	int n = 0, err = 0;
	X509 *x;
	while (!err && (x = PEM_read_bio_X509(bio, NULL, refuse_password, NULL))) {
		err = push_cert(certs, x);
		n++;
	}
	BIO_free_all(bio); /* a chain of one */
	if (err < 0)
		return err;
	/* The end of the text, or a certificate it could not finish reading. */
	if (openssl_out_of_memory())
		return -ENOMEM;
	if (n > 0)
		return n;

	const unsigned char *p = buf;
	x = d2i_X509(NULL, &p, (long)len);
	if (!x)
		return openssl_out_of_memory() ? -ENOMEM : 0;
	return push_cert(certs, x) < 0 ? -ENOMEM : 1;
}

static int certs_from_file(STACK_OF(X509) *certs, const char *path)
{
	char *buf;
	size_t len;
	int err = rot_file_read(path, ROT_KEYRING_FILE_MAX, &buf, &len);
	if (err < 0)
		return err;
	err = certs_from_buffer(certs, (const unsigned char *)buf, len);
	free(buf);
	return err;
}

/* Regular files only, in name order so that a keyring reads the same on
 * every run; a file that vanishes while we look is simply not there. */
static int certs_from_dir(STACK_OF(X509) *certs, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;

	int err = 0;
	for (int i = 0; i < n; i++) {
		char *path = NULL;
		struct stat st;
		if (!err && asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0) {
			path = NULL;
			err = -ENOMEM;
		}
		/* What is not a regular file (now) is skipped, never waited on. */
		if (!err && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			int r = certs_from_file(certs, path);
			if (r < 0 && r != -ENOENT && r != -EINVAL)
				err = r;
		}
		free(path);
		free(names[i]);
	}
	free(names);
	return err;
}

/* OpenSSL sets its algorithms up on first use, and one that runs out of
 * memory there fails as "unsupported", "decode error" or "digest not
 * allowed", which would call a good signature bad. So what verifying
 * against these certificates needs is set up here, once, where a standard
 * algorithm that cannot be fetched can only mean no memory. */
static int warm_up(STACK_OF(X509) *certs)
{
	static const char *const digests[] = { "SHA1", "SHA224", "SHA256", "SHA384", "SHA512" };
	for (size_t i = 0; i < sizeof(digests) / sizeof(digests[0]); i++) {
		EVP_MD *md = EVP_MD_fetch(NULL, digests[i], NULL);
		if (!md)
			return -ENOMEM;
		EVP_MD_free(md);
	}
	for (int i = 0; i < sk_X509_num(certs); i++) {
		ERR_clear_error();
		EVP_PKEY *key = X509_get0_pubkey(sk_X509_value(certs, i));
		if (!key) {
			/* A key type OpenSSL does not know verifies nothing anyway. */
			if (openssl_out_of_memory())
				return -ENOMEM;
			continue;
		}
		EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
		if (!ctx)
			return -ENOMEM;
		int ok = EVP_PKEY_verify_init(ctx);
		EVP_PKEY_CTX_free(ctx);
		if (ok <= 0 && openssl_out_of_memory())
			return -ENOMEM;
	}
	ERR_clear_error();
	return 0;
}

int rot_keyring_load(const char *path, struct rot_keyring **out)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	int err = dl_crypto();
	if (err < 0)
		return err;

	struct rot_keyring *kr = calloc(1, sizeof(*kr));
	if (!kr || !(kr->certs = sk_X509_new_null())) {
		free(kr);
		return -ENOMEM;
	}

	err = S_ISDIR(st.st_mode) ? certs_from_dir(kr->certs, path)
				  : certs_from_file(kr->certs, path);
	/* Every file that is not a certificate, and the end of every PEM
	 * text, leaves an OpenSSL error behind: expected, so dropped. */
	ERR_clear_error();
	if (err >= 0 && sk_X509_num(kr->certs) == 0)
		err = -ENOKEY;
	if (err >= 0)
		err = warm_up(kr->certs);
	if (err < 0) {
		rot_keyring_free(kr);
		return err;
	}
	*out = kr;
	return 0;
}

void rot_keyring_free(struct rot_keyring *kr)
{
	if (!kr)
		return;
	sk_X509_pop_free(kr->certs, X509_free);
	free(kr);
}

size_t keyring_count(const struct rot_keyring *kr)
{
	return kr ? (size_t)sk_X509_num(kr->certs) : 0;
}
