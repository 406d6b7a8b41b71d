/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A module name as a Prometheus label value, injectively: two names never
 * give the same series. Names are any bytes the kernel was given; the text
 * format wants UTF-8 and escapes only backslash, double quote and newline.
 * So there are two layers. First the name becomes UTF-8 text that says
 * which bytes it was: a backslash becomes two, a byte that is not part of
 * valid UTF-8 (and NUL) becomes \xHH (upper-case hex); nothing else
 * changes. Then that text is escaped as the format says. Prometheus
 * undoes the second layer; tests/unit/promlabel-decode.h undoes both.
 */
#ifndef MODROT_PROMLABEL_H
#define MODROT_PROMLABEL_H

#include <stddef.h>

struct outbuf;

/* Appends the escaped form of s[0..n) (the text between the quotes). */
void prom_label_escape(struct outbuf *o, const char *s, size_t n);

#endif
