/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "reason" of a JSON record: one stable lowercase token per cause of a
 * refusal or failure, for scripts to match on. An errno means different
 * things for different calls (ENOENT: an unknown symbol for a load, no
 * such module for an unload), so the call is part of the question.
 * tests/json.bats checks that modrot(7) documents every quoted token of
 * this file and reasons.c.
 */
#ifndef MODROT_REASONS_H
#define MODROT_REASONS_H

#include "modrot.h"

enum reason_call {
	REASON_LOAD,    /* init_module/finit_module, or reading the file for it */
	REASON_UNLOAD,  /* delete_module */
	REASON_RECLAIM, /* a reclaim request */
	REASON_READ,    /* reading the kernel's files or a module file */
};

/* Tokens for situations no errno tells apart. */
#define REASON_NONE ""
#define REASON_DEPENDENCY "dependency_not_loaded"
#define REASON_DEPENDENCY_CYCLE "dependency_cycle"
#define REASON_PERCPU_RESERVE "percpu_reserve"
#define REASON_NO_ROTTING "no_rotting_instances"
#define REASON_KEPT_IN_USE "kept_in_use"
#define REASON_BUILTIN "builtin"
#define REASON_OTHER "other"

/* The token for err (a negative errno) from call; "" for 0. */
const char *reason_for_errno(enum reason_call call, int err);

/* The token for what a preflight found wrong with a module file; "" for none. */
const char *reason_for_problem(enum rot_problem problem);

#endif
