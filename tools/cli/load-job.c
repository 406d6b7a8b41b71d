// SPDX-License-Identifier: GPL-2.0-or-later
/* One module's way from file to kernel: read, preflight, insert, explain. */
#include <errno.h>
#include <inttypes.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "load.h"
#include "reasons.h"
#include "sizewords.h"

/* The tool reports each failure once, in its own words. */
static void silent(void *data, int priority, const char *file, int line, const char *fn,
		   const char *format, va_list args)
{
}

struct kmod_ctx *job_kmod_new(void)
{
	static const char *const no_config[] = { NULL };
	struct kmod_ctx *ctx = kmod_new(NULL, no_config);
	if (ctx)
		kmod_set_log_fn(ctx, silent, NULL);
	return ctx;
}

static int insert_path(struct kmod_ctx *ctx, const char *path, const char *params, unsigned flags)
{
	struct kmod_module *mod;
	int err = kmod_module_new_from_path(ctx, path, &mod);
	if (err < 0)
		return err;
	unsigned kflags = (flags & LOAD_FORCE_VERMAGIC ? KMOD_INSERT_FORCE_VERMAGIC : 0) |
			  (flags & LOAD_FORCE_MODVERSION ? KMOD_INSERT_FORCE_MODVERSION : 0);
	err = kmod_module_insert_module(mod, kflags, params ? params : "");
	kmod_module_unref(mod);
	return err;
}

/* Whether libkmod can read the file's modinfo: how to tell whether this
 * system's libkmod decompresses a format modrot does not (gzip). */
static bool kmod_can_read(struct kmod_ctx *ctx, const char *path)
{
	struct kmod_module *mod;
	struct kmod_list *info = NULL;
	if (kmod_module_new_from_path(ctx, path, &mod) < 0)
		return false;
	int n = kmod_module_get_info(mod, &info);
	kmod_module_info_free_list(info);
	kmod_module_unref(mod);
	return n > 0;
}

void job_read(struct load_job *job)
{
	int err = rot_modfile_read(job->path, &job->mf);
	if (err < 0) {
		job->read_err = err;
		job->result = JOB_REFUSED;
		snprintf(job->message, sizeof(job->message), "could not read %s: %s", job->path,
			 cli_strerror(err));
	}
}

const char *job_name(const struct load_job *job)
{
	const char *name = job->mf ? rot_modfile_name(job->mf) : NULL;
	if (name)
		return name;
	const char *slash = strrchr(job->path, '/');
	return slash ? slash + 1 : job->path;
}

bool job_already_loaded(const struct load_job *job)
{
	return (job->result == JOB_REFUSED && job->problem == ROT_PROBLEM_ALREADY_LOADED &&
		!job->read_err && !job->err && !job->percpu_short) ||
	       (job->result == JOB_FAILED && job->err == -EEXIST);
}

const char *job_reason(const struct load_job *job)
{
	switch (job->result) {
	case JOB_REFUSED:
		if (job->percpu_short)
			return REASON_PERCPU_RESERVE;
		if (job->read_err || job->err)
			return reason_for_errno(REASON_READ,
						job->read_err ? job->read_err : job->err);
		if (job->problem != ROT_PROBLEM_NONE)
			return reason_for_problem(job->problem);
		return REASON_OTHER;
	case JOB_FAILED:
		return job->percpu_short ? REASON_PERCPU_RESERVE
					 : reason_for_errno(REASON_LOAD, job->err);
	case JOB_SKIPPED:
		return job->cascaded ? REASON_DEPENDENCY : REASON_DEPENDENCY_CYCLE;
	default:
		return REASON_NONE;
	}
}

/* On a rot kernel a failed init leaves an instance: find it and say so. */
static void note_rot(struct load_job *job, const struct load_env *env)
{
	size_t after;
	uint64_t newest;
	const char *name = job_name(job);

	if (!env->rot)
		return;
	int err = rot_name_rotting(name, &after, NULL, &newest);
	if (err < 0) {
		/* Unsaid, a rotting instance would go unnoticed. */
		cli_appendf(job->message, sizeof(job->message), "",
			    "; whether its init left rot is unknown (%s)", cli_strerror(err));
		return;
	}
	if (after <= rot_snapshot_rotting_of(env->snap, name, NULL, NULL))
		return;
	job->rot_bytes = newest;
	char size[SIZE_WORDS_MAX];
	cli_appendf(job->message, sizeof(job->message), "",
		    "; its init failed and its %s now rot ('rmmod --reclaim %s' frees them)",
		    size_words(newest, "bytes", size), name);
}

