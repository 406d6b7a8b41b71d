// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON "reason" tokens: the one mapping from errno and preflight
 * problem to a word a script can match. */
#include <errno.h>
#include <stddef.h>

#include "reasons.h"

/* What the same errno means whatever the call. */
static const char *common_reason(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "permission";
	case ENOMEM:
		return "no_memory";
	case ENOSYS:
	case EOPNOTSUPP:
		return "not_supported";
	case EINTR:
		return "interrupted";
	case EIO:
		return "io_error";
	default:
		return REASON_OTHER;
	}
}

const char *reason_for_errno(enum reason_call call, int err)
{
	err = err < 0 ? -err : err;
	if (err == 0)
		return REASON_NONE;
	switch (call) {
	case REASON_LOAD:
		switch (err) {
		case EEXIST:
			return "already_loaded";
		case ENOENT:
			return "unknown_symbol";
		case ESRCH:
			return "symbol_version";
		case ENOEXEC:
			return "bad_format";
		case EINVAL:
			return "bad_parameters";
		case EKEYREJECTED:
		case ENOKEY:
			return "bad_signature";
		case EBUSY:
			return "busy";
		case ENODEV:
			return "no_device";
		}
		break;
	case REASON_UNLOAD:
		switch (err) {
		case ENOENT:
			return "not_loaded";
		case EWOULDBLOCK:
			return "in_use";
		case EBUSY:
			return "busy";
		}
		break;
	case REASON_RECLAIM:
		switch (err) {
		case ENOENT:
			return REASON_NO_ROTTING;
		case EBUSY:
			return REASON_KEPT_IN_USE;
		}
		break;
	case REASON_READ:
		switch (err) {
		case ENOENT:
			return "not_found";
		case EISDIR:
			return "not_regular_file";
		case EFBIG:
			return "too_big";
		}
		break;
	}
	return common_reason(err);
}

const char *reason_for_problem(enum rot_problem problem)
{
	switch (problem) {
	case ROT_PROBLEM_NONE:
		return REASON_NONE;
	case ROT_PROBLEM_NOT_REGULAR:
		return "not_regular_file";
	case ROT_PROBLEM_EMPTY:
		return "empty_file";
	case ROT_PROBLEM_TOO_BIG:
		return "too_big";
	case ROT_PROBLEM_CORRUPT_COMPRESSION:
	case ROT_PROBLEM_TRUNCATED_COMPRESSION:
		return "bad_compression";
	case ROT_PROBLEM_UNSUPPORTED_COMPRESSION:
		return "unsupported_compression";
	case ROT_PROBLEM_NOT_ELF:
	case ROT_PROBLEM_TRUNCATED:
	case ROT_PROBLEM_MALFORMED_ELF:
	case ROT_PROBLEM_NOT_RELOCATABLE:
	case ROT_PROBLEM_NO_MODINFO:
	case ROT_PROBLEM_NO_THIS_MODULE:
	case ROT_PROBLEM_NO_SYMBOLS:
	case ROT_PROBLEM_NO_NAME:
		return "bad_format";
	case ROT_PROBLEM_NAME_TOO_LONG:
		return "bad_name";
	case ROT_PROBLEM_WRONG_CLASS:
	case ROT_PROBLEM_WRONG_MACHINE:
	case ROT_PROBLEM_WRONG_BYTE_ORDER:
		return "wrong_architecture";
	case ROT_PROBLEM_VERMAGIC:
	case ROT_PROBLEM_VERMAGIC_FLAGS:
		return "version_magic";
	case ROT_PROBLEM_ALREADY_LOADED:
		return "already_loaded";
	case ROT_PROBLEM_UNDEFINED_SYMBOLS:
		return "unknown_symbol";
	case ROT_PROBLEM_UNSIGNED:
		return "unsigned";
	case ROT_PROBLEM_BAD_SIGNATURE:
		return "bad_signature";
	}
	return REASON_OTHER;
}
