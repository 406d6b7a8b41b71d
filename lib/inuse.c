// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one rule for "in use" (modrot.h, "in use: one rule for every tool").
 * The kernel says what uses a module, but on a rot kernel of revision 1 to
 * 3, whose reference count is always 0 and whose pins no file shows: there
 * it is guessed from the mounts, failing closed on every doubt, and a
 * refusal names the input it could not trust.
 *
 * MODULE_ALIAS_FS() gives a module the alias fs-TYPE, which depmod copies
 * into modules.alias; a type may have several providers, each in use while
 * it is mounted. A mount's type may carry a subtype after a dot
 * (fuse.sshfs), and the module provides the file system; an alias may be a
 * pattern (fs-ext[234]), matched as modprobe does, with fnmatch().
 *
 * The mounts are those of every mount namespace (mntns.c): a container's
 * mount keeps the module busy too. They are read once per context, and
 * only when a module that provides a type is judged, so that no user's
 * mount table, however large, stands in the way of unloading a network
 * driver.
 *
 * Without the module directory or its alias index nothing says which
 * modules provide a type, which is no reason to think none does (a
 * container without /lib/modules/RELEASE, a kernel upgraded before a
 * reboot): their absence is an error. So is any input that cannot be read
 * or cannot be right (a line without a type, this process's table empty
 * though the proc mount it is read from is in it, a NUL inside an input,
 * a text index the binary one does not confirm), since the callers unload
 * what the rule calls unused.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

struct mount_entry {
	char *type;
	char *target;
	long pid; /* the process whose namespace has it; 0: this process's */
};

/* One `alias fs-TYPE NAME` line of a mounted TYPE. */
struct provider {
	const char *type; /* the alias's TYPE (maybe a pattern), in alias_text */
	char *name;       /* normalised, in alias_text */
};

struct rot_usage_ctx {
	struct mount_entry *v;
	size_t n;
	struct provider *p;
	size_t np;
	struct mntns_tables tables;
	char *alias_text;
	/* the kernel knows (stock: references; revision 4: pins): no input read */
	bool kernel_knows;
	/* the mount tables, read on the first judgement that needs them */
	bool tables_tried;
	int tables_err;
	char what[4096]; /* the input the last failed judgement could not read */
};

/* -EBADMSG for a table that is not the kernel's: a line without a type,
 * or this process's empty (another's reads empty only as it exits, and
 * is passed over before this). */
