// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /sys/module, updated incrementally: a change touches only the directories
 * of the module concerned and of its dependencies, never the whole tree, so
 * its cost does not grow with the number of modules loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

static int put(int dirfd, const char *name, const char *fmt_value)
{
	char buf[1100];
	int n = snprintf(buf, sizeof(buf), "%s\n", fmt_value);
	return sim_write_file(dirfd, name, buf, (size_t)n);
}

/*
 * Most sysfs files hold one of a few values ("0", "live", ""). Creating an
 * inode is the dearest thing a load does on a disk file system, so such a
 * file is a hard link to one shared copy of its content, made once per
 * state directory. Updates replace the link (rename), never write through.
 */
static int shared_path(struct sim *s, const char *value, char *buf, size_t len)
{
	char rel[96];
	if (strlen(value) > 48 || strchr(value, '/'))
		return -EINVAL;
	snprintf(rel, sizeof(rel), "root/.shared/v-%s", value);
	return sim_path(buf, len, s->dir, rel) ? 0 : -ENAMETOOLONG;
}

static int link_shared(struct sim *s, const char *value, int dirfd, const char *name)
{
	char path[PATH_MAX];
	int err = shared_path(s, value, path, sizeof(path));
	if (err)
		return err;
	for (int tries = 0; tries < 2; tries++) {
		if (linkat(AT_FDCWD, path, dirfd, name, 0) == 0)
			return 0;
		if (errno != ENOENT || tries)
			return -errno;
		char buf[64], dir[PATH_MAX];
		int n = snprintf(buf, sizeof(buf), "%s\n", value);
		sim_path(dir, sizeof(dir), s->dir, "root/.shared");
		mkdir(dir, 0755);
		err = sim_write_atomic(path, buf, (size_t)n);
		if (err)
			return err;
	}
	return -ENOENT;
}

/* a file holding VALUE and a newline, linked when it can be */
static int put_value(struct sim *s, int dirfd, const char *name, const char *value)
{
	int err = link_shared(s, value, dirfd, name);
	if (err == -EEXIST) {
		/* a temporary left by a crashed caller: never write through a link */
		unlinkat(dirfd, name, 0);
		err = link_shared(s, value, dirfd, name);
	}
	if (err == 0)
		return 0;
	unlinkat(dirfd, name, 0);
	return put(dirfd, name, value); /* e.g. EMLINK: too many links to one inode */
}

static int put_u(struct sim *s, int dirfd, const char *name, uint64_t v)
{
	char buf[24];
	*sim_fmt_u64(buf, v) = '\0';
	return v < 16 ? put_value(s, dirfd, name, buf) : put(dirfd, name, buf);
}

static const char *initstate_name(const struct sim_rec *r)
{
	return r->mstate == SIM_LOADING ? "coming" : r->mstate == SIM_UNLOADING ? "going" : "live";
}

static uint32_t shown_initsize(const struct sim_rec *r)
{
	/* do_init_module() zeroes init_layout.size once init memory is freed */
	return r->mstate == SIM_LOADING ? r->init : 0;
}

static int stage_paths(struct sim *s, const struct sim_rec *r, char *stage, char *target)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "root/.staging/%s.%" PRIu32, r->name, r->id);
	if (!sim_path(stage, PATH_MAX, s->dir, rel))
		return -ENAMETOOLONG;
	snprintf(rel, sizeof(rel), "root/sys/module/%s", r->name);
	if (!sim_path(target, PATH_MAX, s->dir, rel))
		return -ENAMETOOLONG;
	/* populate builds before anyone reads: straight into place */
	if (s->bulk)
		memcpy(stage, target, PATH_MAX);
	return 0;
}

/*
 * Builds the module's directory in the staging area, from the record alone:
 * nothing here reads the state, so a load does it without the lock (the
 * name is reserved by its Loading record, and the staging name is unique).
 * params: "P=VALUE" strings; drivers/ is made by devices.c when one binds.
 */
