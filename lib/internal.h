/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared inside libmodrot; not part of its interface. */
#ifndef MODROT_INTERNAL_H
#define MODROT_INTERNAL_H

#include <stddef.h>

/*
 * Reads a whole file with plain read(2) calls into a malloc'd,
 * NUL-terminated buffer. /proc files report size 0, so the buffer grows
 * until read returns 0; one open, a few reads, one close.
 */
int proc_read_whole(const char *path, char **out, size_t *len);

#endif
