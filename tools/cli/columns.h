/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Listings are libsmartcols tables: a tool describes its columns once and
 * gets -o/--output, -J/--json, -r/--raw and -n/--noheadings that behave
 * the same in every tool, as in util-linux.
 */
#ifndef MODROT_COLUMNS_H
#define MODROT_COLUMNS_H

#include <libsmartcols.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jsonwrt.h"

struct column_info {
	const char *name; /* as typed after -o and shown in the header */
	double whint;
	int flags; /* SCOLS_FL_* */
	const char *help;
	const char *key; /* its JSON key, from json-keys.h */
};

struct table_style {
	bool json;
	bool raw;
	bool noheadings;
	const char *json_name; /* the array's name in the JSON object */
};

#define COLUMNS_MAX 32

/* Parses "name,size" (any case) into ids; an unknown name is a usage error. */
size_t columns_parse(const char *list, const struct column_info *cols, size_t ncols,
		     int ids[COLUMNS_MAX]);

/*
 * A listing: rows of the chosen columns, printed as a libsmartcols table
 * or written as a JSON array of objects into a json_writer's document.
 * Cells are given in the order of ids, each with its type, which JSON
 * keeps (a list is an array, [] when empty).
 */
struct listing {
	const struct column_info *cols;
	const int *ids;
	size_t nids;
	bool json;
	bool raw;                  /* an empty cell is "-" */
	struct json_writer *w;     /* JSON */
	struct libscols_table *tb; /* text */
	struct libscols_line *ln;
	bool row_open;
	bool list_first;
	struct outbuf list; /* text: a list cell being joined */
	size_t list_col;
	int err; /* sticky: -ENOMEM */
};

/* w is used (and must be started) only when style->json. */
int listing_start(struct listing *l, const struct column_info *cols, const int *ids, size_t nids,
		  const struct table_style *style, struct json_writer *w);
int listing_row(struct listing *l);
void listing_str(struct listing *l, size_t col, const char *s);
void listing_u64(struct listing *l, size_t col, uint64_t v);
/* A size: the human form (or, -b, the bytes) in a table, the bytes in JSON. */
void listing_size(struct listing *l, size_t col, uint64_t bytes);
void listing_i64(struct listing *l, size_t col, int64_t v);
void listing_bool(struct listing *l, size_t col, bool v);
/* Unknown (not empty): JSON null, an empty text cell ("-" in raw). */
void listing_unknown(struct listing *l, size_t col);
void listing_list_begin(struct listing *l, size_t col);
void listing_list_item(struct listing *l, const char *s);
void listing_list_end(struct listing *l);
/* Text: prints the table to stdout. JSON: closes the array. Returns the
 * first error (-ENOMEM). */
int listing_end(struct listing *l);

/* The "Available output columns" part of a --help text. */
void columns_print_help(FILE *out, const struct column_info *cols, size_t ncols);

#endif
