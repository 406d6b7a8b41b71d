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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "modprobe.h"
#include "reclaim-report.h"

#define RM_HOLDERS 0x1
#define RM_IGNORE_BUILTIN 0x2

static int remove_module(struct modprobe_run *r, struct kmod_module *mod, int flags);

/* kmod's SHOW(): "WORD TEXT", printed with -v or -n -v, flushed (commands may print too) */
static void show(struct modprobe_run *r, const char *word, const char *text)
{
	if (!r->show)
		return;
	printf("%s %s\n", word, text);
	cli_flush_stdout();
}

static bool *gone_marks(struct modprobe_run *r)
{
	if (!r->gone && mp_snapshot(r))
		r->gone = calloc(rot_snapshot_count(r->snap) + 1, sizeof(*r->gone));
	return r->gone;
}

static void mark_gone(struct modprobe_run *r, const char *name)
{
	const struct rot_module *m = r->snap ? rot_snapshot_find_live(r->snap, name) : NULL;
	bool *gone = gone_marks(r);
	if (m && gone)
		gone[rot_snapshot_index_of(r->snap, m)] = true;
}

/*
 * Whether name is in use, by the rule of its kernel: lib's rule on a rot
 * kernel (what this run unloaded holds nothing), the reference count on a
 * stock one, as kmod. why gets the reason in words.
 */
/* The rule's verdict on m, with its reason in words. */
static bool usage_verdict(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
			  const struct rot_module *m, const bool *gone, char *why, size_t cap)
{
	struct rot_usage u;
	int err = rot_module_usage(ctx, snap, m, gone, &u);
	if (err < 0) {
		/* devices that cannot be counted are not known to be none */
		snprintf(why, cap, ": its devices could not be read (%s)", strerror(-err));
		return true;
	}
	if (!rot_usage_in_use(&u))
		return false;
	if (u.holders)
		snprintf(why, cap, ": %zu live %s depend on it", u.holders,
			 u.holders == 1 ? "module" : "modules");
	else if (u.devices)
		snprintf(why, cap, ": %zu %s bound to its drivers", u.devices,
			 u.devices == 1 ? "device is" : "devices are");
	else if (u.mounts)
		snprintf(why, cap, ": a %s file system is mounted on %s", u.mount_type,
			 u.mount_target);
	return true;
}

static bool in_use(struct modprobe_run *r, struct kmod_module *mod, char *why, size_t cap)
{
	const char *name = kmod_module_get_name(mod);
	why[0] = '\0';
	if (!r->rot)
		return kmod_module_get_refcnt(mod) > 0;
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, name) : NULL;
	bool *gone = gone_marks(r);
	if (!m || (gone && gone[rot_snapshot_index_of(snap, m)]))
		return false; /* not live: the unload will say so */
	if (!r->usage_read) {
		r->usage_read = true;
		int err = rot_usage_open(r->moddir, &r->usage);
		if (err < 0)
			mp_fail(r, err, false, "could not read the mount table: %s", strerror(-err));
	}
	return usage_verdict(r->usage, snap, m, gone, why, cap);
}

/* For -w: the rule on the kernel as it is now (a fresh snapshot and mount
 * table), since what the run read first is what it waits to change. */
static bool in_use_now(struct modprobe_run *r, const char *name, char *why, size_t cap)
{
	struct rot_snapshot *snap = NULL;
	struct rot_usage_ctx *ctx = NULL;
	bool busy = false;
	why[0] = '\0';
	if (rot_snapshot_read(&snap) < 0 || rot_usage_open(r->moddir, &ctx) < 0) {
		rot_snapshot_free(snap);
		return false; /* the unload will tell */
	}
	const struct rot_module *m = rot_snapshot_find_live(snap, name);
	if (m)
		busy = usage_verdict(ctx, snap, m, NULL, why, cap);
	rot_usage_close(ctx);
	rot_snapshot_free(snap);
	return busy;
}

/* A dependency goes when live and unused: kmod asks for a zero refcount,
 * which a module not loaded does not have either. */
static bool dependency_unused(struct modprobe_run *r, struct kmod_module *dep)
{
	char why[256];
	if (!r->rot)
		return kmod_module_get_refcnt(dep) == 0;
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, kmod_module_get_name(dep))
					  : NULL;
	if (!m || (r->gone && r->gone[rot_snapshot_index_of(snap, m)]))
		return false;
	return !in_use(r, dep, why, sizeof(why));
}

