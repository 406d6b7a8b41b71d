// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The installer's bulk load: every file is read and inspected in
 * parallel, then modules are loaded on N threads, each after the modules
 * of the batch it depends on (modinfo depends=). A module whose
 * dependency was not loaded is skipped rather than left to fail in the
 * kernel, where on a rot kernel a failed init would rot.
 */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-msg.h"
#include "cli-run.h"
#include "insmod.h"
#include "progress.h"
#include "stopsignal.h"

struct batch {
	struct load_job *jobs;
	size_t n;
	const struct load_env *env;
	atomic_size_t next_read;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t *ready;
	size_t nready;
	size_t finished;
	size_t busy;
	struct rot_symbols *symbols; /* defined by modules this batch loaded */
	pthread_rwlock_t symbols_lock;
	struct progress bar;
	int thread_err;
};

static void *read_worker(void *arg)
{
	struct batch *b = arg;
	for (size_t i; !stop_signal() && (i = atomic_fetch_add(&b->next_read, 1)) < b->n;)
		job_read(&b->jobs[i]);
	return NULL;
}

struct name_index {
	const char *name;
	size_t job;
};

static int by_name(const void *a, const void *b)
{
	const struct name_index *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->job < y->job ? -1 : x->job > y->job;
}

static int name_only(const void *a, const void *b)
{
	return strcmp(((const struct name_index *)a)->name, ((const struct name_index *)b)->name);
}

static int add_edge(struct load_job *jobs, size_t from, size_t to)
{
	struct load_job *j = &jobs[from], *d = &jobs[to];
	size_t *deps = realloc(j->deps, (j->ndeps + 1) * sizeof(*deps));
	if (!deps)
		return -ENOMEM;
	j->deps = deps;
	j->deps[j->ndeps++] = to;
	size_t *dependents = realloc(d->dependents, (d->ndependents + 1) * sizeof(*dependents));
	if (!dependents)
		return -ENOMEM;
	d->dependents = dependents;
	d->dependents[d->ndependents++] = from;
	j->waiting++;
	return 0;
}

/* Edges from each module to the batch modules named in its depends=. */
static int build_order(struct batch *b)
{
	struct name_index *idx = calloc(b->n + 1, sizeof(*idx));
	size_t k = 0;
	int err = 0;
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++)
		if (b->jobs[i].mf && rot_modfile_name(b->jobs[i].mf))
			idx[k++] = (struct name_index){ rot_modfile_name(b->jobs[i].mf), i };
	qsort(idx, k, sizeof(*idx), by_name);

	for (size_t i = 0; i < b->n && err == 0; i++) {
		const char *cursor = NULL, *deps;
		while (err == 0 && b->jobs[i].mf &&
		       (deps = rot_modfile_modinfo_next(b->jobs[i].mf, "depends", &cursor))) {
			for (const char *p = deps, *end; *p && err == 0; p = end + (*end == ',')) {
				end = p + strcspn(p, ",");
				char typed[ROT_NAME_MAX + 1], name[ROT_NAME_MAX + 1];
				/* modpost writes depends= from file names (snd-pcm);
				 * the module calls itself snd_pcm */
				if (end == p || end - p > ROT_NAME_MAX)
					continue;
				memcpy(typed, p, (size_t)(end - p));
				typed[end - p] = '\0';
				if (rot_name_normalise(typed, name) < 0)
					continue;
				struct name_index key = { name, 0 };
				/* The first file of that name in the batch. */
				struct name_index *hit =
					bsearch(&key, idx, k, sizeof(*idx), name_only);
				while (hit && hit > idx && strcmp(hit[-1].name, name) == 0)
					hit--;
				if (hit && hit->job != i)
					err = add_edge(b->jobs, i, hit->job);
			}
		}
	}
	free(idx);
	return err;
}

static bool matches_a_device(const struct load_job *job, const struct rot_devices *devs)
{
	const char *cursor = NULL, *alias;
	while ((alias = rot_modfile_modinfo_next(job->mf, "alias", &cursor)))
		if (rot_devices_match(devs, alias))
			return true;
	return false;
}

static void mark_needed(struct batch *b, size_t i, bool *needed)
{
	if (needed[i])
		return;
	needed[i] = true;
	for (size_t d = 0; d < b->jobs[i].ndeps; d++)
		mark_needed(b, b->jobs[i].deps[d], needed);
}

/*
 * --match-devices: a module is loaded when one of its alias= patterns
 * matches a present device's modalias, or when such a module of the
 * batch depends on it. The rest are never offered to the kernel, so on a
 * rot kernel they cannot rot.
 */
