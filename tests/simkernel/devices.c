// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Devices and driver binding: which devices are present, and which module's
 * driver has each. The table lives in DIR/devices (a short header, then
 * fixed records in the order the devices appeared), is read whole by the
 * few operations that need it and replaced whole when it changes, always
 * under the state lock.
 *
 * A module binds when its init succeeds: its driver takes every present,
 * unbound device whose modalias matches one of its alias= patterns
 * (fnmatch, as udev and kmod match them), first come first bound, and the
 * devices it declares itself (device=BUS:DRIVER:DEVICE). Unloading unbinds.
 * Only a module flagged SIM_F_BOUND pays for unbinding, and only a module
 * with alias patterns or declared devices opens the table on load.
 *
 * Layout under DIR/root/sys, as a real sysfs has it:
 *   bus/BUS/devices/ID/{modalias,uevent}     a present device
 *   bus/BUS/devices/ID/driver -> ../../drivers/DRIVER
 *   bus/BUS/drivers/DRIVER/{bind,unbind,uevent}
 *   bus/BUS/drivers/DRIVER/module -> ../../../../module/NAME
 *   bus/BUS/drivers/DRIVER/ID -> ../../devices/ID
 *   module/NAME/drivers/BUS:DRIVER -> ../../../bus/BUS/drivers/DRIVER
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define DEV_MAGIC "SIMDEV1"

struct dev_file_header {
	char magic[8];
	uint32_t recsize;
	uint32_t count;
};

/* "DIR/root/sys/" followed by the formatted rest */
static int __attribute__((format(printf, 4, 5)))
sys_path(const struct sim *s, char *buf, size_t len, const char *fmt, ...)
{
	size_t dl = strlen(s->dir);
	if (dl + 7 >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s->dir, dl);
	memcpy(buf + dl, "/root/", 7);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + dl + 6, len - dl - 6, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len - dl - 6 ? -ENAMETOOLONG : 0;
}

/* a sysfs name: no slash, no blank, not "." or "..", shorter than max */
static int valid_name(const char *v, size_t max)
{
	size_t n = strlen(v);
	if (n == 0 || n >= max || !strcmp(v, ".") || !strcmp(v, ".."))
		return 0;
	for (const char *p = v; *p; p++)
		if (*p == '/' || (unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

static int valid_modalias(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n >= SIM_MODALIAS_LEN)
		return 0;
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

void sim_devices_free(struct sim_devtab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* The table; an absent file is an empty table. One read of the known size. */
int sim_devices_read(struct sim *s, struct sim_devtab *t)
{
	char path[PATH_MAX];
	struct dev_file_header h;
	struct stat st;
	memset(t, 0, sizeof(*t));
	if (!sim_path(path, sizeof(path), s->dir, "devices"))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	int err = 0;
	char *data = NULL;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	size_t len = (size_t)st.st_size;
	data = malloc(len ? len : 1);
	if (!data) {
		err = -ENOMEM;
		goto out;
	}
	if (pread(fd, data, len, 0) != (ssize_t)len || len < sizeof(h)) {
		err = -EIO;
		goto out;
	}
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, DEV_MAGIC, sizeof(DEV_MAGIC)) || h.recsize != sizeof(struct sim_dev) ||
	    len != sizeof(h) + (size_t)h.count * sizeof(struct sim_dev)) {
		err = -EINVAL;
		goto out;
	}
	t->v = malloc(((size_t)h.count + 1) * sizeof(struct sim_dev));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(t->v, data + sizeof(h), (size_t)h.count * sizeof(struct sim_dev));
	t->n = h.count;
	t->cap = h.count + 1;
out:
	free(data);
	close(fd);
	return err;
}

int sim_devices_write(struct sim *s, const struct sim_devtab *t)
{
	char path[PATH_MAX];
	struct dev_file_header h;
	if (!sim_path(path, sizeof(path), s->dir, "devices"))
		return -ENAMETOOLONG;
	size_t len = sizeof(h) + (size_t)t->n * sizeof(struct sim_dev);
	char *buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, DEV_MAGIC, sizeof(DEV_MAGIC));
	h.recsize = sizeof(struct sim_dev);
	h.count = t->n;
	memcpy(buf, &h, sizeof(h));
	if (t->n)
		memcpy(buf + sizeof(h), t->v, (size_t)t->n * sizeof(struct sim_dev));
	int err = sim_write_atomic(path, buf, len);
	free(buf);
	return err;
}

struct sim_dev *sim_device_find(struct sim_devtab *t, const char *bus, const char *id)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].id, id) && !strcmp(t->v[i].bus, bus))
			return &t->v[i];
	return NULL;
}

