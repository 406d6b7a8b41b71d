// SPDX-License-Identifier: GPL-2.0-or-later
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "columns.h"

size_t columns_parse(const char *list, const struct column_info *cols, size_t ncols,
		     int ids[COLUMNS_MAX])
{
	size_t n = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < ncols; i++)
			if (strlen(cols[i].name) == len && strncasecmp(cols[i].name, p, len) == 0)
				break;
		if (i == ncols)
			cli_usage_fail("unknown column '%.*s'", (int)len, p);
		if (n == COLUMNS_MAX)
			cli_usage_fail("too many columns in '%s'", list);
		ids[n++] = (int)i;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0)
		cli_usage_fail("no columns given to --output");
	return n;
}

struct libscols_table *columns_table_new(const struct column_info *cols, const int *ids,
					 size_t nids, const struct table_style *style)
{
	struct libscols_table *tb = scols_new_table();
	if (!tb)
		return NULL;
	scols_table_enable_json(tb, style->json);
	scols_table_enable_raw(tb, style->raw);
	scols_table_enable_noheadings(tb, style->noheadings);
	/* Unchecked, a name that could not be copied prints as "". */
	if (style->json && scols_table_set_name(tb, style->json_name) < 0) {
		scols_unref_table(tb);
		return NULL;
	}

	for (size_t i = 0; i < nids; i++) {
		const struct column_info *ci = &cols[ids[i]];
		struct libscols_column *cl = scols_table_new_column(tb, ci->name, ci->whint, ci->flags);
		if (!cl) {
			scols_unref_table(tb);
			return NULL;
		}
		if (!style->json)
			continue;
		int err = scols_column_set_json_type(cl, ci->json_type);
		/* An array cell holds its elements one per line; smartcols splits
		 * them into JSON array elements only through a wrap function. */
		if (err == 0 && (ci->json_type == SCOLS_JSON_ARRAY_STRING ||
				 ci->json_type == SCOLS_JSON_ARRAY_NUMBER)) {
			err = scols_column_set_flags(cl, ci->flags | SCOLS_FL_WRAP);
			if (err == 0)
				err = scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize,
								scols_wrapnl_nextchunk, NULL);
			/* Copied: without it the elements would not be split. */
			if (err == 0)
				err = scols_column_set_safechars(cl, "\n");
		}
		if (err < 0) {
			scols_unref_table(tb);
			return NULL;
		}
	}
	return tb;
}

char columns_list_sep(const struct table_style *style)
{
	return style->json ? '\n' : ',';
}

void columns_print_help(FILE *out, const struct column_info *cols, size_t ncols)
{
	fputs("\nAvailable output columns:\n", out);
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, " %11s  %s\n", cols[i].name, cols[i].help);
}
