/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tool's run from start to exit: its name, the descriptors it starts
 * with, and standard output closed and checked at exit. */
#ifndef MODROT_CLI_RUN_H
#define MODROT_CLI_RUN_H

/*
 * help prints the tool's --help text. Also fills a closed descriptor 0, 1
 * or 2 with one on which writes fail, so no file the tool opens takes its
 * place, and registers the exit hook that closes standard output and
 * error, as util-linux's closestream does: a failed write to stdout, there
 * or through cli_output_failed(), prints one line and turns the exit
 * status into CLI_EXIT_PARTIAL; a failed stderr turns a success into it.
 */
void cli_init(const char *progname, void (*help)(void));
const char *cli_progname(void);

/*
 * Output written past stdio (an outbuf bound to STDOUT_FILENO) failed with
 * this negative errno: one line is printed, once, and the run exits
 * CLI_EXIT_PARTIAL.
 */
void cli_output_failed(int err);

/* fflush(stdout) that remembers why it failed, for the line at exit;
 * returns 0 or the negative errno. Tools flush stdout through this. */
int cli_flush_stdout(void);

#endif
