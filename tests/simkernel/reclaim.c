// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reclaim: revision 3's ioctl(ROT_IOC_RECLAIM) (rot-abi.md R1-R9), with
 * the forced reclaim's bounded wait (R5), the kernel log and the audit
 * record (R4, R7); revision 4's scan (R10-R13, P7), asked through
 * ROT_IOC_RECLAIM4 or, with revision 3's reply, ROT_IOC_RECLAIM; and
 * revision 2's and 1's delete_module(MODULE_RECLAIM).
 *
 * As the kernel does, revision 3 serialises reclaims with a lock of their
 * own (DIR/reclaim.lock, the kernel's reclaim_mutex), taken interruptibly,
 * and drops the state lock while a forced reclaim waits, so that loads,
 * unloads and `simkernel release` go on meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"

/* How often a forced reclaim looks again while it waits (msleep(20)). */
#define LOOK_INTERVAL_MS 20
/* How often a reclaim waiting for another tries the reclaim lock again. */
#define LOCK_RETRY_MS 5

const char *sim_hold_name(unsigned hold)
{
	static const char *const names[SIM_NHOLD] = { "task", "timer", "work", "rcu", "kprobe", "running", "ref" };
	return hold < SIM_NHOLD ? names[hold] : "?";
}

int sim_hold_parse(const char *word)
{
	for (unsigned h = 0; h < SIM_NHOLD; h++)
		if (!strcmp(word, sim_hold_name(h)))
			return (int)h;
	return -1;
}

/* How a reclaim looks at an instance: which kernel asked, and how. */
struct reclaim_how {
	int rev3;   /* ROT_IOC_RECLAIM; else revision 2's (or 1's) delete_module */
	int rev4;   /* revision 4's scan (R10): every hold is a reference found */
	int checks; /* rot_reclaim_checks Y: every R4 check is there */
	int force;  /* ROT_RECLAIM_FORCE (R5), or revision 2's O_TRUNC */
};

/* whether reclaim sees hold h: with checks N only kprobes are found (D2);
 * revision 2 knew nothing of tasks or of callbacks that come back */
static int hold_seen(const struct reclaim_how *how, unsigned h)
{
	if (h == SIM_HOLD_REF)
		return how->rev4; /* only revision 4 scans */
	if (how->rev4)
		return 1;
	if (!how->rev3)
		return how->checks && h != SIM_HOLD_TASK && h != SIM_HOLD_RUNNING;
	return how->checks || h == SIM_HOLD_KPROBE;
}

/*
 * R5: a forced reclaim deactivates the timers and work it found and waits
 * for the RCU callbacks, in every instance of the name, kept or not. A
 * `running` hold is a callback that is back at every look (re-armed from
 * outside the instance): it is not stopped. Returns whether anything was.
 */
static int stop_callbacks(struct sim_rec *r, const struct reclaim_how *how)
{
	if (!how->force || !how->rev3 || how->rev4 || !how->checks)
		return 0; /* R12: revision 4 stops nothing, it only looks again */
	int stopped = r->hold[SIM_HOLD_TIMER] || r->hold[SIM_HOLD_WORK] || r->hold[SIM_HOLD_RCU];
	r->hold[SIM_HOLD_TIMER] = r->hold[SIM_HOLD_WORK] = r->hold[SIM_HOLD_RCU] = 0;
	return stopped;
}

/* what one look found in one instance */
struct seen {
	uint32_t why, pins, tasks, callbacks, probes, refs;
	char where[SIM_WHERE_LEN]; /* revision 4: where the first reference was found */
};

/* what a reclaim answers, either request's reply filled from it */
struct tally {
	uint32_t freed, kept, why, pins, tasks, callbacks, refs, probes;
	uint64_t bytes, percpu;
	char where[SIM_WHERE_LEN];
};

static int where_path(const char *dir, uint32_t id, char *path, size_t len)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "where/%" PRIu32, id);
	return sim_path(path, len, dir, rel) ? 0 : -ENAMETOOLONG;
}

