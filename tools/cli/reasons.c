// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON "reason" tokens: the one mapping from errno and preflight
 * problem to a word a script can match. */
#include <errno.h>
#include <stddef.h>

#include "cli-errors.h"
#include "reasons.h"

const char *reason_for_errno(enum reason_call call, int err)
{
	/* What an errno means for each call, then what it means whatever the
	 * call. */
	static const struct cli_word load[] = {
		{ EEXIST, "already_loaded" }, { ENOENT, "unknown_symbol" },
		{ ESRCH, "symbol_version" },  { ENOEXEC, "bad_format" },
		{ EINVAL, "bad_parameters" }, { EKEYREJECTED, "bad_signature" },
		{ ENOKEY, "bad_signature" },  { EBUSY, "busy" },
		{ ENODEV, "no_device" },      { 0, NULL }
	};
	static const struct cli_word unload[] = {
		{ ENOENT, "not_loaded" }, { EWOULDBLOCK, "in_use" }, { EBUSY, "busy" }, { 0, NULL }
	};
	static const struct cli_word reclaim[] = {
		{ ENOENT, REASON_NO_ROTTING },
		{ EBUSY, REASON_KEPT_IN_USE },
		{ 0, NULL },
	};
	static const struct cli_word reads[] = {
		{ ENOENT, "not_found" },
		{ EISDIR, "not_regular_file" },
		{ EFBIG, "too_big" },
		{ 0, NULL },
	};
	static const struct cli_word *const by_call[] = {
		[REASON_LOAD] = load,
		[REASON_UNLOAD] = unload,
		[REASON_RECLAIM] = reclaim,
		[REASON_READ] = reads,
	};
	static const struct cli_word common[] = {
		{ EPERM, "permission" },
		{ EACCES, "permission" },
		{ ENOMEM, "no_memory" },
		{ ENOSYS, "not_supported" },
		{ EOPNOTSUPP, "not_supported" },
		{ EINTR, "interrupted" },
		{ EIO, "io_error" },
		{ 0, NULL },
	};
	err = err < 0 ? -err : err;
	if (err == 0)
		return REASON_NONE;
	return cli_word_of(by_call[call], err, cli_word_of(common, err, REASON_OTHER));
}

const char *reason_for_problem(enum rot_problem problem)
{
	static const struct cli_word words[] = {
		{ ROT_PROBLEM_NONE, REASON_NONE },
		{ ROT_PROBLEM_NOT_REGULAR, "not_regular_file" },
		{ ROT_PROBLEM_EMPTY, "empty_file" },
		{ ROT_PROBLEM_TOO_BIG, "too_big" },
		{ ROT_PROBLEM_CORRUPT_COMPRESSION, "bad_compression" },
		{ ROT_PROBLEM_TRUNCATED_COMPRESSION, "bad_compression" },
		{ ROT_PROBLEM_UNSUPPORTED_COMPRESSION, "unsupported_compression" },
		{ ROT_PROBLEM_NOT_ELF, "bad_format" },
		{ ROT_PROBLEM_TRUNCATED, "bad_format" },
		{ ROT_PROBLEM_MALFORMED_ELF, "bad_format" },
		{ ROT_PROBLEM_NOT_RELOCATABLE, "bad_format" },
		{ ROT_PROBLEM_NO_MODINFO, "bad_format" },
		{ ROT_PROBLEM_NO_THIS_MODULE, "bad_format" },
		{ ROT_PROBLEM_NO_SYMBOLS, "bad_format" },
		{ ROT_PROBLEM_NO_NAME, "bad_format" },
		{ ROT_PROBLEM_NAME_TOO_LONG, "bad_name" },
		{ ROT_PROBLEM_WRONG_CLASS, "wrong_architecture" },
		{ ROT_PROBLEM_WRONG_MACHINE, "wrong_architecture" },
		{ ROT_PROBLEM_WRONG_BYTE_ORDER, "wrong_architecture" },
		{ ROT_PROBLEM_VERMAGIC, "version_magic" },
		{ ROT_PROBLEM_VERMAGIC_FLAGS, "version_magic" },
		{ ROT_PROBLEM_ALREADY_LOADED, "already_loaded" },
		{ ROT_PROBLEM_UNDEFINED_SYMBOLS, "unknown_symbol" },
		{ ROT_PROBLEM_UNSIGNED, "unsigned" },
		{ ROT_PROBLEM_BAD_SIGNATURE, "bad_signature" },
		{ 0, NULL }
	};
	return cli_word_of(words, problem, REASON_OTHER);
}
