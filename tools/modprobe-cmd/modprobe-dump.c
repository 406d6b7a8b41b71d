// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe -c's alias and symbol indexes, written as libkmod 30's
 * kmod_dump_index() writes them ("alias KEY VALUE" per value, the trie
 * walked depth first, children in character order), but through stdout's
 * buffer: libkmod writes each piece with its own write(2), four per line,
 * 160,000 system calls for a distribution's tree.
 *
 * The format is depmod's (lib/modindex.c describes it). An image is
 * walked twice: once to check that every node, string and child lies
 * inside it, below its parent, no deeper than any key nests, and visited
 * no more often than it has bytes (a node two parents share would be
 * dumped twice, as libkmod does, but not without bound); then to write.
 * An image that fails the first walk is left to libkmod, which the caller
 * asks instead: nothing has been written by then.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modprobe.h"

#define DUMP_MAGIC 0xB007F457u
#define DUMP_VERSION 0x00020001u
#define DUMP_HEADER 12u
#define DUMP_PREFIX 0x80000000u
#define DUMP_VALUES 0x40000000u
#define DUMP_CHILDS 0x20000000u
#define DUMP_UNKNOWN 0x10000000u
#define DUMP_MASK 0x0FFFFFFFu
#define DUMP_DEPTH_MAX 4096
/* Larger than any index depmod writes. */
#define DUMP_SIZE_MAX (64u << 20)

struct dump_frame {
	size_t off;      /* the node's: its children lie below it */
	size_t children; /* offset of the child offsets */
	unsigned first, next, last;
	size_t key_len; /* the key's length before this node's prefix (after its character) */
};

struct dump {
	const unsigned char *d;
	size_t len;
	char *key; /* the key so far: len bytes are enough, each byte comes from the image */
	size_t key_len;
	size_t visits;
	FILE *out; /* NULL: the checking walk */
};

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The end (past the NUL) of the string at p, or 0 when it runs off the image. */
static size_t str_end(const struct dump *w, size_t p)
{
	const unsigned char *nul = p < w->len ? memchr(w->d + p, '\0', w->len - p) : NULL;
	return nul ? (size_t)(nul - w->d) + 1 : 0;
}

/* Enters the node ref refers to (below parent): its prefix joins the key,
 * its values are written, its children set up in *f. */
static int enter(struct dump *w, uint32_t ref, size_t parent, const char *prefix,
		 struct dump_frame *f)
{
	size_t off = ref & DUMP_MASK, p;
	if (ref & DUMP_UNKNOWN || off < DUMP_HEADER || off >= parent || ++w->visits > w->len)
		return -EINVAL;
	f->off = off;
	f->key_len = w->key_len;
	p = off;
	if (ref & DUMP_PREFIX) {
		size_t e = str_end(w, p);
		if (!e || w->key_len + (e - 1 - p) > w->len)
			return -EINVAL;
		memcpy(w->key + w->key_len, w->d + p, e - 1 - p);
		w->key_len += e - 1 - p;
		p = e;
	}
	f->first = 1;
	f->next = 1;
	f->last = 0; /* no children */
	if (ref & DUMP_CHILDS) {
		if (w->len - p < 2)
			return -EINVAL;
		f->first = f->next = w->d[p];
		f->last = w->d[p + 1];
		if (f->first > f->last || (w->len - p - 2) / 4 < f->last - f->first + 1u)
			return -EINVAL;
		f->children = p + 2;
		p += 2 + 4 * (f->last - f->first + 1u);
	}
	if (ref & DUMP_VALUES) {
		if (w->len - p < 4)
			return -EINVAL;
		uint32_t count = rd32(w->d + p);
		p += 4;
		for (uint32_t i = 0; i < count; i++) {
			size_t e = w->len - p >= 4 ? str_end(w, p + 4) : 0;
			if (!e)
				return -EINVAL;
			if (w->out) { /* locked once, by the writing walk */
				fwrite_unlocked(prefix, 1, strlen(prefix), w->out);
				fwrite_unlocked(w->key, 1, w->key_len, w->out);
				putc_unlocked(' ', w->out);
				fwrite_unlocked(w->d + p + 4, 1, e - 1 - (p + 4), w->out);
				putc_unlocked('\n', w->out);
			}
			p = e;
		}
	}
	return 0;
}

/* One walk of the image: checking (w->out NULL) or writing. */
static int walk(struct dump *w, const char *prefix, struct dump_frame *stack)
{
	size_t depth = 0;
	w->key_len = 0;
	w->visits = 0;
	int err = enter(w, rd32(w->d + 8), w->len, prefix, &stack[0]);
	while (err == 0) {
		struct dump_frame *f = &stack[depth];
		if (f->next > f->last) {
			if (depth == 0)
				return 0;
			/* back to the parent's key: without the character that led here */
			w->key_len = f->key_len - 1;
			depth--;
			continue;
		}
		unsigned ch = f->next++;
		uint32_t child = rd32(w->d + f->children + 4 * (ch - f->first));
		if (!child)
			continue;
		if (depth + 1 >= DUMP_DEPTH_MAX || w->key_len >= w->len)
			return -EINVAL;
		w->key[w->key_len++] = (char)ch;
		err = enter(w, child, f->off, prefix, &stack[depth + 1]);
		depth++;
	}
	return err;
}

/* The index name (modules.alias.bin) in dir, read: 0, or -errno. */
static int dump_read(const char *dir, const char *name, unsigned char **d, size_t *len)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return rot_file_read(path, DUMP_SIZE_MAX, (char **)d, len);
}

int mp_dump_indexes_fast(const char *dir, FILE *out)
{
	static const char *const names[] = { "modules.alias.bin", "modules.symbols.bin" };
	struct dump w[2] = { { 0 } };
	struct dump_frame *stack = malloc(DUMP_DEPTH_MAX * sizeof(*stack));
	int err = stack ? 0 : -ENOMEM;
	for (size_t i = 0; err == 0 && i < 2; i++) {
		err = dump_read(dir, names[i], (unsigned char **)&w[i].d, &w[i].len);
		if (err == 0 && (w[i].len <= DUMP_HEADER || rd32(w[i].d) != DUMP_MAGIC ||
				 rd32(w[i].d + 4) != DUMP_VERSION))
			err = -EINVAL;
		if (err == 0 && !(w[i].key = malloc(w[i].len)))
			err = -ENOMEM;
		if (err == 0)
			err = walk(&w[i], "alias ", stack);
	}
	if (err == 0)
		flockfile(out);
	for (size_t i = 0; err == 0 && i < 2; i++) {
		w[i].out = out;
		err = walk(&w[i], "alias ", stack);
	}
	if (w[0].out)
		funlockfile(out);
	for (size_t i = 0; i < 2; i++) {
		free((void *)w[i].d);
		free(w[i].key);
	}
	free(stack);
	return err;
}
