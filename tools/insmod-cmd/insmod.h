/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * insmod's own pieces: the parallel batch (insmod-batch.c) over the jobs
 * of load.h, which modprobe shares. insmod.c holds the options and main.
 */
#ifndef MODROT_INSMOD_H
#define MODROT_INSMOD_H

#include <stddef.h>

#include "load.h"

/* The batch: reads every file, then loads in dependency order on opts->jobs
 * threads. Fills env->kernel_symbols from the modules' undefined symbols. */
int batch_run(struct load_job *jobs, size_t n, struct load_env *env);

#endif
