// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module syscalls' semantics: Linux 6.1's load_module(), do_init_module()
 * and delete_module() in stock mode, rot-abi.md in rot mode. Checks run in
 * the kernel's order, so a module with two faults fails as it would there.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modimage.h"
#include "sim.h"

#define MAX_DEVICES 16

struct behaviour {
	int init_errno;
	int permanent;
	unsigned init_delay_ms, exit_delay_ms;
	const char *init_gate; /* init waits until this path exists */
	const char *devices[MAX_DEVICES + 1];
	unsigned ndevices;
	const char *driver; /* the driver's name, when not the module's */
	unsigned stray; /* enum sim_stray */
	int pins_block_unload; /* rot-abi.md U7 */
	int rot_safe; /* rot-abi.md C4: .modinfo rot=safe, or the behaviour key rot_safe=1 */
	char *file; /* DIR/behaviour/NAME, kept for the device strings */
};

const char *sim_stray_name(unsigned stray)
{
	static const char *const names[] = { "none", "timer", "work", "rcu", "kprobe" };
	return stray < sizeof(names) / sizeof(names[0]) ? names[stray] : "?";
}

static unsigned stray_parse(const char *val)
{
	for (unsigned k = SIM_STRAY_TIMER; k <= SIM_STRAY_KPROBE; k++)
		if (!strcmp(val, sim_stray_name(k)))
			return k;
	return SIM_STRAY_NONE;
}

/* the hold a stray= behaviour leaves on the instance its unload makes */
static int stray_hold(unsigned stray)
{
	switch (stray) {
	case SIM_STRAY_TIMER: return SIM_HOLD_TIMER;
	case SIM_STRAY_WORK: return SIM_HOLD_WORK;
	case SIM_STRAY_RCU: return SIM_HOLD_RCU;
	case SIM_STRAY_KPROBE: return SIM_HOLD_KPROBE;
	}
	return -1;
}

static void behaviour_set(struct behaviour *b, const char *key, const char *val)
{
	if (!strcmp(key, "init_errno"))
		b->init_errno = atoi(val);
	else if (!strcmp(key, "permanent"))
		b->permanent = atoi(val);
	else if (!strcmp(key, "init_delay_ms"))
		b->init_delay_ms = (unsigned)strtoul(val, NULL, 10);
	else if (!strcmp(key, "exit_delay_ms"))
		b->exit_delay_ms = (unsigned)strtoul(val, NULL, 10);
	else if (!strcmp(key, "init_gate"))
		b->init_gate = *val ? val : NULL;
	else if (!strcmp(key, "device") && b->ndevices < MAX_DEVICES)
		b->devices[b->ndevices++] = val;
	else if (!strcmp(key, "driver"))
		b->driver = val;
	else if (!strcmp(key, "stray"))
		b->stray = stray_parse(val);
	else if (!strcmp(key, "pins_block_unload"))
		b->pins_block_unload = atoi(val) > 0;
	else if (!strcmp(key, "rot_safe"))
		b->rot_safe = atoi(val) > 0;
}

/* the image's alias= patterns, NULL-terminated; NULL when it has none */
static const char **alias_patterns(const struct sim_image *im)
{
	size_t n = 0;
	for (const char *a = sim_modinfo_get(im, "alias"); a; a = sim_modinfo_next(im, "alias", a))
		n++;
	const char **v = n ? malloc((n + 1) * sizeof(*v)) : NULL;
	if (!v)
		return NULL;
	n = 0;
	for (const char *a = sim_modinfo_get(im, "alias"); a; a = sim_modinfo_next(im, "alias", a))
		v[n++] = a;
	v[n] = NULL;
	return v;
}

/* .modinfo simkernel.KEY=VALUE, then DIR/behaviour/NAME on top */
static void behaviour_read(const char *dir, const struct sim_image *im, struct behaviour *b)
{
	char path[PATH_MAX], rel[PATH_MAX];
	memset(b, 0, sizeof(*b));
	/* C4: the kernel reads rot= when the module loads; another value is ignored */
	const char *rot = sim_modinfo_get(im, "rot");
	b->rot_safe = rot && !strcmp(rot, "safe");
	const char *end = im->modinfo ? im->modinfo + im->modinfo_len : NULL;
	for (const char *p = im->modinfo; p && p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
		if (strncmp(p, "simkernel.", 10))
			continue;
		const char *eq = strchr(p, '=');
		char key[64];
		if (!eq || eq - p - 10 >= (long)sizeof(key))
			continue;
		memcpy(key, p + 10, (size_t)(eq - p - 10));
		key[eq - p - 10] = '\0';
		behaviour_set(b, key, eq + 1);
	}
	snprintf(rel, sizeof(rel), "behaviour/%s", im->name);
	if (!sim_path(path, sizeof(path), dir, rel))
		return;
	b->file = sim_read_file(path, NULL);
	if (!b->file)
		return;
	int devices_reset = 0;
	for (char *line = strtok(b->file, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(line, "device") && !devices_reset) {
			b->ndevices = 0; /* the file's devices replace the image's */
			devices_reset = 1;
		}
		behaviour_set(b, line, eq + 1);
	}
}

