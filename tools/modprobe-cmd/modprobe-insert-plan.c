// SPDX-License-Identifier: GPL-2.0-or-later
/* modprobe's plan: what libkmod would load for a name (its dry run,
 * collected step by step), and each module of it read and preflighted
 * before modprobe-insert.c runs the first step. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "kmodlog.h"
#include "load.h"
#include "modprobe-insert.h"

/* The plan being collected, set only during libkmod's dry run: its
 * print_action has no user data (docs/architecture.md). */
static struct plan *collecting;

static void collect_step(struct kmod_module *m, bool install, const char *options)
{
	struct plan *p = collecting;
	if (!p || p->oom)
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct plan_step *v = realloc(p->v, cap * sizeof(*v));
		if (!v) {
			p->oom = true;
			return;
		}
		p->v = v;
		p->cap = cap;
	}
	char *copy = strdup(options ? options : "");
	if (!copy) {
		p->oom = true;
		return;
	}
	p->v[p->n++] =
		(struct plan_step){ .mod = kmod_module_ref(m), .options = copy, .install = install };
}

void mp_plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		kmod_module_unref(p->v[i].mod);
		rot_modfile_free(p->v[i].mf);
		free(p->v[i].options);
	}
	free(p->v);
}

/*
 * The undefined symbols of the plan's files that the kernel must offer.
 * When every one of them is exported by a module this run loaded itself
 * (r->loaded_symbols), that set answers and /proc/kallsyms, which grows
 * with every module loaded, is not read again: *borrowed is then true.
 */
static int plan_kernel_symbols(struct modprobe_run *r, const struct plan *plan,
			       struct rot_symbols **out, bool *borrowed)
{
	size_t count = 0, k = 0;
	*out = NULL;
	*borrowed = false;
	for (size_t i = 0; i < plan->n; i++)
		count += plan->v[i].mf ? rot_modfile_undefined_count(plan->v[i].mf) : 0;
	if (!count)
		return 0;
	const char **wanted = malloc(count * sizeof(*wanted));
	if (!wanted)
		return -ENOMEM;
	bool all_known = r->loaded_symbols != NULL;
	for (size_t i = 0; i < plan->n; i++) {
		const struct rot_modfile *mf = plan->v[i].mf;
		for (size_t j = 0; mf && j < rot_modfile_undefined_count(mf); j++) {
			wanted[k] = rot_modfile_undefined(mf, j);
			all_known = all_known && rot_symbols_has(r->loaded_symbols, wanted[k]);
			k++;
		}
	}
	int err = 0;
	if (all_known) {
		*out = r->loaded_symbols;
		*borrowed = true;
	} else {
		err = rot_symbols_read_kallsyms(wanted, k, out);
	}
	free(wanted);
	return err;
}

/* One module's preflight; 0 when it may go to the kernel, else the refusal said. */
static int preflight_one(struct modprobe_run *r, const struct rot_kernel_facts *facts,
			 struct rot_modfile *mf, const char *path, const char *name,
			 const struct rot_symbols *ksyms, const struct rot_symbols *batch)
{
	struct insmod_opts io = { 0 };
	io.load_flags = (r->opts->force || r->opts->force_vermagic ? LOAD_FORCE_VERMAGIC : 0) |
			(r->opts->force || r->opts->force_modversion ? LOAD_FORCE_MODVERSION : 0);
	/* percpu_preflight() reads no kernel facts: these are modprobe's own */
	struct load_env env = { .opts = &io, .rot = r->rot };
	struct load_job job = { .path = path, .mf = mf };
	/* Already loaded needs no check: libkmod left loaded modules out of the plan. */
	int err = rot_preflight_new(facts, &job.pf);
	if (err == 0) {
		rot_preflight_set_kernel_symbols(job.pf, ksyms);
		rot_preflight_set_batch_symbols(job.pf, batch);
		rot_preflight_set_force_vermagic(job.pf, io.load_flags & LOAD_FORCE_VERMAGIC);
		err = rot_preflight_check(job.pf, mf);
	}
	if (err < 0) { /* the caller says it: could not check NAME */
		rot_preflight_free(job.pf);
		return err;
	}
	job.problem = rot_preflight_problem(job.pf);
	/* xz and zstd modrot reads itself; gzip only this libkmod can tell */
	if (job.problem == ROT_PROBLEM_UNSUPPORTED_COMPRESSION)
		job.problem = ROT_PROBLEM_NONE;
	if (job.problem != ROT_PROBLEM_NONE) {
		char why[640];
		words_for_problem(mf, job.pf, facts, NULL, why, sizeof(why));
		mp_fail(r, -ENOEXEC, MP_ERROR,
			"could not insert '%s': %s; nothing was loaded (the kernel never saw it)",
			name, why);
		err = -ENOEXEC;
	}
	/* The per-CPU reserve, as insmod checks it: on a rot kernel every
	 * rotting instance keeps its share, and the kernel would say only ENOMEM. */
	if (!err && !percpu_preflight(&job, &env)) {
		size_t skip = strlen("could not insert module ") + strlen(path) + 2;
		const char *why = strlen(job.message) > skip ? job.message + skip : job.message;
		mp_fail(r, job.err < 0 ? job.err : -ENOMEM, MP_ERROR,
			"could not insert '%s': %s; nothing was loaded (the kernel never saw it)",
			name, why);
		err = -ENOEXEC; /* said: not the caller's out of memory */
	}
	rot_preflight_free(job.pf);
	return err;
}

