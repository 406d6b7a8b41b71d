// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "sigwords.h"

enum cli_exit sig_keyring_load(const char *path, struct rot_keyring **out, enum cli_exit no_crypto)
{
	int err = rot_keyring_load(path, out);
	if (err == -ENOKEY)
		cli_usage_fail("the keyring %s holds no X.509 certificate", path);
	/* No permission, no memory: not the keyring's fault, nor (for memory)
	 * the user's, so no usage error. */
	if (err == -EACCES || err == -EPERM || err == -ENOMEM) {
		cli_error("could not read the keyring %s: %s", path,
			  err == -ENOMEM ? "out of memory" : cli_strerror(err));
		return cli_exit_for_errno(err);
	}
	/* Not the keyring's fault either: OpenSSL is missing. */
	if (err == -ELIBACC && no_crypto != CLI_EXIT_USAGE) {
		cli_error("cannot verify against the keyring %s: %s", path, cli_strerror(err));
		return no_crypto;
	}
	char why[128];
	if (err < 0)
		cli_usage_fail("could not read the keyring %s: %s", path,
			       cli_file_error(err, path, ROT_KEYRING_FILE_MAX, why, sizeof(why)));
	return CLI_EXIT_OK;
}

void sig_describe_failure(const struct rot_sig_info *sig, const char *keyring_path, char *buf,
			  size_t len)
{
	const char *signer = sig && rot_sig_info_signer(sig)[0] ? rot_sig_info_signer(sig)
								: "an unnamed signer";
	const char *key = sig && rot_sig_info_key_id(sig)[0] ? rot_sig_info_key_id(sig) : "unknown";
	const char *detail = sig ? rot_sig_info_detail(sig) : "";

	switch (sig ? rot_sig_info_status(sig) : ROT_SIG_MALFORMED) {
	case ROT_SIG_UNSIGNED:
		snprintf(buf, len, "the module is not signed");
		break;
	case ROT_SIG_UNKNOWN_KEY:
		snprintf(buf, len, "signed by %s (key %s), which is not in the keyring %s", signer,
			 key, keyring_path);
		break;
	case ROT_SIG_BAD:
		snprintf(buf, len, "the signature by %s (key %s) does not match the module%s%s",
			 signer, key, detail[0] ? ": " : "", detail);
		break;
	case ROT_SIG_UNCHECKED:
		snprintf(buf, len, "the signature by %s (key %s) could not be checked%s%s", signer,
			 key, detail[0] ? ": OpenSSL: " : "", detail);
		break;
	case ROT_SIG_UNSUPPORTED:
		snprintf(buf, len, "its signature is not PKCS#7, the only kind the kernel accepts");
		break;
	default:
		snprintf(buf, len, "its signature trailer is malformed%s%s", detail[0] ? ": " : "",
			 detail);
	}
}

const char *sig_status_word(enum rot_sig_status status)
{
	static const struct cli_word words[] = {
		{ ROT_SIG_VALID, "valid" },
		{ ROT_SIG_UNSIGNED, "unsigned" },
		{ ROT_SIG_MALFORMED, "malformed" },
		{ ROT_SIG_UNSUPPORTED, "unsupported" },
		{ ROT_SIG_UNKNOWN_KEY, "unknown key" },
		{ ROT_SIG_BAD, "bad" },
		{ ROT_SIG_UNCHECKED, "unchecked" },
		{ 0, NULL },
	};
	return cli_word_of(words, status, "malformed");
}
