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

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "columns.h"
#include "json-keys.h"
#include "modrot.h"
#include "jsonwrt.h"
#include "outbuf.h"

enum {
	COL_NAME,
	COL_SIZE,
	COL_REFCNT,
	COL_HOLDERS,
	COL_STATE,
	COL_ADDRESS,
	COL_TAINTS,
	COL_PERMANENT,
	COL_DEVICES,
	COL_PERCPU,
	COL_MOUNTS,
	COL_INUSE,
	COL_PINS
};

static const struct column_info columns[] = {
	[COL_NAME] = { "NAME", 0.2, 0, "module name", JK_NAME },
	[COL_SIZE] = { "SIZE", 8, SCOLS_FL_RIGHT, "bytes of memory held", JK_BYTES },
	[COL_REFCNT] = { "REFCNT", 3, SCOLS_FL_RIGHT, "reference count (always 0 on a rot kernel)",
			 JK_REFCNT },
	[COL_HOLDERS] = { "HOLDERS", 0.3, 0, "live modules that depend on this one", JK_HOLDERS },
	[COL_STATE] = { "STATE", 9, 0, "live, loading, unloading or rotting", JK_STATE },
	[COL_ADDRESS] = { "ADDRESS", 18, 0, "core base address", JK_ADDRESS },
	[COL_TAINTS] = { "TAINTS", 6, 0, "module taint letters", JK_TAINTS },
	[COL_PERMANENT] = { "PERMANENT", 1, 0, "init without exit: unloads only when forced",
			    JK_PERMANENT },
	[COL_DEVICES] = { "DEVICES", 3, SCOLS_FL_RIGHT,
			  "devices bound to the module's drivers (read from sysfs)", JK_DEVICES },
	[COL_PERCPU] = { "PERCPU", 6, SCOLS_FL_RIGHT,
			 "bytes held in the per-CPU module reserve, per CPU (empty: not reported)",
			 JK_PERCPU_BYTES },
	[COL_MOUNTS] = { "MOUNTS", 3, SCOLS_FL_RIGHT,
			 "mounts of file system types the module provides (its fs-TYPE aliases)",
			 JK_MOUNTS },
	[COL_INUSE] = { "INUSE", 1, 0,
			"in use: holders, bound devices, and pins (rot-abi revision 4), references "
			"(stock) or mounts (revisions 1 to 3); what modprobe -r and rmmod --unused "
			"leave alone",
			JK_INUSE },
	[COL_PINS] = { "PINS", 3, SCOLS_FL_RIGHT,
		       "outstanding pins: a rotting instance's keep it from being reclaimed, a live "
		       "module's (rot-abi revision 4) from being unloaded unless it declares "
		       "MODULE_ROT_SAFE; unknown for a live module on an older kernel",
		       JK_PINS },
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
	       "  -s, --syslog        report errors to syslog instead of stderr\n"
	       "  -v, --verbose       also say on stderr what was read\n"
	       "  -h, --help          show this help\n"
	       "  -V, --version       show the version\n",
	       cli_progname());
	columns_print_help(stdout, columns, NCOLUMNS);
}

/* What one listing read, and what its cells need. */
struct lsmod_run {
	const struct rot_snapshot *snap; /* the modules listed */
	/*
	 * The per-CPU module reserve (/proc/module_percpu), read only when a
	 * PERCPU column or the --rotting total needs it. Absent (a stock
	 * kernel, an older rot kernel): every PERCPU cell is unknown and the
	 * total says nothing of the reserve.
	 */
	struct rot_percpu *percpu;
	uint64_t *percpu_of; /* per position in snap */
	/* For MOUNTS and INUSE: the mount table, read once when the first
	 * such cell is made. */
	struct rot_usage_ctx *usage_ctx;
	bool usage_ctx_read;
	bool cell_failed; /* a cell could not be made, for a reason already printed */
};

static int read_percpu(struct lsmod_run *r, bool column)
{
	const struct rot_snapshot *snap = r->snap;
	if (!rot_snapshot_has_rot(snap))
		return 0;
	int err = rot_percpu_read(&r->percpu);
	/* The total line's reserve is extra: a reader the kernel keeps out
	 * gets the total without it, where a PERCPU column asked for fails. */
	if (err == -ENOENT || (!column && (err == -EACCES || err == -EPERM)))
		return 0;
	if (err < 0)
		return cli_read_failed("the per-CPU reserve", err);
	r->percpu_of = malloc((rot_snapshot_count(snap) + 1) * sizeof(*r->percpu_of));
	if (!r->percpu_of) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	rot_percpu_per_module(r->percpu, snap, r->percpu_of);
	return 0;
}

