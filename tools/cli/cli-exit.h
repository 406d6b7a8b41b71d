/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exit codes of every tool (docs/architecture.md), the one for an
 * errno, and how a run that goes on after failures picks one.
 */
#ifndef MODROT_CLI_EXIT_H
#define MODROT_CLI_EXIT_H

enum cli_exit {
	CLI_EXIT_OK = 0,          /* everything asked for was done */
	CLI_EXIT_PARTIAL = 1,     /* some of it failed; each failure printed */
	CLI_EXIT_USAGE = 2,       /* bad option or argument; nothing was done */
	CLI_EXIT_UNSUPPORTED = 3, /* the running kernel lacks what was asked for */
	CLI_EXIT_PERM = 4,        /* no CAP_SYS_MODULE */
	CLI_EXIT_PRESENT = 5,     /* insmod: nothing failed, but some modules were loaded already */
};

/* The exit code for a failure with this negative errno: EPERM and EACCES
 * are CLI_EXIT_PERM, ENOSYS CLI_EXIT_UNSUPPORTED, the rest CLI_EXIT_PARTIAL. */
enum cli_exit cli_exit_for_errno(int err);

/*
 * What went wrong in a run that goes on after a failure. A failure that
 * only follows from an earlier one (a holder that stayed because its
 * unload was refused, a dependent skipped because its dependency was not
 * loaded) is a cascade: it has no root cause of its own. A run whose every
 * root cause is a permission error exits CLI_EXIT_PERM, cascades or not.
 */
struct cli_outcome {
	unsigned failures; /* every failure, cascades included */
	unsigned perm;     /* root causes that were EPERM or EACCES */
	unsigned cascaded; /* failures that follow from another one */
};

void cli_outcome_failed(struct cli_outcome *o, int err);
void cli_outcome_cascaded(struct cli_outcome *o);
enum cli_exit cli_outcome_exit(const struct cli_outcome *o);

#endif
