// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's binary indexes (modules.dep.bin and the four others libkmod
 * opens): checked before libkmod 30 to 33 reads them, since those releases
 * trust every offset, length and count in an index (kmod 34 bounded its
 * reader: docs/architecture.md), and walked for modprobe -c and the in-use
 * rule (which uses them whatever libkmod the tools use).
 *
 * The format (kmod 30, tools/depmod.c): a header of three big-endian
 * 32-bit words (magic 0xB007F457, version 2.1, the root node's offset),
 * then the trie's nodes. A node offset carries flags in its top nibble
 * saying which parts follow at offset & 0x0FFFFFFF: a NUL-terminated
 * prefix; a first and a last child character and last - first + 1 child
 * offsets (0 for none); a value count and that many (priority,
 * NUL-terminated string) pairs.
 *
 * The check is one walk of the trie: each node lies inside the file, after
 * the header, on one side of its parent; the nodes cover every byte after
 * the header exactly once (so no node is shared or read twice, and nothing
 * trails); each string ends inside the file; child characters are 1..127
 * with the first and last child present. libkmod 30 reads a file passing
 * this without leaving it, in time linear in its size.
 */
#include <errno.h>
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
	size_t claimed_bytes;   /* no byte is claimed twice: all of them, when len - header */
	/* depmod up to kmod 33 writes each node after its children, the root
	 * last; kmod 34's writes each node before its children, the root
	 * first. Either way every child lies on one side of its parent, which
	 * is what rules out a cycle. */
	bool preorder;
};

/* Claims bit i of the map: false when it was claimed already. */
static bool claim_bit(unsigned char *map, size_t i)
{
	unsigned char bit = (unsigned char)(1u << (i & 7)), was = map[i >> 3] & bit;
	map[i >> 3] |= bit;
	return !was;
}

/* Claims [start, end) for one node: -EINVAL when a byte was claimed. A
 * byte of the bitmap at a time where the range covers it whole, since a
 * big tree's indexes are megabytes. */
static int claim(struct index_walk *w, size_t start, size_t end)
{
	w->claimed_bytes += end - start;
	for (; start < end && (start & 7); start++)
		if (!claim_bit(w->claimed, start))
			return -EINVAL;
	if (start >= end)
		return 0;
	size_t first = start >> 3, last = end >> 3;
	for (size_t b = first; b < last; b++)
		if (w->claimed[b])
			return -EINVAL;
	memset(w->claimed + first, 0xff, last - first);
	for (start = last << 3; start < end; start++)
		if (!claim_bit(w->claimed, start))
			return -EINVAL;
	return 0;
}

/* The end of the string at p, which must end inside the file; 0 if it does not. */
static size_t string_end(const struct index_walk *w, size_t p)
{
	const unsigned char *nul = memchr(w->data + p, '\0', w->len - p);
	return nul ? (size_t)(nul - w->data) + 1 : 0;
}

/* A node still to check: its offset and flags, and its depth (the root's is 0). */
struct pending {
	uint32_t ref, depth;
};

/* Checks node n, claims its bytes and pushes its children onto stack;
 * *end_out is where the node ends. */
