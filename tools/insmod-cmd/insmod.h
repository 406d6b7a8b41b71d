/* SPDX-License-Identifier: GPL-2.0-or-later */
/* insmod's own parts: insmod.c the options and main, insmod-list.c the
 * jobs a run is given, insmod-batch.c their parallel load (load.h's jobs). */
#ifndef MODROT_INSMOD_H
#define MODROT_INSMOD_H

#include <stddef.h>

#include "load.h"

/* The batch: reads every file, then loads in dependency order on opts->jobs
 * threads. Fills env->kernel_symbols from the modules' undefined symbols. */
int batch_run(struct load_job *jobs, size_t n, struct load_env *env);

/* A list larger than this is no installer's list. */
#define LIST_MAX (16u << 20)

/* One job per file named from argv[first] on (with --batch; else the first,
 * the rest its parameters), after --from's list: LIST's lines, each "FILE
 * [PARAM=VALUE...]", blank lines and #comments skipped, LIST "-" for
 * standard input. A name no file can have ends the run as a usage error. */
int insmod_make_jobs(const struct insmod_opts *o, int argc, char *argv[], int first,
		     struct load_job **jobs, size_t *n);

#endif
