// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simkernel-guard COMMAND [ARG...]: run COMMAND with the module syscalls
 * refused by a seccomp filter. Static, so it guards even when nothing is
 * preloaded; the test harness starts every test through it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: simkernel-guard COMMAND [ARG...]\n");
		return 2;
	}
	int err = sim_guard_install();
	if (err) {
		fprintf(stderr, "simkernel-guard: cannot install the seccomp filter: %s\n", strerror(-err));
		return 126;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "simkernel-guard: %s: %m\n", argv[1]);
	return 127;
}