int sim_sysfs_stage(struct sim *s, const struct sim_rec *r, const char *const *params)
{
	char stage[PATH_MAX], target[PATH_MAX], tl[32];
	int err = stage_paths(s, r, stage, target);
	if (err)
		return err;

	if (mkdir(stage, 0755) < 0) {
		sim_rm_rf_at(AT_FDCWD, stage); /* left by a crashed caller */
		if (mkdir(stage, 0755) < 0)
			return -errno;
	}
	int fd = open(stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sim_taint_letters(r->taints, tl);
	err = put_u(s, fd, "coresize", r->core);
	if (!err)
		err = put_u(s, fd, "initsize", shown_initsize(r));
	if (!err)
		err = put_value(s, fd, "initstate", initstate_name(r));
	if (!err)
		err = put_value(s, fd, "taint", tl);
	/* a module being loaded has no holders and no other references;
	 * populate renders its modules once all are in the state */
	if (!err)
		err = put_u(s, fd, "refcnt", s->bulk ? sim_refcnt(s, r) : 0);
	if (!err && mkdirat(fd, "holders", 0755) < 0)
		err = -errno;
	if (!err && params && params[0]) {
		if (mkdirat(fd, "parameters", 0755) < 0)
			err = -errno;
		int pfd = err ? -1 : openat(fd, "parameters", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (const char *const *p = params; !err && *p; p++) {
			char pname[256];
			const char *eq = strchr(*p, '=');
			size_t nl = eq ? (size_t)(eq - *p) : strlen(*p);
			if (nl >= sizeof(pname))
				continue;
			memcpy(pname, *p, nl);
			pname[nl] = '\0';
			err = put(pfd, pname, eq ? eq + 1 : "");
		}
		if (pfd >= 0)
			close(pfd);
	}
	close(fd);
	if (err)
		sim_rm_rf_at(AT_FDCWD, stage);
	return err;
}

/*
 * Moves the staged directory into /sys/module and links it into its
 * dependencies' holders/. Safe without the lock too: no one else touches
 * /sys/module/NAME while NAME is Loading, and each holder link has its
 * own name. Dependencies' refcnt files (stock mode) need the state: the
 * caller updates them under the lock.
 */
int sim_sysfs_publish(struct sim *s, const struct sim_rec *r, const char (*depnames)[SIM_NAME_LEN])
{
	char stage[PATH_MAX], target[PATH_MAX];
	int err = stage_paths(s, r, stage, target);
	if (err)
		return err;
	if (!s->bulk && rename(stage, target) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST) {
			sim_rm_rf_at(AT_FDCWD, target);
			if (rename(stage, target) < 0)
				err = -errno;
		} else {
			err = -errno;
		}
	}
	if (err) {
		sim_rm_rf_at(AT_FDCWD, stage);
		return err;
	}
	for (unsigned i = 0; i < r->ndeps; i++)
		sim_sysfs_holder_of(s, depnames[i], r->name, 1);
	return 0;
}

/* populate, and callers holding the lock: stage, publish, then dependencies' refcnt */
int sim_sysfs_add(struct sim *s, const struct sim_rec *r, const char *const *params)
{
	char depnames[SIM_MAX_DEPS][SIM_NAME_LEN];
	for (unsigned i = 0; i < r->ndeps; i++) {
		const struct sim_rec *dep = sim_find_live_id(s, r->deps[i]);
		snprintf(depnames[i], sizeof(depnames[i]), "%s", dep ? dep->name : "");
	}
	int err = sim_sysfs_stage(s, r, params);
	if (!err)
		err = sim_sysfs_publish(s, r, (const char (*)[SIM_NAME_LEN])depnames);
	if (!err && s->hdr->mode == SIM_MODE_STOCK && !s->bulk)
		sim_sysfs_deps_refcnt(s, r);
	return err;
}

void sim_sysfs_deps_refcnt(struct sim *s, const struct sim_rec *r)
{
	for (unsigned i = 0; i < r->ndeps; i++) {
		struct sim_rec *dep = sim_find_live_id(s, r->deps[i]);
		if (dep)
			sim_sysfs_refcnt(s, dep);
	}
}

int sim_sysfs_remove(struct sim *s, const struct sim_rec *r)
{
	char target[PATH_MAX], gone[PATH_MAX], rel[PATH_MAX];

	for (unsigned i = 0; i < r->ndeps; i++) {
		struct sim_rec *dep = sim_find_live_id(s, r->deps[i]);
		if (!dep)
			continue;
		sim_sysfs_holder(s, dep, r->name, 0);
	}
	snprintf(rel, sizeof(rel), "root/sys/module/%s", r->name);
	if (!sim_path(target, sizeof(target), s->dir, rel))
		return -ENAMETOOLONG;
	snprintf(rel, sizeof(rel), "root/.staging/gone.%s.%" PRIu32, r->name, r->id);
	sim_path(gone, sizeof(gone), s->dir, rel);
	/* rename first: the directory vanishes from /sys/module at once */
	int err = rename(target, gone) < 0 ? -errno : 0;
	if (!err)
		sim_rm_rf_at(AT_FDCWD, gone);
	return err == -ENOENT ? 0 : err;
}

static int sim_sysfs_put(struct sim *s, const struct sim_rec *r, const char *file, const char *value)
{
	char rel[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	snprintf(rel, sizeof(rel), "root/sys/module/%s/%s", r->name, file);
	if (!sim_path(path, sizeof(path), s->dir, rel))
		return -ENAMETOOLONG;
	/* the temporary lives in the staging area, never in the module's directory */
	snprintf(rel, sizeof(rel), "root/.staging/%s.%s.%d", r->name, file, (int)gettid());
	sim_path(tmp, sizeof(tmp), s->dir, rel);
	int err = put_value(s, AT_FDCWD, tmp, value); /* replaces a stale one */
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int sim_sysfs_initstate(struct sim *s, const struct sim_rec *r)
{
	char n[24];
	int err = sim_sysfs_put(s, r, "initstate", initstate_name(r));
	/* initsize changes once: to 0 when init memory is freed */
	*sim_fmt_u64(n, shown_initsize(r)) = '\0';
	if (!err && r->mstate == SIM_RUNNING && r->init)
		err = sim_sysfs_put(s, r, "initsize", n);
	return err;
}

int sim_sysfs_refcnt(struct sim *s, const struct sim_rec *r)
{
	char n[24];
	*sim_fmt_u64(n, sim_refcnt(s, r)) = '\0';
	return sim_sysfs_put(s, r, "refcnt", n);
}

int sim_sysfs_holder(struct sim *s, const struct sim_rec *dep, const char *holder, int add)
{
	return sim_sysfs_holder_of(s, dep->name, holder, add);
}

int sim_sysfs_holder_of(struct sim *s, const char *dep, const char *holder, int add)
{
	char rel[PATH_MAX], path[PATH_MAX], dest[PATH_MAX];
	if (!*dep)
		return 0;
	snprintf(rel, sizeof(rel), "root/sys/module/%s/holders/%s", dep, holder);
	if (!sim_path(path, sizeof(path), s->dir, rel))
		return -ENAMETOOLONG;
	if (!add)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	snprintf(dest, sizeof(dest), "../../%s", holder);
	return symlink(dest, path) < 0 && errno != EEXIST ? -errno : 0;
}

int sim_render_small(struct sim *s)
{
	char path[PATH_MAX], buf[32];
	char *e = sim_fmt_u64(buf, s->hdr->taint);
	*e++ = '\n';
	if (!sim_path(path, sizeof(path), s->dir, "root/proc/sys/kernel/tainted"))
		return -ENAMETOOLONG;
	return sim_write_atomic(path, buf, (size_t)(e - buf));
}
