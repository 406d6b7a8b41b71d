// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's binary indexes (modules.dep.bin and the four others libkmod
 * opens), checked before libkmod 30 to 33 reads them. Those releases trust
 * every offset, length and count in an index: a flipped bit crashes or
 * hangs them. kmod 34 made the index reader check its bounds upstream
 * (docs/architecture.md names the fixes); configure compiles the tools'
 * check (rot_moddir_check) only against an older libkmod.
 *
 * The format, as depmod writes it (kmod 30, tools/depmod.c): a header of
 * three big-endian 32-bit words (magic 0xB007F457, version 2.1, the root
 * node's offset), then the trie's nodes in post-order: every child before
 * its parent, the root last, ending at the end of the file. A node offset
 * carries flags in its top nibble saying which parts follow at offset &
 * 0x0FFFFFFF: a NUL-terminated prefix; a first and a last child character
 * and last - first + 1 child offsets (0 for none); a value count and that
 * many (priority, NUL-terminated string) pairs.
 *
 * The check is one walk of the trie: each node lies inside the file, after
 * the header, on one side of its parent; the nodes cover every byte after
 * the header exactly once (so no node is shared or read twice, and nothing
 * trails); each string ends inside the file; child characters are 1..127
 * with the first and last child present. A file passing this is one
 * libkmod 30 reads without leaving it, in time linear in its size.
 *
 * lib/inuse.c reads modules.alias.bin itself (index_confirms_fs_aliases,
 * at the end): that reader relies on the same walk, whatever libkmod the
 * tools use.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

#define INDEX_MAGIC 0xB007F457u
#define INDEX_VERSION 0x00020001u
#define INDEX_HEADER 12u
#define NODE_PREFIX 0x80000000u
#define NODE_VALUES 0x40000000u
#define NODE_CHILDS 0x20000000u
#define NODE_UNKNOWN 0x10000000u
#define NODE_MASK 0x0FFFFFFFu
/* Deeper than any key (a module name, an alias, a symbol) nests. */
#define INDEX_DEPTH_MAX 4096

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct index_walk {
	const unsigned char *data;
	size_t len;
	unsigned char *claimed; /* a bit per byte: read as part of a node */
	/* depmod up to kmod 33 writes each node after its children, the root
	 * last; kmod 34's writes each node before its children, the root
	 * first. Either way every child lies on one side of its parent, which
	 * is what rules out a cycle. */
	bool preorder;
};

/* Claims [start, end) for one node: -EINVAL when a byte was claimed. A
 * byte of the bitmap at a time where the range covers it whole: a big
 * tree's indexes are megabytes, and a bit at a time was most of the check. */
static int claim(struct index_walk *w, size_t start, size_t end)
{
	for (; start < end && (start & 7); start++) {
		unsigned char bit = (unsigned char)(1u << (start & 7));
		if (w->claimed[start >> 3] & bit)
			return -EINVAL;
		w->claimed[start >> 3] |= bit;
	}
	if (start >= end)
		return 0;
	size_t first = start >> 3, last = end >> 3;
	for (size_t b = first; b < last; b++)
		if (w->claimed[b])
			return -EINVAL;
	memset(w->claimed + first, 0xff, last - first);
	for (start = last << 3; start < end; start++) {
		unsigned char bit = (unsigned char)(1u << (start & 7));
		if (w->claimed[start >> 3] & bit)
			return -EINVAL;
		w->claimed[start >> 3] |= bit;
	}
	return 0;
}

/* Whether every byte in [start, end) was claimed. */
static bool all_claimed(const struct index_walk *w, size_t start, size_t end)
{
	for (; start < end && (start & 7); start++)
		if (!(w->claimed[start >> 3] & (1u << (start & 7))))
			return false;
	for (; start + 8 <= end; start += 8)
		if (w->claimed[start >> 3] != 0xff)
			return false;
	for (; start < end; start++)
		if (!(w->claimed[start >> 3] & (1u << (start & 7))))
			return false;
	return true;
}

/* The end of the string at p, which must end before limit; 0 if it does not. */
static size_t string_end(const struct index_walk *w, size_t p, size_t limit)
{
	const unsigned char *nul = memchr(w->data + p, '\0', limit - p);
	return nul ? (size_t)(nul - w->data) + 1 : 0;
}

/*
 * Reads the node at ref (flags and offset), checking it, claiming its
 * bytes and pushing its children onto stack. Returns the node's end.
 */
static int check_node(struct index_walk *w, uint32_t ref, uint32_t *stack, size_t *depth_top,
		      size_t *end_out)
{
	size_t off = ref & NODE_MASK, p;

	/* An empty trie: a root of no bytes at the end of the header. */
	if (ref == INDEX_HEADER && w->len == INDEX_HEADER) {
		*end_out = INDEX_HEADER;
		return 0;
	}
	if (ref & NODE_UNKNOWN || off < INDEX_HEADER || off >= w->len)
		return -EINVAL;
	p = off;
	if (ref & NODE_PREFIX) {
		size_t e = string_end(w, p, w->len);
		if (!e || e == p + 1)
			return -EINVAL;
		p = e;
	}
	if (ref & NODE_CHILDS) {
		if (w->len - p < 2)
			return -EINVAL;
		unsigned first = w->data[p], last = w->data[p + 1];
		if (first < 1 || last > 127 || first > last)
			return -EINVAL;
		size_t n = last - first + 1u;
		p += 2;
		if ((w->len - p) / 4 < n)
			return -EINVAL;
		for (size_t i = 0; i < n; i++) {
			uint32_t child = be32(w->data + p + 4 * i);
			if (!child) {
				if (i == 0 || i == n - 1)
					return -EINVAL;
				continue;
			}
			/* A child lies below its parent (post-order) or
			 * above it (pre-order), as the root's place says. */
			if (w->preorder ? (child & NODE_MASK) <= off : (child & NODE_MASK) >= off)
				return -EINVAL;
			stack[(*depth_top)++] = child;
		}
		p += 4 * n;
	}
	if (ref & NODE_VALUES) {
		if (w->len - p < 4)
			return -EINVAL;
		uint32_t count = be32(w->data + p);
		p += 4;
		/* Each value takes at least five bytes: bounds the count. */
		if (count == 0 || count > (w->len - p) / 5)
			return -EINVAL;
		for (uint32_t i = 0; i < count; i++) {
			if (w->len - p < 5)
				return -EINVAL;
			size_t e = string_end(w, p + 4, w->len);
			if (!e)
				return -EINVAL;
			p = e;
		}
	}
	/* Only an empty trie's root takes no bytes. */
	if (p == off)
		return -EINVAL;
	*end_out = p;
	return claim(w, off, p);
}

int index_check_image(const void *data, size_t len)
{
	struct index_walk w = { .data = data, .len = len };
	uint32_t *stack = NULL;
	size_t *depths = NULL, top = 0, end;
	int err = -EINVAL;

	if (len < INDEX_HEADER || len > INDEX_SIZE_MAX)
		return len > INDEX_SIZE_MAX ? -EFBIG : -EINVAL;
	if (be32(w.data) != INDEX_MAGIC || be32(w.data + 4) != INDEX_VERSION)
		return -EINVAL;

	uint32_t root = be32(w.data + 8);
	w.claimed = calloc(len / 8 + 1, 1);
	/* Children pushed: those of claimed nodes (4 bytes each, claimed once)
	 * and of the one node that fails: at most len / 4 each. */
	size_t stack_max = len / 2 + 2;
	stack = malloc(stack_max * sizeof(*stack));
	depths = malloc(stack_max * sizeof(*depths));
	if (!w.claimed || !stack || !depths) {
		err = -ENOMEM;
		goto out;
	}
	/* The root is written last, ending the file (kmod up to 33), or
	 * first, right after the header (kmod 34). */
	w.preorder = (root & NODE_MASK) == INDEX_HEADER;
	err = check_node(&w, root, stack, &top, &end);
	if (err < 0)
		goto out;
	err = -EINVAL;
	if (!w.preorder && end != len)
		goto out;
	for (size_t i = 0; i < top; i++)
		depths[i] = 1;
	while (top) {
		uint32_t ref = stack[--top];
		size_t depth = depths[top], before = top;
		if (depth > INDEX_DEPTH_MAX)
			goto out;
		err = check_node(&w, ref, stack, &top, &end);
		if (err < 0)
			goto out;
		err = -EINVAL;
		for (size_t i = before; i < top; i++)
			depths[i] = depth + 1;
	}
	/* Every byte after the header belongs to exactly one node. */
	if (!all_claimed(&w, INDEX_HEADER, len))
		goto out;
	err = 0;
out:
	free(w.claimed);
	free(stack);
	free(depths);
	return err;
}

/* Reads and checks the index at path; on success *out holds it (malloc'd). */
static int index_read_checked(const char *path, unsigned char **out, size_t *out_len)
{
	struct stat st = { 0 };
	char *buf;
	size_t len;

	*out = NULL;
	int fd = file_open_regular(path, &st);
	/* A FIFO would keep libkmod waiting, a device reading for ever. */
	if (fd == -EINVAL && (st.st_mode & S_IFMT))
		return -EISDIR;
	if (fd < 0)
		return fd;
	/* libkmod reads an empty file as no index, safely: so do we. */
	if (st.st_size == 0) {
		close(fd);
		return -ENODATA;
	}
	int err = file_read_whole(fd, &st, INDEX_SIZE_MAX, &buf, &len);
	if (err < 0)
		return err;
	/* A file that grew or shrank while it was read is being rewritten. */
	err = len == (size_t)st.st_size ? index_check_image(buf, len) : -EINVAL;
	if (err == 0) {
		*out = (unsigned char *)buf;
		*out_len = len;
		return 0;
	}
	free(buf);
	return err;
}

int index_check_file(const char *path)
{
	unsigned char *buf;
	size_t len;
	int err = index_read_checked(path, &buf, &len);

	free(buf);
	return err;
}

/*
 * ---- modules.alias against modules.alias.bin, for the in-use rule ----
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
		if (memchr(line, '\0', (size_t)(e - line)))
			return -EBADMSG;
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

/* A node still to walk: its offset and flags, and its key's length so far
 * (its parent's key, then ch unless it is the root). */
struct frame {
	uint32_t ref, keylen;
	unsigned char ch;
};

/* Takes every value of a checked index's fs_ keys off t: -EBADMSG at one
 * t lacks; -ENOMEM. */
static int fs_index_take(const unsigned char *d, size_t len, struct xtab *t)
{
	struct frame *stack;
	char *key;
	size_t top = 0;
	int err = -ENOMEM;

	/* An empty trie: a root of no bytes. */
	if (len == INDEX_HEADER)
		return 0;
	/* Pushed: the root and each child offset once (4 bytes each). A key is
	 * its nodes' prefixes, each claimed once, and a byte per level. */
	stack = malloc((len / 4 + 1) * sizeof(*stack));
	key = malloc(len + INDEX_DEPTH_MAX + 2);
	if (!stack || !key)
		goto out;
	err = -EBADMSG;
	stack[top++] = (struct frame){ .ref = be32(d + 8) };
	while (top) {
		struct frame f = stack[--top];
		size_t klen = f.keylen, p = f.ref & NODE_MASK;
		if (f.ch)
			key[klen++] = (char)f.ch;
		if (f.ref & NODE_PREFIX) {
			size_t n = strlen((const char *)d + p);
			memcpy(key + klen, d + p, n);
			klen += n;
			p += n + 1;
		}
		if (f.ref & NODE_CHILDS) {
			unsigned first = d[p], last = d[p + 1];
			p += 2;
			for (unsigned c = first; c <= last; c++, p += 4) {
				uint32_t child = be32(d + p);
				if (child)
					stack[top++] = (struct frame){ .ref = child,
								       .keylen = (uint32_t)klen,
								       .ch = (unsigned char)c };
			}
		}
		if (f.ref & NODE_VALUES && klen >= 3 && !memcmp(key, "fs_", 3)) {
			uint32_t count = be32(d + p);
			p += 4;
			for (uint32_t i = 0; i < count; i++) {
				const char *v = (const char *)d + p + 4;
				size_t vlen = strlen(v);
				if (!xtab_take(t, key, klen, v, vlen))
					goto out;
				p += 4 + vlen + 1;
			}
		}
	}
	err = 0;
out:
	free(stack);
	free(key);
	return err;
}

int index_confirms_fs_aliases(const char *dir)
{
	char path[PATH_MAX];
	unsigned char *bin = NULL;
	char *text = NULL;
	struct xtab t = { 0 };
	size_t len, tlen;
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/modules.alias.bin", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	err = index_read_checked(path, &bin, &len);
	if (err == -ENOENT)
		return err;
	if (err == 0) {
		snprintf(path, sizeof(path), "%s/modules.alias", dir);
		err = rot_file_read(path, INDEX_SIZE_MAX, &text, &tlen);
	}
	if (err == 0)
		err = fs_lines_add(&t, text, tlen);
	if (err == 0)
		err = fs_index_take(bin, len, &t);
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

#ifdef MODROT_INDEX_CHECK
/* The index files libkmod 30 opens (libkmod.c, index_files[]). */
static const char *const index_names[] = {
	"modules.dep.bin",           "modules.alias.bin",   "modules.symbols.bin",
	"modules.builtin.alias.bin", "modules.builtin.bin",
};
#define INDEX_COUNT (sizeof(index_names) / sizeof(index_names[0]))

int rot_moddir_check(const char *moddir, const char **index)
{
	char path[PATH_MAX];
	struct index_cache *cache = malloc(sizeof(*cache));
	bool keep = true;
	int err = 0;

	*index = NULL;
	if (!cache)
		return -ENOMEM;
	if (index_cache_begin(cache, moddir, index_names, INDEX_COUNT) == 1)
		goto out;
	for (size_t i = 0; i < INDEX_COUNT && !err; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", moddir, index_names[i]) >=
		    sizeof(path))
			err = -ENAMETOOLONG;
		else
			err = index_check_file(path);
		/* Absent or empty: libkmod reads it as no index, safely. One this
		 * user cannot read is refused like a damaged one, rather than
		 * turned into "not found". No directory at all is libkmod's own
		 * case, and no verdict is kept for it. */
		if (err == -ENOENT || err == -ENODATA || err == -ENOTDIR) {
			keep = keep && err != -ENOTDIR;
			err = 0;
		} else if (err < 0) {
			*index = index_names[i];
		}
	}
	if (!err && keep)
		index_cache_store(cache);
out:
	free(cache);
	return err;
}
#else
int rot_moddir_check(const char *moddir, const char **index)
{
	(void)moddir;
	*index = NULL;
	return 0;
}
#endif
