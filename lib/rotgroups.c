// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct rot_group *)a)->name, ((const struct rot_group *)b)->name);
}

static int largest_first(const void *a, const void *b)
{
	const struct rot_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

void groups_merge(struct rot_group *g, size_t n, struct rot_group **groups, size_t *ngroups)
{
	size_t k = 0;
	qsort(g, n, sizeof(*g), by_name);
	for (size_t i = 0; i < n; i++) {
		if (k && strcmp(g[k - 1].name, g[i].name) == 0) {
			g[k - 1].instances += g[i].instances;
			g[k - 1].bytes += g[i].bytes;
		} else {
			g[k++] = g[i];
		}
	}
	qsort(g, k, sizeof(*g), largest_first);
	*groups = g;
	*ngroups = k;
}

int rot_snapshot_rotting_groups(const struct rot_snapshot *snap, struct rot_group **groups,
				size_t *ngroups)
{
	size_t first = rot_snapshot_live_count(snap), n = rot_snapshot_count(snap) - first;
	struct rot_group *g = malloc((n + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct rot_module *m = rot_snapshot_module(snap, first + i);
		g[i] = (struct rot_group){ rot_module_name(m), 1, rot_module_size(m) };
	}
	groups_merge(g, n, groups, ngroups);
	return 0;
}

size_t rot_snapshot_rotting_of(const struct rot_snapshot *snap, const char *name, uint64_t *bytes,
			       uint64_t *newest_size)
{
	size_t n = 0;
	uint64_t total = 0, newest = 0;
	for (size_t i = rot_snapshot_live_count(snap); i < rot_snapshot_count(snap); i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		if (strcmp(rot_module_name(m), name) != 0)
			continue;
		/* Newest first, as the kernel lists them. */
		if (n++ == 0)
			newest = rot_module_size(m);
		total += rot_module_size(m);
	}
	if (bytes)
		*bytes = total;
	if (newest_size)
		*newest_size = newest;
	return n;
}

int rot_name_rotting(const char *name, size_t *instances, uint64_t *bytes, uint64_t *newest_size)
{
	char *buf;
	size_t len;
	struct rot_snapshot *snap;

	int err = proc_read_whole("/proc/rotting_modules", &buf, &len);
	if (err < 0)
		return err;
	err = snapshot_parse("", 0, buf, len, NULL, 0, &snap);
	free(buf);
	if (err < 0)
		return err;
	size_t n = rot_snapshot_rotting_of(snap, name, bytes, newest_size);
	rot_snapshot_free(snap);
	if (instances)
		*instances = n;
	return 0;
}
