// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The module signature trailer as scripts/sign-file.c appends it and the
 * kernel's mod_check_sig() reads it, and its verification against a
 * keyring. Every length in the trailer comes from the file, so each is
 * checked against the image before anything is read through it.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl-crypto.h"
#include "internal.h"
#include "keyring-internal.h"
#include "modrot.h"

/* struct module_signature (include/linux/module_signature.h), as bytes:
 * the image gives no alignment, and sig_len is big-endian on every arch. */
struct sig_trailer {
	uint8_t algo; /* 0 for PKCS#7: the message says it */
	uint8_t hash; /* 0 for PKCS#7 */
	uint8_t id_type;
	uint8_t signer_len; /* 0 for PKCS#7 */
	uint8_t key_id_len; /* 0 for PKCS#7 */
	uint8_t pad[3];
	uint8_t sig_len[4];
};

#define PKEY_ID_PKCS7 2
#define MAGIC_LEN (sizeof(ROT_MODSIG_MAGIC) - 1)

/* CMS_verify() would otherwise also try to build a chain to a CA and use
 * certificates the message carries: a module is trusted when its signer is
 * in the keyring, as with the kernel's builtin keys, and for no other reason. */
#define VERIFY_FLAGS (CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY | CMS_NOINTERN | CMS_DETACHED)

static void copy_hex(char *dst, size_t cap, const char *prefix, const ASN1_STRING *s)
{
	const unsigned char *p = ASN1_STRING_get0_data(s);
	size_t n = (size_t)ASN1_STRING_length(s), used = (size_t)snprintf(dst, cap, "%s", prefix);
	for (size_t i = 0; i < n && used + 2 < cap; i++, used += 2)
		snprintf(dst + used, cap - used, "%02x", p[i]);
}

/* Names come from hostile files: they are kept as they are (the tools
 * escape what reaches a terminal, in one place), and truncation never
 * splits a UTF-8 sequence. A NUL inside ends the name. */
