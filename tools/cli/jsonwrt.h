/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON writer of the tools (after util-linux's lib/jsonwrt.c),
 * straight into an outbuf, so a listing and the summary after it are one
 * document. Bytes that are not UTF-8 become U+FFFD, so the output always
 * parses. Layout: one member per line, three spaces a level, as
 * libsmartcols writes it; or compact, the document on one line (JSON Lines).
 */
#ifndef MODROT_JSONWRT_H
#define MODROT_JSONWRT_H

#include <stdbool.h>
#include <stdint.h>

#include "outbuf.h"

#define JSON_DEPTH_MAX 8

struct json_writer {
	struct outbuf buf;
	struct outbuf *out;
	unsigned depth;
	bool has_member[JSON_DEPTH_MAX + 1]; /* per level: a comma goes before the next */
	char closer[JSON_DEPTH_MAX + 1];     /* per level: '}' or ']' */
	bool compact;                        /* one line: no breaks, no indentation */
	unsigned overflow;                   /* containers opened past JSON_DEPTH_MAX */
};

/*
 * A document on standard output, compact or not, its top-level object
 * opened. json_finish() closes what is open, writes out what is left and
 * returns the first error (-ENOMEM, the write's errno, or -E2BIG for
 * nesting deeper than JSON_DEPTH_MAX, a bug of the tool's).
 */
int json_start_stdout(struct json_writer *w, bool compact);
int json_finish(struct json_writer *w);

/* name is the member's name inside an object (plain ASCII: the tools'
 * own constants, written as they are), NULL inside an array or at the top. */
void json_open_object(struct json_writer *w, const char *name);
void json_close_object(struct json_writer *w);
void json_open_array(struct json_writer *w, const char *name);
void json_close_array(struct json_writer *w);

void json_string(struct json_writer *w, const char *name, const char *value);
void json_u64(struct json_writer *w, const char *name, uint64_t value);
void json_i64(struct json_writer *w, const char *name, int64_t value);
void json_bool(struct json_writer *w, const char *name, bool value);
/* Only for a value that is unknown, never for an empty one. */
void json_null(struct json_writer *w, const char *name);
/* value, or null when it is NULL (unknown). */
void json_string_or_null(struct json_writer *w, const char *name, const char *value);

#endif