/* an empty, write-only attribute file, as sysfs shows bind, unbind, uevent */
static int put_wo(int dirfd, const char *name)
{
	int err = sim_write_file(dirfd, name, "", 0);
	if (!err && fchmodat(dirfd, name, 0200, 0) < 0)
		err = -errno;
	return err;
}

/* Builds a directory in the staging area, then renames it to TARGET. */
static int stage_dir(struct sim *s, const char *tag, int (*fill)(int dirfd, const void *arg), const void *arg,
		     const char *target)
{
	char stage[PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "root/.staging/%s.%d", tag, (int)gettid());
	if (!sim_path(stage, sizeof(stage), s->dir, rel))
		return -ENAMETOOLONG;
	sim_rm_rf_at(AT_FDCWD, stage); /* left by a crashed caller */
	if (mkdir(stage, 0755) < 0)
		return -errno;
	int fd = open(stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = fd < 0 ? -errno : fill(fd, arg);
	if (fd >= 0)
		close(fd);
	if (!err && rename(stage, target) < 0) {
		err = -errno;
		if (err == -ENOTEMPTY || err == -EEXIST) {
			sim_rm_rf_at(AT_FDCWD, target);
			err = rename(stage, target) < 0 ? -errno : 0;
		}
	}
	if (err)
		sim_rm_rf_at(AT_FDCWD, stage);
	return err;
}

/* Renames a directory out of sight at once, then removes it. */
static int remove_dir(struct sim *s, const char *tag, const char *target)
{
	char gone[PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "root/.staging/gone.%s.%d", tag, (int)gettid());
	if (!sim_path(gone, sizeof(gone), s->dir, rel))
		return -ENAMETOOLONG;
	if (rename(target, gone) < 0)
		return errno == ENOENT ? 0 : -errno;
	return sim_rm_rf_at(AT_FDCWD, gone);
}

static int fill_bus(int fd, const void *arg)
{
	(void)arg;
	int err = mkdirat(fd, "devices", 0755) < 0 || mkdirat(fd, "drivers", 0755) < 0 ? -errno : 0;
	if (!err)
		err = sim_write_file(fd, "drivers_autoprobe", "1\n", 2);
	if (!err)
		err = put_wo(fd, "drivers_probe");
	if (!err)
		err = put_wo(fd, "uevent");
	return err;
}

/* /sys/bus/BUS with its devices/ and drivers/, made on first use */
static int ensure_bus(struct sim *s, const char *bus)
{
	char path[PATH_MAX], tag[SIM_BUS_LEN + 8];
	struct stat st;
	int err = sys_path(s, path, sizeof(path), "sys/bus/%s", bus);
	if (err || stat(path, &st) == 0)
		return err;
	snprintf(tag, sizeof(tag), "bus.%s", bus);
	return stage_dir(s, tag, fill_bus, NULL, path);
}

/* uevent: DRIVER= while bound (dev_uevent), then the bus's MODALIAS= */
static int uevent_text(const struct sim_dev *d, char *buf, size_t len)
{
	int n = d->bound ? snprintf(buf, len, "DRIVER=%s\nMODALIAS=%s\n", d->driver, d->modalias) :
			   snprintf(buf, len, "MODALIAS=%s\n", d->modalias);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

static int fill_device(int fd, const void *arg)
{
	const struct sim_dev *d = arg;
	char buf[SIM_MODALIAS_LEN + SIM_NAME_LEN + 32];
	int n = snprintf(buf, sizeof(buf), "%s\n", d->modalias);
	int err = sim_write_file(fd, "modalias", buf, (size_t)n);
	if (!err && (n = uevent_text(d, buf, sizeof(buf))) < 0)
		err = n;
	if (!err)
		err = sim_write_file(fd, "uevent", buf, (size_t)n);
	return err;
}

/* -EINVAL for a bad name or modalias, -EEXIST for a device present */
int sim_device_check(struct sim_devtab *t, const char *bus, const char *id, const char *modalias)
{
	if (!valid_name(bus, SIM_BUS_LEN) || !valid_name(id, SIM_DEVID_LEN) || !valid_modalias(modalias))
		return -EINVAL;
	return sim_device_find(t, bus, id) ? -EEXIST : 0;
}

/* Appends an unbound device to the table and renders its directory. */
int sim_device_add(struct sim *s, struct sim_devtab *t, const char *bus, const char *id, const char *modalias)
{
	char path[PATH_MAX], tag[SIM_BUS_LEN + SIM_DEVID_LEN + 8];
	int err = sim_device_check(t, bus, id, modalias);
	if (err)
		return err;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct sim_dev *v = realloc(t->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	struct sim_dev *d = &t->v[t->n];
	memset(d, 0, sizeof(*d));
	strcpy(d->bus, bus);
	strcpy(d->id, id);
	strcpy(d->modalias, modalias);
	err = ensure_bus(s, bus);
	if (!err)
		err = sys_path(s, path, sizeof(path), "sys/bus/%s/devices/%s", bus, id);
	snprintf(tag, sizeof(tag), "dev.%s.%s", bus, id);
	if (!err)
		err = stage_dir(s, tag, fill_device, d, path);
	if (!err)
		t->n++;
	return err;
}

static int rewrite_uevent(struct sim *s, const struct sim_dev *d)
{
	char path[PATH_MAX], buf[SIM_MODALIAS_LEN + SIM_NAME_LEN + 32];
	int n = uevent_text(d, buf, sizeof(buf));
	int err = n < 0 ? n : sys_path(s, path, sizeof(path), "sys/bus/%s/devices/%s/uevent", d->bus, d->id);
	return err ? err : sim_write_atomic(path, buf, (size_t)n);
}

/* another live module's driver already registered under that name */
static int driver_taken(const struct sim_devtab *t, const char *bus, const char *driver, uint32_t id)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct sim_dev *d = &t->v[i];
		if (d->bound && d->bound != id && !strcmp(d->driver, driver) && !strcmp(d->bus, bus))
			return 1;
	}
	return 0;
}

static int driver_has_devices(const struct sim_devtab *t, const char *bus, const char *driver, uint32_t id)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct sim_dev *d = &t->v[i];
		if (d->bound == id && !strcmp(d->driver, driver) && !strcmp(d->bus, bus))
			return 1;
	}
	return 0;
}

