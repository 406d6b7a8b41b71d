/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text from outside on its way to a terminal, escaped as util-linux does.
 */
#ifndef MODROT_CLI_ESCAPE_H
#define MODROT_CLI_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "outbuf.h"

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

#endif
