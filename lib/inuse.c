// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one rule for "in use". A reference count says nothing on a rot kernel
 * (it is always 0), so a module is in use when live modules depend on it
 * (holders), devices are bound to its drivers, or a file system of a type
 * it provides is mounted. On a stock kernel references beyond its holders
 * count too, since an open device or a mount holds one there.
 *
 * Which module provides a type is what the module says of itself:
 * MODULE_ALIAS_FS() gives it the alias fs-TYPE, which depmod copies into
 * modules.alias. Only the types actually mounted are looked up, in one
 * pass over that file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "internal.h"
#include "modrot.h"

struct mount_entry {
	char *type;
	char *target;
	char *provider; /* module providing type, normalised; NULL: none known */
};

struct rot_usage_ctx {
	struct mount_entry *v;
	size_t n;
	char *mounts_text;
	char *alias_text;
};

/* Splits one /proc/self/mounts line into its target and type, in place. */
static bool mount_fields(char *line, char **target, char **type)
{
	char *save = NULL;
	char *src = strtok_r(line, " \t", &save);
	*target = src ? strtok_r(NULL, " \t", &save) : NULL;
	*type = *target ? strtok_r(NULL, " \t", &save) : NULL;
	return *type != NULL;
}

static int mounts_parse(struct rot_usage_ctx *c)
{
	size_t cap = 0;
	for (char *save = NULL, *l = strtok_r(c->mounts_text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *target, *type;
		if (!mount_fields(l, &target, &type))
			continue;
		if (c->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct mount_entry *nv = realloc(c->v, ncap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			c->v = nv;
			cap = ncap;
		}
		c->v[c->n++] = (struct mount_entry){ .type = type, .target = target };
	}
	return 0;
}

/* `alias fs-TYPE NAME` lines: the provider of each mounted TYPE. */
static void providers_find(struct rot_usage_ctx *c)
{
	static const char key[] = "alias fs-";
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
		for (size_t i = 0; i < c->n; i++)
			if (!c->v[i].provider && !strcmp(c->v[i].type, type))
				c->v[i].provider = name;
	}
}

int rot_usage_open(const char *moddir, struct rot_usage_ctx **out)
{
	struct rot_usage_ctx *c = calloc(1, sizeof(*c));
	size_t len;
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	err = proc_read_whole("/proc/self/mounts", &c->mounts_text, &len);
	if (err == -ENOENT)
		err = 0; /* no mount table: nothing is mounted that we can see */
	if (!err && c->mounts_text)
		err = mounts_parse(c);
	if (!err && c->n) {
		char path[4096];
		struct utsname u;
		if (!moddir && uname(&u) == 0) {
			snprintf(path, sizeof(path), "/lib/modules/%s/modules.alias", u.release);
		} else if (moddir) {
			snprintf(path, sizeof(path), "%s/modules.alias", moddir);
		} else {
			path[0] = '\0';
		}
		if (path[0]) {
			err = proc_read_whole(path, &c->alias_text, &len);
			/* no index: no module is known to provide a type */
			if (err == -ENOENT || err == -ENOTDIR)
				err = 0;
		}
		if (!err && c->alias_text)
			providers_find(c);
	}
	if (err) {
		rot_usage_close(c);
		return err;
	}
	*out = c;
	return 0;
}

void rot_usage_close(struct rot_usage_ctx *c)
{
	if (!c)
		return;
	free(c->v);
	free(c->mounts_text);
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

int rot_module_usage(const struct rot_usage_ctx *c, const struct rot_snapshot *snap,
		     const struct rot_module *m, const bool *gone, struct rot_usage *u)
{
	const char *name = rot_module_name(m);
	memset(u, 0, sizeof(*u));
	if (rot_module_is_rotting(m))
		return 0; /* gone from the kernel's view: nothing can use it through it */
	u->holders = rot_module_live_holders(snap, m, gone);
	if (!rot_snapshot_has_rot(snap)) {
		long refs = rot_module_refcnt(m) - (long)rot_module_holder_count(m);
		u->refs = refs > 0 ? refs : 0;
	}
	for (size_t i = 0; c && i < c->n; i++) {
		if (!c->v[i].provider || strcmp(c->v[i].provider, name))
			continue;
		if (!u->mounts++) {
			u->mount_type = c->v[i].type;
			u->mount_target = c->v[i].target;
		}
	}
	return rot_module_bound_devices(name, &u->devices);
}

bool rot_usage_in_use(const struct rot_usage *u)
{
	return u->holders || u->devices || u->mounts || u->refs > 0;
}
