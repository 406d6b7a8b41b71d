// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe's loading: libkmod resolves the name (alias, blacklist,
 * modprobe.d options, softdeps, dependencies, install commands) and plans
 * the loads. Every module of the plan then goes through insmod's preflight
 * before the kernel sees any of them: on a rot kernel a module the kernel
 * refuses late, in its init, rots. Only a plan that passes whole is run,
 * as kmod's modprobe runs it: here, from the images preflight read, when
 * it is plain insertions (planned once, each file read once); by libkmod's
 * real run when it holds an install command, a gzip file libkmod alone
 * reads, or a forced load (libkmod rewrites the image).
 *
 * libkmod's real run reads each file again to load it. Right before it
 * does, the file is read once more and must hold the image the preflight
 * checked: an earlier step of the plan (an install command, say) that
 * replaced it stops the run there, before the kernel sees the replacement.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "load.h"
#include "kmodlog.h"
#include "modprobe-insert.h"
#include "modprobe.h"
#include "sizewords.h"

/* kmod's lines for -v, -n and -D: what is loaded, with which options. */
static void print_action(struct kmod_module *m, bool install, const char *options);

/* The real run's actions, marked off against the plan (libkmod's
 * print_action has no user data either). */
static struct plan *acting;
static bool acting_shows;
static struct modprobe_run *acting_run;

/* Whether now holds the image checked: -ESTALE when it holds another. */
static int same_image(const struct rot_modfile *now, const struct rot_modfile *checked)
{
	size_t len, checked_len;
	const void *image = rot_modfile_image(now, &len);
	const void *checked_image = rot_modfile_image(checked, &checked_len);
	if (!image || !checked_image || len != checked_len || memcmp(image, checked_image, len))
		return -ESTALE;
	return 0;
}

/* Whether path still holds the image checked: -ESTALE when it holds
 * another, else 0 or why it could not be read. */
static int image_unchanged(const char *path, const struct rot_modfile *checked)
{
	struct rot_modfile *now;
	int err = rot_modfile_read(path, &now);
	if (err < 0)
		return err;
	err = same_image(now, checked);
	rot_modfile_free(now);
	return err;
}

/* The same, of the file open as fd (read from its start, without moving
 * its offset); path only names it. */
static int fd_image_unchanged(int fd, const char *path, const struct rot_modfile *checked)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > ROT_MODFILE_MAX)
		return -EFBIG;
	size_t len = (size_t)st.st_size, got = 0;
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -ESTALE; /* shorter than it says: changing */
			free(buf);
			return err;
		}
		got += (size_t)n;
	}
	struct rot_modfile *now;
	int err = rot_modfile_parse(path, buf, len, &now);
	free(buf);
	if (err < 0)
		return err;
	err = same_image(now, checked);
	rot_modfile_free(now);
	return err;
}

/*
 * Makes libkmod open m's file now, as its insert would, and returns the
 * descriptor it opened, or -1 when it opened none (it held the file
 * already). libkmod keeps one open file per module and inserts from it:
 * finit_module() on that descriptor, or the image it decompressed from
 * it, never the path again. So what is read through the descriptor is
 * what the kernel gets, whatever the path names by then. libkmod's open
 * takes the lowest free descriptor, which a pipe made and closed just
 * before tells without a path (a test harness may trap every path).
 */
static int libkmod_file_fd(struct kmod_module *m)
{
	struct kmod_list *info = NULL;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	close(p[0]);
	close(p[1]);
	/* its result does not matter: an ELF libkmod cannot read still
	 * leaves the file open, and the insert reports what is wrong */
	if (kmod_module_get_info(m, &info) >= 0)
		kmod_module_info_free_list(info);
	int flags = fcntl(p[0], F_GETFD);
	return flags >= 0 && (flags & FD_CLOEXEC) ? p[0] : -1;
}

/*
 * libkmod calls this right before it inserts m (or runs its install
 * command). A file that no longer holds what was checked must not reach
 * the kernel, and libkmod offers no way to stop its run but this: the
 * failure is said and modprobe ends, what the plan loaded before it
 * staying loaded (as after any failed step). The file is checked as
 * libkmod holds it open (libkmod_file_fd()); only when libkmod held it
 * before this step is the path read again instead.
 */
static void refuse_if_replaced(const struct plan_step *step)
{
	const char *path = kmod_module_get_path(step->mod);
	const char *name = kmod_module_get_name(step->mod);
	if (step->install || !step->mf || !path)
		return;
	int fd = libkmod_file_fd(step->mod);
	int err = fd >= 0 ? fd_image_unchanged(fd, path, step->mf) : image_unchanged(path, step->mf);
	if (err == 0)
		return;
	if (err == -ESTALE)
		mp_fail(acting_run, err, MP_ERROR,
			"could not insert '%s': %s changed after it was checked (by an earlier "
			"step of the plan, or meanwhile); not loaded, nor what follows it",
			name, path);
	else
		mp_fail(acting_run, err, MP_ERROR,
			"could not insert '%s': could not read %s again to load it: %s; not "
			"loaded, nor what follows it",
			name, path, cli_strerror(err));
	fflush(stdout);
	exit(cli_outcome_exit(&acting_run->outcome));
}

static void mark_action(struct kmod_module *m, bool install, const char *options)
{
	for (size_t i = 0; acting && i < acting->n; i++)
		if (!strcmp(kmod_module_get_name(acting->v[i].mod), kmod_module_get_name(m))) {
			if (!acting->v[i].acted)
				refuse_if_replaced(&acting->v[i]);
			acting->v[i].acted = true;
		}
	if (acting_shows)
		print_action(m, install, options);
}

