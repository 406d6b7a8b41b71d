// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe's loading: libkmod resolves the name (alias, blacklist,
 * modprobe.d options, softdeps, dependencies, install commands) and plans
 * the loads. Every module of the plan then goes through insmod's preflight
 * before the kernel sees any of them: on a rot kernel a module the kernel
 * refuses late, in its init, rots. Only a plan that passes whole is run,
 * by libkmod, exactly as kmod's modprobe runs it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insmod.h"
#include "kmodlog.h"
#include "moddir-check.h"
#include "modprobe.h"
#include "sizewords.h"

struct plan_step {
	struct kmod_module *mod;
	bool install; /* an install command runs instead */
	bool acted;   /* the real run inserted it or ran its command (or tried) */
};

struct plan {
	struct plan_step *v;
	size_t n, cap;
	bool oom;
};

/* libkmod's print_action has no user data: the plan being collected. */
static struct plan *collecting;

static void collect_step(struct kmod_module *m, bool install, const char *options)
{
	struct plan *p = collecting;
	(void)options;
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
	p->v[p->n++] = (struct plan_step){ kmod_module_ref(m), install, false };
}

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		kmod_module_unref(p->v[i].mod);
	free(p->v);
}

/* kmod's lines for -v, -n and -D: what is loaded, with which options. */
static void print_action(struct kmod_module *m, bool install, const char *options);

/* The real run's actions, marked off against the plan (libkmod's
 * print_action has no user data either). */
static struct plan *acting;
static bool acting_shows;

static void mark_action(struct kmod_module *m, bool install, const char *options)
{
	for (size_t i = 0; acting && i < acting->n; i++)
		if (!strcmp(kmod_module_get_name(acting->v[i].mod), kmod_module_get_name(m)))
			acting->v[i].acted = true;
	if (acting_shows)
		print_action(m, install, options);
}

static void print_action(struct kmod_module *m, bool install, const char *options)
{
	if (install) {
		printf("install %s %s\n", kmod_module_get_install_commands(m), options);
		return;
	}
	const char *path = kmod_module_get_path(m);
	if (path)
		printf("insmod %s %s\n", cli_moddir_shown(path), options);
	else if (kmod_module_get_initstate(m) == KMOD_MODULE_BUILTIN)
		printf("builtin %s\n", kmod_module_get_name(m));
}

static unsigned probe_flags(const struct modprobe_opts *o)
{
	unsigned flags = KMOD_PROBE_APPLY_BLACKLIST_ALIAS_ONLY;
	if (o->force_modversion || o->force)
		flags |= KMOD_PROBE_FORCE_MODVERSION;
	if (o->force_vermagic || o->force)
		flags |= KMOD_PROBE_FORCE_VERMAGIC;
	if (o->ignore_commands)
		flags |= KMOD_PROBE_IGNORE_COMMAND;
	if (o->show_depends)
		flags |= KMOD_PROBE_IGNORE_LOADED;
	if (o->dry_run || o->show_depends)
		flags |= KMOD_PROBE_DRY_RUN;
	if (o->use_blacklist)
		flags |= KMOD_PROBE_APPLY_BLACKLIST;
	if (o->first_time)
		flags |= KMOD_PROBE_FAIL_ON_LOADED;
	return flags;
}

/* The undefined symbols of the plan's files that the kernel must offer. */
static int plan_kernel_symbols(struct rot_modfile **mfs, size_t n, struct rot_symbols **out)
{
	size_t count = 0, k = 0;
	*out = NULL;
	for (size_t i = 0; i < n; i++)
		count += mfs[i] ? rot_modfile_undefined_count(mfs[i]) : 0;
	if (!count)
		return 0;
	const char **wanted = malloc(count * sizeof(*wanted));
	if (!wanted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; mfs[i] && j < rot_modfile_undefined_count(mfs[i]); j++)
			wanted[k++] = rot_modfile_undefined(mfs[i], j);
	int err = rot_symbols_read_kallsyms(wanted, k, out);
	free(wanted);
	return err;
}

