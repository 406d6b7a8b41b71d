/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DL_CRYPTO_H
#define MODROT_DL_CRYPTO_H
/* OpenSSL's libcrypto, opened on first use (dynlib.h): signatures and keyrings. */
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "dynlib.h"

#define DL_CRYPTO_FUNCTIONS(X)           \
	X(ASN1_STRING_get0_data)         \
	X(ASN1_STRING_length)            \
	X(ASN1_STRING_to_UTF8)           \
	X(ASN1_STRING_type)              \
	X(BIO_f_buffer)                  \
	X(BIO_free_all)                  \
	X(BIO_new)                       \
	X(BIO_new_mem_buf)               \
	X(BIO_push)                      \
	X(CMS_ContentInfo_free)          \
	X(CMS_SignerInfo_cert_cmp)       \
	X(CMS_SignerInfo_get0_algs)      \
	X(CMS_SignerInfo_get0_signer_id) \
	X(CMS_get0_SignerInfos)          \
	X(CMS_get0_eContentType)         \
	X(CMS_get0_type)                 \
	X(CMS_is_detached)               \
	X(CMS_verify)                    \
	X(CRYPTO_free)                   \
	X(ERR_clear_error)               \
	X(ERR_get_error)                 \
	X(ERR_peek_error)                \
	X(ERR_reason_error_string)       \
	X(EVP_MD_fetch)                  \
	X(EVP_MD_free)                   \
	X(EVP_PKEY_CTX_free)             \
	X(EVP_PKEY_CTX_new_from_pkey)    \
	X(EVP_PKEY_verify_init)          \
	X(EVP_get_digestbyname)          \
	X(OBJ_nid2sn)                    \
	X(OBJ_obj2nid)                   \
	X(OPENSSL_sk_new_null)           \
	X(OPENSSL_sk_num)                \
	X(OPENSSL_sk_pop_free)           \
	X(OPENSSL_sk_push)               \
	X(OPENSSL_sk_value)              \
	X(PEM_read_bio_X509)             \
	X(X509_ALGOR_get0)               \
	X(X509_NAME_ENTRY_get_data)      \
	X(X509_NAME_get_entry)           \
	X(X509_NAME_get_index_by_NID)    \
	X(X509_free)                     \
	X(X509_get0_pubkey)              \
	X(X509_get0_serialNumber)        \
	X(X509_get0_subject_key_id)      \
	X(X509_get_subject_name)         \
	X(d2i_CMS_ContentInfo)           \
	X(d2i_X509)

DL_CRYPTO_FUNCTIONS(DYNLIB_DECLARE)

#define ASN1_STRING_get0_data (*dl_ASN1_STRING_get0_data)
#define ASN1_STRING_length (*dl_ASN1_STRING_length)
#define ASN1_STRING_to_UTF8 (*dl_ASN1_STRING_to_UTF8)
#define ASN1_STRING_type (*dl_ASN1_STRING_type)
#define BIO_f_buffer (*dl_BIO_f_buffer)
#define BIO_free_all (*dl_BIO_free_all)
#define BIO_new (*dl_BIO_new)
#define BIO_new_mem_buf (*dl_BIO_new_mem_buf)
#define BIO_push (*dl_BIO_push)
#define CMS_ContentInfo_free (*dl_CMS_ContentInfo_free)
#define CMS_SignerInfo_cert_cmp (*dl_CMS_SignerInfo_cert_cmp)
#define CMS_SignerInfo_get0_algs (*dl_CMS_SignerInfo_get0_algs)
#define CMS_SignerInfo_get0_signer_id (*dl_CMS_SignerInfo_get0_signer_id)
#define CMS_get0_SignerInfos (*dl_CMS_get0_SignerInfos)
#define CMS_get0_eContentType (*dl_CMS_get0_eContentType)
#define CMS_get0_type (*dl_CMS_get0_type)
#define CMS_is_detached (*dl_CMS_is_detached)
#define CMS_verify (*dl_CMS_verify)
#define CRYPTO_free (*dl_CRYPTO_free)
#define ERR_clear_error (*dl_ERR_clear_error)
#define ERR_get_error (*dl_ERR_get_error)
#define ERR_peek_error (*dl_ERR_peek_error)
#define ERR_reason_error_string (*dl_ERR_reason_error_string)
#define EVP_MD_fetch (*dl_EVP_MD_fetch)
#define EVP_MD_free (*dl_EVP_MD_free)
#define EVP_PKEY_CTX_free (*dl_EVP_PKEY_CTX_free)
#define EVP_PKEY_CTX_new_from_pkey (*dl_EVP_PKEY_CTX_new_from_pkey)
#define EVP_PKEY_verify_init (*dl_EVP_PKEY_verify_init)
#define EVP_get_digestbyname (*dl_EVP_get_digestbyname)
#define OBJ_nid2sn (*dl_OBJ_nid2sn)
#define OBJ_obj2nid (*dl_OBJ_obj2nid)
#define OPENSSL_sk_new_null (*dl_OPENSSL_sk_new_null)
#define OPENSSL_sk_num (*dl_OPENSSL_sk_num)
#define OPENSSL_sk_pop_free (*dl_OPENSSL_sk_pop_free)
#define OPENSSL_sk_push (*dl_OPENSSL_sk_push)
#define OPENSSL_sk_value (*dl_OPENSSL_sk_value)
#define PEM_read_bio_X509 (*dl_PEM_read_bio_X509)
#define X509_ALGOR_get0 (*dl_X509_ALGOR_get0)
#define X509_NAME_ENTRY_get_data (*dl_X509_NAME_ENTRY_get_data)
#define X509_NAME_get_entry (*dl_X509_NAME_get_entry)
#define X509_NAME_get_index_by_NID (*dl_X509_NAME_get_index_by_NID)
#define X509_free (*dl_X509_free)
#define X509_get0_pubkey (*dl_X509_get0_pubkey)
#define X509_get0_serialNumber (*dl_X509_get0_serialNumber)
#define X509_get0_subject_key_id (*dl_X509_get0_subject_key_id)
#define X509_get_subject_name (*dl_X509_get_subject_name)
#define d2i_CMS_ContentInfo (*dl_d2i_CMS_ContentInfo)
#define d2i_X509 (*dl_d2i_X509)

#endif