bool job_preflight(struct load_job *job, const struct load_env *env, struct kmod_ctx *ctx,
		   const struct rot_symbols *batch_symbols)
{
	if (job->result != JOB_PENDING)
		return false;
	int err = rot_preflight_new(env->kernel, &job->pf);
	if (err == 0) {
		rot_preflight_set_snapshot(job->pf, env->snap);
		rot_preflight_set_kernel_symbols(job->pf, env->kernel_symbols);
		rot_preflight_set_batch_symbols(job->pf, batch_symbols);
		rot_preflight_set_keyring(job->pf, env->keyring);
		rot_preflight_set_force_vermagic(job->pf,
						 env->opts->load_flags & LOAD_FORCE_VERMAGIC);
		err = rot_preflight_check(job->pf, job->mf);
	}
	if (err < 0) {
		job->result = JOB_REFUSED;
		snprintf(job->message, sizeof(job->message), "could not insert module %s: %s",
			 job->path, err == -ENOMEM ? "out of memory" : cli_strerror(err));
		return false;
	}
	/* A format libkmod may read although modrot cannot look inside; not
	 * under --verify, where what is loaded must be what was verified. */
	job->problem = rot_preflight_problem(job->pf);
	if (job->problem == ROT_PROBLEM_UNSUPPORTED_COMPRESSION && !env->keyring &&
	    kmod_can_read(ctx, job->path))
		job->problem = ROT_PROBLEM_NONE;
	if (job->problem != ROT_PROBLEM_NONE) {
		char why[640];
		words_for_problem(job->mf, job->pf, env->kernel, env->opts->keyring_path, why,
				  sizeof(why));
		job->result = JOB_REFUSED;
		snprintf(job->message, sizeof(job->message), "could not insert module %s: %s",
			 job->path, why);
		return false;
	}
	if (!percpu_preflight(job, env))
		return false;
	if (env->opts->check_only) {
		job->result = JOB_CHECKED;
		return false;
	}
	return true;
}

/*
 * Whether the kernel gets the image job_read() decompressed, not the path
 * (docs/architecture.md, "libkmod and the optional libraries"). --verify
 * inserts the very bytes it verified: the path can name others by then. A
 * plain file goes by path, for the kernel's file checks (IMA, LoadPin),
 * and a forced load through libkmod, which strips what the force skips.
 */
static bool insert_image(const struct load_job *job, const struct load_env *env)
{
	if (env->keyring)
		return true;
	if (env->opts->load_flags & (LOAD_FORCE_VERMAGIC | LOAD_FORCE_MODVERSION))
		return false;
	enum rot_compression c = rot_modfile_compression(job->mf);
	return (c == ROT_COMP_XZ || c == ROT_COMP_ZSTD) &&
	       rot_modfile_problem(job->mf) == ROT_PROBLEM_NONE;
}

void job_insert(struct load_job *job, const struct load_env *env, struct kmod_ctx *ctx)
{
	int err = insert_image(job, env)
			  ? rot_modfile_insert(job->mf, job->params)
			  : insert_path(ctx, job->path, job->params, env->opts->load_flags);
	if (err == 0) {
		job->result = JOB_LOADED;
		return;
	}
	job->result = JOB_FAILED;
	job->err = err;
	snprintf(job->message, sizeof(job->message), "could not insert module %s: %s%s", job->path,
		 words_for_kernel_error(err), cli_errno_hint(err));
	percpu_explain_enomem(job, env);
	note_rot(job, env);
}

void job_release(struct load_job *job)
{
	rot_preflight_free(job->pf);
	job->pf = NULL;
	rot_modfile_free(job->mf);
	free(job->params);
	free(job->deps);
	free(job->dependents);
	job->mf = NULL;
}
