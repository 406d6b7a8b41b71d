/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one CLI helper every modrot tool uses: option parsing that turns
 * getopt's complaints into one line and exit 2, messages in kmod's
 * "prog: ERROR: ..." form (to stderr or syslog), and the exit codes of
 * architecture.md.
 */
#ifndef MODROT_CLI_H
#define MODROT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "modrot.h"

enum cli_exit {
	CLI_EXIT_OK = 0,          /* everything asked for was done */
	CLI_EXIT_PARTIAL = 1,     /* some of it failed; each failure printed */
	CLI_EXIT_USAGE = 2,       /* bad option or argument; nothing was done */
	CLI_EXIT_UNSUPPORTED = 3, /* the running kernel lacks what was asked for */
	CLI_EXIT_PERM = 4,        /* no CAP_SYS_MODULE */
};

/* help prints the tool's --help text; it runs for -h/--help. */
void cli_init(const char *progname, void (*help)(void));
const char *cli_progname(void);

/* The options that mean the same in every tool; list them in its table. */
#define CLI_OPTIONS_HELP_VERSION \
	{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' }
#define CLI_OPTIONS_SYSLOG_VERBOSE \
	{ "syslog", no_argument, NULL, 's' }, { "verbose", no_argument, NULL, 'v' }

/*
 * getopt_long without getopt's own messages: an unknown option or a missing
 * argument prints one line and exits CLI_EXIT_USAGE. -h/--help and
 * -V/--version print and exit, -s/--syslog and -v/--verbose take effect
 * here: the tool sees none of them. Returns -1 at the end of the options,
 * like getopt_long.
 */
int cli_next_option(int argc, char *const argv[], const char *shortopts,
		    const struct option *longopts);

/* Prints "prog: ERROR: MESSAGE" and exits CLI_EXIT_USAGE. */
noreturn void cli_usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed: "prog: MESSAGE". */
void cli_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v. */
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cli_set_syslog(bool on);
void cli_more_verbose(void);
bool cli_is_verbose(void);

/* "lsmod (modrot) 0.1" */
void cli_print_version(void);

/*
 * Module names as typed (or module file paths), normalised: '-' becomes
 * '_', a path gives its basename without the extension. A bad one is a
 * usage error: nothing has been done yet. The array is malloc'd.
 */
char (*cli_module_names(char *const *typed, size_t n))[ROT_NAME_MAX + 1];

/* Reports a failed rot_snapshot_read() in one line; returns the exit code. */
enum cli_exit cli_snapshot_error(int err);

/* Why a kernel file could not be read, in words: for a malformed file
 * (-EPROTO) the file, the line and what is wrong, else strerror. */
const char *cli_read_error(int err, char *buf, size_t len);

/* The exit code for a failure with this negative errno. */
enum cli_exit cli_exit_for_errno(int err);

/*
 * Parses a size such as 16M, 512K, 1G or 4096 (bytes; K, M, G, T are
 * powers of 1024, an optional trailing B or iB is accepted). Returns
 * -EINVAL or -ERANGE.
 */
int cli_parse_size(const char *text, uint64_t *bytes);

/* Parses an interval in seconds, a plain decimal (1, 0.5, 2.25) with
 * 0 < SECS <= 86400. -EINVAL: not a number; -ERANGE: out of range. */
int cli_parse_interval(const char *text, double *seconds);

/* What to add after strerror() so a reader knows what to do ("" if nothing). */
const char *cli_errno_hint(int err);


#endif
