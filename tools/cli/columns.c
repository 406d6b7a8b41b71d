// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli-opts.h"
#include "columns.h"
#include "sizewords.h"

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

int listing_start(struct listing *l, const struct column_info *cols, const int *ids, size_t nids,
		  const struct table_style *style, struct json_writer *w)
{
	*l = (struct listing){ .cols = cols,
			       .ids = ids,
			       .nids = nids < COLUMNS_MAX ? nids : COLUMNS_MAX,
			       .json = style->json,
			       .raw = style->raw };
	if (l->json) {
		l->w = w;
		json_open_array(w, style->json_name);
		return 0;
	}
	l->tb = scols_new_table();
	if (l->tb) {
		scols_table_enable_raw(l->tb, style->raw);
		scols_table_enable_noheadings(l->tb, style->noheadings);
	}
	for (size_t i = 0; l->tb && i < l->nids; i++) {
		const struct column_info *ci = &cols[ids[i]];
		if (!scols_table_new_column(l->tb, ci->name, ci->whint, ci->flags)) {
			scols_unref_table(l->tb); /* the table is all or nothing */
			l->tb = NULL;
		}
	}
	if (!l->tb)
		l->err = -ENOMEM;
	return l->err;
}

static const char *key_of(const struct listing *l, size_t col)
{
	return l->cols[l->ids[col]].key;
}

int listing_row(struct listing *l)
{
	if (l->err)
		return l->err;
	if (l->json) {
		if (l->row_open)
			json_close_object(l->w);
		json_open_object(l->w, NULL);
		l->row_open = true;
		return 0;
	}
	l->ln = scols_table_new_line(l->tb, NULL);
	if (!l->ln)
		l->err = -ENOMEM;
	return l->err;
}

/* Text cells go to smartcols as they are: it writes control bytes, bytes
 * that do not print in the C locale and the backslash as \xHH escapes, as
 * cli_put_safe() does (util-linux's rule, kept by util-linux's library). */
static void text_cell(struct listing *l, size_t col, const char *s)
{
	if (l->err || !l->ln)
		return;
	/* Raw rows are split on blanks: an empty cell would shift every
	 * field after it. ps(1)'s and ss(8)'s "-" stands in. */
	if (l->raw && !*s)
		s = "-";
	if (scols_line_set_data(l->ln, col, s) < 0)
		l->err = -ENOMEM;
}

void listing_str(struct listing *l, size_t col, const char *s)
{
	if (l->json)
		json_string(l->w, key_of(l, col), s);
	else
		text_cell(l, col, s);
}

void listing_u64(struct listing *l, size_t col, uint64_t v)
{
	char num[24];
	if (l->json)
		json_u64(l->w, key_of(l, col), v);
	else if (snprintf(num, sizeof(num), "%" PRIu64, v) > 0) /* always: a number */
		text_cell(l, col, num);
}

void listing_size(struct listing *l, size_t col, uint64_t bytes)
{
	char cell[SIZE_WORDS_MAX];
	if (l->json)
		listing_u64(l, col, bytes);
	else
		text_cell(l, col, size_words(bytes, "", cell));
}

void listing_i64(struct listing *l, size_t col, int64_t v)
{
	char num[24];
	if (l->json)
		json_i64(l->w, key_of(l, col), v);
	else if (snprintf(num, sizeof(num), "%" PRId64, v) > 0) /* always: a number */
		text_cell(l, col, num);
}

void listing_bool(struct listing *l, size_t col, bool v)
{
	if (l->json)
		json_bool(l->w, key_of(l, col), v);
	else
		text_cell(l, col, v ? "true" : "false");
}

void listing_unknown(struct listing *l, size_t col)
{
	if (l->json)
		json_null(l->w, key_of(l, col));
	else
		text_cell(l, col, "");
}

void listing_list_begin(struct listing *l, size_t col)
{
	l->list_col = col;
	l->list_first = true;
	if (l->json)
		json_open_array(l->w, key_of(l, col));
	else if (!l->err && outbuf_init(&l->list, 64) < 0)
		l->err = -ENOMEM;
}

void listing_list_item(struct listing *l, const char *s)
{
	if (l->json)
		json_string(l->w, NULL, s);
	if (l->json || l->err)
		return;
	if (!l->list_first)
		outbuf_putc(&l->list, ',');
	l->list_first = false;
	outbuf_puts(&l->list, s);
}

void listing_list_end(struct listing *l)
{
	if (l->json)
		json_close_array(l->w);
	if (l->json || l->err)
		return;
	outbuf_putc(&l->list, '\0');
	if (outbuf_failed(&l->list))
		l->err = -ENOMEM;
	else
		text_cell(l, l->list_col, l->list.buf);
	outbuf_release(&l->list);
}

int listing_end(struct listing *l)
{
	int err = l->err;
	if (l->json) {
		if (l->row_open)
			json_close_object(l->w);
		json_close_array(l->w);
		return err;
	}
	if (err == 0 && scols_print_table(l->tb) < 0)
		err = -ENOMEM;
	scols_unref_table(l->tb);
	l->tb = NULL;
	return err;
}

void columns_print_help(FILE *out, const struct column_info *cols, size_t ncols)
{
	fputs("\nAvailable output columns:\n", out);
	for (size_t i = 0; i < ncols; i++)
		fprintf(out, " %11s  %s\n", cols[i].name, cols[i].help);
}