int mp_plan_collect(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
		    const char *extra, struct plan *out)
{
	*out = (struct plan){ 0 };
	collecting = out;
	kmod_trace_start();
	out->kmod_err = kmod_module_probe_insert_module(mod, flags | KMOD_PROBE_DRY_RUN, extra,
							NULL, NULL, collect_step);
	/* A dependency or softdep libkmod lost is a plan cut short. */
	out->oom |= kmod_lost() < 0;
	collecting = NULL;
	if (out->oom) {
		mp_fail(r, -ENOMEM, MP_ERROR,
			"could not check '%s' before loading it: %s; nothing was loaded",
			kmod_module_get_name(mod), strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

int mp_plan_preflight(struct modprobe_run *r, struct kmod_module *mod, struct plan *plan)
{
	const struct rot_kernel_facts *facts = NULL;
	struct rot_symbols *ksyms = NULL, *batch = NULL;
	bool ksyms_borrowed = false;
	size_t failures_before = r->outcome.failures;
	int err;

	if (plan->n == 0)
		return 0;
	err = mp_kernel_facts(r, &facts);
	if (err < 0) {
		char why[256];
		mp_fail(r, err, MP_ERROR, "could not read what the kernel enforces: %s",
			cli_read_error(err, why, sizeof(why)));
		goto out;
	}
	/* What earlier modules of the plan define: a plan of one has none. */
	err = plan->n > 1 ? rot_symbols_new(&batch) : 0;
	for (size_t i = 0; err == 0 && i < plan->n; i++) {
		const char *path = kmod_module_get_path(plan->v[i].mod);
		if (plan->v[i].install)
			continue;
		/* A module of modules.dep has a file; libkmod left a name it
		 * could not look up in the plan (a lookup lost on the way). */
		if (!path) {
			mp_fail(r, -ENOENT, MP_ERROR,
				"could not insert '%s': libkmod found no file for '%s'; nothing "
				"was loaded",
				kmod_module_get_name(mod), kmod_module_get_name(plan->v[i].mod));
			err = -ENOENT;
			break;
		}
		err = rot_modfile_read(path, &plan->v[i].mf);
		if (err < 0 && err != -ENOMEM) /* out of memory is said below, once */
			mp_fail(r, err, MP_ERROR, "could not insert '%s': could not read %s: %s",
				kmod_module_get_name(plan->v[i].mod), path, cli_strerror(err));
	}
	if (err == 0) {
		err = plan_kernel_symbols(r, plan, &ksyms, &ksyms_borrowed);
		/* As insmod: without kallsyms (CONFIG_KALLSYMS off, a restricted
		 * reader) the kernel checks symbols itself; any other failure to
		 * read it is said below, and nothing is loaded. */
		if (err == -ENOENT || err == -EACCES || err == -EPERM) {
			err = 0;
			ksyms = NULL;
		} else if (err < 0 && err != -ENOMEM) {
			char why[256];
			mp_fail(r, err, MP_ERROR,
				"could not insert '%s': could not read the kernel's symbols "
				"(/proc/kallsyms): %s; nothing was loaded",
				kmod_module_get_name(mod), cli_read_error(err, why, sizeof(why)));
		}
	}
	for (size_t i = 0; err == 0 && i < plan->n; i++) {
		const struct rot_modfile *mf = plan->v[i].mf;
		if (!mf)
			continue;
		err = preflight_one(r, facts, plan->v[i].mf, kmod_module_get_path(plan->v[i].mod),
				    kmod_module_get_name(plan->v[i].mod), ksyms, batch);
		for (size_t d = 0; batch && err == 0 && d < rot_modfile_defined_count(mf); d++)
			err = rot_symbols_add(batch, rot_modfile_defined(mf, d));
	}
	/* a plan that does not run is never silent: what was not said above */
	if (err < 0 && r->outcome.failures == failures_before)
		mp_fail(r, err, MP_ERROR,
			"could not check '%s' before loading it: %s; nothing was loaded",
			kmod_module_get_name(mod), cli_strerror(err));
out:
	if (!ksyms_borrowed)
		rot_symbols_free(ksyms);
	rot_symbols_free(batch);
	return err;
}