static int license_is_gpl_compatible(const char *l)
{
	static const char *const ok[] = { "GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
					  "Dual MIT/GPL", "Dual MPL/GPL" };
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(l, ok[i]))
			return 1;
	return 0;
}

/* same_magic(): with symbol CRCs the release may differ, the rest may not */
static int same_magic(const char *amagic, const char *bmagic, int has_crcs)
{
	if (has_crcs) {
		amagic += strcspn(amagic, " ");
		bmagic += strcspn(bmagic, " ");
	}
	return !strcmp(amagic, bmagic);
}

static int add_dep(struct sim_rec *r, uint32_t id)
{
	for (unsigned i = 0; i < r->ndeps; i++)
		if (r->deps[i] == id)
			return 0;
	if (r->ndeps == SIM_MAX_DEPS)
		return -ENOMEM;
	r->deps[r->ndeps++] = id;
	return 0;
}

/* simplify_symbols(): every undefined symbol from the kernel or a live module */
static int resolve_symbols(struct sim *s, const struct sim_image *im, struct sim_rec *r)
{
	char **files = NULL;
	uint32_t *ids = NULL;
	size_t nfiles = 0;
	int err = 0, loaded = 0;

	for (size_t u = 0; u < im->nundef && !err; u++) {
		const char *sym = im->undef[u];
		if (sim_base_symbol(sym))
			continue;
		if (!loaded) {
			loaded = 1;
			for (uint32_t i = 0; i < s->hdr->count; i++) {
				const struct sim_rec *m = &s->recs[i];
				if (m->kind != SIM_LIVE || !(m->flags & SIM_F_HAS_SYMS) || m->mstate == SIM_UNLOADING)
					continue;
				char path[PATH_MAX], rel[64];
				snprintf(rel, sizeof(rel), "syms/%" PRIu32, m->id);
				sim_path(path, sizeof(path), s->dir, rel);
				char *text = sim_read_file(path, NULL);
				if (!text)
					continue;
				char **nf = realloc(files, (nfiles + 1) * sizeof(*files));
				uint32_t *ni = nf ? realloc(ids, (nfiles + 1) * sizeof(*ids)) : NULL;
				if (nf)
					files = nf;
				if (ni)
					ids = ni;
				if (!nf || !ni) {
					free(text);
					err = -ENOMEM;
					goto out;
				}
				files[nfiles] = text;
				ids[nfiles++] = m->id;
			}
		}
		int found = 0;
		size_t sl = strlen(sym);
		for (size_t f = 0; f < nfiles && !found; f++) {
			/* lines: OFFSET TYPE NAME */
			for (const char *p = files[f]; p && *p && !found;) {
				const char *nl = strchr(p, '\n');
				const char *nm = strchr(p, ' ');
				nm = nm ? strchr(nm + 1, ' ') : NULL;
				if (nm && (size_t)((nl ? nl : p + strlen(p)) - nm - 1) == sl && !strncmp(nm + 1, sym, sl)) {
					found = 1;
					err = add_dep(r, ids[f]);
				}
				p = nl ? nl + 1 : NULL;
			}
		}
		if (!found)
			err = -ENOENT; /* "Unknown symbol" */
	}
out:
	for (size_t f = 0; f < nfiles; f++)
		free(files[f]);
	free(files);
	free(ids);
	return err;
}

/*
 * The module's symbol file, written before the lock to DIR/syms/.staged.TID
 * (a thread runs one load at a time); the load renames it to DIR/syms/ID
 * under the lock, once the record has its id. A staged file left by a
 * crash is never read: readers look symbols up by id.
 */