/* DIR/where/ID: "KIND TEXT" lines, KIND task or ref */
int sim_where_set(const char *dir, uint32_t id, const char *kind, const char *text)
{
	char path[PATH_MAX], wdir[PATH_MAX], buf[4 * SIM_WHERE_LEN];
	size_t n = 0, kl = strlen(kind);
	if (where_path(dir, id, path, sizeof(path)) || !sim_path(wdir, sizeof(wdir), dir, "where"))
		return -ENAMETOOLONG;
	if (mkdir(wdir, 0755) < 0 && errno != EEXIST)
		return -errno;
	char *old = sim_read_file(path, NULL);
	for (char *line = old ? strtok(old, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (strncmp(line, kind, kl) || line[kl] != ' ')
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\n", line);
	free(old);
	if (text)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s %s\n", kind, text);
	if (!n)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	return sim_write_atomic(path, buf, n);
}

void sim_where_drop(const char *dir, uint32_t id)
{
	char path[PATH_MAX];
	if (!where_path(dir, id, path, sizeof(path)))
		unlink(path);
}

/* the WHERE a test gave a task or ref hold of instance id, "" if none */
static void where_get(const char *dir, uint32_t id, const char *kind, char *out, size_t len)
{
	char path[PATH_MAX];
	size_t kl = strlen(kind);
	out[0] = '\0';
	if (where_path(dir, id, path, sizeof(path)))
		return;
	char *text = sim_read_file(path, NULL);
	for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
		if (!strncmp(line, kind, kl) && line[kl] == ' ') {
			snprintf(out, len, "%s", line + kl + 1);
			break;
		}
	free(text);
}

/*
 * Where revision 4's scan finds what a hold stands for (R11's forms): a
 * timer, work item, RCU callback or re-armed timer hangs on a per-CPU
 * list of the core kernel; a registered kprobe is in the kprobe table.
 */
static const char *hold_where(unsigned h)
{
	switch (h) {
	case SIM_HOLD_TIMER:
	case SIM_HOLD_WORK:
	case SIM_HOLD_RCU:
	case SIM_HOLD_RUNNING: return "per-CPU data of CPU 0";
	case SIM_HOLD_KPROBE: return "kernel data kprobe_table";
	}
	return "";
}

/*
 * P7: the newest rotting instance other than r that used r (r's id among
 * its kept dependencies), or NULL.
 */
static const struct sim_rec *rotting_user(const struct sim *s, const struct sim_rec *r)
{
	for (uint32_t i = s->hdr->count; i-- > 0;) {
		const struct sim_rec *u = &s->recs[i];
		if (u->kind != SIM_ROT || u == r)
			continue;
		for (unsigned d = 0; d < u->ndeps; d++)
			if (u->deps[d] == r->id)
				return u;
	}
	return NULL;
}

/*
 * Revision 4 (R10, P7, R11): pins and rotting users are known without a
 * scan; the scan then finds references in the core's data and in slab
 * objects before it reaches task stacks, so WHERE names a user first, then
 * a reference, then a task.
 */
static void look_at4(const struct sim *s, const struct sim_rec *r, struct seen *v)
{
	memset(v, 0, sizeof(*v));
	if (r->pins) {
		v->why |= SIM_KEPT_PIN;
		v->pins = r->pins;
	}
	const struct sim_rec *u = rotting_user(s, r);
	if (u) {
		v->why |= SIM_KEPT_USER;
		snprintf(v->where, sizeof(v->where), "rotting user %s", u->name);
	}
	static const unsigned order[] = { SIM_HOLD_REF, SIM_HOLD_TIMER, SIM_HOLD_WORK, SIM_HOLD_RCU,
					  SIM_HOLD_RUNNING, SIM_HOLD_KPROBE, SIM_HOLD_TASK };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		unsigned h = order[k];
		if (!r->hold[h])
			continue;
		if (h == SIM_HOLD_TASK) {
			v->why |= SIM_KEPT_BIT(SIM_HOLD_TASK);
			v->tasks += r->hold[h];
		} else {
			v->why |= SIM_KEPT_REF;
			v->refs += r->hold[h];
		}
		if (v->where[0])
			continue;
		if (h == SIM_HOLD_REF || h == SIM_HOLD_TASK)
			where_get(s->dir, r->id, sim_hold_name(h), v->where, sizeof(v->where));
		if (!v->where[0])
			snprintf(v->where, sizeof(v->where), "%s",
				 h == SIM_HOLD_TASK ? "task 1 (init) stack" : h == SIM_HOLD_REF ? "page" : hold_where(h));
	}
}

/* R4: what keeps r rotting, as ROT_KEPT_* bits and counts; why 0: free it */
static void look_at(const struct sim *s, const struct sim_rec *r, const struct reclaim_how *how, struct seen *v)
{
	if (how->rev4) {
		look_at4(s, r, v);
		return;
	}
	memset(v, 0, sizeof(*v));
	if (!how->rev3 && how->force)
		return;
	if (how->rev3 && r->pins) {
		v->why |= SIM_KEPT_PIN;
		v->pins = r->pins;
	}
	for (unsigned h = 0; h < SIM_NHOLD; h++) {
		if (!r->hold[h] || !hold_seen(how, h))
			continue;
		if (h == SIM_HOLD_TASK) {
			v->why |= SIM_KEPT_BIT(h);
			v->tasks += r->hold[h];
		} else if (h == SIM_HOLD_KPROBE) {
			v->why |= SIM_KEPT_BIT(h);
			v->probes = 1; /* R4: an instance with any kprobe, not how many */
		} else if (h == SIM_HOLD_RUNNING) {
			v->why |= SIM_KEPT_BIT(SIM_HOLD_TIMER); /* what a look sees of it: a timer */
			v->callbacks += r->hold[h];
		} else {
			v->why |= SIM_KEPT_BIT(h);
			v->callbacks += r->hold[h];
		}
	}
}

static void add_seen(struct tally *out, const struct seen *v)
{
	out->kept++;
	out->why |= v->why;
	out->pins += v->pins;
	out->tasks += v->tasks;
	out->callbacks += v->callbacks;
	out->refs += v->refs;
	out->probes += v->probes;
	/* Instances are seen newest first: WHERE is the newest kept one's, the
	 * first in /proc/rotting_modules's order, as the kernel looks (P2). */
	if (out->kept == 1)
		memcpy(out->where, v->where, sizeof(out->where));
}

/* revision 3's reply; on revision 4 filled from the scan, callbacks counting refs (R11) */
static void reply3(const struct tally *t, struct sim_rot_reclaim *out, int rev4)
{
	out->freed = t->freed;
	out->kept = t->kept;
	out->why = t->why;
	out->pins = t->pins;
	out->tasks = t->tasks;
	out->callbacks = rev4 ? t->refs : t->callbacks;
	out->probes = t->probes;
	out->bytes = t->bytes;
	out->percpu = t->percpu;
}

/* frees r (ledger `reclaim`, its per-CPU area), counting it into out */
static void free_instance(struct sim *s, struct sim_rec *r, struct tally *out)
{
	if (r->hold[SIM_HOLD_TASK] || r->hold[SIM_HOLD_REF])
		sim_where_drop(s->dir, r->id);
	uint64_t held = (uint64_t)r->core + ((r->flags & SIM_F_INIT_FAILED) ? r->init : 0);
	sim_ledger(s, "reclaim", r, held);
	int pcpu = sim_percpu_release(s, r, true);
	out->bytes += held;
	out->percpu += pcpu > 0 ? (uint64_t)pcpu : 0;
	out->freed++;
	sim_free_slot(s, r);
}

/* R3: taint R when something was freed; the state was changed either way */
static int finish(struct sim *s, struct tally *out, int touched)
{
	if (out->freed) {
		sim_add_taint(s, SIM_TAINT_FORCED_RMMOD);
		sim_compact(s);
	}
	if (out->freed || touched)
		sim_changed(s);
	if (!out->freed)
		return out->kept ? -EBUSY : -ENOENT;
	return (int)out->freed;
}

int sim_reclaim_legacy(struct sim *s, const char *name, int checks, int force, struct sim_rot_reclaim *out)
{
	struct reclaim_how how = { 0, 0, checks, force };
	struct tally t;
	memset(&t, 0, sizeof(t));
	for (uint32_t i = s->hdr->count; i-- > 0;) { /* newest first, as next_of() */
		struct sim_rec *r = &s->recs[i];
		if (r->kind != SIM_ROT || strcmp(r->name, name))
			continue;
		struct seen v;
		look_at(s, r, &how, &v);
		if (v.why)
			add_seen(&t, &v);
		else
			free_instance(s, r, &t);
	}
	int ret = finish(s, &t, 0);
	reply3(&t, out, 0);
	return ret;
}

/* --- revision 3 ------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the instances a reclaim looks at: fixed when it starts, as the kernel's */
struct look {
	uint32_t *ids; /* sorted */
	struct seen *seen;
	size_t n;
};

/*
 * The next instance to free, newest first as the kernel's rotting list
 * runs (records are appended as they rot): it decides the order in which
 * their per-CPU areas are held (R15). *i starts at the record count.
 */
static struct sim_rec *next_of(struct sim *s, const struct look *lk, uint32_t *i, size_t *slot)
{
	while (*i > 0) {
		struct sim_rec *r = &s->recs[--*i];
		if (r->kind != SIM_ROT)
			continue;
		uint32_t *hit = bsearch(&r->id, lk->ids, lk->n, sizeof(*lk->ids), cmp_u32);
		if (hit) {
			*slot = (size_t)(hit - lk->ids);
			return r;
		}
	}
	return NULL;
}

/*
 * One look at every instance, under the state lock; forced, what can be
 * stopped is stopped after it was seen. Returns whether a forced reclaim
 * should look again: something was stopped, or something it cannot stop
 * may still go away (a task inside, a callback that came back).
 */
static int look_once(struct sim *s, struct look *lk, const struct reclaim_how *how, int *touched)
{
	int again = 0;
	size_t slot;
	for (size_t k = 0; k < lk->n; k++)
		memset(&lk->seen[k], 0, sizeof(lk->seen[k]));
	uint32_t i = s->hdr->count;
	for (struct sim_rec *r; (r = next_of(s, lk, &i, &slot));) {
		look_at(s, r, how, &lk->seen[slot]);
		if (stop_callbacks(r, how)) {
			*touched = 1;
			again = 1;
		}
		if (how->rev4 && (lk->seen[slot].why & ~(SIM_KEPT_PIN | SIM_KEPT_USER)))
			again = 1; /* R12: anything but pins and users may still go away */
		else if (!how->rev4 && how->checks && (r->hold[SIM_HOLD_TASK] || r->hold[SIM_HOLD_RUNNING]))
			again = 1;
	}
	return how->force && again;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * The caller's signals are blocked while a revision-3 reclaim runs and let
 * in only while it sleeps (ppoll() swaps the mask atomically), so that a
 * signal that came meanwhile stays pending until the next sleep, as
 * signal_pending() keeps it for the kernel's interruptible sleeps; a handler
 * run in between would have consumed it unseen.
 */
static __thread sigset_t caller_mask; /* per thread: threads of one process reclaim too */

/* msleep_interruptible(): a signal the caller catches ends it with -EINTR,
 * SA_RESTART or not (ppoll() is never restarted) */
static int sleep_interruptible(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	return ppoll(NULL, 0, &ts, &caller_mask) < 0 && errno == EINTR ? -EINTR : 0;
}

/*
 * R5: forced, look until nothing that may still go away is left, for at
 * most the kernel's bounded wait; when it runs out, one more look without
 * stopping, and every instance still kept has ROT_KEPT_RUNNING. The state
 * lock is dropped between looks. Returns 0, -EINTR or a lock error.
 */
static int look(struct sim *s, struct look *lk, struct reclaim_how how, int *touched)
{
	uint64_t deadline = now_ms() + s->hdr->reclaim_wait_ms;
	for (;;) {
		int before = *touched;
		if (!look_once(s, lk, &how, touched))
			return 0;
		/* What was stopped is gone at once here; only a task inside or a
		 * callback that comes back makes the kernel's wait last. */
		int stopped_only = *touched != before;
		for (size_t k = 0; k < lk->n && stopped_only; k++)
			if (lk->seen[k].why & (SIM_KEPT_BIT(SIM_HOLD_TASK)))
				stopped_only = 0;
		if (stopped_only)
			continue;
		if (now_ms() >= deadline) {
			how.force = 0;
			look_once(s, lk, &how, touched);
			/* R12: revision 4 then answers as a plain reclaim would */
			for (size_t k = 0; k < lk->n && !how.rev4; k++)
				if (lk->seen[k].why)
					lk->seen[k].why |= SIM_KEPT_BIT(SIM_HOLD_RUNNING);
			return 0;
		}
		sim_unlock(s);
		int err = sleep_interruptible(LOOK_INTERVAL_MS);
		int lerr = sim_relock(s);
		if (err)
			return err;
		if (lerr)
			return lerr;
	}
}

/* audit_log_untrustedstring(): quoted, or in hex when it could mislead */
static void audit_name(const char *name, char *buf, size_t cap)
{
	int plain = 1;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '"' || *p < 0x21 || *p > 0x7e)
			plain = 0;
	if (plain) {
		snprintf(buf, cap, "\"%s\"", name);
		return;
	}
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p && n + 3 < cap; p++)
		n += (size_t)snprintf(buf + n, cap - n, "%02X", *p);
	buf[n] = '\0';
}

