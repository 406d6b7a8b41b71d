// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mounted file systems, as far as module tools need them: which file system
 * types a live module registered, and what is mounted.
 *
 * A module registers the types named by its .modinfo `alias=fs-TYPE`
 * entries (what MODULE_ALIAS_FS() writes, and what request_module("fs-%s")
 * asks for) once its init succeeds: DIR/fstypes/ID lists them, one a line.
 * `simkernel mount` mounts a type that a live module registered, or one of
 * the types the base system has built in, and records it in DIR/mounts
 * (`SOURCE TARGET TYPE ID` lines, ID 0 for a built-in type). /proc/mounts
 * and /proc/self/mounts render the base system's mounts, then those.
 * `mount --ns NAME` mounts in another mount namespace instead, recorded in
 * DIR/mntns/NAME/mounts and shown only by the /proc/PID/mounts of the
 * processes in it (procns.c); a new namespace starts with the base
 * system's mounts.
 *
 * On a stock kernel a mount holds a reference on the module that provides
 * its type (get_fs_type() takes one), so that module cannot be unloaded;
 * on a rot kernel the mount pins it (rot-abi.md C3), which does not stop
 * the unload: unloading it leaves the mount on rotting code, which is what
 * modrot's tools must not do, and the pin keeps that code from reclaim
 * until umount.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

static const char base_mounts[] = "/dev/vda / ext4 rw,relatime 0 0\n"
				  "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
				  "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
				  "devtmpfs /dev devtmpfs rw,nosuid,relatime,mode=755 0 0\n"
				  "tmpfs /run tmpfs rw,nosuid,nodev,mode=755 0 0\n";

static const char *const builtin_types[] = { "ext4", "proc", "sysfs", "devtmpfs", "tmpfs",
					     "devpts", "cgroup2", "mqueue", "ramfs", NULL };

static int valid_word(const char *w, size_t max)
{
	size_t n = strlen(w);
	if (n == 0 || n >= max)
		return 0;
	for (const char *p = w; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

int sim_fstypes_register(struct sim *s, const struct sim_rec *r, const char *const *aliases)
{
	char text[4096], rel[64], path[PATH_MAX];
	size_t n = 0;
	for (const char *const *a = aliases; a && *a; a++) {
		if (strncmp(*a, "fs-", 3) || !valid_word(*a + 3, 64))
			continue;
		int w = snprintf(text + n, sizeof(text) - n, "%s\n", *a + 3);
		if (w < 0 || (size_t)w >= sizeof(text) - n)
			break;
		n += (size_t)w;
	}
	if (!n)
		return 0;
	sim_path(path, sizeof(path), s->dir, "fstypes");
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(rel, sizeof(rel), "fstypes/%u", r->id);
	sim_path(path, sizeof(path), s->dir, rel);
	return sim_write_atomic(path, text, n);
}

/* Whether the live module r registered type (DIR/fstypes/ID lists it). */
static int registers(struct sim *s, const struct sim_rec *r, const char *type)
{
	char rel[64], path[PATH_MAX];
	snprintf(rel, sizeof(rel), "fstypes/%u", r->id);
	sim_path(path, sizeof(path), s->dir, rel);
	char *text = sim_read_file(path, NULL);
	if (!text)
		return 0;
	int found = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save))
		found = !strcmp(l, type);
	free(text);
	return found;
}

/* The live module that provides type; 0 for a built-in type, -ENODEV for none. */
static long provider(struct sim *s, const char *type)
{
	for (const char *const *b = builtin_types; *b; b++)
		if (!strcmp(*b, type))
			return 0;
	for (uint32_t i = 0; i < s->hdr->count; i++) {
		struct sim_rec *r = &s->recs[i];
		if (r->kind == SIM_LIVE && r->mstate == SIM_RUNNING && registers(s, r, type))
			return (long)r->id;
	}
	return -ENODEV;
}

/* Where NS's table is recorded: DIR/mounts for the initial namespace
 * (NULL), DIR/mntns/NAME/mounts for another. */
static int table_path(const char *dir, const char *ns, char *path, size_t cap)
{
	char rel[128];
	if (!ns)
		snprintf(rel, sizeof(rel), "mounts");
	else
		snprintf(rel, sizeof(rel), "mntns/%s/mounts", ns);
	return sim_path(path, cap, dir, rel) ? 0 : -ENAMETOOLONG;
}

static char *mounts_read(struct sim *s, const char *ns)
{
	char path[PATH_MAX];
	if (table_path(s->dir, ns, path, sizeof(path)))
		return NULL;
	char *text = sim_read_file(path, NULL);
	return text ? text : strdup("");
}

/* NS's /proc/PID/mounts text: the base system's mounts, then its table. */
static char *mounts_render(const char *table, size_t *len)
{
	size_t cap = sizeof(base_mounts) + strlen(table) * 2 + 64, n;
	char *out = malloc(cap);
	char *copy = strdup(table);
	if (!out || !copy) {
		free(out);
		free(copy);
		return NULL;
	}
	memcpy(out, base_mounts, sizeof(base_mounts) - 1);
	n = sizeof(base_mounts) - 1;
	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char src[256], target[PATH_MAX], type[64];
		unsigned long id;
		if (sscanf(l, "%255s %4095s %63s %lu", src, target, type, &id) != 4)
			continue;
		n += (size_t)snprintf(out + n, cap - n, "%s %s %s rw,relatime 0 0\n", src, target, type);
	}
	free(copy);
	*len = n;
	return out;
}

char *sim_mounts_render(struct sim *s, const char *ns, size_t *len)
{
	char *table = mounts_read(s, ns);
	char *out = table ? mounts_render(table, len) : NULL;
	free(table);
	return out;
}

