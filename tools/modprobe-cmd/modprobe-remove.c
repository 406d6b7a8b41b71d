// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe -r: kmod's order (post-softdeps, holders with --remove-holders,
 * the module, the dependencies it leaves unused, pre-softdeps), with one
 * change on a rot kernel: "unused" is lib's in-use rule (holders, bound
 * devices, mounts of a file system type the module provides), never the
 * reference count, which a rot kernel keeps at 0. kmod's modprobe -r
 * therefore unloads a file system module under its mounts there, and each
 * unload leaves rot it does not mention; this one says what rots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli-errors.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "kmodlog.h"
#include "modprobe-remove.h"
#include "unload-words.h"

#define RM_HOLDERS 0x1
#define RM_IGNORE_BUILTIN 0x2

static int remove_module(struct modprobe_run *r, struct kmod_module *mod, int flags);

/* kmod's SHOW(): "WORD TEXT", printed with -v or -n -v, flushed (commands may print too) */
static void show(struct modprobe_run *r, const char *word, const char *text)
{
	if (!r->show)
		return;
	printf("%s ", word);
	mp_put_text(text);
	putchar('\n');
	cli_flush_stdout();
}

static unsigned long long now_msec(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000 + (unsigned long long)t.tv_nsec / 1000000;
}

/*
 * -n: the verdict unload_now would reach, by the same rules: the kernel's
 * answer told from the snapshot (lib's rot_module_unload_predict(), where
 * the real run calls rot_unload()), and with -w on a rot kernel the in-use
 * rule, which the real run waits on. The words are the real run's, but
 * for the wait it does not make.
 */
static int unload_predicted(struct modprobe_run *r, struct kmod_module *mod, unsigned flags)
{
	const char *name = kmod_module_get_name(mod);
	const struct rot_snapshot *snap = mp_snapshot(r);
	char why[WHY_MAX];
	int err = 0;

	/* the real run asks the rule before each try, then the kernel */
	if (r->opts->wait_msec && r->rot) {
		enum verdict v = rm_in_use(r, mod, why, sizeof(why));
		if (v == IN_USE) {
			mp_fail(r, -EWOULDBLOCK, MP_ERROR,
				"could not remove '%s': still in use%s (a run would wait %llu ms first)",
				name, why, r->opts->wait_msec);
			return -EWOULDBLOCK;
		}
		if (v == UNKNOWN && !r->opts->force) {
			mp_fail(r, -EWOULDBLOCK, MP_ERROR,
				"could not remove '%s': cannot tell whether it is in use: %s; not "
				"unloaded (-f unloads it anyway; a run would wait %llu ms first)",
				name, why, r->opts->wait_msec);
			return -EWOULDBLOCK;
		}
	}
	if (snap)
		err = rot_module_unload_predict(snap, rot_snapshot_find_live(snap, name),
						rm_gone_marks(r)->marks, flags);
	if (err < 0) {
		mp_fail(r, err, MP_ERROR, "could not remove '%s': %s%s", name, cli_strerror(err),
			cli_errno_hint(err));
		return err;
	}
	rm_mark_gone(r, name);
	rm_report_rot(r, name);
	return 0;
}

/* One delete_module (through lib), retried while in use with -w. */
static int unload_now(struct modprobe_run *r, struct kmod_module *mod)
{
	const char *name = kmod_module_get_name(mod);
	unsigned flags = r->opts->force ? ROT_UNLOAD_FORCE : 0;
	unsigned long long deadline = r->opts->wait_msec ? now_msec() + r->opts->wait_msec : 0;
	unsigned long long interval = 1;
	char why[WHY_MAX];
	int err;

	show(r, "rmmod", name);
	if (r->opts->dry_run)
		return unload_predicted(r, mod, flags);
	for (;;) {
		/* on a rot kernel nothing but the rule tells when a user is gone */
		enum verdict v = deadline && r->rot ? rm_in_use_now(r, name, why, sizeof(why))
						    : UNUSED;
		bool busy = v == IN_USE || (v == UNKNOWN && !r->opts->force);
		err = busy ? -EWOULDBLOCK : rot_unload(name, flags);
		if (!(err == -EWOULDBLOCK && deadline && now_msec() < deadline))
			break;
		struct timespec t = { (time_t)(interval / 1000), (long)(interval % 1000) * 1000000 };
		while (nanosleep(&t, &t) < 0 && errno == EINTR)
			;
		interval = interval < 512 ? interval * 2 : interval;
	}
	if (err < 0) {
		enum verdict v = err == -EWOULDBLOCK && deadline && r->rot
					 ? rm_in_use_now(r, name, why, sizeof(why))
					 : UNUSED;
		if (v == IN_USE)
			mp_fail(r, err, MP_ERROR,
				"could not remove '%s': still in use after %llu ms%s", name,
				r->opts->wait_msec, why);
		else if (v == UNKNOWN)
			mp_fail(r, err, MP_ERROR,
				"could not remove '%s': cannot tell whether it is in use after %llu "
				"ms: %s; not unloaded (-f unloads it anyway)",
				name, r->opts->wait_msec, why);
		else
			mp_fail(r, err, MP_ERROR, "could not remove '%s': %s%s", name,
				cli_strerror(err), cli_errno_hint(err));
		return err;
	}
	rm_mark_gone(r, name);
	rm_report_rot(r, name);
	return 0;
}

