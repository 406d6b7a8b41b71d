/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Messages in kmod's "prog: LEVEL: ..." forms, to stderr or syslog, and
 * how much is said (-s, -q, -v).
 */
#ifndef MODROT_CLI_MSG_H
#define MODROT_CLI_MSG_H

#include <stdbool.h>

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

/* Quiet: libkmod's own lines (kmodlog.h) and cli_info()'s are not
 * printed (modprobe -q). */
void cli_set_quiet(bool on);
bool cli_is_quiet(void);
/* How many -v so far (cli_next_option() counts them as it meets them). */
int cli_verbosity(void);

#endif