/* One module's preflight; 0 when it may go to the kernel, else the refusal said. */
static int preflight_one(struct modprobe_run *r, const struct rot_kernel_facts *facts,
			 struct rot_modfile *mf, const char *path, const char *name,
			 const struct rot_symbols *ksyms, const struct rot_symbols *batch)
{
	struct insmod_opts io = { 0 };
	io.load_flags =
		(r->opts->force || r->opts->force_vermagic ? ROT_LOAD_FORCE_VERMAGIC : 0) |
		(r->opts->force || r->opts->force_modversion ? ROT_LOAD_FORCE_MODVERSION : 0);
	struct insmod_env env = { .opts = &io, .kernel = *facts, .rot = r->rot };
	struct insmod_job job = { .path = path, .mf = mf };
	/* Already loaded needs no check: libkmod left loaded modules out of the plan. */
	const struct rot_preflight_input in = {
		.kernel = facts,
		.kernel_symbols = ksyms,
		.batch_symbols = batch,
		.force_vermagic = io.load_flags & ROT_LOAD_FORCE_VERMAGIC,
	};
	int err = rot_preflight(mf, &in, &job.pf);
	if (err < 0) /* the caller says it: could not check NAME */
		return err;
	/* xz and zstd modrot reads itself; gzip only this libkmod can tell */
	if (job.pf.problem == ROT_PROBLEM_UNSUPPORTED_COMPRESSION)
		job.pf.problem = ROT_PROBLEM_NONE;
	if (job.pf.problem != ROT_PROBLEM_NONE) {
		char why[640];
		words_for_problem(mf, &job.pf, facts, NULL, why, sizeof(why));
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
	rot_preflight_release(&job.pf);
	return err;
}

/*
 * The plan libkmod would run for mod, each module of it read and
 * preflighted, in order: symbols that earlier modules of the plan define
 * count as offered. Returns 0 when the whole plan may run.
 */
static int preflight_plan(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
			  const char *extra, struct plan *out)
{
	struct plan plan = { 0 };
	const struct rot_kernel_facts *facts = NULL;
	struct rot_symbols *ksyms = NULL, *batch = NULL;
	struct rot_modfile **mfs = NULL;
	size_t failures_before = r->outcome.failures;
	int err;

	collecting = &plan;
	kmod_trace_start();
	err = kmod_module_probe_insert_module(mod, flags | KMOD_PROBE_DRY_RUN, extra, NULL, NULL,
					      collect_step);
	/* A dependency or softdep libkmod lost is a plan cut short. */
	if (kmod_lost() < 0)
		plan.oom = true;
	collecting = NULL;
	/* Nothing to plan (loaded, blacklisted) or an error the real run will tell. */
	if (plan.oom) {
		plan_free(&plan);
		mp_fail(r, -ENOMEM, MP_ERROR,
			"could not check '%s' before loading it: %s; nothing was loaded",
			kmod_module_get_name(mod), strerror(ENOMEM));
		return -ENOMEM;
	}
	if (err != 0 || plan.n == 0) {
		plan_free(&plan);
		return 0;
	}
	err = plan.oom ? -ENOMEM : mp_kernel_facts(r, &facts);
	if (err < 0) {
		char why[256];
		mp_fail(r, err, MP_ERROR, "could not read what the kernel enforces: %s",
			cli_read_error(err, why, sizeof(why)));
		goto out;
	}
	mfs = calloc(plan.n, sizeof(*mfs));
	err = mfs ? rot_symbols_new(&batch) : -ENOMEM;
	for (size_t i = 0; err == 0 && i < plan.n; i++) {
		const char *path = kmod_module_get_path(plan.v[i].mod);
		if (plan.v[i].install || !path)
			continue;
		err = rot_modfile_read(path, &mfs[i]);
		if (err < 0 && err != -ENOMEM) /* out of memory is said below, once */
			mp_fail(r, err, MP_ERROR, "could not insert '%s': could not read %s: %s",
				kmod_module_get_name(plan.v[i].mod), cli_moddir_shown(path),
				strerror(-err));
	}
	if (err == 0) {
		err = plan_kernel_symbols(mfs, plan.n, &ksyms);
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
	for (size_t i = 0; err == 0 && i < plan.n; i++) {
		if (!mfs[i])
			continue;
		err = preflight_one(r, facts, mfs[i], kmod_module_get_path(plan.v[i].mod),
				    kmod_module_get_name(plan.v[i].mod), ksyms, batch);
		for (size_t d = 0; err == 0 && d < rot_modfile_defined_count(mfs[i]); d++)
			err = rot_symbols_add(batch, rot_modfile_defined(mfs[i], d));
	}
	/* a plan that does not run is never silent: what was not said above */
	if (err < 0 && r->outcome.failures == failures_before)
		mp_fail(r, err, MP_ERROR,
			"could not check '%s' before loading it: %s; nothing was loaded",
			kmod_module_get_name(mod), strerror(-err));
out:
	for (size_t i = 0; mfs && i < plan.n; i++)
		rot_modfile_free(mfs[i]);
	free(mfs);
	rot_symbols_free(ksyms);
	rot_symbols_free(batch);
	if (err == 0)
		*out = plan; /* the caller checks the real run against it */
	else
		plan_free(&plan);
	return err;
}

/*
 * libkmod 30 passes over a dependency or softdep it could not look up
 * for want of memory, and still returns 0: whatever the plan held that
 * the real run neither tried nor finds loaded was lost on the way.
 */
static int plan_check(struct modprobe_run *r, struct kmod_module *mod, const struct plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct plan_step *p = &plan->v[i];
		if (p->acted)
			continue;
		int state = kmod_module_get_initstate(p->mod);
		if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING ||
		    state == KMOD_MODULE_BUILTIN)
			continue; /* loaded meanwhile (an install command) */
		if (state >= 0 || state == -ENOENT)
			mp_fail(r, -ENOENT, MP_ERROR,
				"could not insert '%s' and all it needs: libkmod passed over '%s' "
				"without a word",
				kmod_module_get_name(mod), kmod_module_get_name(p->mod));
		else
			mp_fail(r, state, MP_ERROR, "could not tell whether '%s' was loaded: %s",
				kmod_module_get_name(p->mod), strerror(-state));
		return state < 0 ? state : -ENOENT;
	}
	return 0;
}

