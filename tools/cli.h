/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one CLI helper every modrot tool uses: option parsing that turns
 * getopt's complaints into one line and exit 2, messages in kmod's
 * "prog: LEVEL: ..." forms (to stderr or syslog), and the exit codes of
 * docs/architecture.md.
 */
#ifndef MODROT_CLI_H
#define MODROT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#include "modrot.h"
#include "outbuf.h"

enum cli_exit {
	CLI_EXIT_OK = 0,          /* everything asked for was done */
	CLI_EXIT_PARTIAL = 1,     /* some of it failed; each failure printed */
	CLI_EXIT_USAGE = 2,       /* bad option or argument; nothing was done */
	CLI_EXIT_UNSUPPORTED = 3, /* the running kernel lacks what was asked for */
	CLI_EXIT_PERM = 4,        /* no CAP_SYS_MODULE */
};

/*
 * help prints the tool's --help text; it runs for -h/--help. Also makes
 * sure descriptors 0, 1 and 2 are open (a closed one is filled with a
 * descriptor on which writes fail, so no file the tool opens later takes
 * its place), and registers the exit hook that closes standard output and
 * error: a write to stdout that failed, there or through
 * cli_output_failed(), prints one line and turns the exit status into
 * CLI_EXIT_PARTIAL, as util-linux's closestream does; a failed stderr
 * turns a success into CLI_EXIT_PARTIAL.
 */
void cli_init(const char *progname, void (*help)(void));
const char *cli_progname(void);

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

/*
 * kmod's three levels, each "prog: LEVEL: MESSAGE": FATAL for a failure
 * that ends the run (kmod's modprobe stops there; the caller stops), ERROR
 * for one the run goes on after, WARNING for what it reports and goes
 * past (also kmod's word for a per-item failure under modprobe -a). No
 * tool writes a level word itself.
 */
void cli_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Always printed: "prog: MESSAGE". */
void cli_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v, and not when quiet. */
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Output written past stdio (an outbuf bound to STDOUT_FILENO) failed with
 * this negative errno: one line is printed, once, and the run exits
 * CLI_EXIT_PARTIAL.
 */
void cli_output_failed(int err);

/* fflush(stdout) that remembers why it failed, for the line at exit;
 * returns 0 or the negative errno. Tools flush stdout through this. */
int cli_flush_stdout(void);

void cli_set_syslog(bool on);
/* Quiet: libkmod's own lines (kmodlog.h) and cli_info()'s are not
 * printed (modprobe -q). */
void cli_set_quiet(bool on);
bool cli_is_quiet(void);
void cli_more_verbose(void);
bool cli_is_verbose(void);
/* How many -v so far (cli_next_option() counts them as it meets them). */
int cli_verbosity(void);

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

/* strerror(-err), but -ELIBACC names the library libmodrot could not open
 * and why (rot_library_error()). */
const char *cli_strerror(int err);

/* Why a kernel file could not be read, in words: for a malformed file
 * (-EPROTO) the file, the line and what is wrong, else strerror. */
const char *cli_read_error(int err, char *buf, size_t len);

/* Why an input file (rot_usage_ctx_read()'s) could not be read, in words:
 * -EINVAL is "not a regular file" (a FIFO, a device), -EBADMSG a file
 * that cannot be what it should (an empty mount table, a NUL byte),
 * -ESTALE a text index its binary twin does not confirm, else strerror. */
const char *cli_input_error(int err);

/* What a file's type (st_mode & S_IFMT) is, in words: "a fifo",
 * "a directory", "a character device", ... */
const char *cli_file_kind(uint64_t mode);

/* Why rot_file_read() or rot_file_check() refused path, in words:
 * "a fifo, not a regular file", "larger than 16 MiB", or strerror. */
const char *cli_file_error(int err, const char *path, uint64_t limit, char *buf, size_t len);

/* The exit code for a failure with this negative errno: EPERM and EACCES
 * are CLI_EXIT_PERM, ENOSYS CLI_EXIT_UNSUPPORTED, the rest CLI_EXIT_PARTIAL. */
enum cli_exit cli_exit_for_errno(int err);

/*
 * What went wrong in a run that goes on after a failure. A failure that
 * only follows from an earlier one (a holder that stayed because its
 * unload was refused, a dependent skipped because its dependency was not
 * loaded) is a cascade: it has no root cause of its own. A run whose every
 * root cause is a permission error exits CLI_EXIT_PERM, cascades or not.
 */
struct cli_outcome {
	unsigned failures; /* every failure, cascades included */
	unsigned perm;     /* root causes that were EPERM or EACCES */
	unsigned cascaded; /* failures that follow from another one */
};

void cli_outcome_failed(struct cli_outcome *o, int err);
void cli_outcome_cascaded(struct cli_outcome *o);
enum cli_exit cli_outcome_exit(const struct cli_outcome *o);

/*
 * Options that exclude each other, as util-linux's err_exclusive_options:
 * each group lists option values (as cli_next_option returns them),
 * ending with 0. Once set, cli_next_option refuses a second option of a
 * group with "--a and --b exclude each other" and exit CLI_EXIT_USAGE.
 */
#define CLI_EXCLUSIVE_MAX 6
/* At most 8 groups. */
void cli_exclusive_options(const int (*groups)[CLI_EXCLUSIVE_MAX], size_t ngroups);

/*
 * The one sanitiser for text that came from outside (argv, module files,
 * kernel files) on its way to a terminal: control bytes, C1 controls, DEL,
 * bytes that are not valid UTF-8 and the backslash itself are written as
 * \xHH escapes, as util-linux does; valid UTF-8 is kept. Messages through
 * cli_error() and its siblings are sanitised whole; listings call these.
 */
bool cli_text_is_safe(const char *s, size_t n);
/* The length of the valid UTF-8 sequence at s (n >= 1 bytes left; 1 for
 * ASCII), or 0 when it is not valid UTF-8. */
size_t cli_utf8_len(const unsigned char *s, size_t n);
void cli_put_safe(struct outbuf *o, const char *s);
/* A sanitised copy (malloc'd), or NULL when out of memory. */
char *cli_safe_dup(const char *s);
/* Sanitised into buf (cap bytes, truncated between escapes); returns buf. */
const char *cli_safe(const char *s, char *buf, size_t cap);

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
