// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's binary indexes (modules.dep.bin and the four others libkmod
 * opens), checked before libkmod 30 to 32 reads them. Those releases trust
 * every offset, length and count in an index: a flipped bit crashes or
 * hangs them. kmod 33 made the index reader check its bounds upstream
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
 * lib/inuse.c reads modules.alias.bin itself (index_confirms_text): that
 * reader relies on the same walk, whatever libkmod the tools use.
 */
#include <errno.h>
#include <fcntl.h>
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

/* The index files libkmod 30 opens (libkmod.c, index_files[]). */
static const char *const index_names[] = {
	"modules.dep.bin",           "modules.alias.bin",   "modules.symbols.bin",
	"modules.builtin.alias.bin", "modules.builtin.bin",
};
#define INDEX_COUNT (sizeof(index_names) / sizeof(index_names[0]))

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
	struct stat st;
	unsigned char *buf = NULL;
	size_t got = 0;
	int err;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	/* A FIFO would keep libkmod waiting, a device reading for ever. */
	err = -EISDIR;
	if (!S_ISREG(st.st_mode))
		goto out;
	/* libkmod reads an empty file as no index, safely: so do we. */
	err = -ENODATA;
	if (st.st_size == 0)
		goto out;
	err = -EFBIG;
	if ((uintmax_t)st.st_size > INDEX_SIZE_MAX)
		goto out;
	err = -ENOMEM;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		goto out;
	/* One byte more than fstat said: a file that grew is caught. */
	while (got < (size_t)st.st_size + 1) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	err = got == (size_t)st.st_size ? index_check_image(buf, got) : -EINVAL;
	if (err == 0) {
		*out = buf;
		*out_len = got;
		buf = NULL;
	}
out:
	free(buf);
	close(fd);
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
 * ---- Each index against the text file depmod writes beside it ----
 *
 * An index can pass index_check_image() and still not say what depmod
 * wrote: a flipped bit in a key, a value or a priority is a well-formed
 * index with another answer. depmod builds every index from the same data
 * as a text file it writes beside it (kmod 30, tools/depmod.c), so the
 * text says what the index must hold, as (key, value, priority) entries:
 *
 *   modules.dep.bin      from modules.dep: key the module's name (the
 *                        path's base name up to its first '.', '-' as
 *                        '_'), value the whole line, priority the line's
 *                        number counted from 0 (depmod's module order);
 *   modules.alias.bin    from modules.alias, "alias PATTERN MODULE": key
 *                        the pattern with '-' as '_' outside brackets (one
 *                        with an unmatched bracket is left out, as depmod
 *                        leaves it out), value MODULE, priority MODULE's
 *                        line in modules.dep;
 *   modules.symbols.bin  from modules.symbols, "alias symbol:NAME MODULE":
 *                        key symbol:NAME, value and priority as for aliases;
 *   modules.builtin.bin  from modules.builtin (lines that do not start
 *                        with a letter skipped, as depmod skips them): key
 *                        the name as for modules.dep, value "", priority 0;
 *   modules.builtin.alias.bin
 *                        from modules.builtin.modinfo's NUL-ended records
 *                        MODULE.alias=PATTERN, read as depmod's stream
 *                        reader reads them: key the pattern as for
 *                        aliases, value MODULE, priority 0.
 *
 * The index must hold exactly that multiset, each node's values in
 * priority order (depmod inserts them sorted). libkmod answers from the
 * keys, values and priorities alone, so an index that passes answers as
 * the text says. Linear in the files' sizes: entries are grouped by module
 * (or hashed, for the built-in ones), not sorted; modules.dep is read once
 * for the three that need it.
 *
 * The cost, on a generated tree of 4,000 modules (modules.dep 2.9 MB,
 * 24,000 aliases, 32,000 symbols; indexes 5.6 MB): about 6 ms of CPU more
 * than the structural check alone, most of it reading the 5.1 MB of text.
 */

/* depmod's buffers (PATH_MAX) keep at most this many bytes of a key. */
#define KEY_MAX 4095u

enum { IDX_DEP, IDX_ALIAS, IDX_SYMBOLS, IDX_BUILTIN_ALIAS, IDX_BUILTIN };

/* The text each index is made from, in index_names[] order. */
static const char *const text_names[] = {
	"modules.dep",     "modules.alias", "modules.symbols", "modules.builtin.modinfo",
	"modules.builtin",
};

struct xent {
	uint64_t hash;
	const char *key, *value; /* NULL key: a free slot */
	uint32_t klen, vlen, prio, count;
};

/* A multiset of entries: what the text says, taken off as the index has it. */
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

static uint64_t xent_hash(const char *k, size_t kl, const char *v, size_t vl)
{
	return xhash(v, vl, xhash(k, kl, 0x243F6A8885A308D3u));
}

/* Room for at most max distinct entries. */
static int xtab_init(struct xtab *t, size_t max)
{
	size_t n = 16;

	while (n < 2 * max + 16)
		n *= 2;
	*t = (struct xtab){ .slot = calloc(n, sizeof(*t->slot)), .mask = n - 1 };
	return t->slot ? 0 : -ENOMEM;
}

/* The entry (key, value, and prio unless any_prio), or the free slot where it would go. */
static struct xent *xtab_slot(const struct xtab *t, uint64_t h, const char *k, size_t kl,
			      const char *v, size_t vl, uint32_t prio, bool any_prio)
{
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		struct xent *e = &t->slot[i];
		if (!e->key || (e->hash == h && e->klen == kl && e->vlen == vl &&
				(any_prio || e->prio == prio) && !memcmp(e->key, k, kl) &&
				!memcmp(e->value, v, vl)))
			return e;
	}
}