static int check_node(struct index_walk *w, struct pending n, struct pending *stack, size_t *top,
		      size_t *end_out)
{
	size_t off = n.ref & NODE_MASK, p;

	if (n.ref & NODE_UNKNOWN || off < INDEX_HEADER || off >= w->len)
		return -EINVAL;
	p = off;
	if (n.ref & NODE_PREFIX) {
		size_t e = string_end(w, p);
		if (!e || e == p + 1)
			return -EINVAL;
		p = e;
	}
	if (n.ref & NODE_CHILDS) {
		if (w->len - p < 2)
			return -EINVAL;
		unsigned first = w->data[p], last = w->data[p + 1];
		if (first < 1 || last > 127 || first > last)
			return -EINVAL;
		size_t nchild = last - first + 1u;
		p += 2;
		if ((w->len - p) / 4 < nchild)
			return -EINVAL;
		for (size_t i = 0; i < nchild; i++) {
			uint32_t child = be32(w->data + p + 4 * i);
			if (!child) {
				if (i == 0 || i == nchild - 1)
					return -EINVAL;
				continue;
			}
			/* A child lies below its parent (post-order) or
			 * above it (pre-order), as the root's place says. */
			if (w->preorder ? (child & NODE_MASK) <= off : (child & NODE_MASK) >= off)
				return -EINVAL;
			stack[(*top)++] = (struct pending){ child, n.depth + 1 };
		}
		p += 4 * nchild;
	}
	if (n.ref & NODE_VALUES) {
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
			size_t e = string_end(w, p + 4);
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
	struct pending *stack = NULL;
	size_t top = 0, end;
	int err = -EINVAL;

	if (len < INDEX_HEADER || len > INDEX_SIZE_MAX)
		return len > INDEX_SIZE_MAX ? -EFBIG : -EINVAL;
	if (be32(w.data) != INDEX_MAGIC || be32(w.data + 4) != INDEX_VERSION)
		return -EINVAL;

	uint32_t root = be32(w.data + 8);
	/* An empty trie: a root of no bytes at the end of the header. */
	if (len == INDEX_HEADER)
		return root == INDEX_HEADER ? 0 : -EINVAL;
	w.claimed = calloc(len / 8 + 1, 1);
	/* Children pushed: those of claimed nodes (4 bytes each, claimed once)
	 * and of the one node that fails: at most len / 4 each. */
	size_t stack_max = len / 2 + 2;
	stack = malloc(stack_max * sizeof(*stack));
	if (!w.claimed || !stack) {
		err = -ENOMEM;
		goto out;
	}
	w.preorder = (root & NODE_MASK) == INDEX_HEADER;
	stack[top++] = (struct pending){ root, 0 };
	while (top) {
		struct pending n = stack[--top];
		if (n.depth > INDEX_DEPTH_MAX)
			goto out;
		err = check_node(&w, n, stack, &top, &end);
		if (err < 0)
			goto out;
		err = -EINVAL;
		if (n.depth == 0 && !w.preorder && end != len)
			goto out;
	}
	/* Every byte after the header belongs to exactly one node. */
	if (w.claimed_bytes != len - INDEX_HEADER)
		goto out;
	err = 0;
out:
	free(w.claimed);
	free(stack);
	return err;
}

int index_read_checked(const char *path, unsigned char **out, size_t *out_len)
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

/* A node still to walk: its offset and flags, and its key's length so far
 * (its parent's key, then ch unless it is the root). */
struct frame {
	uint32_t ref, keylen;
	unsigned char ch;
};

/* The room to walk an index of up to len bytes, in one allocation: a
 * frame for the root and each child offset (4 bytes each), then the key:
 * its nodes' prefixes, each claimed once, and a byte per level. */
static struct frame *walk_room(size_t len)
{
	return malloc((len / 4 + 1) * sizeof(struct frame) + len + INDEX_DEPTH_MAX + 2);
}

static int walk(const unsigned char *d, size_t len,
		int (*fn)(void *ctx, const char *key, const char *value), void *ctx,
		struct frame *stack)
{
	char *key = (char *)(stack + len / 4 + 1);
	size_t top = 0;
	int err = 0;

	/* An empty trie: a root of no bytes. */
	if (len == INDEX_HEADER)
		return 0;
	stack[top++] = (struct frame){ .ref = be32(d + 8) };
	while (top && !err) {
		struct frame f = stack[--top];
		size_t klen = f.keylen, p = f.ref & NODE_MASK, children = 0;
		if (f.ch)
			key[klen++] = (char)f.ch;
		if (f.ref & NODE_PREFIX) {
			size_t n = strlen((const char *)d + p);
			memcpy(key + klen, d + p, n);
			klen += n;
			p += n + 1;
		}
		key[klen] = '\0';
		if (f.ref & NODE_CHILDS) {
			children = p;
			p += 2 + 4 * (d[p + 1] - d[p] + 1u);
		}
		if (f.ref & NODE_VALUES) {
			uint32_t count = be32(d + p);
			p += 4;
			for (uint32_t i = 0; i < count && !err; i++) {
				const char *v = (const char *)d + p + 4;
				err = fn(ctx, key, v);
				p += 4 + strlen(v) + 1;
			}
		}
		/* The last child is pushed first, so the first is walked first
		 * (a child's character is never 0). */
		for (unsigned c = children ? d[children + 1] : 0; c && c >= d[children]; c--) {
			uint32_t child = be32(d + children + 2 + 4 * (c - d[children]));
			if (child)
				stack[top++] = (struct frame){ .ref = child,
							       .keylen = (uint32_t)klen,
							       .ch = (unsigned char)c };
		}
	}
	return err;
}

int index_walk(const unsigned char *d, size_t len,
	       int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	struct frame *room = walk_room(len);
	int err = room ? walk(d, len, fn, ctx, room) : -ENOMEM;
	free(room);
	return err;
}

int rot_index_foreach(const char *const *paths, size_t n,
		      int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	unsigned char **bufs = calloc(n + 1, sizeof(*bufs));
	size_t *lens = calloc(n + 1, sizeof(*lens));
	int err = bufs && lens ? 0 : -ENOMEM;

	size_t max = 0;
	/* Every index checked, and the room to walk them made, before the
	 * first value goes out: the caller's fallback starts from nothing. */
	for (size_t i = 0; !err && i < n; i++) {
		err = index_read_checked(paths[i], &bufs[i], &lens[i]);
		max = lens[i] > max ? lens[i] : max;
	}
	struct frame *room = err ? NULL : walk_room(max);
	if (!room && !err)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n; i++)
		err = walk(bufs[i], lens[i], fn, ctx, room);
	free(room);
	for (size_t i = 0; bufs && i < n; i++)
		free(bufs[i]);
	free(bufs);
	free(lens);
	return err;
}