static int mounts_parse(struct rot_usage_ctx *c, const struct mntns_table *t, size_t *cap)
{
	size_t before = c->n;
	for (char *save = NULL, *l = strtok_r(t->text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		/* SOURCE TARGET TYPE OPTIONS ..., split in place */
		char *fields = NULL, *src = strtok_r(l, " \t", &fields);
		char *target = src ? strtok_r(NULL, " \t", &fields) : NULL;
		char *type = target ? strtok_r(NULL, " \t", &fields) : NULL;
		if (!type)
			return -EBADMSG;
		if (!array_reserve(&c->v, cap, c->n + 1, sizeof(*c->v)))
			return -ENOMEM;
		c->v[c->n++] = (struct mount_entry){ .type = type, .target = target, .pid = t->pid };
	}
	return c->n > before ? 0 : -EBADMSG;
}

/* Every namespace's table, read and parsed once per context, on the first
 * judgement of a module that provides a type; a failure is kept, and
 * c->what names the input that could not be read. */
static int tables_need(struct rot_usage_ctx *c)
{
	size_t vcap = 0;
	if (c->tables_tried)
		return c->tables_err;
	c->tables_tried = true;
	int err = mntns_tables_read("/proc", &c->tables, c->what, sizeof(c->what));
	for (size_t i = 0; !err && i < c->tables.n; i++) {
		const struct mntns_table *t = &c->tables.v[i];
		err = mounts_parse(c, t, &vcap);
		if (err == -EBADMSG && t->pid)
			snprintf(c->what, sizeof(c->what), "/proc/%ld/mounts", t->pid);
		else if (err == -EBADMSG)
			snprintf(c->what, sizeof(c->what), "/proc/self/mounts");
	}
	return c->tables_err = err;
}

/* Whether a mount of type mounted (maybe TYPE.SUBTYPE) is of the file
 * system an alias fs-TYPE names. */
static bool fs_type_is(const char *mounted, const char *alias_type)
{
	char base[256];
	size_t n = strcspn(mounted, ".");
	if (!fnmatch(alias_type, mounted, 0))
		return true;
	if (!mounted[n] || n >= sizeof(base))
		return false;
	memcpy(base, mounted, n);
	base[n] = '\0';
	return !fnmatch(alias_type, base, 0);
}

/* `alias fs-TYPE NAME` lines: every module that provides a type, mounted
 * or not (which types are mounted is read later, and only if needed). */
static int providers_find(struct rot_usage_ctx *c)
{
	static const char key[] = "alias fs-";
	size_t cap = 0;
	for (char *save = NULL, *l = strtok_r(c->alias_text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, key, sizeof(key) - 1))
			continue;
		char *type = l + sizeof(key) - 1, *sp = strchr(type, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		char *name = sp + 1;
		name[strcspn(name, " \t")] = '\0';
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		if (!array_reserve(&c->p, &cap, c->np + 1, sizeof(*c->p)))
			return -ENOMEM;
		c->p[c->np++] = (struct provider){ type, name };
	}
	return 0;
}

/* Whether name provides type (one of its fs- aliases), or with type NULL any type. */
static bool provides(const struct rot_usage_ctx *c, const char *name, const char *type)
{
	for (size_t i = 0; i < c->np; i++)
		if (!strcmp(c->p[i].name, name) && (!type || fs_type_is(type, c->p[i].type)))
			return true;
	return false;
}

/* The module directory: moddir, or the running kernel's. */
static int moddir_path(const char *moddir, char *path, size_t cap)
{
	struct utsname u;
	if (moddir)
		return snprintf(path, cap, "%s", moddir) < (int)cap ? 0 : -ENAMETOOLONG;
	if (uname(&u) < 0)
		return -errno;
	return snprintf(path, cap, "/lib/modules/%s", u.release) < (int)cap ? 0 : -ENAMETOOLONG;
}

/* The text index, confirmed by the binary one when there is one: -errno
 * naming the file otherwise (-ESTALE: not confirmed), never "no providers". */
static int alias_read(struct rot_usage_ctx *c, const char *moddir, char *what, size_t cap)
{
	char dir[4096 - sizeof("/modules.alias.bin")], path[4096];
	struct stat st;
	int err = moddir_path(moddir, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s", err ? "" : dir);
	if (err == 0 && stat(dir, &st) < 0)
		err = -errno;
	else if (err == 0 && !S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	if (err == 0) {
		snprintf(path, sizeof(path), "%s/modules.alias", dir);
		err = usage_input_read(path, &c->alias_text);
	}
	if (err == 0) {
		err = index_confirms_fs_aliases(dir, c->alias_text);
		if (err == -ENOENT)
			err = 0;
	}
	if (err < 0 && what)
		snprintf(what, cap, "%s", path);
	return err;
}

int rot_usage_ctx_read(const struct rot_snapshot *snap, const char *moddir,
		       struct rot_usage_ctx **out, char *what, size_t cap)
{
	struct rot_usage_ctx *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (what && cap)
		what[0] = '\0';
	if (!c)
		return -ENOMEM;
	/* The kernel says what uses a module: a stock kernel (references) or
	 * one of revision 4 (D5: pins). Without a snapshot, it is guessed. */
	c->kernel_knows = snap && (!rot_snapshot_has_rot(snap) || rot_snapshot_has_pins(snap));
	int err = c->kernel_knows ? 0 : alias_read(c, moddir, what, cap);
	if (!err && !c->kernel_knows)
		err = providers_find(c);
	if (err) {
		rot_usage_ctx_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void rot_usage_ctx_free(struct rot_usage_ctx *c)
{
	if (!c)
		return;
	free(c->v);
	free(c->p);
	mntns_tables_free(&c->tables);
	free(c->alias_text);
	free(c);
}

size_t rot_module_live_holders(const struct rot_snapshot *snap, const struct rot_module *m,
			       const bool *gone)
{
	size_t n = 0;
	for (size_t i = 0; i < rot_module_holder_count(m); i++) {
		const struct rot_module *h = rot_snapshot_find_live(snap, rot_module_holder(m, i));
		if (h && !(gone && gone[rot_snapshot_index_of(snap, h)]))
			n++;
	}
	return n;
}

/* rot_module_usage() into a whole struct of this release's size. The
 * context is only changed by reading the mount tables it was made for,
 * once: every caller sees the same tables. */
static int usage_of(const struct rot_usage_ctx *cc, const struct rot_snapshot *snap,
		    const struct rot_module *m, const bool *gone, struct rot_usage *u)
{
	struct rot_usage_ctx *c = (struct rot_usage_ctx *)cc;
	const char *name = rot_module_name(m);
	*u = (struct rot_usage){ .size = sizeof(*u) };
	if (c)
		c->what[0] = '\0';
	if (rot_module_is_rotting(m))
		return 0; /* gone from the kernel's view: nothing can use it through it */
	u->holders = rot_module_live_holders(snap, m, gone);
	if (!rot_snapshot_has_rot(snap)) {
		long refs = rot_module_refcnt(m) - (long)rot_module_holder_count(m);
		u->refs = refs > 0 ? refs : 0;
	} else if (rot_snapshot_has_pins(snap)) {
		/* C5: a module with no line loaded after /proc/modules was read:
		 * its pins are not known, so neither is whether it is unused */
		if (!rot_module_pins_known(m)) {
			if (c)
				snprintf(c->what, sizeof(c->what), "/proc/module_pins");
			return -ENODATA;
		}
		u->pins = rot_module_pins(m);
	} else if (c && c->kernel_knows) {
		/* made for a kernel that tells, asked of one that does not */
		snprintf(c->what, sizeof(c->what), "/proc/module_pins");
		return -EXDEV;
	} else if (c && provides(c, name, NULL)) {
		int err = tables_need(c);
		if (err < 0) {
			if (!c->what[0])
				snprintf(c->what, sizeof(c->what), "/proc");
			return err;
		}
		for (size_t i = 0; i < c->n; i++) {
			if (provides(c, name, c->v[i].type) && !u->mounts++) {
				u->mount_type = c->v[i].type;
				u->mount_target = c->v[i].target;
				u->mount_pid = c->v[i].pid;
			}
		}
	}
	return rot_name_bound_devices(name, &u->devices);
}

int rot_module_usage(const struct rot_usage_ctx *c, const struct rot_snapshot *snap,
		     const struct rot_module *m, const bool *gone, struct rot_usage *u)
{
	if (!u || u->size < ROT_USAGE_SIZE_0_1)
		return -EINVAL;
	/* A newer caller's members beyond ours are zeroed: no user of a kind
	 * this release cannot see. */
	struct rot_usage whole;
	int err = usage_of(c, snap, m, gone, &whole);
	sized_copy_out(u, u->size, &whole, sizeof(whole));
	return err;
}

bool rot_usage_in_use(const struct rot_usage *u)
{
	/* Fails closed: what cannot be read is not known to be unused. */
	if (!u || u->size < ROT_USAGE_SIZE_0_1)
		return true;
	bool pinned = u->size >= offsetof(struct rot_usage, pins) + sizeof(u->pins) && u->pins;
	return u->holders || u->devices || u->mounts || u->refs > 0 || pinned;
}

const char *rot_usage_ctx_failed_input(const struct rot_usage_ctx *ctx)
{
	return ctx && ctx->what[0] ? ctx->what : NULL;
}

int rot_snapshot_unused(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
			unsigned flags, bool *unused, int *unknown, size_t *failed)
{
	size_t n = rot_snapshot_live_count(snap);
	struct rot_usage *use = calloc(n + 1, sizeof(*use));

	memset(unused, 0, n * sizeof(*unused));
	if (!use)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		unused[i] = rot_module_state(m) == ROT_STATE_LIVE &&
			    (!rot_module_is_permanent(m) || (flags & ROT_UNUSED_PERMANENT));
		if (!unused[i])
			continue;
		int err = usage_of(ctx, snap, m, NULL, &use[i]);
		/* This module's own devices, unreadable: it alone is kept. An
		 * input every module shares (ctx's) fails the whole set. */
		if (err < 0 && err != -ENOMEM && unknown && !rot_usage_ctx_failed_input(ctx)) {
			unknown[i] = err;
			unused[i] = false;
			continue;
		}
		if (err < 0) {
			*failed = i;
			memset(unused, 0, n * sizeof(*unused));
			free(use);
			return err;
		}
	}
	/* Each round drops the candidates still used by the rest; what stays
	 * is held by nothing but candidates, which go first. */
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			if (!unused[i])
				continue;
			use[i].holders =
				rot_module_live_holders(snap, rot_snapshot_module(snap, i), unused);
			if (rot_usage_in_use(&use[i])) {
				unused[i] = false;
				changed = true;
			}
		}
	}
	free(use);
	return 0;
}

int rot_module_unload_check(const struct rot_snapshot *snap, const struct rot_module *m,
			    const bool *gone, unsigned unload_flags)
{
	if (!m)
		return -ENOENT;
	if (rot_module_live_holders(snap, m, gone))
		return -EWOULDBLOCK;
	/* rot-abi.md U8: pins refuse a module that did not declare
	 * MODULE_ROT_SAFE(), forced or not */
	if (rot_snapshot_has_pins(snap) && rot_module_pins(m) && !rot_module_is_rot_safe(m))
		return -EWOULDBLOCK;
	/* On a stock kernel each holder also holds a reference; holders gone
	 * have dropped theirs. A rot kernel's count is always 0. */
	long refs = rot_module_refcnt(m);
	if (!rot_snapshot_has_rot(snap))
		refs -= (long)rot_module_holder_count(m);
	if (!(unload_flags & ROT_UNLOAD_FORCE) && refs > 0)
		return -EWOULDBLOCK;
	return 0;
}
