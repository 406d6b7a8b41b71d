/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * modprobe's pieces: loading with dependencies (modprobe-insert.c),
 * unloading with the in-use rule (modprobe-remove.c), the query options
 * (modprobe-show.c), what a run offers them (modprobe-run.c), and options
 * and main (modprobe.c). libkmod resolves names, aliases, dependencies and
 * modprobe.d; lib/ owns every kernel interface modrot adds.
 */
#ifndef MODROT_MODPROBE_H
#define MODROT_MODPROBE_H

#include <libkmod.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli-exit.h"
#include "gone-marks.h"
#include "modrot.h"

struct modprobe_opts {
	bool all;                     /* -a: every argument is a module */
	bool remove;                  /* -r */
	bool remove_holders;          /* --remove-holders (--remove-dependencies) */
	unsigned long long wait_msec; /* -w */
	bool lookup_only;             /* -R */
	bool first_time;              /* --first-time */
	bool ignore_commands;         /* -i */
	bool use_blacklist;           /* -b */
	bool force;                   /* -f */
	bool force_modversion;
	bool force_vermagic;
	bool show_depends; /* -D: dry run, ignore loaded, show */
	bool show_config;  /* -c */
	bool show_modversions;
	bool show_exports;
	bool dry_run;              /* -n */
	bool quiet;                /* -q */
	bool reclaim;              /* --reclaim: free what each removal leaves rotting */
	const char **config_paths; /* -C, NULL-terminated; NULL: the default paths */
	size_t nconfig;
	const char *root;     /* -d */
	const char *kversion; /* -S */
};

/* How deep softdeps and holders may nest in one removal (kmod has no bound). */
#define MP_REMOVE_DEPTH_MAX 64

struct modprobe_run {
	const struct modprobe_opts *opts;
	struct kmod_ctx *ctx;
	char moddir[4096];         /* the modules directory libkmod reads */
	struct rot_snapshot *snap; /* read when first needed */
	bool snap_read;
	int snap_err;                /* rot_snapshot_read()'s error, once read */
	bool rot;                    /* the kernel follows the rot ABI */
	bool show;                   /* print actions: -v, -n with -v, -D */
	bool talk;                   /* say what rots: -v, or stderr is a terminal */
	struct gone_marks gone;      /* unloaded (or, -n, would be) by this run; made with snap */
	struct rot_usage_ctx *usage; /* the mount table, read when first needed */
	bool usage_read;
	int usage_err;         /* the rule's inputs could not be read: -errno */
	char usage_what[4096]; /* and which of them */
	bool reclaimed_any;
	struct rot_kernel_facts *facts;
	int facts_err;
	bool facts_read;
	struct cli_outcome outcome;
	bool stopped; /* MP_FATAL without -a or -q: kmod stops the run there */
	/* what this run's removals left rotting, and reclaimed */
	size_t rotted;
	uint64_t rotted_bytes;
	/* rotting instances this run has already told of, by name */
	struct mp_tally *tally;
	size_t ntally;
	/* the modules being removed, outermost first: a softdep loop ends here */
	const char *path[MP_REMOVE_DEPTH_MAX];
	size_t depth;
	/* exported by the modules this run loaded; NULL after an install command */
	struct rot_symbols *loaded_symbols;
};

struct mp_tally {
	char name[ROT_NAME_MAX + 1];
	size_t instances;
};

/* Rotting instances of name the run knows of: the snapshot's, and those
 * it has told of since. */
size_t mp_rot_accounted(struct modprobe_run *r, const char *name);
void mp_rot_account(struct modprobe_run *r, const char *name, size_t instances);

/* modprobe.d as libkmod will read it (modprobe-config.c). A -C path that
 * exists must be a file or a directory: -EINVAL, said, otherwise. */
int mp_config_path_check(const char *path);
/* Every file libkmod will read in the configuration directories (those
 * of -C, or libkmod's defaults when paths is NULL) is a regular file:
 * -EINVAL, said, for the first that is not. */
int mp_config_dirs_check(const char *const *paths);

/* Text from modprobe.d, an index or a module on kmod's standard output:
 * as it is, unless it holds a control byte or is not UTF-8 (which no
 * script parsing kmod's output expects, and a terminal would obey); then
 * escaped whole by the one sanitiser, backslashes too, so that the
 * escapes cannot be mistaken for text. */
void mp_put_text(const char *s);

/*
 * kmod's levels of failure, with kmod's words. MP_FATAL is what kmod's
 * modprobe reports about a name (not found, not in kernel, in use, a
 * remove command that failed): "FATAL:", and the run ends there as kmod's
 * LOG_CRIT ends it; under -a it is "WARNING:" and the run goes on.
 * MP_ERROR is kmod's "ERROR:" (could not insert, could not remove),
 * MP_WARNING its "WARNING:" (could not get softdeps). Each is a failure of
 * the run, and none is printed with -q.
 */
enum mp_level { MP_ERROR, MP_FATAL, MP_WARNING };

void mp_fail(struct modprobe_run *r, int err, enum mp_level level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A name libkmod must not see (too long to be a module name or alias):
 * said, as MP_FATAL, and true. */
bool mp_name_refused(struct modprobe_run *r, const char *name);

/* Runs an install or remove command (type) of module name, as kmod does
 * (sh -c, MODPROBE_MODULE set). A command that exits non-zero or is killed
 * by a signal fails: said (a remove command's as MP_FATAL, an install
 * command's as MP_ERROR, as kmod), and -errno. soft: the module is only a
 * soft dependency of what is loaded, whose failure kmod says and passes
 * over: said, but no failure of the run. */
int mp_run_command(struct modprobe_run *r, const char *type, const char *name, const char *cmd,
		   bool soft);

/* The snapshot of the kernel, read once (NULL when it cannot be read). */
const struct rot_snapshot *mp_snapshot(struct modprobe_run *r);

/* What the kernel enforces (release, ELF class, vermagic, signatures): read
 * once per run. Returns 0 or the negative errno of the first read. */
int mp_kernel_facts(struct modprobe_run *r, const struct rot_kernel_facts **out);

/* Drops what the run knows of the symbols it loaded (a command may have
 * unloaded them): the next plan reads /proc/kallsyms. */
void mp_forget_loaded_symbols(struct modprobe_run *r);

/* Loads name (a module or alias) and what it needs; extra: PARAM=VALUE from argv. */
int mp_insert(struct modprobe_run *r, const char *name, const char *extra);

/* Unloads name (a module or alias) and the dependencies it leaves unused. */
int mp_remove(struct modprobe_run *r, const char *name);

int mp_show_config(struct modprobe_run *r);
/* A module file's symbol versions (what it needs) or, exports, its exported
 * symbols (what it offers). */
int mp_show_crcs(struct modprobe_run *r, const char *path, bool exports);

#endif