static int xtab_add(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl,
		    uint32_t prio)
{
	uint64_t h = xent_hash(k, kl, v, vl);
	struct xent *e = xtab_slot(t, h, k, kl, v, vl, prio, false);

	if (!e->key) {
		/* Sized from a count of lines: only a miscount could fill it. */
		if (2 * (t->used + 1) > t->mask + 1)
			return -EBADMSG;
		*e = (struct xent){ .hash = h,
				    .key = k,
				    .value = v,
				    .klen = (uint32_t)kl,
				    .vlen = (uint32_t)vl,
				    .prio = prio };
		t->used++;
	}
	e->count++;
	t->added++;
	return 0;
}

/* Takes one (key, value, prio) off: false when the text has no more of it. */
static bool xtab_take(struct xtab *t, const char *k, size_t kl, const char *v, size_t vl,
		      uint32_t prio)
{
	struct xent *e = xtab_slot(t, xent_hash(k, kl, v, vl), k, kl, v, vl, prio, false);

	if (!e->key || !e->count)
		return false;
	e->count--;
	t->taken++;
	return true;
}

/*
 * What the text says for the indexes whose priority is a module's line in
 * modules.dep (dep, alias, symbols), grouped by that priority: an entry of
 * the index is looked for among its module's few entries only, in one
 * contiguous run, instead of hashed. (Hashing every entry of a big tree
 * twice, the whole modules.dep line too, cost more than the rest of the
 * check.)
 */
struct xrec {
	const char *key, *value;
	uint32_t klen, vlen, prio;
	bool taken;
};

struct xlist {
	struct xrec *rec;
	uint32_t *start; /* after xlist_group: priority p's run is [start[p], start[p + 1]) */
	size_t n, cap, taken;
	uint32_t nprio;
};

static int xlist_init(struct xlist *l, size_t max, uint32_t nprio)
{
	*l = (struct xlist){ .rec = calloc(max ? max : 1, sizeof(*l->rec)),
			     .start = calloc((size_t)nprio + 2, sizeof(*l->start)),
			     .cap = max,
			     .nprio = nprio };
	return l->rec && l->start ? 0 : -ENOMEM;
}

static int xlist_add(struct xlist *l, const char *k, size_t kl, const char *v, size_t vl,
		     uint32_t prio)
{
	/* Sized from a count of lines; priorities come from modules.dep. */
	if (l->n == l->cap || prio >= l->nprio || kl > UINT32_MAX || vl > UINT32_MAX)
		return -EBADMSG;
	l->rec[l->n++] = (struct xrec){
		.key = k, .value = v, .klen = (uint32_t)kl, .vlen = (uint32_t)vl, .prio = prio
	};
	l->start[prio + 1]++;
	return 0;
}