static void copy_cn(char *dst, size_t cap, const X509_NAME *name)
{
	dst[0] = '\0';
	int i = name ? X509_NAME_get_index_by_NID(name, NID_commonName, -1) : -1;
	if (i < 0)
		return;
	const ASN1_STRING *cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
	unsigned char *utf8;
	int len = ASN1_STRING_to_UTF8(&utf8, cn);
	if (len < 0)
		return;
	size_t n = (size_t)len;
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && (utf8[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, utf8, n);
	dst[n] = '\0';
	OPENSSL_free(utf8);
}

/* The magnitude bytes of an INTEGER are the hex `openssl x509 -serial` prints. */
static void copy_serial(char *dst, size_t cap, const ASN1_INTEGER *serial)
{
	const char *prefix = ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER ? "serial -" : "serial ";
	if (ASN1_STRING_length(serial) <= 0)
		snprintf(dst, cap, "serial 0");
	else
		copy_hex(dst, cap, prefix, serial);
}

/* Whether a call that just failed ran out of memory: OpenSSL puts
 * ERR_R_MALLOC_FAILURE in its queue, or leaves no error at all when the
 * queue could not grow or the allocation was in its lazy start-up (a
 * parser or verifier refusing its input always says why). Empties the
 * queue: take the reason first. */
bool openssl_out_of_memory(void)
{
	bool oom = ERR_peek_error() == 0;
	for (unsigned long e; (e = ERR_get_error());)
		oom |= ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE;
	return oom;
}

/*
 * Whether CMS_verify() failed because it compared and found a difference,
 * rather than before it could compare. A difference is reported first by
 * the signature's algorithm ("bad signature", a padding check) or, for a
 * changed module under signed attributes, by CMS ("verification failure",
 * "content verify error"). OpenSSL 3.0 reports some failures to set up a
 * key or digest, lack of memory among them, only as an EVP "decode error"
 * or "initialization error" then CMS's generic failure: not a mismatch.
 * Empties the queue, and answers openssl_out_of_memory() in *oom.
 */
static bool compared_and_differed(bool *oom)
{
	unsigned long first = ERR_peek_error();
	int lib = ERR_GET_LIB(first), reason = ERR_GET_REASON(first);
	bool differed = ((lib == ERR_LIB_RSA || lib == ERR_LIB_EC || lib == ERR_LIB_DSA) &&
			 reason != ERR_R_MALLOC_FAILURE) ||
			(lib == ERR_LIB_CMS && (reason == CMS_R_VERIFICATION_FAILURE ||
						reason == CMS_R_CONTENT_VERIFY_ERROR));
	*oom = openssl_out_of_memory();
	return differed && !*oom;
}

/* The digests sign-file signs with: one of these unknown to OpenSSL
 * means OpenSSL could not set itself up, not a strange signature. */
static bool standard_digest(const ASN1_OBJECT *oid)
{
	static const int nids[] = { NID_sha1,     NID_sha224,   NID_sha256,
				    NID_sha384,   NID_sha512,   NID_sha3_224,
				    NID_sha3_256, NID_sha3_384, NID_sha3_512 };
	int nid = OBJ_obj2nid(oid);
	for (size_t i = 0; i < sizeof(nids) / sizeof(nids[0]); i++)
		if (nids[i] == nid)
			return true;
	return false;
}

/* pkcs7_shape_problem()'s answer when OpenSSL ran out of memory. */
static const char out_of_memory[] = "out of memory";

/* The first error is the specific one ("wrong tag", "bad signature"); the
 * ones after it only say which caller gave up. */
static void copy_openssl_reason(char *dst, size_t cap, const char *fallback)
{
	const char *reason = ERR_reason_error_string(ERR_peek_error());
	snprintf(dst, cap, "%s", reason ? reason : fallback);
}

/* What the signature itself says about who signed it. */
static void describe_signer_id(CMS_SignerInfo *si, struct rot_sig_info *info)
{
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;

	info->signer[0] = info->key_id[0] = '\0';
	if (CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial) != 1)
		return;
	if (keyid) {
		copy_hex(info->key_id, sizeof(info->key_id), "", keyid);
		return;
	}
	copy_cn(info->signer, sizeof(info->signer), issuer);
	if (serial)
		copy_serial(info->key_id, sizeof(info->key_id), serial);
}

/* What the keyring's certificate says about who signed it. */
static void describe_cert(X509 *cert, struct rot_sig_info *info)
{
	copy_cn(info->signer, sizeof(info->signer), X509_get_subject_name(cert));
	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(cert);
	if (skid)
		copy_hex(info->key_id, sizeof(info->key_id), "", skid);
	else
		copy_serial(info->key_id, sizeof(info->key_id), X509_get0_serialNumber(cert));
}

/* A verdict on the signature, not a failure to read it: returns 0. */
static int malformed(struct rot_sig_info *info, const char *why)
{
	info->status = ROT_SIG_MALFORMED;
	snprintf(info->detail, sizeof(info->detail), "%s", why);
	return 0;
}

/* The PKCS#7 message must be what sign-file makes: detached signed data
 * over plain data with at least one signer, and nothing after it. OpenSSL
 * verifies without signed attributes even when the data type or a
 * digest OID is nonsense (nothing signs them); the kernel refuses those,
 * and so do we. Returns why not, or NULL. */
static const char *pkcs7_shape_problem(CMS_ContentInfo *cms, bool trailing_bytes)
{
	if (trailing_bytes)
		return "bytes after the PKCS#7 message";
	if (OBJ_obj2nid(CMS_get0_type(cms)) != NID_pkcs7_signed)
		return "PKCS#7 message is not signed data";
	if (OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_pkcs7_data)
		return "PKCS#7 message does not sign plain data";
	if (CMS_is_detached(cms) != 1)
		return "PKCS#7 message carries its own content";
	STACK_OF(CMS_SignerInfo) *signers = CMS_get0_SignerInfos(cms);
	if (sk_CMS_SignerInfo_num(signers) < 1)
		return "PKCS#7 message has no signer";
	for (int i = 0; i < sk_CMS_SignerInfo_num(signers); i++) {
		X509_ALGOR *digest;
		const ASN1_OBJECT *oid;
		CMS_SignerInfo_get0_algs(sk_CMS_SignerInfo_value(signers, i), NULL, NULL, &digest,
					 NULL);
		X509_ALGOR_get0(&oid, NULL, NULL, digest);
		if (!EVP_get_digestbyobj(oid))
			return standard_digest(oid)
				       ? out_of_memory
				       : "PKCS#7 signer uses an unknown digest algorithm";
	}
	return NULL;
}