static int stage_syms(const char *dir, const struct sim_image *im, char *staged, size_t len)
{
	char rel[64];
	size_t cap = 64, n = 0;
	for (size_t i = 0; i < im->ndefs; i++)
		cap += strlen(im->defs[i].name) + 24;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < im->ndefs; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%" PRIx64 " %c %s\n", im->defs[i].off, im->defs[i].type,
				      im->defs[i].name);
	snprintf(rel, sizeof(rel), "syms/.staged.%d", (int)gettid());
	int err = -ENAMETOOLONG;
	if (sim_path(staged, len, dir, rel)) {
		err = sim_write_file(AT_FDCWD, staged, buf, n);
		if (err)
			unlink(staged);
	}
	if (err)
		staged[0] = '\0';
	free(buf);
	return err;
}

static int publish_syms(struct sim *s, const char *staged, const struct sim_rec *r)
{
	char path[PATH_MAX], rel[64];
	snprintf(rel, sizeof(rel), "syms/%" PRIu32, r->id);
	sim_path(path, sizeof(path), s->dir, rel);
	return rename(staged, path) < 0 ? -errno : 0;
}

static void remove_syms(struct sim *s, const struct sim_rec *r)
{
	char path[PATH_MAX], rel[64];
	if (!(r->flags & SIM_F_HAS_SYMS))
		return;
	snprintf(rel, sizeof(rel), "syms/%" PRIu32, r->id);
	sim_path(path, sizeof(path), s->dir, rel);
	unlink(path);
}

void sim_changed(struct sim *s)
{
	__atomic_add_fetch(&s->hdr->gen, 1, __ATOMIC_RELEASE);
}

void sim_add_taint(struct sim *s, int bit)
{
	if (!(s->hdr->taint & (1ull << bit))) {
		s->hdr->taint |= 1ull << bit;
		sim_render_small(s);
	}
}

#define changed sim_changed
#define add_taint sim_add_taint

/*
 * Takes a live record out of the live set: its sysfs directory goes, its
 * dependencies lose a holder, and in stock mode their refcnt files follow.
 * Returns the rotting copy in rot mode; in stock mode the memory is freed.
 */
static void retire(struct sim *s, struct sim_rec *r, int rot, uint64_t bytes, int has_sysfs)
{
	if (r->flags & SIM_F_BOUND)
		sim_devices_unbind(s, r); /* the driver goes before the module */
	struct sim_rec copy = *r;
	if (has_sysfs) {
		sim_sysfs_remove(s, r);
		remove_syms(s, r);
	}
	sim_free_slot(s, r);
	if (s->hdr->mode == SIM_MODE_STOCK) {
		for (unsigned i = 0; i < copy.ndeps; i++) {
			struct sim_rec *dep = sim_find_live_id(s, copy.deps[i]);
			if (dep)
				sim_sysfs_refcnt(s, dep);
		}
	}
	if (rot) {
		int h = stray_hold(copy.stray);
		if (h >= 0 && !copy.hold[h])
			copy.hold[h] = 1; /* what its exit forgot stays armed in the instance */
		copy.kind = SIM_ROT;
		copy.flags &= (uint8_t)~(SIM_F_HAS_SYMS | SIM_F_BOUND);
		/* A rotting instance holds no references (P6): no count looks at a
		 * rotting record's deps. Revision 4 keeps them as the instances it
		 * still calls, which its reclaim keeps (P7). */
		if (sim_abi(s->hdr->cfgflags) != 4) {
			copy.ndeps = 0;
			memset(copy.deps, 0, sizeof(copy.deps));
		}
		sim_ledger(s, "rot", &copy, bytes);
		sim_append(s, &copy);
	} else {
		sim_ledger(s, "free", &copy, bytes);
		sim_percpu_release(s, &copy, false);
	}
	sim_compact(s);
	changed(s);
}

static void normalise(char *name)
{
	for (; *name; name++)
		if (*name == '-')
			*name = '_';
}

static int check_deps(struct sim *s, const struct sim_image *im, struct sim_rec *r)
{
	const char *deps = sim_modinfo_get(im, "depends");
	if (!deps)
		return 0;
	char *copy = strdup(deps), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int err = 0;
	for (char *d = strtok_r(copy, ",", &save); d && !err; d = strtok_r(NULL, ",", &save)) {
		normalise(d);
		struct sim_rec *m = sim_find_live(s, d);
		if (!m || m->mstate != SIM_RUNNING)
			err = -ENOENT;
		else
			err = add_dep(r, m->id);
	}
	free(copy);
	return err;
}

/*
 * add_unformed_module(): a Live instance of the name is EEXIST. One still
 * Loading is waited for; if its init then fails (it rotted, or was freed
 * before init), the wait ends in EBUSY: Linux 6.1 does not retry a load
 * that just failed (rot-abi.md L4), and neither mode does here. One
 * Unloading: rot-abi.md says EBUSY at once; Linux 6.1 (stock mode) waits
 * for it to go and then loads. The lock is dropped while waiting, as
 * module_mutex is.
 */
