// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe's loading: libkmod plans it (its dry run, modprobe-insert-plan.c),
 * every module of the plan passes insmod's preflight before the kernel sees
 * any (on a rot kernel a module refused in its init rots), and modprobe runs
 * a plan that passed whole itself, step by step, from the images the
 * preflight read (docs/architecture.md, "libkmod and the optional libraries").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "kmodlog.h"
#include "load.h"
#include "modprobe-insert.h"
#include "sizewords.h"

/* kmod's lines for -v, -n and -D: what is loaded, with which options. */
static void print_step(const struct plan_step *p)
{
	const char *path = kmod_module_get_path(p->mod);
	if (p->install) {
		fputs("install ", stdout);
		mp_put_text(kmod_module_get_install_commands(p->mod));
	} else if (path) {
		fputs("insmod ", stdout);
		mp_put_text(path);
	} else if (kmod_module_get_initstate(p->mod) == KMOD_MODULE_BUILTIN) {
		fputs("builtin ", stdout);
		mp_put_text(kmod_module_get_name(p->mod));
		putchar('\n');
		return;
	} else {
		return;
	}
	putchar(' ');
	mp_put_text(p->options);
	putchar('\n');
}

/* On a rot kernel a failed init leaves an instance: find it and say so. */
static void note_failed_init_rot(struct modprobe_run *r, const char *name, char *buf, size_t cap)
{
	size_t after;
	uint64_t newest;

	buf[0] = '\0';
	if (!r->rot)
		return;
	int err = rot_name_rotting(name, &after, NULL, &newest);
	if (err < 0) {
		/* Unsaid, a rotting instance would go unnoticed. */
		snprintf(buf, cap, "; whether its init left rot is unknown (%s)", cli_strerror(err));
		return;
	}
	size_t before = mp_rot_accounted(r, name);
	if (after <= before)
		return;
	mp_rot_account(r, name, after - before);
	char size[SIZE_WORDS_MAX];
	snprintf(buf, cap, "; its init failed and its %s now rot ('rmmod --reclaim %s' frees them)",
		 size_words(newest, "bytes", size), name);
}

/* kmod's words for what the kernel answered (naming the target, as kmod
 * does), the dependency that failed when it was not the target, and what
 * the failure left rotting. failed: the module whose load failed, or NULL
 * when libkmod answered before any load. */
static void report_insert_error(struct modprobe_run *r, struct kmod_module *mod,
				struct kmod_module *failed, int err)
{
	const char *name = kmod_module_get_name(mod);
	char rot[256] = "", dep[ROT_NAME_MAX + 40] = "";

	if (err == -EEXIST) {
		mp_fail(r, err, MP_ERROR, "could not insert '%s': Module already in kernel", name);
		return;
	}
	if (failed) {
		note_failed_init_rot(r, kmod_module_get_name(failed), rot, sizeof(rot));
		if (strcmp(kmod_module_get_name(failed), name))
			snprintf(dep, sizeof(dep),
				 "its dependency '%s': ", kmod_module_get_name(failed));
	}
	if (err == -ENOENT)
		mp_fail(r, err, MP_ERROR,
			"could not insert '%s': %sUnknown symbol in module, or unknown parameter "
			"(see dmesg)%s",
			name, dep, rot);
	else
		mp_fail(r, err, MP_ERROR, "could not insert '%s': %s%s%s%s", name, dep,
			cli_strerror(err), cli_errno_hint(err), rot);
}

/* Whether libkmod's run would hold a failure of m, not the target, against
 * the target: its dependencies must load, its softdeps may fail. */
static bool step_required(const struct kmod_list *deps, struct kmod_module *m)
{
	const struct kmod_list *l;
	kmod_list_foreach(l, deps)
	{
		struct kmod_module *d = kmod_module_get_module(l);
		bool same = !strcmp(kmod_module_get_name(d), kmod_module_get_name(m));
		kmod_module_unref(d);
		if (same)
			return true;
	}
	return false;
}