static int parse_pkcs7(const unsigned char *sig, size_t sig_len, struct rot_sig_info *info,
		       CMS_ContentInfo **out)
{
	const unsigned char *p = sig;
	CMS_ContentInfo *cms = d2i_CMS_ContentInfo(NULL, &p, (long)sig_len);
	if (!cms) {
		info->status = ROT_SIG_MALFORMED;
		copy_openssl_reason(info->detail, sizeof(info->detail), "not a PKCS#7 message");
		return openssl_out_of_memory() ? -ENOMEM : 0;
	}
	const char *problem = pkcs7_shape_problem(cms, (size_t)(p - sig) != sig_len);
	if (problem) {
		CMS_ContentInfo_free(cms);
		return problem == out_of_memory ? -ENOMEM : malformed(info, problem);
	}
	describe_signer_id(sk_CMS_SignerInfo_value(CMS_get0_SignerInfos(cms), 0), info);
	*out = cms;
	return 0;
}

/* The kernel's "~Module signature appended~" closes the image. */
static bool ends_in_magic(const unsigned char *image, size_t len)
{
	return len >= MAGIC_LEN && memcmp(image + len - MAGIC_LEN, ROT_MODSIG_MAGIC, MAGIC_LEN) == 0;
}

/* Checks the trailer as mod_check_sig() does, in its order, then parses
 * the PKCS#7 message; *out is set only when info->status is VALID. */
static int parse_trailer(const unsigned char *image, size_t len, struct rot_sig_info *info,
			 CMS_ContentInfo **out)
{
	*out = NULL;
	memset(info, 0, sizeof(*info));
	info->status = ROT_SIG_UNSIGNED;
	info->content_len = len;
	if (!ends_in_magic(image, len))
		return 0;

	/* From here on the image claims a signature; until its lengths add
	 * up, no byte of it is known to be covered. */
	info->content_len = 0;
	size_t rest = len - MAGIC_LEN;
	struct sig_trailer t;
	if (rest < sizeof(t))
		return malformed(info, "signature info is truncated");
	rest -= sizeof(t);
	memcpy(&t, image + rest, sizeof(t));
	size_t sig_len = (size_t)t.sig_len[0] << 24 | (size_t)t.sig_len[1] << 16 |
			 (size_t)t.sig_len[2] << 8 | t.sig_len[3];
	/* The kernel wants at least one byte of module before the signature. */
	if (sig_len == 0 || sig_len >= rest)
		return malformed(info, "signature length does not fit the image");
	info->content_len = rest - sig_len;

	if (t.id_type != PKEY_ID_PKCS7) {
		info->status = ROT_SIG_UNSUPPORTED;
		return 0;
	}
	if (t.algo || t.hash || t.signer_len || t.key_id_len || t.pad[0] || t.pad[1] || t.pad[2])
		return malformed(info, "PKCS#7 signature info has non-zero parameters");
	info->status = ROT_SIG_VALID;
	return parse_pkcs7(image + info->content_len, sig_len, info, out);
}

static X509 *keyring_find(const struct rot_keyring *kr, CMS_SignerInfo *si)
{
	int n = kr ? sk_X509_num(kr->certs) : 0;
	for (int i = 0; i < n; i++) {
		X509 *cert = sk_X509_value(kr->certs, i);
		if (CMS_SignerInfo_cert_cmp(si, cert) == 0)
			return cert;
	}
	return NULL;
}