/* "; per-CPU reserve 8192 bytes: 7500 held by rotting instances, 692 free" */
static void put_reserve_total(struct outbuf *out, const struct rot_percpu *percpu)
{
	uint64_t held = 0;
	for (size_t i = 0; i < rot_percpu_count(percpu); i++)
		if (rot_percpu_state(percpu, i) == ROT_STATE_ROTTING)
			held += rot_percpu_bytes(percpu, i);
	outbuf_puts(out, "; per-CPU reserve ");
	outbuf_put_u64_right(out, rot_percpu_reserve(percpu), 0);
	outbuf_puts(out, " bytes: ");
	outbuf_put_u64_right(out, held, 0);
	outbuf_puts(out, " held by rotting instances, ");
	outbuf_put_u64_right(out, rot_percpu_free_bytes(percpu), 0);
	outbuf_puts(out, " free");
}

/*
 * kmod's row: printf("%-19s %8ld  %d") then " holder1,holder2". Names come
 * from a kernel file: they reach the terminal sanitised.
 *
 * A rotting instance's name is in parentheses: scripts ask whether a module
 * is loaded with `grep -q "^NAME "` or `awk '$1 == NAME'`, and an instance
 * that only rots is not loaded. "(gamma)" is never a module's name.
 */
static void kmod_row(struct outbuf *out, const struct rot_module *m, bool rot, bool rotting)
{
	const char *name = rot_module_name(m);
	size_t nl = strlen(name);

	/* A plain name (every name a kernel gives): the name, its padding, the
	 * size and the count written in place, with one check for room. */
	if (cli_text_is_safe(name, nl) &&
	    outbuf_reserve(out, nl + 2 + 20 + OUTBUF_U64_ROOM(8) + 2 + 1)) {
		char *p = out->buf + out->len;
		*p = '(';
		p += rotting;
		memcpy(p, name, nl);
		p += nl;
		*p = ')';
		p += rotting;
		nl += 2 * (size_t)rotting;
		memset(p, ' ', 20);
		p += (nl < 19 ? 19 - nl : 0) + 1;
		p = outbuf_u64_right_at(p, rot_module_size(m), 8);
		memcpy(p, "  ", 2);
		out->len = (size_t)(p + 2 - out->buf);
	} else {
		if (rotting)
			outbuf_putc(out, '(');
		size_t before = out->len;
		cli_put_safe(out, name);
		nl = out->len - before;
		if (rotting) {
			outbuf_putc(out, ')');
			nl += 2;
		}
		outbuf_pad(out, ' ', nl < 19 ? 19 - nl : 0);
		outbuf_putc(out, ' ');
		outbuf_put_u64_right(out, rot_module_size(m), 8);
		outbuf_put(out, "  ", 2);
	}
	/* kmod's "Used by" count: for a rotting instance, its pins (rot-abi.md
	 * P1). One digit, as on every line of a rot kernel: no conversion. */
	long count = rot_module_refcnt(m);
	if (count >= 0 && count < 10)
		outbuf_putc(out, (char)('0' + count));
	else
		outbuf_put_long(out, count);

	char sep = ' ';
	for (size_t i = 0, n = rot_module_holder_count(m); i < n; i++) {
		outbuf_putc(out, sep);
		cli_put_safe(out, rot_module_holder(m, i));
		sep = ',';
	}
	/* The kernel's markers show on a rot kernel only: on a stock kernel the
	 * line stays exactly kmod's. */
	if (rot && rot_module_is_permanent(m)) {
		outbuf_putc(out, sep);
		outbuf_puts(out, "[permanent]");
	}
	if (rotting)
		outbuf_puts(out, " [rotting]");
	outbuf_putc(out, '\n');
}