/* kmod's remove command: $CMDLINE_OPTS replaced (by nothing), MODPROBE_MODULE set */
static int run_remove_command(struct modprobe_run *r, struct kmod_module *mod, const char *command)
{
	const char *name = kmod_module_get_name(mod);
	static const char var[] = "$CMDLINE_OPTS";
	char *cmd = malloc(strlen(command) + 1), *o = cmd;
	if (!cmd) {
		mp_fail(r, -ENOMEM, MP_ERROR, "could not remove '%s': %s", name,
			cli_strerror(-ENOMEM));
		return -ENOMEM;
	}
	for (const char *at; (at = strstr(command, var)); command = at + strlen(var))
		o = mempcpy(o, command, (size_t)(at - command));
	strcpy(o, command);
	show(r, "remove", cmd);
	int ret = r->opts->dry_run ? 0 : mp_run_command(r, "remove", name, cmd, false);
	free(cmd);
	return ret;
}

/*
 * The dependencies an unload left unused, each once. libkmod lists them in
 * load order (the bottom of a chain first), so one pass in that order, as
 * kmod 30 makes it, finds the bottom still held by the module above it and
 * leaves it loaded and unused: walk the list from the top down (the order
 * of modules.dep), and again while a pass unloads something, so that what
 * the last unload freed goes too.
 */
static void remove_unused_dependencies(struct modprobe_run *r, struct kmod_module *mod)
{
	kmod_trace_start();
	struct kmod_list *deps = kmod_module_get_dependencies(mod), *l;
	int lost = kmod_lost();
	if (lost < 0) {
		/* a list cut short would leave the rest loaded, unsaid */
		kmod_module_unref_list(deps);
		mp_fail(r, lost, MP_ERROR, "could not remove what '%s' left unused: %s",
			kmod_module_get_name(mod), strerror(-lost));
		return;
	}
	size_t n = 0;
	kmod_list_foreach(l, deps) n++;
	/* Per dependency: what this walk unloaded (or, -n, would have), never
	 * twice; and, at its last look, whether its use could not be judged. */
	struct dep_look {
		bool done, unknown;
		const char *name; /* the dependency's, once looked at */
		char *why;        /* when unknown (NULL if it could not be kept) */
	} *look = calloc(n + 1, sizeof(*look));
	for (bool again = look != NULL; again && !r->stopped;) {
		size_t i = n;
		again = false;
		kmod_list_foreach_reverse(l, deps)
		{
			struct kmod_module *dep = kmod_module_get_module(l);
			i--;
			if (!r->stopped && !look[i].done) {
				char why[WHY_MAX];
				enum verdict v = rm_dependency_verdict(r, dep, why, sizeof(why));
				free(look[i].why);
				look[i].name = kmod_module_get_name(dep);
				look[i].unknown = v == UNKNOWN;
				look[i].why = look[i].unknown ? strdup(why) : NULL;
				if (v == UNUSED && unload_now(r, dep) == 0)
					again = look[i].done = true;
			}
			kmod_module_unref(dep);
		}
	}
	if (!look && n)
		mp_fail(r, -ENOMEM, MP_ERROR,
			"could not remove what '%s' left unused: out of memory",
			kmod_module_get_name(mod));
	/* A dependency kept in use goes unsaid, as kmod keeps it; one kept
	 * because its use could not be judged is said once, with the reason
	 * the walk's own look found, so that a doubt is not taken for a
	 * verdict. Not a failure: what was asked went. */
	for (size_t i = n; look && i-- > 0;) {
		if (look[i].unknown && !look[i].done && !r->stopped && !r->opts->quiet)
			cli_warn("kept '%s', which '%s' used: cannot tell whether it is in use%s%s",
				 look[i].name, kmod_module_get_name(mod), look[i].why ? ": " : "",
				 look[i].why ? look[i].why : "");
		free(look[i].why);
	}
	free(look);
	kmod_module_unref_list(deps);
}