/* ARG: the module's name */
static int fill_driver(int fd, const void *arg)
{
	char dest[PATH_MAX];
	int err = put_wo(fd, "bind");
	if (!err)
		err = put_wo(fd, "unbind");
	if (!err)
		err = put_wo(fd, "uevent");
	snprintf(dest, sizeof(dest), "../../../../module/%s", (const char *)arg);
	if (!err && symlinkat(dest, fd, "module") < 0)
		err = -errno;
	return err;
}

/* driver registration: /sys/bus/BUS/drivers/DRIVER and the module's link to it */
static int register_driver(struct sim *s, const struct sim_rec *r, const char *bus, const char *driver)
{
	char path[PATH_MAX], dest[PATH_MAX], tag[SIM_BUS_LEN + SIM_NAME_LEN + 8];
	int err = sys_path(s, path, sizeof(path), "sys/bus/%s/drivers/%s", bus, driver);
	snprintf(tag, sizeof(tag), "drv.%s.%s", bus, driver);
	if (!err)
		err = stage_dir(s, tag, fill_driver, r->name, path);
	if (!err)
		err = sys_path(s, path, sizeof(path), "sys/module/%s/drivers", r->name);
	if (!err && mkdir(path, 0755) < 0 && errno != EEXIST)
		err = -errno;
	if (!err)
		err = sys_path(s, path, sizeof(path), "sys/module/%s/drivers/%s:%s", r->name, bus, driver);
	snprintf(dest, sizeof(dest), "../../../bus/%s/drivers/%s", bus, driver);
	if (!err && symlink(dest, path) < 0 && errno != EEXIST)
		err = -errno;
	return err;
}