static void print_action(struct kmod_module *m, bool install, const char *options)
{
	const char *path = kmod_module_get_path(m);
	if (install) {
		fputs("install ", stdout);
		mp_put_text(kmod_module_get_install_commands(m));
	} else if (path) {
		fputs("insmod ", stdout);
		mp_put_text(path);
	} else if (kmod_module_get_initstate(m) == KMOD_MODULE_BUILTIN) {
		fputs("builtin ", stdout);
		mp_put_text(kmod_module_get_name(m));
		putchar('\n');
		return;
	} else {
		return;
	}
	putchar(' ');
	mp_put_text(options);
	putchar('\n');
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
		mp_fail(r, err, MP_ERROR, "could not insert '%s': %s%s%s", name, cli_strerror(err),
			cli_errno_hint(err), rot);
}

/*
 * Whether the checked plan can be run here, from the files already read,
 * rather than by libkmod's real run (which would plan and read again):
 * plain insertions of files modrot reads (not gzip), with nothing forced.
 */
static bool plan_runs_here(const struct plan *plan, unsigned flags)
{
	if (flags & (KMOD_PROBE_FORCE_VERMAGIC | KMOD_PROBE_FORCE_MODVERSION | KMOD_PROBE_DRY_RUN))
		return false;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].install || !plan->v[i].mf ||
		    rot_modfile_problem(plan->v[i].mf) != ROT_PROBLEM_NONE)
			return false;
	return plan->n > 0;
}

/* Whether libkmod's real run would hold a failure of m against the
 * target: the target and its dependencies must load, its softdeps may fail. */
static bool step_required(struct kmod_module *target, const struct kmod_list *deps,
			  struct kmod_module *m)
{
	const struct kmod_list *l;
	if (!strcmp(kmod_module_get_name(m), kmod_module_get_name(target)))
		return true;
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
 * Runs a plan plan_runs_here() accepted as libkmod's real run runs it:
 * in order, each with its options, printed first with -v; "already
 * loaded" is no failure (a module loaded meanwhile) unless --first-time
 * names the target; a softdep's failure is passed over; any other failure
 * ends the plan. The kernel gets the image preflight checked.
 */
static int run_plan(struct modprobe_run *r, struct kmod_module *mod, unsigned flags,
		    struct plan *plan)
{
	struct kmod_list *deps = kmod_module_get_dependencies(mod);
	int err = 0;
	for (size_t i = 0; i < plan->n; i++) {
		struct plan_step *p = &plan->v[i];
		if (r->show)
			print_action(p->mod, false, p->options);
		p->acted = true;
		err = rot_modfile_insert(p->mf, p->options);
		if (err == 0)
			note_loaded_symbols(r, p->mf);
		bool target = !strcmp(kmod_module_get_name(p->mod), kmod_module_get_name(mod));
		if (err == -EEXIST && target && (flags & KMOD_PROBE_FAIL_ON_LOADED))
			break;
		if (err == -EEXIST || !step_required(mod, deps, p->mod))
			err = 0;
		else if (err < 0)
			break;
	}
	kmod_module_unref_list(deps);
	return err;
}

/* The module being probed by libkmod's real run: it and its dependencies
 * are what the load needs; the rest of the plan is soft dependencies. */
static struct kmod_module *probing;

/* As libkmod counts it ("required"), in its real run: a soft dependency's
 * failure libkmod passes over. */
static bool required(struct kmod_module *m)
{
	if (!probing)
		return true;
	struct kmod_list *deps = kmod_module_get_dependencies(probing);
	bool found = step_required(probing, deps, m);
	kmod_module_unref_list(deps);
	return found;
}

/* libkmod's hook for an install command ($CMDLINE_OPTS already replaced):
 * libkmod's own runner takes a command killed by a signal for success. */
static int run_install(struct kmod_module *m, const char *cmd, void *data)
{
	struct modprobe_run *r = data;
	/* a command may unload what this run loaded */
	mp_forget_loaded_symbols(r);
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
			mp_put_text(kmod_module_get_name(mod));
			putchar('\n');
			err = 0;
		} else {
			struct plan plan = { 0 };
			err = (flags & KMOD_PROBE_DRY_RUN)
				      ? 0
				      : mp_preflight_plan(r, mod, flags, extra, &plan);
			if (err == 0 && plan_runs_here(&plan, flags)) {
				err = run_plan(r, mod, flags, &plan);
				if (err < 0)
					report_insert_error(r, mod, err);
			} else if (err == 0) {
				r->command_failed = false;
				acting = &plan;
				acting_run = r;
				probing = mod;
				acting_shows = r->show;
				kmod_trace_start();
				err = kmod_module_probe_insert_module(mod, flags, extra,
								      run_install, r,
								      r->show || plan.n ? mark_action
											: NULL);
				acting = NULL;
				acting_run = NULL;
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
						kmod_module_get_name(mod), cli_strerror(err));
				} else if (err < 0 && !r->command_failed) {
					report_insert_error(r, mod, err);
				} else if (err == 0) {
					err = mp_plan_check(r, mod, &plan);
				}
			}
			mp_plan_free(&plan);
		}
		kmod_module_unref(mod);
	}
	kmod_module_unref_list(list);
	return err;
}
