// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insmod and the per-CPU module reserve. A module with per-CPU data takes
 * it from a small fixed reserve (8 KiB per CPU on x86_64), and on a rot
 * kernel every rotting instance keeps its share: the reserve runs out long
 * before memory does, and then the kernel answers a bare ENOMEM. Here the
 * load is refused before the kernel when the reserve cannot hold it, and a
 * kernel ENOMEM is explained when the reserve is the cause: what the module
 * needs, what is free, which rotting names hold the rest, and the modreap
 * command that gives it back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-errors.h"
#include "load.h"

#define NAMES_SHOWN 4

/* "; rotting instances hold 7500: a (5 instances, 7500 bytes), ... ('modreap ...')" */
static void describe_holders(const struct rot_percpu *pc, uint64_t need, char *buf, size_t len)
{
	struct rot_group *g = NULL;
	size_t n = 0;
	uint64_t held = 0;

	buf[0] = '\0';
	if (rot_percpu_rotting_groups(pc, &g, &n) < 0) {
		cli_appendf(buf, len, "",
			    "; which rotting instances hold it is unknown (out of memory)");
		return;
	}
	for (size_t i = 0; i < n; i++)
		held += g[i].bytes;
	if (n == 0) {
		cli_appendf(buf, len, "",
			    "; live modules hold the rest, and no rotting instance holds any");
		free(g);
		return;
	}
	cli_appendf(buf, len, "", "; rotting instances hold %" PRIu64 ":", held);
	for (size_t i = 0; i < n && i < NAMES_SHOWN; i++)
		cli_appendf(buf, len, "", "%s %s (%zu %s, %" PRIu64 " bytes)", i ? "," : "",
			    g[i].name, g[i].instances,
			    g[i].instances == 1 ? "instance" : "instances", g[i].bytes);
	if (n > NAMES_SHOWN)
		cli_appendf(buf, len, "", " and %zu more %s", n - NAMES_SHOWN,
			    n - NAMES_SHOWN == 1 ? "name" : "names");
	if (held + rot_percpu_free_bytes(pc) >= need)
		cli_appendf(buf, len, "",
			    " ('modreap --percpu=%" PRIu64 "' reclaims what it takes)", need);
	else
		cli_appendf(buf, len, "",
			    " ('modreap --percpu' frees all they hold, which is not enough)");
	free(g);
}

/*
 * What the reserve lacks for this module, in words, or false when it has
 * room (or the module has no per-CPU data). need is what to free in one
 * piece for the area to fit whatever its alignment.
 */
static bool shortage(const struct rot_percpu *pc, uint64_t size, uint64_t align, bool unsure_counts,
		     char *buf, size_t len)
{
	enum rot_percpu_fit fit = rot_percpu_fit(pc, size, align);
	uint64_t need = rot_percpu_need(size);

	if (fit == ROT_PERCPU_FITS || (fit == ROT_PERCPU_MAY_FIT && !unsure_counts))
		return false;
	if (fit == ROT_PERCPU_NEVER) {
		if (need > rot_percpu_reserve(pc))
			snprintf(buf, len,
				 "its per-CPU data needs %" PRIu64
				 " bytes, more than the whole per-CPU "
				 "module reserve (%" PRIu64 " bytes)",
				 need, rot_percpu_reserve(pc));
		else
			snprintf(buf, len,
				 "its per-CPU data (%" PRIu64 " bytes aligned to %" PRIu64
				 ") is an area the "
				 "kernel's per-CPU allocator never gives",
				 size, align);
		return true;
	}
	uint64_t room = need + (align > 4 ? (align > 4096 ? 4096 : align) - 4 : 0);
	char holders[512];
	describe_holders(pc, room, holders, sizeof(holders));
	char aligned[48] = "";
	if (fit == ROT_PERCPU_MAY_FIT) /* room enough, but perhaps not where the alignment falls */
		snprintf(aligned, sizeof(aligned), " aligned to %" PRIu64, align);
	snprintf(buf, len,
		 "its per-CPU data needs %" PRIu64
		 " bytes%s of the per-CPU module reserve, and %" PRIu64 " of %" PRIu64
		 " are free, %" PRIu64 " in one piece%s",
		 need, aligned, rot_percpu_free_bytes(pc), rot_percpu_reserve(pc),
		 rot_percpu_largest(pc), holders);
	return true;
}

bool percpu_preflight(struct load_job *job, const struct load_env *env)
{
	uint64_t align, size = rot_modfile_percpu(job->mf, &align);
	job->percpu_bytes = size;
	if (!size || !env->rot)
		return true;
	struct rot_percpu *pc = NULL;
	int err = rot_percpu_read(&pc);
	if (err < 0) {
		/* An older rot kernel says nothing about its reserve: the kernel decides. */
		if (err == -ENOENT)
			return true;
		char why[256];
		job->result = JOB_REFUSED;
		job->err = err == -EPROTO ? 0 : err;
		snprintf(job->message, sizeof(job->message),
			 "could not insert module %s: could not read the per-CPU reserve: %s",
			 job->path, cli_read_error(err, why, sizeof(why)));
		return false;
	}
	char why[640];
	bool short_of = shortage(pc, size, align, false, why, sizeof(why));
	rot_percpu_free(pc);
	if (!short_of)
		return true;
	job->result = JOB_REFUSED;
	job->err = -ENOMEM;
	job->percpu_short = true;
	snprintf(job->message, sizeof(job->message), "could not insert module %s: %s", job->path,
		 why);
	return false;
}

void percpu_explain_enomem(struct load_job *job, const struct load_env *env)
{
	uint64_t align, size = rot_modfile_percpu(job->mf, &align);
	if (job->err != -ENOMEM || !size || !env->rot)
		return;
	struct rot_percpu *pc = NULL;
	if (rot_percpu_read(&pc) < 0)
		return;
	char why[640];
	if (shortage(pc, size, align, true, why, sizeof(why))) {
		job->percpu_short = true;
		snprintf(job->message, sizeof(job->message), "could not insert module %s: %s: %s",
			 job->path, words_for_kernel_error(job->err), why);
	}
	rot_percpu_free(pc);
}
