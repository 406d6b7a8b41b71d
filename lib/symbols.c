// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

struct rot_symbols {
	char **slots; /* open addressing; NULL is empty */
	size_t mask;
	size_t count;
};

static size_t hash(const char *s, size_t len)
{
	size_t h = 14695981039346656037ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

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
	size_t h = hash(name, len) & set->mask;
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

static bool has_len(const struct rot_symbols *set, const char *name, size_t len)
{
	return set->slots[slot_of(set, name, len)] != NULL;
}

bool rot_symbols_has(const struct rot_symbols *set, const char *name)
{
	return has_len(set, name, strlen(name));
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

int rot_symbols_read_kallsyms(const char *const *wanted, size_t nwanted, struct rot_symbols **out)
{
	struct rot_symbols *want = NULL, *found = NULL;
	char *buf;
	size_t len;

	int err = rot_symbols_new(&want);
	for (size_t i = 0; i < nwanted && err == 0; i++)
		err = rot_symbols_add(want, wanted[i]);
	if (err == 0)
		err = rot_symbols_new(&found);
	if (err == 0)
		err = proc_read_whole("/proc/kallsyms", &buf, &len);
	if (err < 0) {
		rot_symbols_free(want);
		rot_symbols_free(found);
		return err;
	}
	/* "ADDRESS TYPE NAME[\t[MODULE]]" per line. */
	for (char *line = buf, *end = buf + len; line < end && err == 0;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eol = nl ? nl : end;
		char *sp = memchr(line, ' ', (size_t)(eol - line));
		sp = sp ? memchr(sp + 1, ' ', (size_t)(eol - sp - 1)) : NULL;
		if (sp) {
			char *name = sp + 1;
			size_t nl_len = strcspn(name, "\t\n");
			if (name + nl_len > eol)
				nl_len = (size_t)(eol - name);
			if (has_len(want, name, nl_len))
				err = add_len(found, name, nl_len);
		}
		line = eol + 1;
	}
	free(buf);
	rot_symbols_free(want);
	if (err < 0) {
		rot_symbols_free(found);
		return err;
	}
	*out = found;
	return 0;
}