static int print_kmod_layout(const struct lsmod_opts *o, const struct lsmod_run *r)
{
	const struct rot_snapshot *snap = r->snap;
	struct outbuf out;
	bool rot = rot_snapshot_has_rot(snap);
	uint64_t rot_bytes = 0;
	size_t rot_count = 0;

	if (outbuf_init_stream(&out, STDOUT_FILENO, 16 * 1024) < 0)
		return -ENOMEM;
	outbuf_puts(&out, "Module                  Size  Used by\n");
	for (size_t i = 0, n = rot_snapshot_count(snap); i < n; i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		bool rotting = rot_module_is_rotting(m);
		if (o->which == (rotting ? SHOW_LIVE : SHOW_ROTTING))
			continue;
		kmod_row(&out, m, rot, rotting);
		if (rotting) {
			rot_count++;
			rot_bytes += rot_module_size(m);
		}
	}
	if (o->which == SHOW_ROTTING) {
		outbuf_put_u64_right(&out, rot_count, 0);
		outbuf_puts(&out, rot_count == 1 ? " rotting instance, " : " rotting instances, ");
		outbuf_put_u64_right(&out, rot_bytes, 0);
		outbuf_puts(&out, " bytes");
		if (r->percpu)
			put_reserve_total(&out, r->percpu);
		outbuf_putc(&out, '\n');
	}
	int err = outbuf_flush(&out);
	outbuf_release(&out);
	return err;
}

static int usage_of(struct lsmod_run *r, const struct rot_module *m, struct rot_usage *u)
{
	char what[4096];
	const char *input = what;
	int err = 0;
	if (!r->usage_ctx_read) {
		r->usage_ctx_read = true;
		err = rot_usage_ctx_read(r->snap, NULL, &r->usage_ctx, what, sizeof(what));
	}
	if (err >= 0) {
		err = rot_module_usage(r->usage_ctx, r->snap, m, NULL, u);
		input = rot_usage_ctx_failed_input(r->usage_ctx);
	}
	if (err < 0 && err != -ENOMEM && input)
		cli_error("cannot tell which modules are in use: could not read %s: %s", input,
			  cli_input_error(err));
	else if (err < 0 && err != -ENOMEM)
		cli_error("could not count the devices of %s: %s", rot_module_name(m),
			  cli_strerror(err));
	r->cell_failed |= err < 0 && err != -ENOMEM;
	return err;
}

static int set_cell(struct lsmod_run *r, struct listing *l, size_t col, const struct rot_module *m,
		    int id)
{
	char num[32];

	switch (id) {
	case COL_NAME:
		listing_str(l, col, rot_module_name(m));
		break;
	case COL_SIZE:
		listing_u64(l, col, rot_module_size(m));
		break;
	case COL_REFCNT:
		/* a rotting line's third column is its pins (PINS) */
		listing_i64(l, col, rot_module_is_rotting(m) ? 0 : rot_module_refcnt(m));
		break;
	case COL_PINS:
		if (rot_module_pins_known(m))
			listing_u64(l, col, rot_module_pins(m));
		else
			listing_unknown(l, col); /* no file shows a live module's pins there */
		break;
	case COL_HOLDERS:
		listing_list_begin(l, col);
		for (size_t i = 0; i < rot_module_holder_count(m); i++)
			listing_list_item(l, rot_module_holder(m, i));
		listing_list_end(l);
		break;
	case COL_STATE:
		listing_str(l, col, rot_state_name(rot_module_state(m)));
		break;
	case COL_ADDRESS:
		snprintf(num, sizeof(num), "0x%016" PRIx64, rot_module_address(m));
		listing_str(l, col, num);
		break;
	case COL_TAINTS:
		listing_str(l, col, rot_module_taints(m));
		break;
	case COL_PERMANENT:
		listing_bool(l, col, rot_module_is_permanent(m));
		break;
	case COL_PERCPU:
		if (r->percpu_of)
			listing_u64(l, col, r->percpu_of[rot_snapshot_index_of(r->snap, m)]);
		else
			listing_unknown(l, col);
		break;
	case COL_DEVICES: {
		/* A rotting instance has no sysfs directory, and no devices; nor
		 * has a live one that left sysfs while we listed. */
		size_t n = 0;
		int err = rot_module_is_rotting(m) ? 0
						   : rot_name_bound_devices(rot_module_name(m), &n);
		/* Unreadable is not none: a count that could not be made stops
		 * the listing with the reason. */
		if (err < 0 && err != -ENOMEM) {
			cli_error("could not count the devices of %s: %s", rot_module_name(m),
				  cli_strerror(err));
			r->cell_failed = true;
		}
		if (err < 0)
			return err;
		listing_u64(l, col, n);
		break;
	}
	case COL_MOUNTS:
	case COL_INUSE: {
		struct rot_usage u = { .size = sizeof(u) };
		int err = usage_of(r, m, &u);
		if (err < 0)
			return err;
		/* a kernel that counts its users (stock, rot-abi revision 4) is
		 * asked no mount table */
		if (id == COL_MOUNTS &&
		    (!rot_snapshot_has_rot(r->snap) || rot_snapshot_has_pins(r->snap)))
			listing_unknown(l, col);
		else if (id == COL_MOUNTS)
			listing_u64(l, col, u.mounts);
		else
			listing_bool(l, col, rot_usage_in_use(&u));
		break;
	}
	}
	return 0;
}