static int init_failed(const struct sim *s, uint32_t id)
{
	for (unsigned i = 0; i < SIM_FAILED_INIT_RING; i++)
		if (s->hdr->failed_init[i] == id)
			return 1;
	return 0;
}

/*
 * While a load sleeps waiting for a name still Loading, its
 * /proc/PID/wchan reads load_module, as on the kernel (which inlines
 * add_unformed_module's wait there): a test's handshake for "the second
 * load is waiting", where a delay would only hope so. DIR/root/proc/PID/
 * wchan, served by paths.c; removed when the wait ends.
 */
static void wchan_publish_as(const char *dir, int waiting, const char *where);

static void wchan_publish(const char *dir, int waiting)
{
	wchan_publish_as(dir, waiting, "load_module");
}

static void wchan_publish_as(const char *dir, int waiting, const char *where)
{
	char rel[64], pid[PATH_MAX], wchan[PATH_MAX];
	snprintf(rel, sizeof(rel), "root/proc/%ld", (long)getpid());
	if (!sim_path(pid, sizeof(pid), dir, rel))
		return;
	snprintf(rel, sizeof(rel), "root/proc/%ld/wchan", (long)getpid());
	if (!sim_path(wchan, sizeof(wchan), dir, rel))
		return;
	if (waiting) {
		char line[64];
		int n = snprintf(line, sizeof(line), "%s\n", where);
		if (mkdir(pid, 0755) == 0 || errno == EEXIST)
			sim_write_atomic(wchan, line, (size_t)n);
	} else {
		unlink(wchan);
		rmdir(pid);
	}
}

static int wait_for_name_locked(struct sim *s, const char *name, int *waited);

static int wait_for_name(struct sim *s, const char *name)
{
	int waited = 0, saved, err = wait_for_name_locked(s, name, &waited);
	if (waited) {
		saved = errno;
		wchan_publish(s->dir, 0);
		errno = saved;
	}
	return err;
}

static int wait_for_name_locked(struct sim *s, const char *name, int *waited)
{
	uint32_t loading_id = 0; /* the Loading instance waited for, if any */
	for (;;) {
		const struct sim_rec *old = sim_find_live(s, name);
		/*
		 * The instance waited for is gone: EBUSY if its init failed;
		 * EEXIST if it went live (and was unloaded between two looks),
		 * which is what the kernel, woken as it went live, answers.
		 */
		if (loading_id && (!old || old->id != loading_id))
			return init_failed(s, loading_id) ? -EBUSY : -EEXIST;
		if (!old)
			return 0;
		if (old->mstate == SIM_RUNNING)
			return -EEXIST;
		if (old->mstate == SIM_UNLOADING && s->hdr->mode == SIM_MODE_ROT)
			return -EBUSY;
		loading_id = old->mstate == SIM_LOADING ? old->id : 0;
		sim_unlock(s);
		if (!*waited)
			wchan_publish(s->dir, *waited = 1);
		sim_sleep_ms(2);
		int err = sim_relock(s);
		if (err)
			return err;
	}
}

static int builtin_dir_exists(struct sim *s, const char *name)
{
	char rel[PATH_MAX], path[PATH_MAX];
	struct stat st;
	snprintf(rel, sizeof(rel), "root/sys/module/%s", name);
	return sim_path(path, sizeof(path), s->dir, rel) && stat(path, &st) == 0;
}

/*
 * Linux 6.12's finit_module() (idempotent_init_module(), since 6.6): a call
 * whose file (inode) another finit_module() is still loading does not load
 * at all; it waits for that call and returns its result, 0 or the init's
 * error (rot-abi.md L4, "On 6.12"). 6.1 has no such thing: there every
 * call loads, and waits by name (wait_for_name() above).
 *
 * Across processes the calls meet in DIR/idem/DEV-INO (DIR/idem is made
 * by `create --kernel 6.12` only: one failed open is all 6.1 pays). The
 * first creates it (O_EXCL) and, its load over, appends "ret N" and
 * removes the name; the others open it, wait until the line is there and return N,
 * their wchan reading idempotent_init_module meanwhile (a test's
 * handshake). One that finds the name gone between its create and its
 * open loads, as a call made after the first one's end does on the kernel.
 */
/*
 * The file's lines: "pid P", the loading call's process, written at once;
 * "ret N", appended when it is done. A call whose process is gone without
 * a "ret" (killed before its load ended: on the kernel the first call
 * always completes) leaves a name nobody would ever answer; a waiter that
 * finds it so removes it and goes on as if the first call had ended.
 */