/* in reverse order; stop at the first failure when asked */
static int remove_list(struct modprobe_run *r, struct kmod_list *list, bool stop_on_errors)
{
	struct kmod_list *l;
	kmod_list_foreach_reverse(l, list)
	{
		struct kmod_module *m = kmod_module_get_module(l);
		int err = remove_module(r, m, RM_IGNORE_BUILTIN);
		kmod_module_unref(m);
		if (err < 0 && stop_on_errors)
			return err;
	}
	return 0;
}

/*
 * Softdeps and holders lead back into remove_module(): a softdep loop in
 * modprobe.d (a module that softdeps on itself, or a cycle) would recurse
 * without end. The modules being removed are kept as a path; one already
 * on it is not entered again (libkmod's insertion ignores such a loop in
 * the same way), and the loop is told, once per edge.
 */
static bool path_enter(struct modprobe_run *r, const char *name)
{
	for (size_t i = 0; i < r->depth; i++) {
		if (strcmp(r->path[i], name))
			continue;
		char loop[1024];
		size_t len = 0;
		for (size_t j = i; j <= r->depth && len < sizeof(loop); j++)
			len += (size_t)snprintf(loop + len, sizeof(loop) - len,
						j < r->depth ? "%s -> " : "%s",
						j < r->depth ? r->path[j] : name);
		if (!r->opts->quiet)
			cli_warn("softdep loop %s: not following it back to %s", loop, name);
		return false;
	}
	if (r->depth == MP_REMOVE_DEPTH_MAX) {
		mp_fail(r, -ELOOP, MP_FATAL,
			"could not remove '%s': softdeps and holders nest deeper than %d modules",
			name, MP_REMOVE_DEPTH_MAX);
		return false;
	}
	r->path[r->depth++] = name;
	return true;
}

/*
 * --remove-holders: on a rot kernel the holders the rule counts, those of
 * the snapshot (/proc/modules), so that a sysfs holders directory that
 * cannot be read hides none; elsewhere libkmod's, as kmod.
 */
static int remove_holders(struct modprobe_run *r, struct kmod_module *mod)
{
	const struct rot_snapshot *snap = r->rot ? mp_snapshot(r) : NULL;
	if (!snap) {
		struct kmod_list *holders = kmod_module_get_holders(mod);
		int err = remove_list(r, holders, true);
		kmod_module_unref_list(holders);
		return err;
	}
	const struct rot_module *m = rot_snapshot_find_live(snap, kmod_module_get_name(mod));
	for (size_t i = m ? rot_module_holder_count(m) : 0; i-- > 0;) {
		struct kmod_module *h;
		int err = kmod_module_new_from_name(r->ctx, rot_module_holder(m, i), &h);
		if (err < 0) {
			mp_fail(r, err, MP_ERROR, "could not remove the holders of '%s': %s",
				kmod_module_get_name(mod), cli_strerror(err));
			return err;
		}
		err = remove_module(r, h, RM_IGNORE_BUILTIN);
		kmod_module_unref(h);
		if (err < 0)
			return err;
	}
	return 0;
}