/* The symbols the modules this run loaded export: later plans check
 * against them before reading /proc/kallsyms. Best effort: a set that
 * cannot grow is dropped, and kallsyms read as before. */
static void note_loaded_symbols(struct modprobe_run *r, const struct rot_modfile *mf)
{
	int err = r->loaded_symbols ? 0 : rot_symbols_new(&r->loaded_symbols);
	for (size_t d = 0; err == 0 && d < rot_modfile_defined_count(mf); d++)
		err = rot_symbols_add(r->loaded_symbols, rot_modfile_defined(mf, d));
	if (err < 0)
		mp_forget_loaded_symbols(r);
}

/*
 * A step's install command, with $CMDLINE_OPTS replaced by the step's
 * options, as libkmod replaces it; run by the run's own runner, which
 * takes a command killed by a signal for a failure (libkmod's does not).
 * libkmod runs a command only inside its whole probe of a module, which
 * would plan again and load what this plan did not check.
 */
static int run_install(struct modprobe_run *r, const struct plan_step *p, bool required)
{
	static const char var[] = "$CMDLINE_OPTS";
	const char *cmd = kmod_module_get_install_commands(p->mod), *at;
	size_t n = 0;
	for (at = strstr(cmd, var); at; at = strstr(at + strlen(var), var))
		n++;
	char *full = malloc(strlen(cmd) + n * strlen(p->options) + 1), *out = full;
	if (!full) {
		mp_fail(r, -ENOMEM, MP_ERROR, "could not insert '%s': %s",
			kmod_module_get_name(p->mod), strerror(ENOMEM));
		return -ENOMEM;
	}
	for (; (at = strstr(cmd, var)); cmd = at + strlen(var)) {
		out = mempcpy(out, cmd, (size_t)(at - cmd));
		out = stpcpy(out, p->options);
	}
	strcpy(out, cmd);
	/* a command may unload what this run loaded */
	mp_forget_loaded_symbols(r);
	int err = mp_run_command(r, "install", kmod_module_get_name(p->mod), full, !required);
	free(full);
	return err;
}

/*
 * Loads a plain step: the image preflight checked, as insmod loads an
 * image; forced, through libkmod, which strips what the force skips, from
 * that image in a memory file. A gzip module (modrot cannot read it, so
 * it was not checked) is libkmod's own insert, by path.
 */
static int load_step(const struct plan_step *p, unsigned flags)
{
	unsigned kflags = (flags & KMOD_PROBE_FORCE_VERMAGIC ? KMOD_INSERT_FORCE_VERMAGIC : 0) |
			  (flags & KMOD_PROBE_FORCE_MODVERSION ? KMOD_INSERT_FORCE_MODVERSION : 0);
	size_t len = 0;
	const void *image = p->mf && rot_modfile_problem(p->mf) == ROT_PROBLEM_NONE
				    ? rot_modfile_image(p->mf, &len)
				    : NULL;
	if (image && !kflags)
		return rot_modfile_insert(p->mf, p->options);
	if (image) {
		/* a context of its own: the memory file's name is a number,
		 * which may name a module in the run's */
		struct kmod_ctx *ctx = job_kmod_new();
		int err = ctx ? cli_kmod_insert_image(ctx, image, len, kflags, p->options) : -ENOMEM;
		kmod_unref(ctx);
		return err;
	}
	kmod_trace_start();
	int err = kmod_module_insert_module(p->mod, kflags, p->options);
	int lost = kmod_lost();
	/* libkmod calls zlib's failed allocation "Invalid argument" */
	return err == -EINVAL && lost < 0 ? lost : err;
}

/*
 * Runs the checked plan for mod as libkmod's real run would: in order,
 * each step printed first with -v; "already loaded" is no failure (a
 * module loaded meanwhile) unless --first-time names the target; a
 * softdep's failure is passed over; any other failure ends the plan, what
 * earlier steps loaded staying loaded, and is said naming the step.
 */