/* On a rot kernel a failed init leaves an instance: find it and say so. */
static void note_failed_init_rot(struct modprobe_run *r, const char *name, char *buf, size_t cap)
{
	size_t after;
	uint64_t newest;

	buf[0] = '\0';
	if (!r->rot)
		return;
	int err = rot_rotting_of(name, &after, NULL, &newest);
	if (err < 0) {
		/* Unsaid, a rotting instance would go unnoticed. */
		snprintf(buf, cap, "; whether its init left rot is unknown (%s)", strerror(-err));
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

/* kmod's words for what the kernel answered, and what it left rotting */
static void report_insert_error(struct modprobe_run *r, struct kmod_module *mod, int err)
{
	const char *name = kmod_module_get_name(mod);
	char rot[256];

	if (err == -EEXIST) {
		mp_fail(r, err, MP_ERROR, "could not insert '%s': Module already in kernel", name);
		return;
	}
	/* The module that failed is the one named, or a dependency of it. */
	note_failed_init_rot(r, name, rot, sizeof(rot));
	struct kmod_list *deps = rot[0] ? NULL : kmod_module_get_dependencies(mod), *l;
	kmod_list_foreach(l, deps)
	{
		struct kmod_module *dep = kmod_module_get_module(l);
		if (!rot[0])
			note_failed_init_rot(r, kmod_module_get_name(dep), rot, sizeof(rot));
		kmod_module_unref(dep);
	}
	kmod_module_unref_list(deps);
	if (err == -ENOENT)
		mp_fail(r, err, MP_ERROR,
			"could not insert '%s': Unknown symbol in module, or unknown parameter "
			"(see dmesg)%s",
			name, rot);
	else
		mp_fail(r, err, MP_ERROR, "could not insert '%s': %s%s%s", name, strerror(-err),
			cli_errno_hint(err), rot);
}

/* The module being probed: it and its dependencies are what the load
 * needs; the rest of the plan is soft dependencies. */
static struct kmod_module *probing;

/* As libkmod counts it ("required"): the module named, or one of its
 * dependencies. A soft dependency's failure libkmod passes over. */
static bool required(struct kmod_module *m)
{
	const char *name = kmod_module_get_name(m);
	if (!probing || !strcmp(name, kmod_module_get_name(probing)))
		return true;
	bool found = false;
	struct kmod_list *deps = kmod_module_get_dependencies(probing), *l;
	kmod_list_foreach(l, deps)
	{
		struct kmod_module *dep = kmod_module_get_module(l);
		found |= !strcmp(name, kmod_module_get_name(dep));
		kmod_module_unref(dep);
	}
	kmod_module_unref_list(deps);
	return found;
}

/* libkmod's hook for an install command ($CMDLINE_OPTS already replaced):
 * libkmod's own runner takes a command killed by a signal for success. */
static int run_install(struct kmod_module *m, const char *cmd, void *data)
{
	struct modprobe_run *r = data;
	bool soft = !required(m);
	int err = mp_run_command(r, "install", kmod_module_get_name(m), cmd, soft);
	if (err < 0 && !soft)
		r->command_failed = true;
	return err;
}

int mp_insert(struct modprobe_run *r, const char *alias, const char *extra)
{
	const struct modprobe_opts *o = r->opts;
	struct kmod_list *list = NULL, *l;
	unsigned flags = probe_flags(o);
	if (mp_name_refused(r, alias))
		return -ENAMETOOLONG;
	kmod_trace_start();
	int err = kmod_module_new_from_lookup(r->ctx, alias, &list);
	int lost = kmod_lost();
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
			printf("%s\n", kmod_module_get_name(mod));
			err = 0;
		} else {
			struct plan plan = { 0 };
			err = (flags & KMOD_PROBE_DRY_RUN)
				      ? 0
				      : preflight_plan(r, mod, flags, extra, &plan);
			if (err == 0) {
				r->command_failed = false;
				acting = &plan;
				probing = mod;
				acting_shows = r->show;
				kmod_trace_start();
				err = kmod_module_probe_insert_module(mod, flags, extra,
								      run_install, r,
								      r->show || plan.n ? mark_action
											: NULL);
				acting = NULL;
				probing = NULL;
				/* positive: blacklisted, which is no error */
				if (err > 0)
					err = 0;
				lost = err == 0 || err == -EINVAL ? kmod_lost() : 0;
				/* libkmod calls liblzma's or libzstd's failed
				 * allocation "Invalid argument" */
				if (lost < 0 && err == -EINVAL && !r->command_failed) {
					report_insert_error(r, mod, lost);
					err = lost;
				} else if (lost < 0 && err == 0) {
					/* libkmod goes on past a softdep it could not
					 * load, or a list entry, options or dependency
					 * it could not make: not all was done */
					err = lost;
					mp_fail(r, err, MP_ERROR,
						"could not insert '%s' and all it needs: %s",
						kmod_module_get_name(mod), strerror(-err));
				} else if (err < 0 && !r->command_failed) {
					report_insert_error(r, mod, err);
				} else if (err == 0) {
					err = plan_check(r, mod, &plan);
				}
			}
			plan_free(&plan);
		}
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
	return err;
}
