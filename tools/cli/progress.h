/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A progress bar on stderr for long runs. It shows only when stderr is a
 * terminal and the run has enough steps to be worth watching, redraws at
 * most ten times a second, and erases itself at the end.
 */
#ifndef MODROT_PROGRESS_H
#define MODROT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct progress {
	const char *label;
	size_t total;
	size_t done;
	uint64_t last_draw_ns;
	bool on;
};

void progress_start(struct progress *p, const char *label, size_t total);
void progress_step(struct progress *p);
/* Erases the bar so a line can be printed; the next step draws it again. */
void progress_clear(struct progress *p);
void progress_end(struct progress *p);

#endif