static int print_table(const struct lsmod_opts *o, struct lsmod_run *r)
{
	const struct rot_snapshot *snap = r->snap;
	struct json_writer w;
	struct listing l;
	int err = o->style.json ? json_start_stdout(&w, false) : 0;

	if (err < 0)
		return err;
	err = listing_start(&l, columns, o->ids, o->nids, &o->style, &w);
	for (size_t i = 0; err == 0 && i < rot_snapshot_count(snap); i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		if (o->which == (rot_module_is_rotting(m) ? SHOW_LIVE : SHOW_ROTTING))
			continue;
		err = listing_row(&l);
		for (size_t c = 0; err == 0 && c < o->nids; c++)
			err = set_cell(r, &l, c, m, o->ids[c]);
	}
	/* A cell that failed: no half table is printed (JSON still closes). */
	if (err < 0 && !l.err)
		l.err = err;
	int end = listing_end(&l), fin = o->style.json ? json_finish(&w) : 0;
	return err ? err : end ? end : fin;
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
		CLI_OPTIONS_SYSLOG_VERBOSE,
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	static const int exclusive[][CLI_EXCLUSIVE_MAX] = {
		{ 'J', 'r' },
		{ OPT_LIVE, OPT_ROTTING },
	};
	const char *output = NULL;
	const struct cli_store stores[] = {
		{ 'o', .arg = &output },
		{ 'J', .flag = &o->style.json },
		{ 'r', .flag = &o->style.raw },
		{ 'n', .flag = &o->style.noheadings },
		{ 0 },
	};
	int c;

	cli_exclusive_options(exclusive, 2);
	while ((c = cli_next_option(argc, argv, "o:JrnsvhV", longopts, stores)) != -1)
		o->which = c == OPT_LIVE ? SHOW_LIVE : SHOW_ROTTING;
	if (optind < argc)
		cli_usage_fail("unexpected argument '%s'", argv[optind]);

	o->table = output || o->style.json || o->style.raw || o->style.noheadings;
	o->style.json_name = JK_MODULES;
	if (o->table)
		o->nids = columns_parse(output ? output : "NAME,SIZE,REFCNT,HOLDERS,STATE", columns,
					NCOLUMNS, o->ids);
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
	size_t live = rot_snapshot_live_count(snap);
	size_t rotting = rot_snapshot_count(snap) - live;
	cli_info("read %zu live module%s and %zu rotting instance%s", live, live == 1 ? "" : "s",
		 rotting, rotting == 1 ? "" : "s");
	if (o.which == SHOW_ROTTING && !rot_snapshot_has_rot(snap)) {
		rot_snapshot_free(snap);
		cli_error("this kernel has no module rot support (/proc/rotting_modules is missing)");
		return CLI_EXIT_UNSUPPORTED;
	}

	struct lsmod_run r = { .snap = snap };
	bool column = false;
	for (size_t c = 0; o.table && c < o.nids; c++)
		column |= o.ids[c] == COL_PERCPU;
	bool need_percpu = column || (!o.table && o.which == SHOW_ROTTING);
	if (need_percpu && (err = read_percpu(&r, column)) < 0) {
		rot_snapshot_free(snap);
		return cli_exit_for_errno(err);
	}

	err = o.table ? print_table(&o, &r) : print_kmod_layout(&o, &r);
	rot_usage_ctx_free(r.usage_ctx);
	rot_snapshot_free(snap);
	rot_percpu_free(r.percpu);
	free(r.percpu_of);
	if (err == -ENOMEM) {
		cli_error("out of memory");
		return CLI_EXIT_PARTIAL;
	}
	if (r.cell_failed)
		return CLI_EXIT_PARTIAL;
	if (err < 0)
		cli_output_failed(err);
	return err < 0 ? CLI_EXIT_PARTIAL : CLI_EXIT_OK;
}