static int mounts_publish(const char *dir, const char *ns, const char *table)
{
	char path[PATH_MAX];
	size_t n;
	char *out = mounts_render(table, &n);
	if (!out)
		return -ENOMEM;
	int err = 0;
	static const char *const files[] = { "root/proc/mounts", "root/proc/self/mounts" };
	for (size_t i = 0; i < 2 && !err && !ns; i++) {
		sim_path(path, sizeof(path), dir, files[i]);
		if (i == 1) {
			char d[PATH_MAX];
			sim_path(d, sizeof(d), dir, "root/proc/self");
			if (mkdir(d, 0755) < 0 && errno != EEXIST)
				err = -errno;
		}
		if (!err)
			err = sim_write_atomic(path, out, n);
	}
	if (!err)
		err = sim_procs_publish(dir, ns, out, n);
	free(out);
	return err;
}

int sim_mounts_init(const char *dir)
{
	int err = mounts_publish(dir, NULL, "");
	return err ? err : sim_procns_init(dir);
}

/*
 * What a mount holds on the module that provides its type (get_fs_type()):
 * on a stock kernel a reference; on a revision-3 rot kernel a pin (rot-abi.md
 * C3), which follows the module into rot and keeps it from reclaim until
 * umount puts it, there, in the rotting instance. Revisions 1 and 2 counted
 * nothing.
 */
static void mount_ref(struct sim *s, unsigned long id, int delta)
{
	if (!id)
		return;
	if (s->hdr->mode == SIM_MODE_STOCK) {
		struct sim_rec *r = sim_find_live_id(s, (uint32_t)id);
		if (!r)
			return;
		r->refs += delta;
		sim_sysfs_refcnt(s, r);
	} else {
		if (s->hdr->cfgflags & (SIM_CFG_ABI_REV1 | SIM_CFG_ABI_REV2))
			return;
		struct sim_rec *r = NULL;
		for (uint32_t i = 0; i < s->hdr->count && !r; i++)
			if (s->recs[i].kind != SIM_FREE && s->recs[i].id == (uint32_t)id)
				r = &s->recs[i];
		if (!r || (delta < 0 && !r->pins))
			return;
		r->pins = delta > 0 ? r->pins + 1 : r->pins - 1;
	}
	__atomic_add_fetch(&s->hdr->gen, 1, __ATOMIC_RELEASE);
}

int sim_mount(struct sim *s, const char *ns, const char *type, const char *source,
	      const char *target)
{
	if (!valid_word(type, 64) || !valid_word(source, 256) || !valid_word(target, PATH_MAX) ||
	    target[0] != '/')
		return -EINVAL;
	long id = provider(s, type);
	if (id < 0)
		return (int)id;
	uint64_t ino;
	int nserr = sim_mntns_ino(s->dir, ns, 1, &ino);
	if (nserr)
		return nserr;
	char *table = mounts_read(s, ns);
	if (!table)
		return -ENOMEM;
	char *copy = strdup(table);
	int err = copy ? 0 : -ENOMEM;
	for (char *save = NULL, *l = copy ? strtok_r(copy, "\n", &save) : NULL; l && !err;
	     l = strtok_r(NULL, "\n", &save)) {
		char src[256], tgt[PATH_MAX];
		if (sscanf(l, "%255s %4095s", src, tgt) == 2 && !strcmp(tgt, target))
			err = -EBUSY;
	}
	free(copy);
	size_t len = strlen(table), cap = len + strlen(source) + strlen(target) + strlen(type) + 32;
	char *out = err ? NULL : malloc(cap);
	if (!err && !out)
		err = -ENOMEM;
	if (!err) {
		snprintf(out, cap, "%s%s %s %s %ld\n", table, source, target, type, id);
		char path[PATH_MAX];
		err = table_path(s->dir, ns, path, sizeof(path));
		if (!err)
			err = sim_write_atomic(path, out, strlen(out));
		if (!err)
			err = mounts_publish(s->dir, ns, out);
		if (!err)
			mount_ref(s, (unsigned long)id, +1);
	}
	free(out);
	free(table);
	return err;
}

int sim_umount(struct sim *s, const char *ns, const char *target)
{
	uint64_t ino;
	int nserr = sim_mntns_ino(s->dir, ns, 0, &ino);
	if (nserr)
		return nserr == -ENOENT ? -EINVAL : nserr;
	char *table = mounts_read(s, ns);
	if (!table)
		return -ENOMEM;
	size_t cap = strlen(table) + 1, n = 0;
	char *out = malloc(cap);
	if (!out) {
		free(table);
		return -ENOMEM;
	}
	out[0] = '\0';
	unsigned long gone = 0;
	int found = 0;
	for (char *save = NULL, *l = strtok_r(table, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char src[256], tgt[PATH_MAX], type[64];
		unsigned long id;
		if (!found && sscanf(l, "%255s %4095s %63s %lu", src, tgt, type, &id) == 4 &&
		    !strcmp(tgt, target)) {
			found = 1;
			gone = id;
			continue;
		}
		n += (size_t)snprintf(out + n, cap - n, "%s\n", l);
	}
	int err = found ? 0 : -EINVAL;
	if (!err) {
		char path[PATH_MAX];
		err = table_path(s->dir, ns, path, sizeof(path));
		if (!err)
			err = sim_write_atomic(path, out, n);
		if (!err)
			err = mounts_publish(s->dir, ns, out);
		if (!err)
			mount_ref(s, gone, -1);
	}
	free(out);
	free(table);
	return err;
}