/* Orders the entries by priority (a counting sort: stable, linear). */
static int xlist_group(struct xlist *l)
{
	struct xrec *sorted = malloc((l->n ? l->n : 1) * sizeof(*sorted));
	uint32_t *next = malloc(((size_t)l->nprio + 1) * sizeof(*next));

	if (!sorted || !next) {
		free(sorted);
		free(next);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < l->nprio; p++)
		l->start[p + 1] += l->start[p];
	memcpy(next, l->start, ((size_t)l->nprio + 1) * sizeof(*next));
	for (size_t i = 0; i < l->n; i++)
		sorted[next[l->rec[i].prio]++] = l->rec[i];
	free(next);
	free(l->rec);
	l->rec = sorted;
	return 0;
}

static bool xlist_take(struct xlist *l, const char *k, size_t kl, const char *v, size_t vl,
		       uint32_t prio)
{
	if (prio >= l->nprio)
		return false;
	for (uint32_t i = l->start[prio]; i < l->start[prio + 1]; i++) {
		struct xrec *r = &l->rec[i];
		if (!r->taken && r->klen == kl && r->vlen == vl && !memcmp(r->key, k, kl) &&
		    !memcmp(r->value, v, vl)) {
			r->taken = true;
			l->taken++;
			return true;
		}
	}
	return false;
}

static void xlist_free(struct xlist *l)
{
	free(l->rec);
	free(l->start);
}

/* Where the text's entries go: grouped by module (list) or hashed (tab). */
struct xset {
	struct xtab *tab;
	struct xlist *list;
};

static bool xset_take(const struct xset *s, const char *k, size_t kl, const char *v, size_t vl,
		      uint32_t prio)
{
	return s->list ? xlist_take(s->list, k, kl, v, vl, prio)
		       : xtab_take(s->tab, k, kl, v, vl, prio);
}

static size_t count_byte(const char *s, size_t n, char c)
{
	size_t k = 0;
	for (const char *p = s; (p = memchr(p, c, n - (size_t)(p - s))); p++)
		k++;
	return k;
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

/* depmod's modname_normalize of a base name, into out (KEY_MAX + 1 bytes). */
static size_t modname_of(const char *base, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n && i < KEY_MAX && base[i] != '.'; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	return i;
}

/* modules.dep, read once: its lines and each line's module name. */
struct deptext {
	int err; /* 0, or why it cannot be used (-errno, -EBADMSG) */
	bool read;
	char *buf, *names;
	size_t nlines;
	struct depline {
		const char *line, *name;
		uint32_t len, nlen;
	} * lines;
	struct xtab mods; /* name -> line number (value "", the number as priority) */
};

struct xcheck {
	const char *dir;
	struct deptext dep;
};

static int text_read(const char *dir, const char *name, char **buf, size_t *len)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return rot_file_read(path, INDEX_SIZE_MAX, buf, len);
}

static int deptext_load(struct xcheck *x)
{
	struct deptext *d = &x->dep;
	size_t len, n = 0;

	if (d->read)
		return d->err;
	d->read = true;
	d->err = text_read(x->dir, text_names[IDX_DEP], &d->buf, &len);
	if (d->err < 0)
		return d->err;
	size_t max = count_byte(d->buf, len, '\n') + 1;
	d->lines = calloc(max, sizeof(*d->lines));
	d->names = malloc(len + 1);
	if (!d->lines || !d->names || xtab_init(&d->mods, max) < 0)
		return d->err = -ENOMEM;
	char *np = d->names;
	for (const char *p = d->buf, *end = d->buf + len; p < end; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(e - p));
		/* depmod writes "PATH:[ DEP...]" and nothing else. */
		if (!colon || memchr(p, '\0', (size_t)(e - p)) || e - p > UINT32_MAX)
			return d->err = -EBADMSG;
		const char *base = colon;
		while (base > p && base[-1] != '/')
			base--;
		struct depline *l = &d->lines[n];
		l->line = p;
		l->len = (uint32_t)(e - p);
		l->name = np;
		l->nlen = (uint32_t)modname_of(base, (size_t)(colon - base), np);
		np += l->nlen;
		if (xtab_add(&d->mods, l->name, l->nlen, "", 0, (uint32_t)n) < 0)
			return d->err = -EBADMSG;
		p = nl ? nl + 1 : end;
	}
	d->nlines = n;
	return 0;
}

static void deptext_free(struct deptext *d)
{
	free(d->buf);
	free(d->names);
	free(d->lines);
	free(d->mods.slot);
}

/* A module's modules.dep line number: its priority in the alias and symbol indexes. */
static bool module_order(const struct deptext *d, const char *name, size_t n, uint32_t *prio)
{
	const struct xent *e =
		xtab_slot(&d->mods, xent_hash(name, n, "", 0), name, n, "", 0, 0, true);
	if (!e->key)
		return false;
	*prio = e->prio;
	return true;
}