static int run_plan(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
		    const struct plan *plan)
{
	struct kmod_list *deps = kmod_module_get_dependencies(mod);
	bool after_command = false;
	int err = 0;
	for (size_t i = 0; i < plan->n; i++) {
		const struct plan_step *p = &plan->v[i];
		bool target = !strcmp(kmod_module_get_name(p->mod), kmod_module_get_name(mod));
		bool required = target || step_required(deps, p->mod);
		int state = after_command ? kmod_module_get_initstate(p->mod) : -ENOENT;
		if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN) {
			/* an install command loaded it, as libkmod checks before each step */
			err = -EEXIST;
		} else {
			if (r->show)
				print_step(p);
			if (p->install) {
				err = run_install(r, p, required);
				after_command = true;
			} else {
				err = load_step(p, flags);
				if (err == 0 && p->mf)
					note_loaded_symbols(r, p->mf);
			}
		}
		if (err == -EEXIST && target && (flags & KMOD_PROBE_FAIL_ON_LOADED)) {
			report_insert_error(r, mod, p->mod, err);
			break;
		}
		if (err == -EEXIST || !required) {
			err = 0;
		} else if (err < 0) {
			/* an install command's failure is said by its runner */
			if (!p->install)
				report_insert_error(r, mod, p->mod, err);
			break;
		}
	}
	kmod_module_unref_list(deps);
	return err;
}

/* Plans, checks and runs the load of one module libkmod looked up. */
static int insert_module(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
			 const char *extra)
{
	struct plan plan;
	int err = mp_plan_collect(r, mod, flags, extra, &plan);
	if (err == 0 && plan.kmod_err < 0) {
		err = plan.kmod_err;
		report_insert_error(r, mod, NULL, err);
	} else if (err == 0 && plan.kmod_err == 0 && (flags & KMOD_PROBE_DRY_RUN)) {
		for (size_t i = 0; r->show && i < plan.n; i++)
			print_step(&plan.v[i]);
	} else if (err == 0 && plan.kmod_err == 0) {
		err = mp_plan_preflight(r, mod, &plan);
		if (err == 0)
			err = run_plan(r, mod, flags, &plan);
	}
	/* positive kmod_err: blacklisted, which is no error */
	mp_plan_free(&plan);
	return err;
}

int mp_insert(struct modprobe_run *r, const char *alias, const char *extra)
{
	const struct modprobe_opts *o = r->opts;
	struct kmod_list *list = NULL, *l;
	if (mp_name_refused(r, alias))
		return -ENAMETOOLONG;
	kmod_trace_start();
	int err = kmod_module_new_from_lookup(r->ctx, alias, &list);
	int lost = kmod_lost();
	unsigned flags = KMOD_PROBE_APPLY_BLACKLIST_ALIAS_ONLY |
			 (o->force_modversion || o->force ? KMOD_PROBE_FORCE_MODVERSION : 0) |
			 (o->force_vermagic || o->force ? KMOD_PROBE_FORCE_VERMAGIC : 0) |
			 (o->ignore_commands ? KMOD_PROBE_IGNORE_COMMAND : 0) |
			 (o->show_depends ? KMOD_PROBE_IGNORE_LOADED : 0) |
			 (o->dry_run || o->show_depends ? KMOD_PROBE_DRY_RUN : 0) |
			 (o->use_blacklist ? KMOD_PROBE_APPLY_BLACKLIST : 0) |
			 (o->first_time ? KMOD_PROBE_FAIL_ON_LOADED : 0);
	if (lost < 0) {
		kmod_module_unref_list(list);
		mp_fail(r, lost, MP_FATAL, "could not look up %s: %s", alias, strerror(-lost));
		return lost;
	}
	if (err < 0 || !list) {
		mp_fail(r, -ENOENT, MP_FATAL, "Module %s not found in directory %s", alias,
			r->moddir);
		return -ENOENT;
	}
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		if (o->lookup_only) {
			mp_put_text(kmod_module_get_name(mod));
			putchar('\n');
			err = 0;
		} else {
			err = insert_module(r, mod, flags, extra);
		}
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
	return err;
}
