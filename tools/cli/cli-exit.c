// SPDX-License-Identifier: GPL-2.0-or-later
/* The exit code for an errno, and for a run that went on after failures. */
#include <errno.h>

#include "cli-exit.h"

enum cli_exit cli_exit_for_errno(int err)
{
	if (err == -EPERM || err == -EACCES)
		return CLI_EXIT_PERM;
	return err == -ENOSYS ? CLI_EXIT_UNSUPPORTED : CLI_EXIT_PARTIAL;
}

void cli_outcome_failed(struct cli_outcome *o, int err)
{
	o->failures++;
	if (err == -EPERM || err == -EACCES)
		o->perm++;
}

void cli_outcome_cascaded(struct cli_outcome *o)
{
	o->failures++;
	o->cascaded++;
}

enum cli_exit cli_outcome_exit(const struct cli_outcome *o)
{
	if (o->failures == 0)
		return CLI_EXIT_OK;
	if (o->perm > 0 && o->perm + o->cascaded == o->failures)
		return CLI_EXIT_PERM;
	return CLI_EXIT_PARTIAL;
}