/* What an unload of name leaves rotting: its size in the snapshot. */
static uint64_t live_size(struct modprobe_run *r, const char *name)
{
	const struct rot_snapshot *snap = mp_snapshot(r);
	const struct rot_module *m = snap ? rot_snapshot_find_live(snap, name) : NULL;
	return m ? rot_module_size(m) : 0;
}

static void reclaim_after(struct modprobe_run *r, const char *name, uint64_t size)
{
	if (r->opts->dry_run) {
		report_reclaimed(name, 1, size, true);
		r->reclaimed_any = true;
		return;
	}
	struct reclaim_seen seen = { mp_rot_accounted(r, name), 0, size };
	struct reclaim_outcome o;
	seen.bytes = size * seen.instances; /* an estimate; the kernel's count decides */
	reclaim_name(mp_snapshot(r), name, &seen, r->opts->force, &o);
	if (o.err < 0 && o.err != -EBUSY) {
		mp_fail(r, o.err, false, "could not reclaim module %s: %s%s", name,
			strerror(-o.err), cli_errno_hint(o.err));
		return;
	}
	if (o.freed) {
		r->reclaimed_any = true;
		report_reclaimed(name, o.freed, o.bytes, false);
		mp_rot_account(r, name, (size_t)0 - o.freed);
	}
	if (o.refused) {
		char msg[512];
		refused_message(msg, sizeof(msg), name, &o, "modprobe -r --reclaim -f",
				r->opts->force);
		cli_flush_stdout();
		mp_fail(r, -EBUSY, false, "%s", msg);
	}
}

/* After an unload (or, with -n, instead of it) on a rot kernel: what rots. */
static void report_rot(struct modprobe_run *r, const char *name)
{
	uint64_t size = live_size(r, name);
	if (!r->rot)
		return;
	r->rotted++;
	r->rotted_bytes += size;
	if (!r->opts->dry_run)
		mp_rot_account(r, name, 1);
	if (r->opts->reclaim) {
		reclaim_after(r, name, size);
		return;
	}
	if (!r->talk)
		return;
	if (r->opts->dry_run)
		cli_notice("%s would rot: %" PRIu64 " bytes would stay allocated", name, size);
	else
		cli_notice("%s now rots: %" PRIu64 " bytes stay allocated; "
			   "'rmmod --reclaim %s' frees them and taints the kernel",
			   name, size, name);
}

static unsigned long long now_msec(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000 + (unsigned long long)t.tv_nsec / 1000000;
}

