/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why something failed, in words: errno, a kernel file, an input file, a
 * file's type, a failed snapshot; and the lookup of a word by number.
 */
#ifndef MODROT_CLI_ERRORS_H
#define MODROT_CLI_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#include "cli-exit.h"

/* Reports a failed rot_snapshot_read() in one line; returns the exit code. */
enum cli_exit cli_snapshot_error(int err);

/* strerror(-err), but -ELIBACC names the library libmodrot could not open
 * and why (rot_library_error()). */
const char *cli_strerror(int err);

/* Why a kernel file could not be read, in words: for a malformed file
 * (-EPROTO) the file, the line and what is wrong, else strerror. */
const char *cli_read_error(int err, char *buf, size_t len);

/* Says "could not read WHAT: WHY" (cli_read_error()'s words) as an
 * error; returns err. */
int cli_read_failed(const char *what, int err);

/* Why an input file of rot_usage_ctx_read() could not be read, in words
 * for the errnos that function gives its own meaning, else strerror. */
const char *cli_input_error(int err);

/* What a file's type (st_mode & S_IFMT) is, in words: "a fifo",
 * "a directory", "a character device", ... */
const char *cli_file_kind(uint64_t mode);

/* Why rot_file_read() or rot_file_check() refused path, in words:
 * "a fifo, not a regular file", "larger than 16 MiB", or strerror. */
const char *cli_file_error(int err, const char *path, uint64_t limit, char *buf, size_t len);

/* What to add after strerror() so a reader knows what to do ("" if nothing). */
const char *cli_errno_hint(int err);

/* Appends to the line in buf (cap bytes, kept terminated, cut at the
 * end): sep first when buf is not empty and sep fits, then the words. */
void cli_appendf(char *buf, size_t cap, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A word for a number (an errno, an enum, a file type), in tables that
 * end with a NULL word. */
struct cli_word {
	long long key;
	const char *word;
};

/* The word of key in words, or otherwise when it has none. */
const char *cli_word_of(const struct cli_word *words, long long key, const char *otherwise);

#endif
