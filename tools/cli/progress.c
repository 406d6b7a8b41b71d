// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli-run.h"
#include "progress.h"

/* Fewer steps than this finish before a bar would be read. */
#define PROGRESS_MIN_STEPS 64
#define PROGRESS_WIDTH 30

void progress_start(struct progress *p, const char *label, size_t total)
{
	*p = (struct progress){ .label = label,
				.total = total,
				.on = total >= PROGRESS_MIN_STEPS && isatty(STDERR_FILENO) };
}

void progress_step(struct progress *p)
{
	p->done++;
	if (!p->on)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (t - p->last_draw_ns < 100000000u && p->done != p->total)
		return;
	p->last_draw_ns = t;
	size_t filled = p->total ? p->done * PROGRESS_WIDTH / p->total : PROGRESS_WIDTH;
	char bar[PROGRESS_WIDTH + 1];
	for (size_t i = 0; i < PROGRESS_WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[PROGRESS_WIDTH] = '\0';
	fprintf(stderr, "\r%s: %s [%s] %zu/%zu", cli_progname(), p->label, bar, p->done, p->total);
	fflush(stderr);
}

void progress_clear(struct progress *p)
{
	if (!p->on)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->last_draw_ns = 0;
}

void progress_end(struct progress *p)
{
	progress_clear(p);
	p->on = false;
}