/* driver_bound(): the driver's link to the device, then the device's to the driver */
static int bind_device(struct sim *s, struct sim_devtab *t, struct sim_rec *r, struct sim_dev *d,
		       const char *driver)
{
	char path[PATH_MAX], dest[PATH_MAX];
	int err = 0;
	if (!driver_has_devices(t, d->bus, driver, r->id))
		err = register_driver(s, r, d->bus, driver);
	d->bound = r->id;
	snprintf(d->driver, sizeof(d->driver), "%s", driver);
	r->flags |= SIM_F_BOUND;
	if (!err)
		err = sys_path(s, path, sizeof(path), "sys/bus/%s/drivers/%s/%s", d->bus, driver, d->id);
	snprintf(dest, sizeof(dest), "../../devices/%s", d->id);
	if (!err && symlink(dest, path) < 0 && errno != EEXIST)
		err = -errno;
	if (!err)
		err = sys_path(s, path, sizeof(path), "sys/bus/%s/devices/%s/driver", d->bus, d->id);
	snprintf(dest, sizeof(dest), "../../drivers/%s", driver);
	if (!err && symlink(dest, path) < 0 && errno != EEXIST)
		err = -errno;
	if (!err)
		err = rewrite_uevent(s, d);
	return err;
}

/* "BUS:DRIVER:DEVICE": the bus and the driver end at the first two colons */
static int split_declared(const char *decl, char *bus, char *driver, char *id)
{
	const char *c1 = strchr(decl, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c2 || (size_t)(c1 - decl) >= SIM_BUS_LEN || (size_t)(c2 - c1 - 1) >= SIM_NAME_LEN)
		return -EINVAL;
	memcpy(bus, decl, (size_t)(c1 - decl));
	bus[c1 - decl] = '\0';
	memcpy(driver, c1 + 1, (size_t)(c2 - c1 - 1));
	driver[c2 - c1 - 1] = '\0';
	snprintf(id, SIM_DEVID_LEN, "%s", c2 + 1);
	if (strlen(c2 + 1) >= SIM_DEVID_LEN || !valid_name(bus, SIM_BUS_LEN) ||
	    !valid_name(driver, SIM_NAME_LEN) || !valid_name(id, SIM_DEVID_LEN))
		return -EINVAL;
	return 0;
}

/* A device the module brings with it: created unless present, then bound. */
static int bind_declared(struct sim *s, struct sim_devtab *t, struct sim_rec *r, const char *decl)
{
	char bus[SIM_BUS_LEN], driver[SIM_NAME_LEN], id[SIM_DEVID_LEN], modalias[SIM_MODALIAS_LEN];
	if (split_declared(decl, bus, driver, id) < 0 || driver_taken(t, bus, driver, r->id))
		return 0;
	struct sim_dev *d = sim_device_find(t, bus, id);
	if (!d) {
		/* what a platform device shows: the bus, then the name it matches by */
		snprintf(modalias, sizeof(modalias), "%s:%s", bus, driver);
		int err = sim_device_add(s, t, bus, id, modalias);
		if (err)
			return err;
		d = &t->v[t->n - 1];
		d->owner = r->id;
	}
	return d->bound ? 0 : bind_device(s, t, r, d, driver);
}

/* the literal head of a pattern: a cheap test before fnmatch */
static int alias_matches(const char *pattern, const char *modalias)
{
	size_t lit = strcspn(pattern, "*?[\\");
	if (strncmp(pattern, modalias, lit))
		return 0;
	return fnmatch(pattern, modalias, 0) == 0;
}