/* "alias KEY MODULE" lines of modules.alias (pattern) or modules.symbols (symbol:NAME). */
static int alias_lines_add(struct xlist *t, const struct deptext *d, char *buf, size_t len,
			   bool symbols)
{
	/* modules.alias is in module order: one lookup per module, not per line. */
	const char *last = NULL;
	size_t last_len = 0;
	uint32_t last_prio = 0;

	for (char *p = buf, *end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		char *line = p;
		p = nl ? nl + 1 : end;
		if (e == line || line[0] == '#')
			continue;
		if (e - line < 6 || memcmp(line, "alias ", 6) ||
		    memchr(line, '\0', (size_t)(e - line)))
			return -EBADMSG;
		char *key = line + 6, *sp = e;
		while (sp > key && sp[-1] != ' ')
			sp--;
		if (sp == key)
			return -EBADMSG;
		const char *mod = sp;
		size_t klen = (size_t)(sp - 1 - key), mlen = (size_t)(e - sp);
		uint32_t prio = last_prio;
		if (!(last && mlen == last_len && !memcmp(mod, last, mlen))) {
			if (!module_order(d, mod, mlen, &prio))
				return -EBADMSG;
			last = mod;
			last_len = mlen;
			last_prio = prio;
		}
		if (symbols) {
			if (klen < 7 || memcmp(key, "symbol:", 7))
				return -EBADMSG;
		} else {
			long n = alias_normalize_in_place(key, klen);
			if (n == -EINVAL)
				continue;
			if (n < 0)
				return -EBADMSG;
			klen = (size_t)n;
		}
		if (xlist_add(t, key, klen, mod, mlen, prio) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* modules.builtin as depmod reads it: fgets into a PATH_MAX buffer. */
static int builtin_lines_add(struct xtab *t, char *buf, size_t len)
{
	for (char *p = buf, *end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		/* The line as fgets gives it: with its newline. */
		char *line = p, *e = nl ? nl + 1 : end;
		p = e;
		if ((size_t)(e - line) > KEY_MAX || memchr(line, '\0', (size_t)(e - line)))
			return -EBADMSG;
		if (!((line[0] >= 'a' && line[0] <= 'z') || (line[0] >= 'A' && line[0] <= 'Z')))
			continue;
		char *base = e;
		while (base > line && base[-1] != '/')
			base--;
		if (base == e)
			return -EBADMSG;
		size_t n = modname_of(base, (size_t)(e - base), base);
		if (xtab_add(t, base, n, "", 0, 0) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* depmod's flush_stream_to over buf: the length kept when the segment
 * ended at endc, else 0 (it ended at a NUL, the end, or overflowed). */
static size_t stream_segment(const char *buf, size_t len, size_t *pos, bool *eof, char endc)
{
	size_t i = 0;
	int c;

	for (;;) {
		c = *pos < len ? (unsigned char)buf[(*pos)++] : (*eof = true, -1);
		if (c == -1 || c == (unsigned char)endc || c == '\0' || i >= KEY_MAX + 1)
			break;
		i++;
	}
	if (i == KEY_MAX + 1)
		i--;
	return c == (unsigned char)endc ? i : 0;
}

/* modules.builtin.modinfo as depmod's output_builtin_alias_bin reads it. */
static int builtin_modinfo_add(struct xtab *t, char *buf, size_t len)
{
	size_t pos = 0;
	bool eof = false;

	while (!eof) {
		const char *mod = buf + pos;
		size_t mlen = stream_segment(buf, len, &pos, &eof, '.');
		if (!mlen)
			continue;
		const char *key = buf + pos;
		size_t klen = stream_segment(buf, len, &pos, &eof, '=');
		if (klen != 5 || memcmp(key, "alias", 5)) {
			/* depmod's flush_stream: to the next NUL. */
			while (!eof) {
				int c = pos < len ? (unsigned char)buf[pos++] : (eof = true, -1);
				if (c == '\0')
					break;
			}
			continue;
		}
		char *alias = buf + pos;
		size_t alen = stream_segment(buf, len, &pos, &eof, '\0');
		if (!alen)
			continue;
		long n = alias_normalize_in_place(alias, alen);
		if (n == -EINVAL)
			continue;
		if (n < 0 || xtab_add(t, alias, (size_t)n, mod, mlen, 0) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* A node still to walk: its offset and flags, and its key's length so far
 * (its parent's key, then ch unless it is the root). */
struct frame {
	uint32_t ref, keylen;
	unsigned char ch;
};

/* Takes every entry of a checked index off t: -EBADMSG at one t lacks, or
 * at a node whose values are not in priority order; -ENOMEM. */
static int index_take_all(const unsigned char *d, size_t len, const struct xset *t)
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
		if (f.ref & NODE_VALUES) {
			uint32_t count = be32(d + p), prev = 0;
			p += 4;
			for (uint32_t i = 0; i < count; i++) {
				uint32_t prio = be32(d + p);
				const char *v = (const char *)d + p + 4;
				size_t vlen = strlen(v);
				if (prio < prev || !xset_take(t, key, klen, v, vlen, prio))
					goto out;
				prev = prio;
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

/*
 * Index i (checked, in d) against its text: 0 when it holds exactly what
 * the text says; -EBADMSG when not; else the -errno of reading the text,
 * or -ENOMEM. *text names the text file concerned.
 */
static int index_match_text(struct xcheck *x, size_t i, const unsigned char *d, size_t len,
			    const char **text)
{
	struct xtab t = { 0 };
	struct xlist l = { 0 };
	struct xset set = { .tab = &t };
	char *buf = NULL;
	size_t tlen = 0, added, taken;
	int err;

	*text = text_names[i];
	if (i == IDX_DEP || i == IDX_ALIAS || i == IDX_SYMBOLS) {
		err = deptext_load(x);
		if (err < 0) {
			*text = text_names[IDX_DEP];
			return err;
		}
		set = (struct xset){ .list = &l };
	}
	if (i == IDX_DEP) {
		err = xlist_init(&l, x->dep.nlines, (uint32_t)x->dep.nlines);
		for (size_t n = 0; !err && n < x->dep.nlines; n++) {
			const struct depline *dl = &x->dep.lines[n];
			err = xlist_add(&l, dl->name, dl->nlen, dl->line, dl->len, (uint32_t)n);
		}
	} else {
		err = text_read(x->dir, text_names[i], &buf, &tlen);
		/* Records end in a newline, or in modules.builtin.modinfo a NUL. */
		char end = i == IDX_BUILTIN_ALIAS ? '\0' : '\n';
		size_t max = err ? 0 : count_byte(buf, tlen, end) + 1;
		if (!err && set.list)
			err = xlist_init(&l, max, (uint32_t)x->dep.nlines);
		else if (!err)
			err = xtab_init(&t, max);
		if (!err && (i == IDX_ALIAS || i == IDX_SYMBOLS))
			err = alias_lines_add(&l, &x->dep, buf, tlen, i == IDX_SYMBOLS);
		else if (!err && i == IDX_BUILTIN)
			err = builtin_lines_add(&t, buf, tlen);
		else if (!err)
			err = builtin_modinfo_add(&t, buf, tlen);
	}
	if (!err && set.list)
		err = xlist_group(&l);
	if (!err)
		err = index_take_all(d, len, &set);
	added = set.list ? l.n : t.added;
	taken = set.list ? l.taken : t.taken;
	if (!err && taken != added)
		err = -EBADMSG;
	free(t.slot);
	xlist_free(&l);
	free(buf);
	return err;
}

int index_confirms_text(const char *dir, const char *text_name)
{
	struct xcheck x = { .dir = dir };
	char path[PATH_MAX];
	unsigned char *bin;
	const char *text;
	size_t i = 0, len;
	int err;

	while (i < INDEX_COUNT && strcmp(text_names[i], text_name))
		i++;
	if (i == INDEX_COUNT)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, index_names[i]) >= sizeof(path))
		return -ENAMETOOLONG;
	err = index_read_checked(path, &bin, &len);
	if (err == -ENOENT)
		return err;
	if (err == 0) {
		err = index_match_text(&x, i, bin, len, &text);
		free(bin);
		deptext_free(&x.dep);
	}
	/* What a read itself could not do is said as it is; anything else
	 * (a text missing, a mismatch, a damaged index) confirms nothing. */
	if (err == 0 || err == -ENOMEM || err == -EIO || err == -EACCES)
		return err;
	return -ESTALE;
}

#if MODROT_INDEX_CHECK
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
