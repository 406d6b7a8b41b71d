/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one CLI helper every modrot tool uses, one header per concern:
 *   cli-run.h     the run: name, descriptors, -V, stdout checked at exit
 *   cli-opts.h    options and arguments (getopt, exclusive options, sizes,
 *                 intervals, module names)
 *   cli-msg.h     kmod's message levels, syslog, -q and -v
 *   cli-exit.h    exit codes and a run's outcome
 *   cli-errors.h  why something failed, in words
 *   cli-escape.h  the sanitiser for text from outside
 * cli.c holds the state the run, messages and options share;
 * cli-errors.c, cli-escape.c and cli-exit.c the rest. A source includes
 * the headers it uses; this one includes them all.
 */
#ifndef MODROT_CLI_H
#define MODROT_CLI_H

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"

#endif
