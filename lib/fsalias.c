// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * modules.alias against modules.alias.bin, for the in-use rule.
 *
 * lib/inuse.c learns which modules provide a file system type from the
 * "alias fs-TYPE MODULE" lines of modules.alias. A text cut short or
 * edited would make the rule call a mounted file system's module unused,
 * so those lines must be what depmod put into modules.alias.bin beside
 * it: the same (key, module) pairs, each key as depmod normalises it ('-'
 * as '_' outside brackets, so fs-TYPE is keyed fs_TYPE). The other lines
 * are not the rule's concern. The index is walked once.
 */
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

/* depmod's buffers (PATH_MAX) keep at most this many bytes of a key. */
#define KEY_MAX 4095u

/* One (key, value) pair and how many times the text has it still. */
struct xent {
	const char *key, *value;
	size_t klen, vlen, count;
};

/* A multiset of (key, value): what the text says, taken off as the index
 * has it. A tree (tsearch), so each look-up is logarithmic. */
struct xtab {
	void *root;
	size_t added, taken;
};

static int xent_cmp(const void *a, const void *b)
{
	const struct xent *x = a, *y = b;
	if (x->klen != y->klen)
		return x->klen < y->klen ? -1 : 1;
	if (x->vlen != y->vlen)
		return x->vlen < y->vlen ? -1 : 1;
	int c = memcmp(x->key, y->key, x->klen);
	return c ? c : memcmp(x->value, y->value, x->vlen);
}

static int xtab_add(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl)
{
	struct xent *e = malloc(sizeof(*e)), **found;

	if (!e)
		return -ENOMEM;
	*e = (struct xent){ .key = k, .value = v, .klen = kl, .vlen = vl };
	found = tsearch(e, &t->root, xent_cmp);
	if (!found || *found != e)
		free(e);
	if (!found)
		return -ENOMEM;
	(*found)->count++;
	t->added++;
	return 0;
}

/* Takes one (key, value) off: false when the text has no more of it. */
static bool xtab_take(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl)
{
	struct xent probe = { .key = k, .value = v, .klen = kl, .vlen = vl };
	struct xent **e = tfind(&probe, &t->root, xent_cmp);

	if (!e || !(*e)->count)
		return false;
	(*e)->count--;
	t->taken++;
	return true;
}

/*
 * depmod's alias_normalize, in place: '-' becomes '_' outside brackets.
 * The key's length (cut at KEY_MAX, as depmod cuts it); -EINVAL for an
 * unmatched bracket (depmod leaves that alias out); -E2BIG where depmod's
 * own buffer would overflow (no index can be said to match).
 */
static long alias_normalize_in_place(char *s, size_t n)
{
	size_t i;

	for (i = 0; i < KEY_MAX; i++) {
		if (i == n)
			return (long)i;
		if (s[i] == '-') {
			s[i] = '_';
		} else if (s[i] == ']') {
			return -EINVAL;
		} else if (s[i] == '[') {
			while (i < n && s[i] != ']')
				i++;
			if (i == n)
				return -EINVAL;
			if (i >= KEY_MAX)
				return -E2BIG;
		}
	}
	return (long)i;
}

/* The "alias fs-TYPE MODULE" lines of modules.alias, keyed as depmod keys them. */
static int fs_lines_add(struct xtab *t, char *buf, size_t len)
{
	for (char *p = buf, *end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		char *line = p;
		p = nl ? nl + 1 : end;
		if (e - line < 9 || memcmp(line, "alias fs-", 9))
			continue;
		char *key = line + 6, *sp = memrchr(key, ' ', (size_t)(e - key));
		if (!sp)
			return -EBADMSG;
		long n = alias_normalize_in_place(key, (size_t)(sp - key));
		if (n == -EINVAL)
			continue;
		if (n < 0)
			return -EBADMSG;
		int err = xtab_add(t, key, (size_t)n, sp + 1, (size_t)(e - sp - 1));
		if (err < 0)
			return err;
	}
	return 0;
}

/* Takes a value of an fs_ key off the text's: -EBADMSG when it has no more. */
static int fs_value_take(void *t, const char *key, const char *value)
{
	if (strncmp(key, "fs_", 3))
		return 0;
	return xtab_take(t, key, strlen(key), value, strlen(value)) ? 0 : -EBADMSG;
}

int index_confirms_fs_aliases(const char *dir, const char *alias_text)
{
	char path[PATH_MAX];
	unsigned char *bin = NULL;
	char *text = NULL;
	struct xtab t = { 0 };
	size_t len;
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/modules.alias.bin", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	err = index_read_checked(path, &bin, &len);
	if (err == -ENOENT)
		return err;
	/* A copy: its keys are normalised in place. */
	if (err == 0 && !(text = strdup(alias_text)))
		err = -ENOMEM;
	if (err == 0)
		err = fs_lines_add(&t, text, strlen(text));
	if (err == 0)
		err = index_walk(bin, len, fs_value_take, &t);
	if (err == 0 && t.taken != t.added)
		err = -EBADMSG;
	tdestroy(t.root, free);
	free(text);
	free(bin);
	/* What a read itself could not do is said as it is; anything else
	 * (a text missing, a mismatch, a damaged index) confirms nothing. */
	if (err == 0 || err == -ENOMEM || err == -EIO || err == -EACCES)
		return err;
	return -ESTALE;
}