static int match_devices(struct batch *b)
{
	struct rot_devices *devs;
	int err = rot_devices_read(&devs);
	if (err < 0)
		return err;
	bool *needed = calloc(b->n + 1, sizeof(*needed));
	if (!needed) {
		rot_devices_free(devs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->n; i++) {
		struct load_job *job = &b->jobs[i];
		/* A file that cannot be read is reported, not silently unmatched. */
		if (!job->mf || rot_modfile_problem(job->mf) != ROT_PROBLEM_NONE ||
		    matches_a_device(job, devs))
			mark_needed(b, i, needed);
	}
	for (size_t i = 0; i < b->n; i++)
		if (!needed[i] && b->jobs[i].result == JOB_PENDING)
			b->jobs[i].result = JOB_UNMATCHED;
	free(needed);
	rot_devices_free(devs);
	return 0;
}

/* A dependency is there when this batch loaded it, or when it already was. */
static const char *undelivered_dependency(const struct batch *b, const struct load_job *job)
{
	for (size_t i = 0; i < job->ndeps; i++) {
		const struct load_job *d = &b->jobs[job->deps[i]];
		if (d->result != JOB_LOADED && d->result != JOB_CHECKED && !job_already_loaded(d))
			return job_name(d);
	}
	return NULL;
}

static void announce(struct batch *b, const struct load_job *job)
{
	if (b->env->opts->json)
		return;
	switch (job->result) {
	case JOB_REFUSED:
	case JOB_FAILED:
	case JOB_SKIPPED:
		progress_clear(&b->bar);
		cli_error("%s", job->message);
		break;
	case JOB_LOADED:
		if (cli_verbosity() > 0) {
			progress_clear(&b->bar);
			cli_info("loaded %s (%s)", job_name(job), job->path);
		}
		break;
	case JOB_CHECKED:
		/* --check is asked for a report: the good news is printed too. */
		progress_clear(&b->bar);
		/* Escapes take at most four bytes a byte. */
		char path[4 * PATH_MAX + 1], name[4 * ROT_NAME_MAX + 8];
		printf("%s: ok, %s would load\n", cli_safe(job->path, path, sizeof(path)),
		       cli_safe(job_name(job), name, sizeof(name)));
		cli_flush_stdout();
		break;
	default:
		break;
	}
}

static void run_one(struct batch *b, struct load_job *job, struct kmod_ctx *ctx)
{
	const char *dep = undelivered_dependency(b, job);
	if (job->result == JOB_PENDING && dep) {
		job->result = JOB_SKIPPED;
		job->cascaded = true;
		snprintf(job->message, sizeof(job->message),
			 "skipped %s: it depends on %s, which was not loaded", job->path, dep);
		return;
	}
	/*
	 * Only the preflight reads the batch's symbols. The insertion runs
	 * without the lock: held across it, the writer below would wait for
	 * every other thread's whole load (init included), and the batch
	 * would load one module at a time.
	 */
	pthread_rwlock_rdlock(&b->symbols_lock);
	bool insert = job_preflight(job, b->env, ctx, b->symbols);
	pthread_rwlock_unlock(&b->symbols_lock);
	if (insert)
		job_insert(job, b->env, ctx);
	if (job->result != JOB_LOADED && job->result != JOB_CHECKED)
		return;
	/* Later modules of the batch may use what this one offers. */
	pthread_rwlock_wrlock(&b->symbols_lock);
	for (size_t i = 0; i < rot_modfile_defined_count(job->mf); i++)
		rot_symbols_add(b->symbols, rot_modfile_defined(job->mf, i));
	pthread_rwlock_unlock(&b->symbols_lock);
}

/* Jobs left waiting with nothing running can only wait on each other. */
static void break_cycle(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct load_job *job = &b->jobs[i];
		if (job->result != JOB_PENDING || job->waiting == 0)
			continue;
		job->result = JOB_SKIPPED;
		job->waiting = 0;
		snprintf(job->message, sizeof(job->message),
			 "skipped %s: its dependencies in this batch form a cycle", job->path);
		announce(b, job);
		b->finished++;
		progress_step(&b->bar);
	}
}