static int idem_read(int fd, int *ret, long *pid)
{
	char text[64];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	if (n < 0)
		return -errno;
	text[n] = 0;
	const char *r = strstr(text, "ret ");
	*pid = 0;
	if (!strncmp(text, "pid ", 4) && strchr(text, '\n'))
		*pid = strtol(text + 4, NULL, 10);
	return r && strchr(r, '\n') && sscanf(r, "ret %d", ret) == 1;
}

/* True when the name still holds the file FD has open, and is now gone. */
static int idem_remove_stale(const char *path, int fd)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev &&
	       unlink(path) == 0;
}

int sim_idem_begin(const char *dir, uint64_t dev, uint64_t ino, struct sim_idem *idem, int *result)
{
	char rel[96], path[PATH_MAX];
	idem->path[0] = 0;
	snprintf(rel, sizeof(rel), "idem/%llx-%llx", (unsigned long long)dev, (unsigned long long)ino);
	if (!sim_path(path, sizeof(path), dir, rel))
		return -ENAMETOOLONG;
	for (;;) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno == ENOENT)
			return 1; /* no DIR/idem: a 6.1 kernel, where every call loads */
		if (fd >= 0) {
			char line[32];
			int n = snprintf(line, sizeof(line), "pid %ld\n", (long)getpid());
			int err = write(fd, line, (size_t)n) == n ? 0 : -EIO;
			close(fd);
			if (err) {
				unlink(path);
				return err;
			}
			memcpy(idem->path, path, sizeof(path));
			return 1; /* the first: load, then sim_idem_end() */
		}
		if (errno != EEXIST)
			return -errno;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* the first one just finished: load anew */
			return -errno;
		}
		wchan_publish_as(dir, 1, "idempotent_init_module");
		int done, ret = 0, stale = 0;
		long pid;
		while (!(done = idem_read(fd, &ret, &pid))) {
			if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH && idem_read(fd, &ret, &pid) == 0) {
				stale = 1;
				break;
			}
			sim_sleep_ms(2);
		}
		if (stale)
			idem_remove_stale(path, fd);
		close(fd);
		wchan_publish_as(dir, 0, NULL);
		if (done < 0)
			return done;
		if (stale)
			continue;
		*result = ret;
		return 0;
	}
}

void sim_idem_end(struct sim_idem *idem, int ret)
{
	if (!idem->path[0])
		return;
	char line[32];
	int n = snprintf(line, sizeof(line), "ret %d\n", ret);
	int fd = open(idem->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		/* Written before the name goes: a waiter holds the file open. */
		if (write(fd, line, (size_t)n) != n)
			(void)0;
		close(fd);
	}
	unlink(idem->path);
}