/* R7: the audit record every request past its checks writes, whatever the result */
static void audit(const char *dir, const char *name, const struct tally *out, int ret)
{
	char quoted[2 * 64 + 3];
	audit_name(name, quoted, sizeof(quoted));
	sim_klog(dir, "audit: type=1330 op=reclaim name=%s freed=%" PRIu32 " kept=%" PRIu32 " res=%d", quoted,
		 out->freed, out->kept, ret > 0);
}

/* the kernel log's line for a kept instance (R4; revision 4: R13), and for what was freed (R7) */
static void log_kept(const char *dir, const char *name, const struct seen *v, int rev4)
{
	if (rev4) {
		/* kept by pins alone, the scan found nothing to name */
		sim_klog(dir,
			 "%s: a rotting instance is still referenced (pins %" PRIu32 ", tasks %" PRIu32 ", refs %" PRIu32
			 ")%s%s: not reclaimed",
			 name, v->pins, v->tasks, v->refs, v->where[0] ? " from " : "", v->where);
		return;
	}
	sim_klog(dir,
		 "%s: a rotting instance is still in use (pins %" PRIu32 ", tasks %" PRIu32 ", callbacks %" PRIu32
		 ", kprobes %" PRIu32 "%s): not reclaimed",
		 name, v->pins, v->tasks, v->callbacks, v->probes,
		 (v->why & SIM_KEPT_BIT(SIM_HOLD_RUNNING)) ? ", still running after a forced reclaim's wait" : "");
}

