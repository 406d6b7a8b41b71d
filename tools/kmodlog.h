/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libkmod's own messages, in the tool's words: every tool that makes a
 * kmod_ctx makes it here. libkmod writes to stderr from the moment
 * kmod_new() starts (configuration it could not parse, KMOD_LOG=debug),
 * before a log function can be set; those lines are caught and replayed,
 * and every later one goes to the same function. Each line goes through
 * the CLI helper (the one sanitiser, syslog with -s), and none at all with
 * cli_set_quiet(true).
 */
#ifndef MODROT_KMODLOG_H
#define MODROT_KMODLOG_H

struct kmod_ctx;

/* kmod_new(dirname, config_paths) with the tool's log function; NULL when
 * out of memory. */
struct kmod_ctx *cli_kmod_new(const char *dirname, const char *const *config_paths);

#endif
