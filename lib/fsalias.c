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
 * are not the rule's concern. Linear in the files' sizes: the pairs are
 * hashed, and the index walked once.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

/* depmod's buffers (PATH_MAX) keep at most this many bytes of a key. */
#define KEY_MAX 4095u

struct xent {
	uint64_t hash;
	const char *key, *value; /* NULL key: a free slot */
	uint32_t klen, vlen, count;
};

/* A multiset of (key, value): what the text says, taken off as the index has it. */
struct xtab {
	struct xent *slot;
	size_t mask, used, added, taken;
};

static uint64_t xhash(const char *s, size_t n, uint64_t h)
{
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15u;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w ^ (uint64_t)n << 56) * 0x9E3779B97F4A7C15u;
	return h ^ h >> 32;
}

/* The entry (key, value), or the free slot where it would go. */
static struct xent *xtab_slot(const struct xtab *t, uint64_t h, const char *k, size_t kl,
			      const char *v, size_t vl)
{
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		struct xent *e = &t->slot[i];
		if (!e->key || (e->hash == h && e->klen == kl && e->vlen == vl &&
				!memcmp(e->key, k, kl) && !memcmp(e->value, v, vl)))
			return e;
	}
}

static int xtab_add(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl)
{
	uint64_t h = xhash(v, vl, xhash(k, kl, 0x243F6A8885A308D3u));
	struct xent *e;

	/* Kept at most half full: grown before it would be more. */
	if (2 * (t->used + 1) > t->mask + 1 || !t->slot) {
		struct xtab n = { .mask = t->slot ? 2 * t->mask + 1 : 63 };
		n.slot = calloc(n.mask + 1, sizeof(*n.slot));
		if (!n.slot)
			return -ENOMEM;
		for (size_t i = 0; t->slot && i <= t->mask; i++)
			if (t->slot[i].key)
				*xtab_slot(&n, t->slot[i].hash, t->slot[i].key, t->slot[i].klen,
					   t->slot[i].value, t->slot[i].vlen) = t->slot[i];
		free(t->slot);
		t->slot = n.slot;
		t->mask = n.mask;
	}
	e = xtab_slot(t, h, k, kl, v, vl);
	if (!e->key) {
		*e = (struct xent){
			.hash = h, .key = k, .value = v, .klen = (uint32_t)kl, .vlen = (uint32_t)vl
		};
		t->used++;
	}
	e->count++;
	t->added++;
	return 0;
}

/* Takes one (key, value) off: false when the text has no more of it. */
static bool xtab_take(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl)
{
	struct xent *e;

	if (!t->slot)
		return false;
	e = xtab_slot(t, xhash(v, vl, xhash(k, kl, 0x243F6A8885A308D3u)), k, kl, v, vl);
	if (!e->key || !e->count)
		return false;
	e->count--;
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
		char *key = line + 6, *sp = e;
		while (sp > key && sp[-1] != ' ')
			sp--;
		if (sp == key)
			return -EBADMSG;
		long n = alias_normalize_in_place(key, (size_t)(sp - 1 - key));
		if (n == -EINVAL)
			continue;
		if (n < 0 || (size_t)(e - sp) > UINT32_MAX)
			return -EBADMSG;
		int err = xtab_add(t, key, (size_t)n, sp, (size_t)(e - sp));
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
	free(t.slot);
	free(text);
	free(bin);
	/* What a read itself could not do is said as it is; anything else
	 * (a text missing, a mismatch, a damaged index) confirms nothing. */
	if (err == 0 || err == -ENOMEM || err == -EIO || err == -EACCES)
		return err;
	return -ESTALE;
}