static int lock_reclaims(const char *dir, int *fd)
{
	char path[PATH_MAX];
	if (!sim_path(path, sizeof(path), dir, "reclaim.lock"))
		return -ENAMETOOLONG;
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return -errno;
	/*
	 * mutex_lock_interruptible(&reclaim_mutex): any signal the caller
	 * catches ends the wait with EINTR, SA_RESTART or not, which a
	 * blocking flock() would not do (it is restarted); so the lock is
	 * tried, and the wait between tries is an interruptible sleep.
	 */
	for (;;) {
		if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		int err = errno == EWOULDBLOCK ? sleep_interruptible(LOCK_RETRY_MS) : -errno;
		if (err) {
			close(*fd);
			*fd = -1;
			return err;
		}
	}
}

/* the reclaim itself, with the reclaim lock held: R1-R5 */
static int reclaim3(const char *dir, const char *name, int force, struct tally *out)
{
	struct sim s;
	int err = sim_open(&s, dir, 1);
	if (err)
		return err;
	struct look lk = { NULL, NULL, 0 };
	for (uint32_t i = 0; i < s.hdr->count; i++)
		if (s.recs[i].kind == SIM_ROT && !strcmp(s.recs[i].name, name))
			lk.n++;
	if (!lk.n) {
		err = -ENOENT;
		goto out;
	}
	lk.ids = malloc(lk.n * sizeof(*lk.ids));
	lk.seen = calloc(lk.n, sizeof(*lk.seen));
	if (!lk.ids || !lk.seen) {
		err = -ENOMEM;
		goto out;
	}
	size_t k = 0;
	for (uint32_t i = 0; i < s.hdr->count; i++)
		if (s.recs[i].kind == SIM_ROT && !strcmp(s.recs[i].name, name))
			lk.ids[k++] = s.recs[i].id;
	qsort(lk.ids, lk.n, sizeof(*lk.ids), cmp_u32);
	int rev4 = sim_abi(s.hdr->cfgflags) == 4;
	struct reclaim_how how = { 1, rev4, !(s.hdr->cfgflags & SIM_CFG_NO_RECLAIM_CHECKS), force };
	int touched = 0;
	err = look(&s, &lk, how, &touched);
	if (err) {
		if (touched)
			sim_changed(&s);
		goto out;
	}
	uint32_t i = s.hdr->count;
	size_t slot;
	for (struct sim_rec *r; (r = next_of(&s, &lk, &i, &slot));) {
		if (lk.seen[slot].why) {
			add_seen(out, &lk.seen[slot]);
			log_kept(dir, name, &lk.seen[slot], rev4);
			continue;
		}
		free_instance(&s, r, out);
	}
	err = finish(&s, out, touched);
	if (out->freed)
		sim_klog(dir, "%s: reclaimed %" PRIu32 " rotting instance%s, %" PRIu64 " bytes%s", name, out->freed,
			 out->freed == 1 ? "" : "s", out->bytes, out->kept ? ", others still in use" : "");
out:
	free(lk.ids);
	free(lk.seen);
	sim_close(&s);
	return err;
}

