// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <stdio.h>

#include "modrot.h"
#include "reclaim-report.h"

const char *instances_word(size_t n)
{
	return n == 1 ? "instance" : "instances";
}

void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run)
{
	printf("%s: %s %zu %s, %" PRIu64 " bytes\n", name,
	       dry_run ? "would reclaim" : "reclaimed", instances, instances_word(instances),
	       bytes);
}

void report_taint_change(unsigned long before, unsigned long after, bool predicted)
{
	char b[40], a[40];
	rot_taint_letters(before, b, sizeof(b));
	rot_taint_letters(after, a, sizeof(a));
	printf("kernel taint%s: %s -> %s (%lu)\n", predicted ? " would go" : "", b, a, after);
}
