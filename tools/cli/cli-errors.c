// SPDX-License-Identifier: GPL-2.0-or-later
/* Why something failed, in words. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "modrot.h"

enum cli_exit cli_snapshot_error(int err)
{
	if (err == -ENOENT) {
		cli_error("this kernel has no module support (/proc/modules is missing)");
		return CLI_EXIT_UNSUPPORTED;
	}
	return cli_exit_for_errno(cli_read_failed("the module list", err));
}

int cli_read_failed(const char *what, int err)
{
	char why[256];
	cli_error("could not read %s: %s", what, cli_read_error(err, why, sizeof(why)));
	return err;
}

const char *cli_strerror(int err)
{
	const char *lib = err == -ELIBACC ? rot_library_error() : NULL;
	return lib ? lib : strerror(-err);
}

const char *cli_read_error(int err, char *buf, size_t len)
{
	const struct rot_parse_error *pe = err == -EPROTO ? rot_parse_error_last() : NULL;
	if (!pe)
		return cli_strerror(err);
	snprintf(buf, len, "%s line %zu: %s", pe->file, pe->line, pe->reason);
	return buf;
}

const char *cli_input_error(int err)
{
	static const struct cli_word words[] = {
		{ -EINVAL, "not a regular file" },
		{ -EBADMSG, "malformed (empty, a NUL byte, or a line without a type)" },
		{ -ESTALE, "not what its binary index holds (run depmod)" },
		{ -ENOLINK, "names no mount namespace (not mnt:[INODE])" },
		{ -ENODATA, "has no line for it (it loaded while the module list was read)" },
		{ -EXDEV, "read for another kernel than the module list's" },
		{ -EAGAIN, "its processes kept changing while their mount tables were read" },
		{ 0, NULL },
	};
	return cli_word_of(words, err, cli_strerror(err));
}

const char *cli_file_kind(uint64_t mode)
{
	static const struct cli_word words[] = {
		{ S_IFDIR, "a directory" },    { S_IFCHR, "a character device" },
		{ S_IFBLK, "a block device" }, { S_IFIFO, "a fifo" },
		{ S_IFSOCK, "a socket" },      { 0, NULL },
	};
	return cli_word_of(words, (long long)mode, "not a regular file");
}

const char *cli_file_error(int err, const char *path, uint64_t limit, char *buf, size_t len)
{
	struct stat st;
	if (err == -EINVAL && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(buf, len, "%s, not a regular file", cli_file_kind(st.st_mode & S_IFMT));
		return buf;
	}
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG) {
		snprintf(buf, len, "too large: more than %llu MiB",
			 (unsigned long long)(limit >> 20));
		return buf;
	}
	return cli_strerror(err);
}

const char *cli_errno_hint(int err)
{
	if (err == -EPERM)
		return " (this needs CAP_SYS_MODULE, and module loading must not be disabled)";
	return "";
}

void cli_appendf(char *buf, size_t cap, const char *sep, const char *fmt, ...)
{
	size_t n = strlen(buf), k = strlen(sep);
	if (n && n + k < cap) {
		memcpy(buf + n, sep, k + 1);
		n += k;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

const char *cli_word_of(const struct cli_word *words, long long key, const char *otherwise)
{
	for (; words->word; words++)
		if (words->key == key)
			return words->word;
	return otherwise;
}