static void *load_worker(void *arg)
{
	struct batch *b = arg;
	/* --verify inserts the verified image itself (job_insert()): no
	 * libkmod context. */
	struct kmod_ctx *ctx = b->env->keyring ? NULL : job_kmod_new();
	if (!b->env->keyring && !ctx) {
		pthread_mutex_lock(&b->lock);
		b->thread_err = -ENOMEM;
		pthread_cond_broadcast(&b->changed);
		pthread_mutex_unlock(&b->lock);
		return NULL;
	}
	pthread_mutex_lock(&b->lock);
	/* Told to stop: the load in flight ends (the worker that runs it
	 * wakes the others), no new one starts; what never started stays
	 * JOB_PENDING. */
	while (b->finished < b->n && !b->thread_err && !stop_signal()) {
		if (b->nready == 0) {
			if (b->busy == 0) {
				break_cycle(b);
				pthread_cond_broadcast(&b->changed);
				continue;
			}
			pthread_cond_wait(&b->changed, &b->lock);
			continue;
		}
		size_t i = b->ready[--b->nready];
		b->busy++;
		pthread_mutex_unlock(&b->lock);

		run_one(b, &b->jobs[i], ctx);

		pthread_mutex_lock(&b->lock);
		b->busy--;
		b->finished++;
		announce(b, &b->jobs[i]);
		progress_step(&b->bar);
		for (size_t d = 0; d < b->jobs[i].ndependents; d++) {
			size_t j = b->jobs[i].dependents[d];
			if (--b->jobs[j].waiting == 0)
				b->ready[b->nready++] = j;
		}
		pthread_cond_broadcast(&b->changed);
	}
	pthread_mutex_unlock(&b->lock);
	kmod_unref(ctx);
	return NULL;
}

static int run_threads(struct batch *b, void *(*fn)(void *))
{
	unsigned n = b->env->opts->jobs; /* at least 1: parse_options() sees to it */
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned started = 0;
	if (!t)
		return -ENOMEM;
	/* This thread works too: one thread is no thread at all. */
	for (; started + 1 < n; started++)
		if (pthread_create(&t[started], NULL, fn, b) != 0)
			break;
	fn(b);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

/* The union of every module's undefined symbols, looked up in one scan. */
static int read_kernel_symbols(struct batch *b, struct load_env *env)
{
	size_t total = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->jobs[i].mf)
			total += rot_modfile_undefined_count(b->jobs[i].mf);
	const char **wanted = calloc(total + 1, sizeof(*wanted));
	if (!wanted)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++)
		for (size_t s = 0; b->jobs[i].mf && s < rot_modfile_undefined_count(b->jobs[i].mf);
		     s++)
			wanted[k++] = rot_modfile_undefined(b->jobs[i].mf, s);
	int err = rot_symbols_read_kallsyms(wanted, k, &env->kernel_symbols);
	free(wanted);
	return err;
}

int batch_run(struct load_job *jobs, size_t n, struct load_env *env)
{
	struct batch b = { .jobs = jobs, .n = n, .env = env };
	int err;

	atomic_init(&b.next_read, 0);
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.changed, NULL);
	pthread_rwlock_init(&b.symbols_lock, NULL);
	b.ready = calloc(n + 1, sizeof(*b.ready));
	err = b.ready ? rot_symbols_new(&b.symbols) : -ENOMEM;
	if (err == 0)
		err = run_threads(&b, read_worker);
	if (err == 0)
		err = build_order(&b);
	const char *unread = NULL; /* what could not be read, for the line that says so */
	if (err == 0 && env->opts->match_devices && (err = match_devices(&b)) < 0)
		unread = "the present devices";
	/* Without kallsyms (a restricted reader), the kernel checks symbols
	 * itself; a kallsyms that could not be read (no memory, EIO) would
	 * make --check pass modules whose symbols nobody looked up. */
	if (err == 0 && !env->kernel_symbols && !stop_signal()) {
		int serr = read_kernel_symbols(&b, env);
		if (serr < 0 && serr != -ENOENT && serr != -EACCES && serr != -EPERM) {
			err = serr;
			unread = "the kernel's symbols";
		}
	}
	if (unread && err != -ENOMEM) {
		cli_read_failed(unread, err);
		env->err_told = true;
	}
	if (err == 0 && !stop_signal()) {
		/* Load in the order given where the dependencies allow: a stack pops from the end. */
		for (size_t i = n; i-- > 0;)
			if (jobs[i].waiting == 0)
				b.ready[b.nready++] = i;
		progress_start(&b.bar, env->opts->check_only ? "checking" : "loading",
			       env->opts->json ? 0 : n);
		err = run_threads(&b, load_worker);
		progress_end(&b.bar);
		if (err == 0)
			err = b.thread_err;
	}
	rot_symbols_free(b.symbols);
	free(b.ready);
	pthread_rwlock_destroy(&b.symbols_lock);
	pthread_cond_destroy(&b.changed);
	pthread_mutex_destroy(&b.lock);
	return err;
}
