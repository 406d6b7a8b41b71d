/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Options and arguments: getopt with one-line messages, options that
 * exclude each other, sizes, intervals and module names as typed. */
#ifndef MODROT_CLI_OPTS_H
#define MODROT_CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "modrot.h"

/* The options that mean the same in every tool; list them in its table. */
#define CLI_OPTIONS_HELP_VERSION                  \
	{ "help", no_argument, NULL, 'h' },       \
	{                                         \
		"version", no_argument, NULL, 'V' \
	}
#define CLI_OPTIONS_SYSLOG_VERBOSE                \
	{ "syslog", no_argument, NULL, 's' },     \
	{                                         \
		"verbose", no_argument, NULL, 'v' \
	}

/*
 * What an option does when the tool needs nothing else of it: sets a flag
 * (flag), keeps its argument (arg), ORs mask into bits, parses its
 * argument as a size into size (a bad one is the usage error "'ARG' is not
 * a size (EXAMPLES)"), or calls set(true). An entry may do several, and
 * every entry of the option's value takes effect, so that an option that
 * implies another is one more entry rather than a case of its own.
 */
struct cli_store {
	int val;
	bool *flag;
	const char **arg;
	unsigned *bits;
	unsigned mask;
	uint64_t *size;
	const char *examples;
	void (*set)(bool on);
};

/*
 * getopt_long, but an unknown option or a missing argument prints one line
 * and exits CLI_EXIT_USAGE. -h, -V, -s, -v and the options of stores
 * (NULL, or ending with val 0) take effect here: the tool sees none of
 * them. Returns -1 at the end of the options.
 */
int cli_next_option(int argc, char *const argv[], const char *shortopts,
		    const struct option *longopts, const struct cli_store *stores);
/* optind as it was before cli_next_option read the option it returned last. */
int cli_option_optind(void);

/* Prints "prog: ERROR: MESSAGE" and exits CLI_EXIT_USAGE. */
noreturn void cli_usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Options that exclude each other, as util-linux's err_exclusive_options:
 * each group (at most 8) lists option values, ending with 0.
 * cli_next_option then refuses a second option of a group with "--a and
 * --b exclude each other" and exit CLI_EXIT_USAGE.
 */
#define CLI_EXCLUSIVE_MAX 6
void cli_exclusive_options(const int (*groups)[CLI_EXCLUSIVE_MAX], size_t ngroups);

/* Parses a size such as 16M, 512K, 1G or 4096 (K, M, G, T are powers of
 * 1024; a trailing B or iB is accepted). 0, -EINVAL or -ERANGE. */
int cli_parse_size(const char *text, uint64_t *bytes);

/* Parses an interval in seconds, a plain decimal (1, 0.5, 2.25) with
 * 0 < SECS <= 86400. -EINVAL: not a number; -ERANGE: out of range. */
int cli_parse_interval(const char *text, double *seconds);

/*
 * Module names as typed (or module file paths), normalised: '-' becomes
 * '_', a path gives its basename without the extension. A bad one is a
 * usage error: nothing has been done yet. The array is malloc'd.
 */
char (*cli_module_names(char *const *typed, size_t n))[ROT_NAME_MAX + 1];

#endif
