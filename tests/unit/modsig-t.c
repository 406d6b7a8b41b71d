// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Module signatures: keyrings, the trailer sign-file appends, and the
 * verdicts. Keys, certificates and signatures are made here at run time,
 * the signatures exactly as scripts/sign-file.c makes them.
 */
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "internal.h"
#include "modrot.h"
#include "tap.h"

#define MAGIC_LEN (sizeof(ROT_MODSIG_MAGIC) - 1)
#define TRAILER_LEN 12

struct signer {
	EVP_PKEY *key;
	X509 *cert;
	char skid[128]; /* as rot_sig_info_key_id() spells it */
};

struct blob {
	unsigned char *p;
	size_t len;
};

/* The struct module_signature fields before sig_len. */
struct trailer_head {
	uint8_t algo, hash, id_type, signer_len, key_id_len, pad[3];
};

static const struct trailer_head pkcs7_head = { .id_type = 2 };

static char dir[] = "/tmp/modsig-t.XXXXXX";
static struct signer mine, other;
static unsigned char module[5000];
static struct blob sig;       /* mine's signature of module, issuer and serial */
static struct blob signed_ko; /* module + sig + trailer */
static struct rot_keyring *ring_pem, *ring_der, *ring_dir, *ring_other;

static void die(const char *what)
{
	fprintf(stderr, "Bail out! %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* A path in the test directory; eight stay valid at once, enough for
 * one command line. */
static char *path_in(const char *name)
{
	static char buf[8][256];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *name, const void *data, size_t len)
{
	FILE *f = fopen(path_in(name), "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die(name);
}

static struct blob read_file(const char *path)
{
	struct blob b = { NULL, 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return b;
	fseek(f, 0, SEEK_END);
	b.len = (size_t)ftell(f);
	rewind(f);
	b.p = malloc(b.len + 1);
	if (!b.p || fread(b.p, 1, b.len, f) != b.len)
		die(path);
	fclose(f);
	return b;
}

static void write_pem(const char *name, const struct signer *s, bool with_key)
{
	FILE *f = fopen(path_in(name), "w");
	if (!f || (with_key && !PEM_write_PrivateKey(f, s->key, NULL, NULL, 0, NULL, NULL)) ||
	    !PEM_write_X509(f, s->cert) || fclose(f) != 0)
		die(name);
}

static void write_der(const char *name, const struct signer *s)
{
	unsigned char *der = NULL;
	int n = i2d_X509(s->cert, &der);
	if (n <= 0)
		die("i2d_X509");
	write_file(name, der, (size_t)n);
	OPENSSL_free(der);
}

/* A self-signed RSA-2048 certificate shaped like the kernel's x509.genkey. */
static void make_signer(struct signer *s, const char *cn, long serial)
{
	s->key = EVP_RSA_gen(2048);
	s->cert = X509_new();
	if (!s->key || !s->cert)
		die("key");
	X509 *x = s->cert;
	X509_NAME *name = X509_get_subject_name(x);
	X509V3_CTX ctx;
	X509_set_version(x, X509_VERSION_3);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
	X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8,
				   (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, name);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, s->key);
	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_key_identifier, "hash");
	if (!ext || !X509_add_ext(x, ext, -1) || !X509_sign(x, s->key, EVP_sha256()))
		die("certificate");
	X509_EXTENSION_free(ext);

	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(x);
	for (int i = 0; i < ASN1_STRING_length(skid); i++)
		sprintf(s->skid + 2 * i, "%02x", ASN1_STRING_get0_data(skid)[i]);
}

/* scripts/sign-file.c without -a or -d: detached, no certificates, no
 * signed attributes, SHA-256; extra is CMS_USE_KEYID for sign-file -k. */
static struct blob sign_like_sign_file(const struct signer *s, const void *data, size_t len,
				       unsigned extra)
{
	BIO *in = BIO_new_mem_buf(data, (int)len), *out = BIO_new(BIO_s_mem());
	CMS_ContentInfo *cms = CMS_sign(NULL, NULL, NULL, NULL,
					CMS_NOCERTS | CMS_PARTIAL | CMS_BINARY |
					CMS_DETACHED | CMS_STREAM);
	if (!in || !out || !cms ||
	    !CMS_add1_signer(cms, s->cert, s->key, EVP_sha256(),
			     CMS_NOCERTS | CMS_BINARY | CMS_NOSMIMECAP | CMS_NOATTR | extra) ||
	    CMS_final(cms, in, NULL, CMS_NOCERTS | CMS_BINARY) != 1 ||
	    i2d_CMS_bio_stream(out, cms, NULL, 0) != 1)
		die("CMS_sign");
	char *p;
	struct blob b = { NULL, (size_t)BIO_get_mem_data(out, &p) };
	b.p = malloc(b.len);
	memcpy(b.p, p, b.len);
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	BIO_free(out);
	return b;
}

/* module + signature + struct module_signature + magic, with the struct's
 * fields given, so that tests can lie in any one of them. */
static struct blob append_trailer(const void *mod, size_t mod_len, struct blob s,
				  struct trailer_head head, uint32_t sig_len)
{
	struct blob b = { malloc(mod_len + s.len + TRAILER_LEN + MAGIC_LEN), 0 };
	unsigned char be[4] = { sig_len >> 24, sig_len >> 16, sig_len >> 8, sig_len };
	memcpy(b.p, mod, mod_len);
	memcpy(b.p + mod_len, s.p, s.len);
	b.len = mod_len + s.len;
	memcpy(b.p + b.len, &head, 8);
	memcpy(b.p + b.len + 8, be, 4);
	memcpy(b.p + b.len + TRAILER_LEN, ROT_MODSIG_MAGIC, MAGIC_LEN);
	b.len += TRAILER_LEN + MAGIC_LEN;
	return b;
}

static struct blob signed_module(struct blob s)
{
	return append_trailer(module, sizeof(module), s, pkcs7_head, (uint32_t)s.len);
}

static struct rot_keyring *load(const char *path)
{
	struct rot_keyring *kr = NULL;
	int err = rot_keyring_load(path, &kr);
	if (err < 0)
		printf("# loading %s: %s\n", path, strerror(-err));
	return kr;
}

/* What a struct rot_sig_info told, read through its accessors (its length
 * from internal.h) and kept by value. */
struct sig_seen {
	enum rot_sig_status status;
	size_t content_len;
	char signer[256];
	char key_id[128];
	char detail[256];
};

static struct sig_seen seen_of(struct rot_sig_info *info)
{
	struct sig_seen s = { .status = rot_sig_info_status(info),
			      .content_len = info->content_len };
	snprintf(s.signer, sizeof(s.signer), "%s", rot_sig_info_signer(info));
	snprintf(s.key_id, sizeof(s.key_id), "%s", rot_sig_info_key_id(info));
	snprintf(s.detail, sizeof(s.detail), "%s", rot_sig_info_detail(info));
	rot_sig_info_free(info);
	return s;
}

static struct sig_seen verify(const struct rot_keyring *kr, struct blob b)
{
	struct rot_sig_info *info;
	int err = rot_modsig_verify(kr, b.p, b.len, &info);
	if (err < 0)
		die("rot_modsig_verify failed");
	return seen_of(info);
}

static struct sig_seen inspect(struct blob b)
{
	struct rot_sig_info *info;
	if (modsig_inspect(b.p, b.len, &info) < 0)
		die("modsig_inspect failed");
	return seen_of(info);
}

static void set_up(void)
{
	if (!mkdtemp(dir))
		die("mkdtemp");
	make_signer(&mine, "modrot test signer", 0x1234abcd);
	make_signer(&other, "modrot other signer", 7);

	/* Something that looks like the start of an x86-64 relocatable ELF. */
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof(module); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		module[i] = (unsigned char)x;
	}
	memcpy(module, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\1\0\76\0", 20);

	sig = sign_like_sign_file(&mine, module, sizeof(module), 0);
	signed_ko = signed_module(sig);

	write_pem("mine.pem", &mine, false);
	write_der("mine.der", &mine);
	write_pem("other.pem", &other, false);
	write_pem("mine-key.pem", &mine, true);
	write_file("no-cert.txt", "not a certificate\n", 18);
	if (mkdir(path_in("ring"), 0755) || mkdir(path_in("ring/subdir"), 0755) ||
	    mkdir(path_in("empty"), 0755))
		die("mkdir");
	write_pem("ring/other.pem", &other, false);
	write_der("ring/mine.der", &mine);
	write_file("ring/README", "certificates for modsig-t\n", 26);
	write_pem("ring/subdir/ignored.pem", &other, false);
	if (symlink("nowhere", path_in("ring/dangling")))
		die("symlink");

	ring_pem = load(path_in("mine.pem"));
	ring_der = load(path_in("mine.der"));
	ring_dir = load(path_in("ring"));
	ring_other = load(path_in("other.pem"));
	if (!ring_pem || !ring_der || !ring_dir || !ring_other)
		die("keyrings");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void tear_down(void)
{
	rot_keyring_free(ring_pem);
	rot_keyring_free(ring_der);
	rot_keyring_free(ring_dir);
	rot_keyring_free(ring_other);
	free(sig.p);
	free(signed_ko.p);
	EVP_PKEY_free(mine.key);
	EVP_PKEY_free(other.key);
	X509_free(mine.cert);
	X509_free(other.cert);
	nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void keyring_errors_are_errno_values(void)
{
	struct rot_keyring *kr = NULL;
	is_int(rot_keyring_load(path_in("missing"), &kr), -ENOENT, "a missing keyring is -ENOENT");
	is_int(rot_keyring_load(path_in("no-cert.txt"), &kr), -ENOKEY,
	       "a file without a certificate is -ENOKEY");
	is_int(rot_keyring_load(path_in("empty"), &kr), -ENOKEY, "an empty directory is -ENOKEY");
	static const char encrypted[] = "-----BEGIN CERTIFICATE-----\n"
					"Proc-Type: 4,ENCRYPTED\n"
					"DEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n"
					"AAAA\n-----END CERTIFICATE-----\n";
	write_file("encrypted.pem", encrypted, sizeof(encrypted) - 1);
	is_int(rot_keyring_load(path_in("encrypted.pem"), &kr), -ENOKEY,
	       "an encrypted certificate block is no certificate (and asks for no password)");
	ok(kr == NULL, "a failed load leaves *out alone");
	is_int(ERR_peek_error(), 0, "failed loads leave no OpenSSL error behind");
}

static void keyrings_load_pem_der_and_directories(void)
{
	is_int(keyring_count(ring_pem), 1, "a PEM file gives its certificate");
	is_int(keyring_count(ring_der), 1, "a DER file gives its certificate");
	is_int(keyring_count(ring_dir), 2,
	       "a directory gives its regular files' certificates, not its subdirectories'"
	       " (a dangling link is skipped)");

	struct rot_keyring *kr = load(path_in("mine-key.pem"));
	is_int(keyring_count(kr), 1, "a key+certificate PEM bundle gives the certificate");
	rot_keyring_free(kr);

	FILE *f = fopen(path_in("bundle.pem"), "w");
	if (!f || !PEM_write_X509(f, mine.cert) || !PEM_write_X509(f, other.cert) || fclose(f))
		die("bundle.pem");
	kr = load(path_in("bundle.pem"));
	is_int(keyring_count(kr), 2, "a PEM file with two certificates gives both");
	rot_keyring_free(kr);
	is_int(keyring_count(NULL), 0, "a NULL keyring counts 0");
}

static void inspect_names_the_signer_the_signature_names(void)
{
	struct sig_seen info = inspect(signed_ko);
	is_int(info.status, ROT_SIG_VALID, "inspect: a sign-file trailer is well formed");
	is_int(info.content_len, sizeof(module), "inspect: content_len is the module without the trailer");
	is_str(info.signer, "modrot test signer", "inspect: signer is the issuer's CN");
	is_str(info.key_id, "serial 1234abcd", "inspect: key_id is the issuer serial");
	is_str(info.detail, "", "inspect: no detail");
}

static void a_keyring_signer_verifies(void)
{
	struct { const char *what; struct rot_keyring *kr; } rings[] = {
		{ "a PEM keyring file", ring_pem },
		{ "a DER keyring file", ring_der },
		{ "a keyring directory", ring_dir },
	};
	for (size_t i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		struct sig_seen info = verify(rings[i].kr, signed_ko);
		char what[128];
		snprintf(what, sizeof(what), "VALID against %s", rings[i].what);
		is_int(info.status, ROT_SIG_VALID, what);
		is_str(info.signer, "modrot test signer", "signer is the certificate's CN");
		is_str(info.key_id, mine.skid, "key_id is the certificate's subject key id");
		is_int(info.content_len, sizeof(module), "content_len is the module's length");
		is_str(info.detail, "", "no detail");
	}
}

static void a_subject_key_id_signature_verifies(void)
{
	struct blob s = sign_like_sign_file(&mine, module, sizeof(module), CMS_USE_KEYID);
	struct blob ko = signed_module(s);

	struct sig_seen info = inspect(ko);
	is_str(info.key_id, mine.skid, "sign-file -k: inspect names the subject key id");
	is_str(info.signer, "", "sign-file -k: a key id alone names nobody");

	info = verify(ring_pem, ko);
	is_int(info.status, ROT_SIG_VALID, "sign-file -k: VALID");
	is_str(info.signer, "modrot test signer", "sign-file -k: signer from the certificate");
	is_str(info.key_id, mine.skid, "sign-file -k: key_id from the certificate");

	info = verify(ring_other, ko);
	is_int(info.status, ROT_SIG_UNKNOWN_KEY, "sign-file -k: UNKNOWN_KEY against another key");
	is_str(info.key_id, mine.skid, "sign-file -k: the unknown key id is named");
	free(s.p);
	free(ko.p);
}

static void a_stranger_is_an_unknown_key(void)
{
	struct sig_seen info = verify(ring_other, signed_ko);
	is_int(info.status, ROT_SIG_UNKNOWN_KEY, "UNKNOWN_KEY against an unrelated certificate");
	is_str(info.signer, "modrot test signer", "the unknown signer's issuer CN is named");
	is_str(info.key_id, "serial 1234abcd", "the unknown signer's serial is named");
	is_int(verify(NULL, signed_ko).status, ROT_SIG_UNKNOWN_KEY, "no keyring knows no key");
}

static void a_changed_module_is_bad(void)
{
	struct blob ko = signed_module(sig);
	ko.p[1000] ^= 0x01;
	struct sig_seen info = verify(ring_pem, ko);
	is_int(info.status, ROT_SIG_BAD, "one flipped module bit is BAD");
	ok(info.detail[0] != '\0', "BAD carries OpenSSL's reason");
	printf("# detail: %s\n", info.detail);
	is_int(ERR_peek_error(), 0, "the OpenSSL error queue is left empty");
	is_int(inspect(ko).status, ROT_SIG_VALID, "inspect does not look at the content");
	free(ko.p);
}

static void a_plain_module_is_unsigned(void)
{
	struct blob plain = { module, sizeof(module) };
	struct sig_seen info = verify(ring_pem, plain);
	is_int(info.status, ROT_SIG_UNSIGNED, "a module without trailer is UNSIGNED");
	is_int(info.content_len, sizeof(module), "all of an unsigned module is content");
	is_str(info.signer, "", "no signer");
	is_int(verify(ring_pem, (struct blob){ module, 0 }).status, ROT_SIG_UNSIGNED,
	       "an empty image is UNSIGNED");
}

static void expect_malformed(struct blob b, const char *what)
{
	struct sig_seen info = verify(ring_pem, b);
	is_int(info.status, ROT_SIG_MALFORMED, what);
	if (info.status == ROT_SIG_MALFORMED && info.detail[0] == '\0')
		ok(0, "MALFORMED says why");
	free(b.p);
}

static struct blob copy_of(const void *p, size_t len)
{
	struct blob b = { malloc(len ? len : 1), len };
	memcpy(b.p, p, len);
	return b;
}

static void broken_trailers_are_malformed(void)
{
	static unsigned char nothing[1];
	struct blob empty = { nothing, 0 };
	expect_malformed(copy_of(ROT_MODSIG_MAGIC, MAGIC_LEN), "the magic alone is MALFORMED");

	unsigned char short_trailer[5 + MAGIC_LEN] = { 0, 0, 2, 0, 0 };
	memcpy(short_trailer + 5, ROT_MODSIG_MAGIC, MAGIC_LEN);
	expect_malformed(copy_of(short_trailer, sizeof(short_trailer)),
			 "a truncated struct module_signature is MALFORMED");

	expect_malformed(append_trailer(module, sizeof(module), sig, pkcs7_head, 0),
			 "sig_len 0 is MALFORMED");
	expect_malformed(append_trailer(module, sizeof(module), sig, pkcs7_head, 0xffffffffu),
			 "sig_len beyond the image is MALFORMED");
	expect_malformed(append_trailer(module, 0, sig, pkcs7_head, (uint32_t)sig.len),
			 "a signature with no module before it is MALFORMED");
	expect_malformed(append_trailer(module, sizeof(module), empty, pkcs7_head, 0),
			 "a trailer with no signature is MALFORMED");

	unsigned char garbage[300];
	memset(garbage, 0xa5, sizeof(garbage));
	expect_malformed(signed_module((struct blob){ garbage, sizeof(garbage) }),
			 "garbage PKCS#7 bytes are MALFORMED");

	struct trailer_head head = pkcs7_head;
	head.signer_len = 4;
	expect_malformed(append_trailer(module, sizeof(module), sig, head, (uint32_t)sig.len),
			 "a non-zero signer_len is MALFORMED");
	head = pkcs7_head;
	head.pad[2] = 1;
	expect_malformed(append_trailer(module, sizeof(module), sig, head, (uint32_t)sig.len),
			 "non-zero padding is MALFORMED");

	struct blob longer = { malloc(sig.len + 1), sig.len + 1 };
	memcpy(longer.p, sig.p, sig.len);
	longer.p[sig.len] = 0;
	expect_malformed(signed_module(longer), "bytes after the PKCS#7 message are MALFORMED");
	free(longer.p);
}

/* The sign-file signature with the n-th occurrence of a DER pattern in it
 * changed at one byte: for the fields OpenSSL itself does not check. */
static struct blob patched_sig(const unsigned char *pattern, size_t len, int n, size_t at,
			       unsigned char value)
{
	struct blob b = copy_of(sig.p, sig.len);
	for (size_t i = 0; i + len <= b.len; i++) {
		if (memcmp(b.p + i, pattern, len) == 0 && n-- == 0) {
			b.p[i + at] = value;
			return b;
		}
	}
	die("pattern not in the signature");
	return b;
}

static void unsigned_fields_are_checked_as_the_kernel_does(void)
{
	static const unsigned char data_oid[] = { 6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 7, 1 };
	static const unsigned char sha256_oid[] = { 6, 9, 0x60, 0x86, 0x48, 1, 0x65, 3, 4, 2, 1 };

	/* id-data becomes id-signedData */
	struct blob s = patched_sig(data_oid, sizeof(data_oid), 0, 10, 2);
	expect_malformed(signed_module(s), "a signature over other than plain data is MALFORMED");
	free(s.p);

	/* the signer's digestAlgorithm (the second sha256) becomes an unknown OID */
	s = patched_sig(sha256_oid, sizeof(sha256_oid), 1, 3, 0x79);
	expect_malformed(signed_module(s), "a signer with an unknown digest algorithm is MALFORMED");
	free(s.p);
}

static void a_signature_with_embedded_content_is_malformed(void)
{
	BIO *in = BIO_new_mem_buf(module, sizeof(module)), *out = BIO_new(BIO_s_mem());
	CMS_ContentInfo *cms = CMS_sign(mine.cert, mine.key, NULL, in,
					CMS_NOCERTS | CMS_BINARY | CMS_NOATTR);
	if (!cms || i2d_CMS_bio(out, cms) != 1)
		die("CMS_sign");
	char *p;
	struct blob s = { NULL, (size_t)BIO_get_mem_data(out, &p) };
	s.p = (unsigned char *)p;
	expect_malformed(signed_module(s), "a PKCS#7 message with its own content is MALFORMED");
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	BIO_free(out);
}

static void other_signature_types_are_unsupported(void)
{
	struct trailer_head head = pkcs7_head;
	head.id_type = 1;
	struct blob ko = append_trailer(module, sizeof(module), sig, head, (uint32_t)sig.len);
	struct sig_seen info = verify(ring_pem, ko);
	is_int(info.status, ROT_SIG_UNSUPPORTED, "id_type 1 (PKEY_ID_X509) is UNSUPPORTED");
	is_int(info.content_len, sizeof(module), "UNSUPPORTED still knows where the module ends");
	is_int(inspect(ko).status, ROT_SIG_UNSUPPORTED, "inspect says UNSUPPORTED too");
	free(ko.p);
}

/* Hostile trailers: every sig_len, every byte of the PKCS#7 message
 * flipped. Nothing may crash or leak (the sanitizer and valgrind runs
 * watch), and a verdict is always one of the six. */
static void hostile_trailers_never_crash(void)
{
	struct blob ko = copy_of(signed_ko.p, signed_ko.len);
	unsigned char *len_field = ko.p + ko.len - MAGIC_LEN - 4;
	int bad_verdicts = 0, errors = 0;
	for (uint32_t n = 0; n <= ko.len + 2; n++) {
		unsigned char be[4] = { n >> 24, n >> 16, n >> 8, n };
		memcpy(len_field, be, 4);
		struct rot_sig_info *info;
		int err = rot_modsig_verify(ring_pem, ko.p, ko.len, &info);
		errors += err != 0;
		if (err == 0) {
			bad_verdicts += (n == sig.len) != (rot_sig_info_status(info) == ROT_SIG_VALID);
			rot_sig_info_free(info);
		}
	}
	is_int(errors, 0, "every sig_len: no error return");
	is_int(bad_verdicts, 0, "every sig_len: VALID only for the true one");
	free(ko.p);

	int counts[ROT_SIG_UNCHECKED + 1] = { 0 };
	errors = bad_verdicts = 0;
	for (size_t i = 0; i < sig.len; i++) {
		ko = copy_of(signed_ko.p, signed_ko.len);
		ko.p[sizeof(module) + i] ^= 0xff;
		struct rot_sig_info *info;
		int err = rot_modsig_verify(ring_pem, ko.p, ko.len, &info);
		errors += err != 0;
		enum rot_sig_status status = err == 0 ? rot_sig_info_status(info) : ROT_SIG_MALFORMED;
		if (err == 0 && status >= ROT_SIG_VALID && status <= ROT_SIG_UNCHECKED)
			counts[status]++;
		else
			bad_verdicts++;
		if (err == 0)
			rot_sig_info_free(info);
		free(ko.p);
	}
	is_int(errors, 0, "every flipped PKCS#7 byte: no error return");
	is_int(bad_verdicts, 0, "every flipped PKCS#7 byte: a known verdict");
	printf("# flipped bytes: %d valid, %d malformed, %d unknown key, %d bad, %d unchecked\n",
	       counts[ROT_SIG_VALID], counts[ROT_SIG_MALFORMED], counts[ROT_SIG_UNKNOWN_KEY],
	       counts[ROT_SIG_BAD], counts[ROT_SIG_UNCHECKED]);
	is_int(ERR_peek_error(), 0, "the OpenSSL error queue is left empty");
}

/* tests/helpers/sign-module.sh is the tests' sign-file; what it writes
 * must be what sign-file writes, byte for byte (PKCS#1 v1.5 signatures
 * are deterministic). Needs the script (via $top_srcdir) and openssl(1). */
static void the_sign_module_helper_signs_like_sign_file(void)
{
	const char *top = getenv("top_srcdir");
	char script[512], cmd[2048];
	snprintf(script, sizeof(script), "%s/tests/helpers/sign-module.sh", top ? top : ".");
	if (!top || access(script, R_OK) != 0 || system("openssl version >/dev/null 2>&1") != 0) {
		ok(1, "sign-module.sh # SKIP no $top_srcdir or no openssl(1)");
		return;
	}
	write_file("plain.ko", module, sizeof(module));
	const char *flags[] = { "", " --keyid" };
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof(cmd), "sh '%s' '%s' '%s' '%s' '%s'%s", script,
			 path_in("mine-key.pem"), path_in("mine.pem"), path_in("plain.ko"),
			 path_in("signed.ko"), flags[k]);
		is_int(system(cmd), 0, "sign-module.sh runs");
		struct blob got = read_file(path_in("signed.ko"));
		struct blob s = sign_like_sign_file(&mine, module, sizeof(module), k ? CMS_USE_KEYID : 0);
		struct blob want = signed_module(s);
		ok(got.len == want.len && memcmp(got.p, want.p, got.len) == 0,
		   "sign-module.sh%s writes what sign-file writes", flags[k]);
		is_int(verify(ring_pem, got).status, ROT_SIG_VALID, "and it verifies");
		free(got.p);
		free(s.p);
		free(want.p);
	}

	snprintf(cmd, sizeof(cmd), "sh '%s' --make-ca '%s' && sh '%s' '%s' '%s' '%s' '%s'", script,
		 path_in("ca"), script, path_in("ca/key.pem"), path_in("ca/cert.pem"),
		 path_in("plain.ko"), path_in("ca-signed.ko"));
	is_int(system(cmd), 0, "sign-module.sh --make-ca makes a key that signs");
	struct rot_keyring *kr = load(path_in("ca/cert.der"));
	struct blob got = read_file(path_in("ca-signed.ko"));
	struct sig_seen info = verify(kr, got);
	is_int(info.status, ROT_SIG_VALID, "a module signed with the --make-ca key verifies");
	is_str(info.signer, "modrot test signer", "--make-ca's CN");
	ok(strlen(info.key_id) == 40 && strncmp(info.key_id, "serial", 6) != 0,
	   "--make-ca's certificate has a subject key id");
	rot_keyring_free(kr);
	free(got.p);
}

int main(void)
{
	set_up();
	keyring_errors_are_errno_values();
	keyrings_load_pem_der_and_directories();
	inspect_names_the_signer_the_signature_names();
	a_keyring_signer_verifies();
	a_subject_key_id_signature_verifies();
	a_stranger_is_an_unknown_key();
	a_changed_module_is_bad();
	a_plain_module_is_unsigned();
	broken_trailers_are_malformed();
	a_signature_with_embedded_content_is_malformed();
	unsigned_fields_are_checked_as_the_kernel_does();
	other_signature_types_are_unsupported();
	hostile_trailers_never_crash();
	the_sign_module_helper_signs_like_sign_file();
	tear_down();
	return tap_done();
}