int sim_sys_load(const char *dir, const void *image, size_t len, const char *args, unsigned flags)
{
	struct sim_image im;
	struct behaviour b;
	struct sim s;
	struct sim_rec rec;
	char **params = NULL;
	const char **patterns = NULL;
	int err;

	if (flags & ~(unsigned)(1 | 2)) /* IGNORE_MODVERSIONS | IGNORE_VERMAGIC */
		return -EINVAL;
	int perr = sim_image_parse(image, len, &im);
	memset(&b, 0, sizeof(b));
	if (!perr)
		behaviour_read(dir, &im, &b);
	/* what the lock needs not cover: the symbol file, for a module that
	 * will have a sysfs directory (below) */
	char symfile[PATH_MAX] = "";
	int delayed = b.init_delay_ms > 0 || b.init_gate, fails = b.init_errno > 0;
	int sysfs = delayed || !fails; /* a failing init nobody can watch never gets one */
	if (!perr && sysfs && im.ndefs)
		stage_syms(dir, &im, symfile, sizeof(symfile)); /* "" when it could not */

	err = sim_open(&s, dir, 1);
	if (err)
		goto out_free;
	if (s.hdr->cfgflags & SIM_CFG_MODULES_DISABLED) {
		err = -EPERM;
		goto out;
	}
	/* module_sig_check() runs before anything looks inside the image */
	if ((s.hdr->cfgflags & SIM_CFG_SIG_ENFORCE) && !im.is_signed) {
		err = -EKEYREJECTED;
		goto out;
	}
	if (perr) {
		err = perr;
		goto out;
	}
	memset(&rec, 0, sizeof(rec));
	memcpy(rec.name, im.name, sizeof(rec.name));
	/* check_modinfo() */
	const char *magic = (flags & 2) ? NULL : sim_modinfo_get(&im, "vermagic");
	if (!magic)
		rec.taints |= 1u << SIM_TAINT_FORCED_MODULE;
	else if (!same_magic(magic, s.hdr->vermagic, im.has_crcs)) {
		err = -ENOEXEC;
		goto out;
	}
	if (!sim_modinfo_get(&im, "intree"))
		rec.taints |= 1u << SIM_TAINT_OOT;
	const char *license = sim_modinfo_get(&im, "license");
	if (!license_is_gpl_compatible(license ? license : "unspecified"))
		rec.taints |= 1u << SIM_TAINT_PROPRIETARY;
	err = wait_for_name(&s, rec.name);
	/* percpu_modalloc(): right after the name is reserved, before symbols */
	if (!err)
		err = sim_percpu_fits(&s, im.pcpu_size, im.pcpu_align);
	if (err)
		goto out;
	err = check_deps(&s, &im, &rec);
	if (!err)
		err = resolve_symbols(&s, &im, &rec);
	if (!err)
		err = sim_params_apply(&im, args, &params);
	/* mod_sysfs_init(): a builtin of that name owns the sysfs directory */
	if (!err && builtin_dir_exists(&s, rec.name))
		err = -EINVAL;
	if (err)
		goto out;
	uint64_t core, init;
	sim_image_sizes(&im, !!(s.hdr->cfgflags & SIM_CFG_LINUX_612), &core, &init);
	rec.core = (uint32_t)core;
	rec.init = (uint32_t)init;
	rec.addr = sim_alloc_addr(&s, (uint64_t)rec.core + rec.init);
	if (!rec.addr) {
		err = -ENOMEM;
		goto out;
	}
	rec.id = s.hdr->next_id++;
	rec.kind = SIM_LIVE;
	rec.mstate = SIM_LOADING;
	rec.exit_delay_ms = b.exit_delay_ms;
	rec.stray = (uint8_t)b.stray;
	if ((im.has_init && !im.has_exit) || b.permanent)
		rec.flags |= SIM_F_PERMANENT;
	if (im.ndefs)
		rec.flags |= SIM_F_HAS_SYMS;
	if (b.pins_block_unload)
		rec.flags |= SIM_F_PINS_BLOCK;
	if (b.rot_safe)
		rec.flags |= SIM_F_ROT_SAFE;
	struct sim_rec *r = sim_append(&s, &rec);
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	sim_ledger(&s, "load", r, (uint64_t)r->core + r->init);
	sim_percpu_alloc(&s, r, im.pcpu_size, im.pcpu_align); /* fits: checked under this lock */
	for (int bit = 0; bit < 32; bit++)
		if (r->taints & (1u << bit))
			add_taint(&s, bit);
	/*
	 * The name is reserved: the rest runs as the kernel's load_module()
	 * does after add_unformed_module(), without the lock while the module's
	 * sysfs directory is built and its init runs, then commits under it.
	 * Symbols go in now (the file staged before the lock is renamed into
	 * place), so that a load that needs them finds them while this one is
	 * Loading, as before. Dependencies are held from here (a Loading
	 * holder blocks their unload); on a stock kernel their refcnt counts
	 * this module from now on.
	 */
	if (symfile[0] && publish_syms(&s, symfile, r) == 0)
		symfile[0] = '\0';
	if (s.hdr->mode == SIM_MODE_STOCK)
		sim_sysfs_deps_refcnt(&s, r);
	struct sim_rec mine = *r;
	char depnames[SIM_MAX_DEPS][SIM_NAME_LEN];
	for (unsigned i = 0; i < mine.ndeps; i++) {
		const struct sim_rec *dep = sim_find_live_id(&s, mine.deps[i]);
		snprintf(depnames[i], sizeof(depnames[i]), "%s", dep ? dep->name : "");
	}
	changed(&s);
	sim_unlock(&s);

	/*
	 * Unlocked. Without an init delay nobody can watch init run, so the
	 * directory is staged already live and appears at the commit; with a
	 * delay it appears at once, `coming`, while init sleeps.
	 */
	int staged = 0;
	if (sysfs) {
		mine.mstate = delayed ? SIM_LOADING : SIM_RUNNING;
		staged = sim_sysfs_stage(&s, &mine, (const char *const *)params) == 0;
		if (staged && delayed)
			staged = sim_sysfs_publish(&s, &mine, (const char (*)[SIM_NAME_LEN])depnames) == 0 ? 2 : 0;
	}
	if (delayed)
		sim_sleep_ms(b.init_delay_ms);
	/* A test's handshake: init runs until the test says (at most 120 s). */
	for (unsigned waited = 0; b.init_gate && access(b.init_gate, F_OK) < 0 && waited < 120000;
	     waited += 5)
		sim_sleep_ms(5);

	err = sim_relock(&s);
	if (err)
		goto out;
	r = sim_find_live_id(&s, mine.id);
	if (!r) {
		err = -EIO;
		goto out;
	}
	if (fails) {
		/* do_init_module() failure: rot keeps core and init, stock frees both */
		err = -b.init_errno;
		s.hdr->failed_init[s.hdr->failed_init_next++ % SIM_FAILED_INIT_RING] = r->id;
		if (s.hdr->mode == SIM_MODE_ROT)
			r->flags |= SIM_F_INIT_FAILED;
		retire(&s, r, s.hdr->mode == SIM_MODE_ROT, (uint64_t)r->core + r->init, delayed);
		goto out;
	}
	if (staged == 1)
		sim_sysfs_publish(&s, &mine, (const char (*)[SIM_NAME_LEN])depnames);
	if (r->init)
		sim_ledger(&s, "init_free", r, r->init);
	r->mstate = SIM_RUNNING;
	if (delayed)
		sim_sysfs_initstate(&s, r);
	changed(&s);
	/* init registered the driver: it binds what matches (a failed probe is no failed load) */
	patterns = alias_patterns(&im);
	b.devices[b.ndevices] = NULL;
	sim_devices_bind(&s, r, b.driver, patterns, b.devices);
	/* and the file system types it provides (alias=fs-TYPE) */
	sim_fstypes_register(&s, r, patterns);
	err = 0;
out:
	sim_close(&s);
out_free:
	if (symfile[0])
		unlink(symfile); /* the load ended before its symbols were published */
	free(patterns);
	sim_params_free(params);
	free(b.file);
	sim_image_free(&im);
	return err;
}

