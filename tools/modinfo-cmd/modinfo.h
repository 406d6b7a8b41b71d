/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modinfo: what one module is (its file's .modinfo, through libkmod) and,
 * on a rot kernel, what the running kernel holds of its name. The tool
 * gathers a record per module (modinfo.c); modinfo-text.c prints it as
 * kmod's modinfo does, modinfo-json.c as JSON.
 */
#ifndef MODROT_MODINFO_H
#define MODROT_MODINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modrot.h"

struct kmod_list;

struct modinfo_opts {
	const char *field; /* -F and its shorthands; NULL: everything */
	char separator;    /* '\n', or '\0' with -0 */
	bool json;
	const char *keyring_path; /* --verify */
};

/* What the running kernel holds of a name. */
struct modinfo_kernel {
	bool known;        /* the module tree is the running kernel's: the rest is filled */
	bool rot;          /* the kernel follows the module-rot ABI */
	const char *state; /* "live", "loading", "unloading", "builtin" or "not loaded" */
	size_t rotting;    /* rotting instances of the name */
	uint64_t rotting_bytes;
	bool percpu_known;       /* the kernel lists per-CPU areas (/proc/module_percpu) */
	uint64_t rotting_percpu; /* per-CPU bytes (per CPU) the rotting instances keep */
};

struct modinfo_verify {
	bool asked;
	bool checked;             /* false: no image to check (builtin, unreadable) */
	struct rot_sig_info *sig; /* when checked: the verdict (freed with the record) */
	char why[512];            /* when not valid: why, in words */
};

struct modinfo_record {
	const char *argument;         /* as typed */
	const char *name;             /* the module's name (libkmod's) */
	const char *filename;         /* NULL for a builtin module */
	const struct kmod_list *info; /* key/value list; NULL when none could be read */
	bool unreadable;              /* the information could not be read: the text
					  * output stops after the name and file, as kmod's */
	struct modinfo_kernel kernel;
	struct modinfo_verify verify;
};

/* A parameter gathered from "parm" and "parmtype" entries. */
struct modinfo_param {
	const char *name;
	int namelen;
	const char *text; /* description; NULL when only a type was given */
	int textlen;
	const char *type; /* NULL when only a description was given */
	int typelen;
};

/*
 * The parameters of a record in the order kmod's modinfo prints them (the
 * newest name first). *params is malloc'd; returns -ENOMEM. An entry
 * without ':' is skipped with a warning naming the module.
 */
int modinfo_params_collect(const struct modinfo_record *r, struct modinfo_param **params, size_t *n);

/* Both return 0, or -ENOMEM when a piece of the record could not be made:
 * what was printed is then incomplete, and the caller must say so. */
int modinfo_text_print(const struct modinfo_record *r, const struct modinfo_opts *o);

struct json_writer;
int modinfo_json_print(struct json_writer *w, const struct modinfo_record *r);

#endif