static int verify_cms(const struct rot_keyring *kr, CMS_ContentInfo *cms, const void *image,
		      struct rot_sig_info *info)
{
	/* Every signer must be in the keyring, as CMS_verify() will want
	 * each to verify: the first unknown one is named, else the first
	 * signer's certificate. */
	STACK_OF(CMS_SignerInfo) *signers = CMS_get0_SignerInfos(cms);
	for (int i = 0; i < sk_CMS_SignerInfo_num(signers); i++) {
		CMS_SignerInfo *si = sk_CMS_SignerInfo_value(signers, i);
		X509 *cert = keyring_find(kr, si);
		if (!cert) {
			describe_signer_id(si, info);
			info->status = ROT_SIG_UNKNOWN_KEY;
			return 0;
		}
		if (i == 0)
			describe_cert(cert, info);
	}

	if (info->content_len > INT_MAX)
		return malformed(info, "module too large to verify");
	/* OpenSSL 3.0's CMS_verify copies a memory BIO into one of its own and
	 * leaks that copy when the message names a digest it cannot set up
	 * (CMS_dataInit fails under CMS_BINARY). A buffering BIO in front is
	 * used as it is, and freed here. */
	BIO *mem = BIO_new_mem_buf(image, (int)info->content_len);
	BIO *content = mem ? BIO_new(BIO_f_buffer()) : NULL;
	if (!content) {
		BIO_free_all(mem);
		return -ENOMEM;
	}
	BIO_push(content, mem);
	ERR_clear_error(); /* the reason quoted must be CMS_verify()'s */
	int verified = CMS_verify(cms, kr->certs, NULL, content, NULL, VERIFY_FLAGS);
	BIO_free_all(content);
	if (verified == 1)
		return 0;
	copy_openssl_reason(info->detail, sizeof(info->detail), "verification failure");
	bool oom;
	info->status = compared_and_differed(&oom) ? ROT_SIG_BAD : ROT_SIG_UNCHECKED;
	return oom ? -ENOMEM : 0;
}

/* A new info: verify checks the signature against kr, else it is only
 * inspected. */
static int sig_info_new(const struct rot_keyring *kr, bool verify, const void *image, size_t len,
			struct rot_sig_info **out)
{
	CMS_ContentInfo *cms;
	*out = NULL;
	struct rot_sig_info *info = calloc(1, sizeof(*info));
	if (!info)
		return -ENOMEM;
	/* Without the trailer's magic the image is unsigned, and
	 * parse_trailer() says so before any OpenSSL call: an inspection then
	 * neither opens libcrypto nor starts it (reading its configuration and
	 * error texts) by ERR_clear_error() for nothing. */
	int err = 0;
	if (!verify && !ends_in_magic(image, len)) {
		err = parse_trailer(image, len, info, &cms);
	} else if ((err = dl_crypto()) == 0) {
		/* OpenSSL's error queue is per thread and left as found: empty.
		 * The details quote its first error, so that one must be ours. */
		ERR_clear_error();
		err = parse_trailer(image, len, info, &cms);
		if (err == 0 && cms && verify)
			err = verify_cms(kr, cms, image, info);
		CMS_ContentInfo_free(cms);
		ERR_clear_error();
	}
	if (err < 0) {
		free(info);
		return err;
	}
	*out = info;
	return 0;
}

int modsig_inspect(const void *image, size_t len, struct rot_sig_info **out)
{
	return sig_info_new(NULL, false, image, len, out);
}

int rot_modsig_verify(const struct rot_keyring *kr, const void *image, size_t len,
		      struct rot_sig_info **out)
{
	return sig_info_new(kr, true, image, len, out);
}

void rot_sig_info_free(struct rot_sig_info *info)
{
	free(info);
}

enum rot_sig_status rot_sig_info_status(const struct rot_sig_info *info)
{
	return info->status;
}

const char *rot_sig_info_signer(const struct rot_sig_info *info)
{
	return info->signer;
}

const char *rot_sig_info_key_id(const struct rot_sig_info *info)
{
	return info->key_id;
}

const char *rot_sig_info_detail(const struct rot_sig_info *info)
{
	return info->detail;
}