/* DIR/behaviour/NAME's exit_gate=PATH: the exit waits, in state Unloading,
 * until PATH exists (a test's handshake). Read at unload, not at load, so a
 * test can set it on a module that is already live. 1 when set. */
static int exit_gate_read(const char *dir, const char *name, char *gate, size_t size)
{
	char path[PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "behaviour/%s", name);
	if (!sim_path(path, sizeof(path), dir, rel))
		return 0;
	char *file = sim_read_file(path, NULL);
	int found = 0;
	for (char *line = file ? strtok(file, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "exit_gate=", 10) && line[10]) {
			found = snprintf(gate, size, "%s", line + 10) < (int)size;
			break;
		}
	free(file);
	return found;
}

int sim_sys_delete(const char *dir, const char *name_in, unsigned flags)
{
	char name[SIM_NAME_LEN];
	struct sim s;
	int err;

	/* strncpy_from_user(name, ..., MODULE_NAME_LEN - 1) */
	snprintf(name, sizeof(name), "%s", name_in);
	err = sim_open(&s, dir, 1);
	if (err)
		return err;
	if (s.hdr->cfgflags & SIM_CFG_MODULES_DISABLED) {
		err = -EPERM;
		goto out;
	}
	int rot = s.hdr->mode == SIM_MODE_ROT;
	struct sim_rot_reclaim reply;
	memset(&reply, 0, sizeof(reply));
	if (rot && (s.hdr->cfgflags & SIM_CFG_ABI_REV1)) {
		/* revision 1: unknown bits and MODULE_RECLAIM|O_TRUNC are EINVAL;
		 * reclaim frees everything, checks nothing and returns 0 */
		if ((flags & ~(unsigned)(O_NONBLOCK | O_TRUNC | SIM_MODULE_RECLAIM)) ||
		    (flags & (SIM_MODULE_RECLAIM | O_TRUNC)) == (SIM_MODULE_RECLAIM | O_TRUNC)) {
			err = -EINVAL;
			goto out;
		}
		if (flags & SIM_MODULE_RECLAIM) {
			err = sim_reclaim_legacy(&s, name, 0, 1, &reply);
			err = err > 0 ? 0 : err;
			goto out;
		}
	}
	/* Other flag bits are ignored, as by every kernel (busybox passes O_EXCL). */
	if (rot && (flags & SIM_MODULE_RECLAIM)) {
		if (!(s.hdr->cfgflags & SIM_CFG_ABI_REV2)) {
			err = -EINVAL; /* U6: the request moved to the ioctl */
			goto out;
		}
		err = sim_reclaim_legacy(&s, name, !(s.hdr->cfgflags & SIM_CFG_NO_RECLAIM_CHECKS), !!(flags & O_TRUNC),
					 &reply);
		goto out;
	}
	struct sim_rec *r = sim_find_live(&s, name);
	if (!r) {
		err = -ENOENT;
		goto out;
	}
	if (sim_has_holders(&s, r->id)) {
		err = -EWOULDBLOCK;
		goto out;
	}
	if (r->mstate != SIM_RUNNING) {
		err = -EBUSY;
		goto out;
	}
	int forced = 0;
	if (r->flags & SIM_F_PERMANENT) {
		if (!(flags & O_TRUNC)) {
			err = -EBUSY;
			goto out;
		}
		forced = 1;
	}
	/*
	 * U7: a module whose subsystem cannot survive its exit while in use
	 * (a crypto algorithm or template, a livepatch) is refused while
	 * pinned, forced or not, as a stock kernel refuses a module in use.
	 * Revision 2 counted no pins.
	 */
	if (rot && (r->flags & SIM_F_PINS_BLOCK) && r->pins && sim_abi(s.hdr->cfgflags) == 3) {
		err = -EWOULDBLOCK;
		goto out;
	}
	/*
	 * U8 (revision 4, replaces U7): outstanding pins refuse the unload of
	 * a module that did not declare MODULE_ROT_SAFE(), forced or not; the
	 * check and the state change share the state lock, as the kernel's
	 * one atomic step from "no pins" to "stopping".
	 */
	if (rot && r->pins && !(r->flags & SIM_F_ROT_SAFE) && sim_abi(s.hdr->cfgflags) == 4) {
		err = -EWOULDBLOCK;
		goto out;
	}
	/* try_stop_module(): only stock counts references beyond holders */
	if (!rot && r->refs > 0) {
		if (!(flags & O_TRUNC)) {
			err = -EWOULDBLOCK;
			goto out;
		}
		forced = 1;
	}
	if (forced)
		add_taint(&s, SIM_TAINT_FORCED_RMMOD);
	r->mstate = SIM_UNLOADING;
	char exit_gate[PATH_MAX];
	int gated = exit_gate_read(dir, name, exit_gate, sizeof(exit_gate));
	if (r->exit_delay_ms || gated) {
		/* only a slow exit lets anyone see the module going */
		sim_sysfs_initstate(&s, r);
		changed(&s);
		uint32_t id = r->id;
		unsigned ms = r->exit_delay_ms;
		sim_unlock(&s);
		sim_sleep_ms(ms);
		/* A test's handshake, as init_gate is for init (at most 120 s). */
		for (unsigned waited = 0; gated && access(exit_gate, F_OK) < 0 && waited < 120000;
		     waited += 5)
			sim_sleep_ms(5);
		err = sim_relock(&s);
		if (err)
			goto out;
		r = sim_find_live_id(&s, id);
		if (!r) {
			err = -EIO;
			goto out;
		}
	}
	retire(&s, r, rot, r->core, 1);
	err = 0;
out:
	sim_close(&s);
	return err;
}

