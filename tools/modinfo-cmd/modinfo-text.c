// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modinfo's text output: kmod's layout byte for byte ("key:" padded to 16
 * columns, or only the values of one field), then, on a rot kernel, the
 * state of the name in the running kernel, and the --verify verdict.
 */
#include <errno.h>
#include <inttypes.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-escape.h"
#include "modinfo.h"
#include "outbuf.h"
#include "sigwords.h"

/* Set when a piece of the output could not be made (out of memory): the
 * record printed is incomplete, and modinfo_text_print() says so. */
static int text_err;

/*
 * Keys and values go out as the module holds them, as kmod prints them:
 * scripts read them with -F and -0. Only on a terminal are control bytes
 * escaped, in every layout. Asked once, and only of a piece that would
 * change there: most records hold nothing to escape.
 */
static bool stdout_tty(void)
{
	static int tty = -1;
	if (tty < 0)
		tty = isatty(STDOUT_FILENO);
	return tty;
}

/* Nothing in s that a terminal gets escaped: the newline and tab of
 * libkmod's multi-line signature layout stay there too. */
static bool same_on_tty(const char *s, size_t len)
{
	if (cli_text_is_safe(s, len)) /* a word at a time: most pieces */
		return true;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n' && s[i] != '\t')
			continue;
		if (!cli_text_is_safe(s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

static void put_text(const char *s, int len)
{
	if (same_on_tty(s, (size_t)len) || !stdout_tty()) {
		fwrite(s, 1, len, stdout);
		return;
	}
	struct outbuf o;
	if (outbuf_init(&o, 256) < 0) {
		/* Never the raw bytes on a terminal, never a value left out unsaid. */
		text_err = -ENOMEM;
		return;
	}
	for (int i = 0, end; i < len; i = end + 1) {
		for (end = i; end < len && s[end] != '\n' && s[end] != '\t'; end++)
			;
		cli_put_escaped(&o, s + i, (size_t)(end - i));
		if (end < len)
			outbuf_putc(&o, s[end]);
	}
	if (o.err)
		text_err = -ENOMEM;
	else
		fwrite(o.buf, 1, o.len, stdout);
	outbuf_release(&o);
}

static void put_str(const char *s)
{
	put_text(s, (int)strlen(s));
}

/*
 * "key:" and the blanks that bring the value to column 17. A key longer
 * than 15 bytes gets as many blanks as it is too long: Debian's kmod 30
 * prints it so (a negative printf width), and its output is the one
 * scripts on this system know; kmod 34 prints no blank there.
 */
static void put_key(const char *key, char sep)
{
	size_t n = strlen(key);
	/* A key is module text as much as its value: the same sanitiser,
	 * and on a terminal no line break or tab kept either. */
	if (cli_text_is_safe(key, n) || !stdout_tty()) {
		fputs(key, stdout);
	} else {
		char *safe = cli_safe_dup(key);
		if (!safe)
			text_err = -ENOMEM;
		fputs(safe ? safe : "?", stdout);
		free(safe);
	}
	if (sep == '\0')
		putchar('=');
	else
		printf(":%*s", n < 15 ? (int)(15 - n) : (int)(n - 15), "");
}

/* One "key: value" line, or "key=value" under -0, as kmod's modinfo writes
 * the .modinfo entries. */
static void put_entry(const char *key, const char *value, char sep)
{
	put_key(key, sep);
	put_str(value);
	putchar(sep);
}

static void put_params(const struct modinfo_record *r, const struct modinfo_opts *o, bool only)
{
	struct modinfo_param *params;
	size_t n;
	if (modinfo_params_collect(r, &params, &n) < 0) {
		text_err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct modinfo_param *p = &params[i];
		if (!only)
			printf("%-16s", "parm:");
		put_text(p->name, p->namelen);
		putchar(':');
		/* A type without a description: "name: (type)" alone, "name:type"
		 * in the list; after a description always " (type)". */
		bool paren = p->type && (p->text || only);
		if (p->text)
			put_text(p->text, p->textlen);
		if (paren)
			fputs(" (", stdout);
		if (p->type)
			put_text(p->type, p->typelen);
		if (paren)
			putchar(')');
		putchar(o->separator);
	}
	free(params);
}

/* Fields modrot adds: the running kernel's state of the name (on a rot
 * kernel only, so that stock output stays kmod's) and the --verify verdict. */
static void put_extras(const struct modinfo_record *r, const struct modinfo_opts *o)
{
	char rotting[32], bytes[32], percpu[32];
	struct extra {
		const char *key, *value;
	} extra[5];
	size_t n = 0;

	if (r->kernel.known && r->kernel.rot) {
		snprintf(rotting, sizeof(rotting), "%zu", r->kernel.rotting);
		snprintf(bytes, sizeof(bytes), "%" PRIu64, r->kernel.rotting_bytes);
		extra[n++] = (struct extra){ "state", r->kernel.state };
		extra[n++] = (struct extra){ "rotting", rotting };
		extra[n++] = (struct extra){ "rotting_bytes", bytes };
		if (r->kernel.percpu_known) {
			snprintf(percpu, sizeof(percpu), "%" PRIu64, r->kernel.rotting_percpu);
			extra[n++] = (struct extra){ "rotting_percpu", percpu };
		}
	}
	if (r->verify.asked) {
		extra[n++] = (struct extra){
			"verified", r->verify.checked
					    ? sig_status_word(rot_sig_info_status(r->verify.sig))
					    : "not checked"
		};
	}
	for (size_t i = 0; i < n; i++) {
		if (!o->field)
			put_entry(extra[i].key, extra[i].value, o->separator);
		else if (!strcmp(o->field, extra[i].key))
			printf("%s%c", extra[i].value, o->separator);
	}
}

int modinfo_text_print(const struct modinfo_record *r, const struct modinfo_opts *o)
{
	const char *field = o->field;
	const char *filename = r->filename;
	const struct kmod_list *l;

	text_err = 0;
	if (!filename) {
		if (!field)
			printf("%-16s", "name:");
		if (!field || !strcmp(field, "name")) {
			put_str(r->name);
			putchar(o->separator);
		}
		filename = "(builtin)";
	}
	if (field && !strcmp(field, "filename")) {
		put_str(filename);
		putchar(o->separator);
		return text_err;
	}
	if (!field) {
		printf("%-16s", "filename:");
		put_str(filename);
		putchar(o->separator);
	}
	if (r->unreadable)
		return text_err;
	if (field && !strcmp(field, "parm")) {
		put_params(r, o, true);
		return text_err;
	}
	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		const char *value = kmod_module_info_get_value(l);
		if (field) {
			if (!strcmp(field, key)) {
				put_str(value);
				putchar(o->separator);
			}
		} else if (strcmp(key, "parm") && strcmp(key, "parmtype")) {
			put_entry(key, value, o->separator);
		}
	}
	if (!field && r->info)
		put_params(r, o, false);
	put_extras(r, o);
	return text_err;
}
