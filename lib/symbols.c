// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

struct rot_symbols {
	char **slots; /* open addressing; NULL is empty */
	size_t mask;
	size_t count;
};

int rot_symbols_new(struct rot_symbols **out)
{
	struct rot_symbols *set = calloc(1, sizeof(*set));
	if (!set || !(set->slots = calloc(64, sizeof(*set->slots)))) {
		free(set);
		return -ENOMEM;
	}
	set->mask = 63;
	*out = set;
	return 0;
}

static size_t slot_of(const struct rot_symbols *set, const char *name, size_t len)
{
	size_t h = (size_t)fnv1a(name, len) & set->mask;
	while (set->slots[h] && (strncmp(set->slots[h], name, len) != 0 || set->slots[h][len]))
		h = (h + 1) & set->mask;
	return h;
}

static int grow(struct rot_symbols *set)
{
	size_t cap = (set->mask + 1) * 2;
	char **slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	char **old = set->slots;
	size_t oldcap = set->mask + 1;
	set->slots = slots;
	set->mask = cap - 1;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			slots[slot_of(set, old[i], strlen(old[i]))] = old[i];
	free(old);
	return 0;
}

static int add_len(struct rot_symbols *set, const char *name, size_t len)
{
	if ((set->count + 1) * 2 > set->mask + 1 && grow(set) < 0)
		return -ENOMEM;
	size_t h = slot_of(set, name, len);
	if (set->slots[h])
		return 0;
	if (!(set->slots[h] = strndup(name, len)))
		return -ENOMEM;
	set->count++;
	return 0;
}

int rot_symbols_add(struct rot_symbols *set, const char *name)
{
	return add_len(set, name, strlen(name));
}

bool rot_symbols_has(const struct rot_symbols *set, const char *name)
{
	return set->slots[slot_of(set, name, strlen(name))] != NULL;
}

void rot_symbols_free(struct rot_symbols *set)
{
	if (!set)
		return;
	for (size_t i = 0; i <= set->mask; i++)
		free(set->slots[i]);
	free(set->slots);
	free(set);
}

/* One line of /proc/kallsyms, "ADDRESS TYPE NAME[\t[MODULE]]" (eol at
 * its end): NAME, up to a tab or a NUL, goes into found when want has
 * it. */
static int scan_line(const struct rot_symbols *want, struct rot_symbols *found, const char *line,
		     const char *eol)
{
	const char *sp = memchr(line, ' ', (size_t)(eol - line));
	sp = sp ? memchr(sp + 1, ' ', (size_t)(eol - sp - 1)) : NULL;
	if (!sp)
		return 0;
	const char *name = sp + 1;
	size_t len = strnlen(name, (size_t)(eol - name));
	const char *tab = memchr(name, '\t', len);
	if (tab)
		len = (size_t)(tab - name);
	return want->slots[slot_of(want, name, len)] ? add_len(found, name, len) : 0;
}

/*
 * The file is read a buffer at a time, never whole: a kernel's kallsyms
 * runs to megabytes, and on the small machine an installer probes from,
 * each of those is memory its loads do not get. A line longer than the
 * buffer (none the kernel writes) makes it grow.
 */
static int scan_kallsyms(int fd, const struct rot_symbols *want, struct rot_symbols *found)
{
	size_t cap = 64 * 1024, used = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	int err = 0;
	for (;;) {
		if (used == cap && !array_reserve(&buf, &cap, cap + 1, 1)) {
			err = -ENOMEM;
			break;
		}
		ssize_t n = file_read(fd, buf + used, cap - used);
		if (n <= 0) {
			err = n < 0 ? -errno : used ? scan_line(want, found, buf, buf + used) : 0;
			break;
		}
		const char *line = buf, *end = buf + used + (size_t)n, *nl;
		while (err == 0 && (nl = memchr(line, '\n', (size_t)(end - line)))) {
			err = scan_line(want, found, line, nl);
			line = nl + 1;
		}
		if (err < 0)
			break;
		used = (size_t)(end - line);
		memmove(buf, line, used);
	}
	free(buf);
	return err;
}

int rot_symbols_read_kallsyms(const char *const *wanted, size_t nwanted, struct rot_symbols **out)
{
	struct rot_symbols *want = NULL, *found = NULL;
	int fd = -1;

	int err = rot_symbols_new(&want);
	for (size_t i = 0; i < nwanted && err == 0; i++)
		err = rot_symbols_add(want, wanted[i]);
	if (err == 0)
		err = rot_symbols_new(&found);
	if (err == 0 && (fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) < 0)
		err = -errno;
	if (err == 0)
		err = scan_kallsyms(fd, want, found);
	if (fd >= 0)
		close(fd);
	rot_symbols_free(want);
	if (err < 0) {
		rot_symbols_free(found);
		return err;
	}
	*out = found;
	return 0;
}
