/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The words insmod and modprobe use for what stops a module, and kmod's way
 * of joining parameters. Depends on lib alone: the load jobs (load.h) call
 * these, never the other way round.
 */
#ifndef MODROT_LOAD_WORDS_H
#define MODROT_LOAD_WORDS_H

#include <stddef.h>

#include "modrot.h"

/*
 * A preflight problem of the module file mf (pf->problem) in words, into
 * buf. keyring_path: insmod --verify's keyring, or NULL.
 */
void words_for_problem(const struct rot_modfile *mf, const struct rot_preflight *pf,
		       const struct rot_kernel_facts *kernel, const char *keyring_path, char *buf,
		       size_t len);

/* A kernel error as kmod words it. */
const char *words_for_kernel_error(int err);

/* Joins PARAM=VALUE arguments as kmod does: a value with a space is quoted. */
char *params_join(char *const *args, size_t n);

#endif