int sim_add_synthetic(struct sim *s, const char *name, uint32_t core, uint32_t init, const uint32_t *deps,
		      unsigned ndeps)
{
	struct sim_rec rec;
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.name, sizeof(rec.name), "%s", name);
	rec.core = core;
	rec.init = init;
	rec.addr = sim_alloc_addr(s, (uint64_t)core + init);
	if (!rec.addr)
		return -ENOMEM;
	rec.id = s->hdr->next_id++;
	rec.kind = SIM_LIVE;
	rec.mstate = SIM_RUNNING;
	for (unsigned i = 0; i < ndeps && i < SIM_MAX_DEPS; i++)
		rec.deps[rec.ndeps++] = deps[i];
	struct sim_rec *r = sim_append(s, &rec);
	if (!r)
		return -ENOMEM;
	sim_ledger(s, "load", r, (uint64_t)core + init);
	if (init)
		sim_ledger(s, "init_free", r, init);
	changed(s);
	return (int)r->id;
}

/* populate: unload a synthetic module so that it rots */
int sim_rot_synthetic(struct sim *s, uint32_t id)
{
	struct sim_rec *r = sim_find_live_id(s, id);
	if (!r)
		return -ENOENT;
	struct sim_rec copy = *r;
	sim_free_slot(s, r);
	copy.kind = SIM_ROT;
	copy.ndeps = 0;
	sim_ledger(s, "rot", &copy, copy.core);
	sim_append(s, &copy);
	changed(s);
	return 0;
}
