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
#include <stdio.h>

struct column_info {
	const char *name;  /* as typed after -o and shown in the header */
	double whint;
	int flags;         /* SCOLS_FL_* */
	int json_type;     /* SCOLS_JSON_*; array cells are filled with columns_list_sep() */
	const char *help;
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

/* A new table with the chosen columns; NULL when out of memory. */
struct libscols_table *columns_table_new(const struct column_info *cols, const int *ids,
					 size_t nids, const struct table_style *style);

/* What separates the elements of a list cell: ',' in tables, '\n' in JSON
 * (where each becomes an array element). */
char columns_list_sep(const struct table_style *style);

/* The "Available output columns" part of a --help text. */
void columns_print_help(FILE *out, const struct column_info *cols, size_t ncols);

#endif
