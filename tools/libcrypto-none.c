// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libcrypto-none.so: what libkmod needs of libcrypto.so.3 to be loaded
 * (kmod 30, Debian 12; kmod 34, Debian 13, adds OBJ_obj2txt),
 * for a modprobe run that reads no signature (tools/kmod-lazy.c).
 *
 * libkmod links libcrypto only to decode the PKCS#7 signature of a module
 * for kmod_module_get_info(). Loading it costs most of a one-module
 * modprobe run: 4.7 MB mapped, thousands of relocations written into its
 * 400 KB of relocated data. A run that only resolves, shows or unloads
 * never asks libkmod for a signature, so this object, loaded first under
 * the name libcrypto.so.3, answers libkmod's references instead: the
 * loader matches libkmod's DT_NEEDED by the SONAME already loaded.
 *
 * Every function fails as OpenSSL fails, with nothing allocated, so that
 * a call (none is made) would show a signature as one libkmod cannot
 * decode rather than crash. tests/modprobe-crypto.bats checks that this
 * list holds every libcrypto function the system's libkmod imports; a
 * libkmod that imports one more fails to load beside it, and
 * kmod_lazy_open() loads the real libcrypto instead.
 */
#include <stddef.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/pkcs7.h>
#include <openssl/stack.h>
#include <openssl/x509.h>

BIGNUM *ASN1_INTEGER_to_BN(const ASN1_INTEGER *ai, BIGNUM *bn)
{
	return NULL;
}

const unsigned char *ASN1_STRING_get0_data(const ASN1_STRING *x)
{
	return NULL;
}

int ASN1_STRING_length(const ASN1_STRING *x)
{
	return 0;
}

int BIO_free(BIO *a)
{
	return 0;
}

BIO *BIO_new_mem_buf(const void *buf, int len)
{
	return NULL;
}

int BN_bn2bin(const BIGNUM *a, unsigned char *to)
{
	return 0;
}

void BN_free(BIGNUM *a)
{
}

int BN_num_bits(const BIGNUM *a)
{
	return 0;
}

int OBJ_obj2nid(const ASN1_OBJECT *o)
{
	return NID_undef;
}

int OBJ_obj2txt(char *buf, int buf_len, const ASN1_OBJECT *a, int no_name)
{
	if (buf && buf_len > 0)
		buf[0] = '\0';
	return -1;
}

void *OPENSSL_sk_value(const OPENSSL_STACK *st, int i)
{
	return NULL;
}

void PKCS7_SIGNER_INFO_get0_algs(PKCS7_SIGNER_INFO *si, EVP_PKEY **pk, X509_ALGOR **pdig,
				 X509_ALGOR **psig)
{
	if (pk)
		*pk = NULL;
	if (pdig)
		*pdig = NULL;
	if (psig)
		*psig = NULL;
}

void PKCS7_free(PKCS7 *a)
{
}

STACK_OF(PKCS7_SIGNER_INFO) *PKCS7_get_signer_info(PKCS7 *p7)
{
	return NULL;
}

void X509_ALGOR_get0(const ASN1_OBJECT **paobj, int *pptype, const void **ppval,
		     const X509_ALGOR *algor)
{
	if (paobj)
		*paobj = NULL;
	if (pptype)
		*pptype = V_ASN1_UNDEF;
	if (ppval)
		*ppval = NULL;
}

ASN1_STRING *X509_NAME_ENTRY_get_data(const X509_NAME_ENTRY *ne)
{
	return NULL;
}

ASN1_OBJECT *X509_NAME_ENTRY_get_object(const X509_NAME_ENTRY *ne)
{
	return NULL;
}

int X509_NAME_entry_count(const X509_NAME *name)
{
	return 0;
}

X509_NAME_ENTRY *X509_NAME_get_entry(const X509_NAME *name, int loc)
{
	return NULL;
}

PKCS7 *d2i_PKCS7_bio(BIO *bp, PKCS7 **p7)
{
	return NULL;
}