static int valid_name(const char *name, size_t cap)
{
	size_t n = strnlen(name, cap);
	return n > 0 && n < cap;
}

/* either request: the checks (R6), the lock, the reclaim, the audit record */
static int sys_reclaim(const char *dir, const char *name_in, uint32_t flags, int want4, struct tally *out,
		       int *rev4)
{
	struct sim s;
	int err = sim_open(&s, dir, 1);
	if (err)
		return err;
	uint32_t cfg = s.hdr->cfgflags;
	int mode = (int)s.hdr->mode;
	sim_close(&s);
	*rev4 = sim_abi(cfg) == 4;
	if (mode != SIM_MODE_ROT || sim_abi(cfg) < (want4 ? 4 : 3))
		return -ENOTTY; /* R8, D3, R11: each request is its revision's */
	if (cfg & SIM_CFG_MODULES_DISABLED)
		return -EPERM;
	char name[64];
	memcpy(name, name_in, sizeof(name));
	if ((flags & ~SIM_ROT_RECLAIM_FORCE) || !valid_name(name, sizeof(name)))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* no module name is that long: nothing of it rots */
	if (strlen(name) >= SIM_NAME_LEN) {
		err = -ENOENT;
	} else {
		int lockfd;
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &caller_mask);
		err = lock_reclaims(dir, &lockfd);
		if (!err) {
			err = reclaim3(dir, name, !!(flags & SIM_ROT_RECLAIM_FORCE), out);
			close(lockfd);
		}
		pthread_sigmask(SIG_SETMASK, &caller_mask, NULL);
	}
	audit(dir, name, out, err);
	return err;
}

int sim_sys_reclaim(const char *dir, struct sim_rot_reclaim *req)
{
	struct tally t;
	int rev4;
	int err = sys_reclaim(dir, req->name, req->flags, 0, &t, &rev4);
	if (err > 0 || err == -EBUSY)
		reply3(&t, req, rev4);
	return err;
}

int sim_sys_reclaim4(const char *dir, struct sim_rot_reclaim4 *req)
{
	struct tally t;
	int rev4;
	int err = sys_reclaim(dir, req->name, req->flags, 1, &t, &rev4);
	if (err > 0 || err == -EBUSY) {
		req->freed = t.freed;
		req->kept = t.kept;
		req->why = t.why;
		req->pins = t.pins;
		req->tasks = t.tasks;
		req->refs = t.refs;
		req->probes = 0; /* R11: a kprobe is a reference */
		req->bytes = t.bytes;
		req->percpu = t.percpu;
		memcpy(req->where, t.where, sizeof(req->where));
		req->where[sizeof(req->where) - 1] = '\0';
	}
	return err;
}
