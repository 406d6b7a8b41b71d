// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lsmod: list live modules and, on a rot kernel, rotting instances.
 *
 * The default layout is kmod's, byte for byte, so that scripts reading it
 * keep working; -o, -J, -r and -n switch to a libsmartcols table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "columns.h"
#include "modrot.h"
#include "outbuf.h"

enum { COL_NAME, COL_SIZE, COL_REFCNT, COL_HOLDERS, COL_STATE, COL_ADDRESS, COL_TAINTS,
       COL_PERMANENT, COL_DEVICES };

static const struct column_info columns[] = {
	[COL_NAME] = { "NAME", 0.2, 0, SCOLS_JSON_STRING, "module name" },
	[COL_SIZE] = { "SIZE", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "bytes of memory held" },
	[COL_REFCNT] = { "REFCNT", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			 "reference count (always 0 on a rot kernel)" },
	[COL_HOLDERS] = { "HOLDERS", 0.3, 0, SCOLS_JSON_ARRAY_STRING,
			  "live modules that depend on this one" },
	[COL_STATE] = { "STATE", 9, 0, SCOLS_JSON_STRING, "live, loading, unloading or rotting" },
	[COL_ADDRESS] = { "ADDRESS", 18, 0, SCOLS_JSON_STRING, "core base address" },
	[COL_TAINTS] = { "TAINTS", 6, 0, SCOLS_JSON_STRING, "module taint letters" },
	[COL_PERMANENT] = { "PERMANENT", 1, 0, SCOLS_JSON_BOOLEAN,
			    "init without exit: unloads only when forced" },
	[COL_DEVICES] = { "DEVICES", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			  "devices bound to the module's drivers (read from sysfs)" },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

enum which { SHOW_ALL, SHOW_LIVE, SHOW_ROTTING };

struct lsmod_opts {
	enum which which;
	bool table;
	struct table_style style;
	int ids[COLUMNS_MAX];
	size_t nids;
};

static void help(void)
{
	printf("Usage: %s [OPTIONS]\n"
	       "List the kernel's modules: live ones, then rotting instances.\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output LIST   columns to show (a table instead of kmod's layout)\n"
	       "  -J, --json          JSON output\n"
	       "  -r, --raw           raw table output\n"
	       "  -n, --noheadings    no header line\n"
	       "      --live          only live modules\n"
	       "      --rotting       only rotting instances, then their total\n"
	       "  -h, --help          show this help\n"
	       "  -V, --version       show the version\n",
	       cli_progname());
	columns_print_help(stdout, columns, NCOLUMNS);
}

static bool wanted(const struct lsmod_opts *o, const struct rot_module *m)
{
	switch (o->which) {
	case SHOW_LIVE:
		return !rot_module_is_rotting(m);
	case SHOW_ROTTING:
		return rot_module_is_rotting(m);
	default:
		return true;
	}
}

/* kmod's row: printf("%-19s %8ld  %d") then " holder1,holder2". */
static void kmod_row(struct outbuf *out, const struct rot_module *m, bool rot)
{
	const char *name = rot_module_name(m);
	size_t nl = strlen(name);

	outbuf_put(out, name, nl);
	outbuf_pad(out, ' ', nl < 19 ? 19 - nl : 0);
	outbuf_putc(out, ' ');
	outbuf_put_u64_right(out, rot_module_size(m), 8);
	outbuf_put(out, "  ", 2);
	outbuf_put_long(out, rot_module_refcnt(m));

	char sep = ' ';
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		outbuf_putc(out, sep);
		outbuf_puts(out, rot_module_holder(m, i));
		sep = ',';
	}
	/* The kernel's markers show on a rot kernel only: on a stock kernel the
	 * line stays exactly kmod's. */
	if (rot && rot_module_is_permanent(m)) {
		outbuf_putc(out, sep);
		outbuf_puts(out, "[permanent]");
	}
	if (rot_module_is_rotting(m))
		outbuf_puts(out, " [rotting]");
	outbuf_putc(out, '\n');
}

static int print_kmod_layout(const struct lsmod_opts *o, const struct rot_snapshot *snap)
{
	struct outbuf out;
	bool rot = rot_snapshot_has_rot(snap);
	uint64_t rot_bytes = 0;
	size_t rot_count = 0;

	if (outbuf_init_stream(&out, STDOUT_FILENO, 64 * 1024) < 0)
		return -ENOMEM;
	outbuf_puts(&out, "Module                  Size  Used by\n");
	for (size_t i = 0; i < rot_snapshot_count(snap); i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		if (!wanted(o, m))
			continue;
		kmod_row(&out, m, rot);
		if (rot_module_is_rotting(m)) {
			rot_count++;
			rot_bytes += rot_module_size(m);
		}
	}
	if (o->which == SHOW_ROTTING) {
		outbuf_put_u64_right(&out, rot_count, 0);
		outbuf_puts(&out, rot_count == 1 ? " rotting instance, " : " rotting instances, ");
		outbuf_put_u64_right(&out, rot_bytes, 0);
		outbuf_puts(&out, " bytes\n");
	}
	int err = outbuf_flush(&out);
	outbuf_release(&out);
	return err;
}