static void sleep_msec(unsigned long long ms)
{
	struct timespec t = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* One delete_module (through lib), retried while in use with -w. */
static int unload_now(struct modprobe_run *r, struct kmod_module *mod)
{
	const char *name = kmod_module_get_name(mod);
	unsigned flags = r->opts->force ? ROT_UNLOAD_FORCE : 0;
	unsigned long long deadline = r->opts->wait_msec ? now_msec() + r->opts->wait_msec : 0;
	unsigned long long interval = 1;
	char why[256];
	int err;

	show(r, "rmmod", name);
	if (r->opts->dry_run) {
		mark_gone(r, name);
		report_rot(r, name);
		return 0;
	}
	for (;;) {
		/* on a rot kernel nothing but the rule tells when a user is gone */
		bool busy = deadline && r->rot && in_use_now(r, name, why, sizeof(why));
		err = busy ? -EWOULDBLOCK : rot_unload(name, flags);
		if (!(err == -EWOULDBLOCK && deadline && now_msec() < deadline))
			break;
		sleep_msec(interval);
		interval = interval < 512 ? interval * 2 : interval;
	}
	if (err < 0) {
		if (err == -EWOULDBLOCK && deadline && r->rot &&
		    in_use_now(r, name, why, sizeof(why)))
			mp_fail(r, err, false, "could not remove '%s': still in use after %llu ms%s",
				name, r->opts->wait_msec, why);
		else
			mp_fail(r, err, false, "could not remove '%s': %s%s", name, strerror(-err),
				cli_errno_hint(err));
		return err;
	}
	mark_gone(r, name);
	report_rot(r, name);
	return 0;
}

/* kmod's remove command: $CMDLINE_OPTS replaced (by nothing), MODPROBE_MODULE set */
static int run_remove_command(struct modprobe_run *r, struct kmod_module *mod, const char *command)
{
	const char *name = kmod_module_get_name(mod);
	static const char var[] = "$CMDLINE_OPTS";
	size_t len = strlen(command);
	char *cmd = malloc(len + 1), *o = cmd;
	if (!cmd)
		return -ENOMEM;
	for (const char *p = command; *p;) {
		if (!strncmp(p, var, sizeof(var) - 1)) {
			p += sizeof(var) - 1;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	show(r, "remove", cmd);
	int ret = 0;
	if (!r->opts->dry_run) {
		setenv("MODPROBE_MODULE", name, 1);
		ret = system(cmd);
		unsetenv("MODPROBE_MODULE");
		if (ret == -1 || WEXITSTATUS(ret)) {
			mp_fail(r, -EIO, false, "Error running remove command for %s", name);
			ret = ret == -1 ? -errno : -WEXITSTATUS(ret);
		}
	}
	free(cmd);
	return ret;
}

/* in reverse order; stop at the first failure when asked */
static int remove_list(struct modprobe_run *r, struct kmod_list *list, bool stop_on_errors)
{
	struct kmod_list *l;
	kmod_list_foreach_reverse(l, list)
	{
		struct kmod_module *m = kmod_module_get_module(l);
		int err = r->stopped ? -ECANCELED : remove_module(r, m, RM_IGNORE_BUILTIN);
		kmod_module_unref(m);
		if (err < 0 && stop_on_errors)
			return err;
	}
	return 0;
}

static int remove_module(struct modprobe_run *r, struct kmod_module *mod, int flags)
{
	const struct modprobe_opts *o = r->opts;
	const char *name = kmod_module_get_name(mod);
	struct kmod_list *pre = NULL, *post = NULL;
	const char *cmd = NULL;
	bool ignore_loaded = o->show_depends;
	char why[256];
	int err = 0;

	if (!o->ignore_commands) {
		err = kmod_module_get_softdeps(mod, &pre, &post);
		if (err < 0) {
			cli_warn("could not get softdeps of '%s': %s", name, strerror(-err));
			return err;
		}
		cmd = kmod_module_get_remove_commands(mod);
	}
	if (!cmd && !ignore_loaded) {
		int state = kmod_module_get_initstate(mod);
		if (state < 0) {
			if (o->first_time) {
				err = -ENOENT;
				mp_fail(r, err, true, "Module %s is not in kernel.", name);
			}
			goto out;
		}
		if (state == KMOD_MODULE_BUILTIN) {
			if (!(flags & RM_IGNORE_BUILTIN)) {
				err = -ENOENT;
				mp_fail(r, err, true, "Module %s is builtin.", name);
			}
			goto out;
		}
	}
	remove_list(r, post, false);
	if (flags & RM_HOLDERS) {
		struct kmod_list *holders = kmod_module_get_holders(mod);
		err = remove_list(r, holders, true);
		kmod_module_unref_list(holders);
		if (err < 0)
			goto out;
	}
	if (!cmd && !ignore_loaded && !o->wait_msec && in_use(r, mod, why, sizeof(why))) {
		err = -EBUSY;
		mp_fail(r, err, true, "Module %s is in use%s.", name, why);
		goto out;
	}
	err = cmd ? run_remove_command(r, mod, cmd) : unload_now(r, mod);
	if (err < 0)
		goto out;
	/* what it left unused goes too; failures here are not the run's */
	if (!cmd) {
		struct kmod_list *deps = kmod_module_get_dependencies(mod), *l;
		kmod_list_foreach(l, deps)
		{
			struct kmod_module *dep = kmod_module_get_module(l);
			if (!r->stopped && dependency_unused(r, dep))
				unload_now(r, dep);
			kmod_module_unref(dep);
		}
		kmod_module_unref_list(deps);
	}
	remove_list(r, pre, false);
out:
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	return err;
}

int mp_remove(struct modprobe_run *r, const char *alias)
{
	struct kmod_list *list = NULL, *l;
	int err = kmod_module_new_from_lookup(r->ctx, alias, &list);

	if (err < 0) {
		/* libkmod refuses a name it cannot normalise ('[' without ']') */
		mp_fail(r, err, true, "could not look up module %s: %s", alias, strerror(-err));
		return err;
	}
	if (!list) {
		err = -ENOENT;
		mp_fail(r, err, true, "Module %s not found.", alias);
	}
	kmod_list_foreach(l, list)
	{
		struct kmod_module *mod = kmod_module_get_module(l);
		err = r->stopped ? -ECANCELED
				 : remove_module(r, mod, r->opts->remove_holders ? RM_HOLDERS : 0);
		kmod_module_unref(mod);
		if (err < 0)
			break;
	}
	kmod_module_unref_list(list);
	return err;
}