int sim_devices_bind(struct sim *s, struct sim_rec *r, const char *driver, const char *const *patterns,
		     const char *const *declared)
{
	struct sim_devtab t;
	int err = 0;
	if (!(patterns && patterns[0]) && !(declared && declared[0]))
		return 0;
	if (!driver || !valid_name(driver, SIM_NAME_LEN))
		driver = r->name;
	err = sim_devices_read(s, &t);
	if (err)
		return err;
	uint32_t before = t.n;
	for (const char *const *dp = declared; !err && dp && *dp; dp++)
		err = bind_declared(s, &t, r, *dp);
	for (uint32_t i = 0; !err && patterns && i < t.n; i++) {
		struct sim_dev *d = &t.v[i];
		if (d->bound)
			continue;
		for (const char *const *p = patterns; *p; p++) {
			if (!alias_matches(*p, d->modalias))
				continue;
			if (!driver_taken(&t, d->bus, driver, r->id))
				err = bind_device(s, &t, r, d, driver);
			break;
		}
	}
	/* bind_device() flags the module */
	if ((r->flags & SIM_F_BOUND) || t.n != before) {
		int werr = sim_devices_write(s, &t);
		if (!err)
			err = werr;
	}
	sim_devices_free(&t);
	return err;
}

/* driver removal: every device of the module's drivers released, its own devices gone */
int sim_devices_unbind(struct sim *s, struct sim_rec *r)
{
	char path[PATH_MAX], tag[SIM_BUS_LEN + SIM_DEVID_LEN + SIM_NAME_LEN];
	struct sim_devtab t;
	if (!(r->flags & SIM_F_BOUND))
		return 0;
	int err = sim_devices_read(s, &t);
	if (err)
		return err;
	/* device_release_driver(): the device's link first, then the driver's */
	for (uint32_t i = 0; i < t.n; i++) {
		struct sim_dev *d = &t.v[i];
		if (d->bound != r->id)
			continue;
		if (!sys_path(s, path, sizeof(path), "sys/bus/%s/devices/%s/driver", d->bus, d->id))
			unlink(path);
		if (!sys_path(s, path, sizeof(path), "sys/bus/%s/drivers/%s/%s", d->bus, d->driver, d->id))
			unlink(path);
	}
	/* then each driver once: the module's link, the driver's directory */
	for (uint32_t i = 0; i < t.n; i++) {
		struct sim_dev *d = &t.v[i];
		if (d->bound != r->id)
			continue;
		int first = 1;
		for (uint32_t j = 0; j < i && first; j++)
			first = !(t.v[j].bound == r->id && !strcmp(t.v[j].bus, d->bus) &&
				  !strcmp(t.v[j].driver, d->driver));
		if (!first)
			continue;
		if (!sys_path(s, path, sizeof(path), "sys/module/%s/drivers/%s:%s", r->name, d->bus, d->driver))
			unlink(path);
		snprintf(tag, sizeof(tag), "drv.%s.%s", d->bus, d->driver);
		if (!sys_path(s, path, sizeof(path), "sys/bus/%s/drivers/%s", d->bus, d->driver))
			remove_dir(s, tag, path);
	}
	uint32_t out = 0;
	for (uint32_t i = 0; i < t.n; i++) {
		struct sim_dev d = t.v[i];
		if (d.owner == r->id) {
			snprintf(tag, sizeof(tag), "dev.%s.%s", d.bus, d.id);
			if (!sys_path(s, path, sizeof(path), "sys/bus/%s/devices/%s", d.bus, d.id))
				remove_dir(s, tag, path);
			continue;
		}
		if (d.bound == r->id) {
			d.bound = 0;
			memset(d.driver, 0, sizeof(d.driver));
			int uerr = rewrite_uevent(s, &d);
			if (!err)
				err = uerr;
		}
		t.v[out++] = d;
	}
	t.n = out;
	int werr = sim_devices_write(s, &t);
	if (!err)
		err = werr;
	r->flags &= (uint8_t)~SIM_F_BOUND;
	sim_devices_free(&t);
	return err;
}