static int remove_module_entered(struct modprobe_run *r, struct kmod_module *mod, int flags)
{
	const struct modprobe_opts *o = r->opts;
	const char *name = kmod_module_get_name(mod);
	struct kmod_list *pre = NULL, *post = NULL;
	const char *cmd = NULL;
	bool ignore_loaded = o->show_depends;
	char why[WHY_MAX];
	int err = 0;

	if (!o->ignore_commands) {
		kmod_trace_start();
		err = kmod_module_get_softdeps(mod, &pre, &post);
		if (err == 0)
			err = kmod_lost();
		if (err < 0) {
			/* nothing is removed then: a failure, in kmod's word */
			mp_fail(r, err, MP_WARNING, "could not get softdeps of '%s': %s", name,
				cli_strerror(err));
			return err;
		}
		cmd = kmod_module_get_remove_commands(mod);
	}
	if (!cmd && !ignore_loaded) {
		/* what this run unloaded (or, -n, would have) is not in the kernel
		 * any more, though -n leaves it there: -a X X counts it once */
		int state = rm_unloaded_by_run(r, name) ? -ENOENT : kmod_module_get_initstate(mod);
		if (state < 0 && state != -ENOENT) {
			/* an initstate that could not be read is no "not loaded" */
			err = state;
			mp_fail(r, err, MP_FATAL, "could not tell whether '%s' is loaded: %s", name,
				cli_strerror(err));
			goto out;
		}
		if (state < 0) {
			if (o->reclaim && r->rot && rm_reclaim_rotting(r, name))
				goto out;
			if (o->first_time) {
				err = -ENOENT;
				mp_fail(r, err, MP_FATAL, "Module %s is not in kernel.", name);
			}
			goto out;
		}
		if (state == KMOD_MODULE_BUILTIN) {
			if (!(flags & RM_IGNORE_BUILTIN)) {
				err = -ENOENT;
				builtin_words(why, sizeof(why), name);
				mp_fail(r, err, MP_FATAL, "%s", why);
			}
			goto out;
		}
	}
	remove_list(r, post, false);
	if (flags & RM_HOLDERS) {
		err = remove_holders(r, mod);
		if (err < 0)
			goto out;
		/* a holder's unload took it along, as a dependency it left unused */
		if (rm_unloaded_by_run(r, name))
			goto out;
	}
	enum verdict v = cmd || ignore_loaded || o->wait_msec ? UNUSED
							      : rm_in_use(r, mod, why, sizeof(why));
	if (v == IN_USE) {
		err = -EBUSY;
		mp_fail(r, err, MP_FATAL, "Module %s is in use%s.", name, why);
		goto out;
	}
	if (v == UNKNOWN && !o->force) {
		err = -EBUSY;
		mp_fail(r, err, MP_FATAL,
			"Module %s: cannot tell whether it is in use: %s; nothing unloaded "
			"(-f unloads it anyway).",
			name, why);
		goto out;
	}
	err = cmd ? run_remove_command(r, mod, cmd) : unload_now(r, mod);
	if (err < 0)
		goto out;
	/* what it left unused goes too; failures here are not the run's */
	if (!cmd)
		remove_unused_dependencies(r, mod);
	remove_list(r, pre, false);
out:
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	return err;
}

static int remove_module(struct modprobe_run *r, struct kmod_module *mod, int flags)
{
	if (r->stopped)
		return -ECANCELED;
	if (!path_enter(r, kmod_module_get_name(mod)))
		return r->depth == MP_REMOVE_DEPTH_MAX ? -ELOOP : 0;
	int err = remove_module_entered(r, mod, flags);
	r->depth--;
	return err;
}

int mp_remove(struct modprobe_run *r, const char *alias)
{
	struct kmod_list *list = NULL, *l;
	char why[WHY_MAX];
	int err;

	if (mp_name_refused(r, alias))
		return -ENAMETOOLONG;
	/* A rule that cannot be evaluated unloads nothing, softdeps included. */
	if (r->rot && !r->opts->force && !r->opts->show_depends &&
	    rm_usage_inputs(r, why, sizeof(why)) < 0) {
		mp_fail(r, r->usage_err, MP_FATAL,
			"could not remove '%s': cannot tell what is in use: %s; nothing unloaded "
			"(-f unloads anyway)",
			alias, why);
		return r->usage_err;
	}
	kmod_trace_start();
	err = kmod_module_new_from_lookup(r->ctx, alias, &list);
	if (err == 0)
		err = kmod_lost();
	if (err < 0) {
		/* libkmod refuses a name it cannot normalise ('[' without ']'):
		 * kmod says nothing and goes on to the next name, modrot says
		 * why and goes on too */
		mp_fail(r, err, MP_ERROR, "could not look up module %s: %s", alias,
			cli_strerror(err));
		return err;
	}
	if (!list) {
		err = -ENOENT;
		mp_fail(r, err, MP_FATAL, "Module %s not found.", alias);
	}
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		err = remove_module(r, mod, r->opts->remove_holders ? RM_HOLDERS : 0);
		kmod_module_unref(mod);
		if (err < 0)
			break;
	}
	kmod_module_unref_list(list);
	return err;
}
