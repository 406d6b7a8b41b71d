/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared inside libmodrot; not part of its interface. */
#ifndef MODROT_INTERNAL_H
#define MODROT_INTERNAL_H

#include <stddef.h>

#include "modfile.h"

/*
 * Reads a whole file with plain read(2) calls into a malloc'd,
 * NUL-terminated buffer. /proc files report size 0, so the buffer grows
 * until read returns 0; one open, a few reads, one close.
 */
int proc_read_whole(const char *path, char **out, size_t *len);

/* ---- decompression (decompress.c) ---- */

/* By magic bytes; ROT_COMP_NONE for anything else. */
enum rot_compression compression_detect(const void *buf, size_t len);

/*
 * Decompresses a whole xz or zstd stream into a malloc'd buffer of at most
 * limit bytes. -EBADMSG: corrupt data; -ENODATA: the stream ends early;
 * -EFBIG: larger than limit; -ENOMEM.
 */
int decompress_whole(enum rot_compression c, const void *in, size_t len, size_t limit,
		     void **out, size_t *out_len);
#endif
