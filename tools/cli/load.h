/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading a module, as insmod and modprobe share it: one module's way from
 * file to kernel (load-job.c) and whether the per-CPU reserve holds it
 * (load-percpu.c). insmod's options are here because a job reads them;
 * modprobe fills a zero set.
 */
#ifndef MODROT_LOAD_H
#define MODROT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "load-words.h"
#include "modrot.h"

/* What a load may force: libkmod strips the checks from the file it reads. */
enum load_flags {
	LOAD_FORCE_VERMAGIC = 1 << 0,
	LOAD_FORCE_MODVERSION = 1 << 1,
};

struct insmod_opts {
	unsigned load_flags; /* LOAD_FORCE_* */
	bool check_only;     /* --check: preflight and report, load nothing */
	bool batch;
	bool json;
	bool match_devices; /* load only modules whose aliases match a present device */
	unsigned jobs;
	const char *keyring_path; /* --verify */
	const char *list_path;    /* --from */
};

enum job_result {
	JOB_PENDING,
	JOB_LOADED,
	JOB_CHECKED,   /* --check: preflight passed */
	JOB_REFUSED,   /* preflight said no: the kernel was never asked */
	JOB_FAILED,    /* the kernel said no */
	JOB_SKIPPED,   /* a module of the batch it depends on was not loaded */
	JOB_UNMATCHED, /* --match-devices: no present device needs it; not an error */
};

/* What every job of a run shares, read once. */
struct load_env {
	const struct insmod_opts *opts;
	struct rot_kernel_facts *kernel;
	struct rot_snapshot *snap;
	struct rot_symbols *kernel_symbols;
	struct rot_keyring *keyring;
	bool rot;
	bool err_told; /* batch_run's error was printed */
};

struct load_job {
	const char *path;
	char *params;
	struct rot_modfile *mf;
	int read_err; /* rot_modfile_read()'s errno, when it failed */
	struct rot_preflight *pf;
	enum rot_problem problem; /* pf's verdict, as this run takes it */
	enum job_result result;
	bool cascaded;         /* SKIPPED only because a dependency was not loaded */
	int err;               /* the kernel's errno when FAILED */
	uint64_t rot_bytes;    /* FAILED on a rot kernel: what the failed init left */
	uint64_t percpu_bytes; /* the size of its per-CPU data (0: none) */
	bool percpu_short;     /* REFUSED or FAILED for want of per-CPU reserve */
	char message[768];     /* one line, without the "insmod: ERROR: " prefix */
	/* batch ordering */
	size_t *deps;
	size_t ndeps;
	size_t waiting; /* deps not yet finished */
	size_t *dependents;
	size_t ndependents;
};

/* A libkmod context for loading by path, without modprobe.d and with
 * libkmod's messages silenced (the tool says each failure once). One per
 * thread. NULL when out of memory. */
struct kmod_ctx *job_kmod_new(void);

/* Reads and inspects the file (no kernel involved). */
void job_read(struct load_job *job);

/* Preflight a pending job. batch_symbols: those the modules of this batch
 * loaded before it define (may be NULL). True when the job is to be
 * inserted; otherwise sets result and message. */
bool job_preflight(struct load_job *job, const struct load_env *env, struct kmod_ctx *ctx,
		   const struct rot_symbols *batch_symbols);

/* Inserts a job job_preflight() passed, as the image that was checked or
 * by path through ctx (load-job.c says which). Sets result, err, rot_bytes
 * and message. */
void job_insert(struct load_job *job, const struct load_env *env, struct kmod_ctx *ctx);

void job_release(struct load_job *job);

/* The JSON reason of a job that did not load or pass ("" otherwise). */
const char *job_reason(const struct load_job *job);

/* Whether the job did not load only because its module is live already
 * (found by the preflight, or the kernel's EEXIST): what the load was for
 * is there all the same. */
bool job_already_loaded(const struct load_job *job);

/* The module's name, or its file's basename when it could not be read. */
const char *job_name(const struct load_job *job);

/* load-percpu.c: whether the per-CPU reserve holds the module; refuses
 * the job (and returns false) when it cannot. */
bool percpu_preflight(struct load_job *job, const struct load_env *env);
/* After a kernel ENOMEM: says so when the reserve is the cause. */
void percpu_explain_enomem(struct load_job *job, const struct load_env *env);

#endif