static int set_cell(struct libscols_line *ln, size_t col, const struct rot_module *m, int id,
		    char list_sep)
{
	char num[32];
	const char *text = num;

	switch (id) {
	case COL_NAME:
		text = rot_module_name(m);
		break;
	case COL_SIZE:
		snprintf(num, sizeof(num), "%" PRIu64, rot_module_size(m));
		break;
	case COL_REFCNT:
		snprintf(num, sizeof(num), "%ld", rot_module_refcnt(m));
		break;
	case COL_HOLDERS: {
		/* In JSON, smartcols turns the separated list into an array. */
		size_t n = rot_module_holder_count(m), len = 1;
		for (size_t i = 0; i < n; i++)
			len += strlen(rot_module_holder(m, i)) + 1;
		char *joined = malloc(len), *p = joined;
		if (!joined)
			return -ENOMEM;
		*p = '\0';
		for (size_t i = 0; i < n; i++)
			p += sprintf(p, "%s%s", i ? (char[]){ list_sep, '\0' } : "",
				     rot_module_holder(m, i));
		int err = scols_line_refer_data(ln, col, joined);
		if (err < 0)
			free(joined);
		return err;
	}
	case COL_STATE:
		text = rot_state_name(rot_module_state(m));
		break;
	case COL_ADDRESS:
		snprintf(num, sizeof(num), "0x%016" PRIx64, rot_module_address(m));
		break;
	case COL_TAINTS:
		text = rot_module_taints(m);
		break;
	case COL_PERMANENT:
		text = rot_module_is_permanent(m) ? "true" : "false";
		break;
	case COL_DEVICES: {
		/* A rotting instance has no sysfs directory, and no devices. */
		size_t n = 0;
		if (!rot_module_is_rotting(m)) {
			int err = rot_module_bound_devices(rot_module_name(m), &n);
			if (err < 0)
				return err;
		}
		snprintf(num, sizeof(num), "%zu", n);
		break;
	}
	}
	return scols_line_set_data(ln, col, text);
}

static int print_table(const struct lsmod_opts *o, const struct rot_snapshot *snap)
{
	struct libscols_table *tb = columns_table_new(columns, o->ids, o->nids, &o->style);
	int err = tb ? 0 : -ENOMEM;

	for (size_t i = 0; err == 0 && i < rot_snapshot_count(snap); i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		if (!wanted(o, m))
			continue;
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		if (!ln) {
			err = -ENOMEM;
			break;
		}
		for (size_t c = 0; err == 0 && c < o->nids; c++)
			err = set_cell(ln, c, m, o->ids[c], columns_list_sep(&o->style));
	}
	if (err == 0)
		err = scols_print_table(tb);
	scols_unref_table(tb);
	return err;
}

static void parse_options(int argc, char *argv[], struct lsmod_opts *o)
{
	enum { OPT_LIVE = 256, OPT_ROTTING };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'J' },
		{ "raw", no_argument, NULL, 'r' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "live", no_argument, NULL, OPT_LIVE },
		{ "rotting", no_argument, NULL, OPT_ROTTING },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int c;

	while ((c = cli_next_option(argc, argv, "o:JrnhV", longopts)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'J':
			o->style.json = true;
			break;
		case 'r':
			o->style.raw = true;
			break;
		case 'n':
			o->style.noheadings = true;
			break;
		case OPT_LIVE:
		case OPT_ROTTING:
			if (o->which != SHOW_ALL)
				cli_usage_fail("--live and --rotting exclude each other");
			o->which = c == OPT_LIVE ? SHOW_LIVE : SHOW_ROTTING;
			break;
		}
	}
	if (optind < argc)
		cli_usage_fail("unexpected argument '%s'", argv[optind]);
	if (o->style.json && o->style.raw)
		cli_usage_fail("--json and --raw exclude each other");

	o->table = output || o->style.json || o->style.raw || o->style.noheadings;
	o->style.json_name = "modules";
	if (o->table)
		o->nids = columns_parse(output ? output : "NAME,SIZE,REFCNT,HOLDERS,STATE",
					columns, NCOLUMNS, o->ids);
}

int main(int argc, char *argv[])
{
	struct lsmod_opts o = { .which = SHOW_ALL };
	struct rot_snapshot *snap;

	cli_init("lsmod", help);
	parse_options(argc, argv, &o);

	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return cli_snapshot_error(err);
	if (o.which == SHOW_ROTTING && !rot_snapshot_has_rot(snap)) {
		rot_snapshot_free(snap);
		cli_error("this kernel has no module rot support (/proc/rotting_modules is missing)");
		return CLI_EXIT_UNSUPPORTED;
	}

	err = o.table ? print_table(&o, snap) : print_kmod_layout(&o, snap);
	rot_snapshot_free(snap);
	/* libsmartcols writes through stdio: a failed write shows only here. */
	if (err == 0 && (fflush(stdout) != 0 || ferror(stdout)))
		err = errno ? -errno : -EIO;
	if (err < 0) {
		cli_error("could not write the list: %s", strerror(-err));
		return CLI_EXIT_PARTIAL;
	}
	return CLI_EXIT_OK;
}
