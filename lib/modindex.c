// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * depmod's binary indexes (modules.dep.bin and the four others libkmod 30
 * opens), checked before libkmod reads them: libkmod trusts every offset,
 * length and count in them, and a flipped bit in one crashes or hangs it.
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
 * What depmod writes is checked as strictly as it is written: each node
 * lies inside the file, after the header, below its parent; the nodes
 * cover every byte after the header exactly once (so no node is read
 * twice, no offset points into another node, and nothing trails); each
 * string ends inside its node; child characters are 1..127 with the first
 * and last child present. A file passing this is one libkmod 30 reads
 * without leaving it, in time linear in its size.
 *
 * When an index fails, rot_moddir_open() builds a private view of the
 * module directory without it: libkmod then behaves as when depmod never
 * wrote that index (lookups through it find nothing), as it does for any
 * index missing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

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
};

/* Claims [start, end) for one node: -EINVAL when a byte was claimed. */
static int claim(struct index_walk *w, size_t start, size_t end)
{
	for (size_t i = start; i < end; i++) {
		unsigned char bit = (unsigned char)(1u << (i & 7));
		if (w->claimed[i >> 3] & bit)
			return -EINVAL;
		w->claimed[i >> 3] |= bit;
	}
	return 0;
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
			/* Post-order: a child lies below its parent. */
			if ((child & NODE_MASK) >= off)
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

int rot_index_check(const void *data, size_t len)
{
	struct index_walk w = { .data = data, .len = len };
	uint32_t *stack = NULL;
	size_t *depths = NULL, top = 0, end;
	int err = -EINVAL;

	if (len < INDEX_HEADER || len > ROT_INDEX_SIZE_MAX)
		return len > ROT_INDEX_SIZE_MAX ? -EFBIG : -EINVAL;
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
	/* The root is written last: it ends the file. */
	err = check_node(&w, root, stack, &top, &end);
	if (err < 0)
		goto out;
	err = -EINVAL;
	if (end != len)
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
	for (size_t i = INDEX_HEADER; i < len; i++)
		if (!(w.claimed[i >> 3] & (1u << (i & 7))))
			goto out;
	err = 0;
out:
	free(w.claimed);
	free(stack);
	free(depths);
	return err;
}

int rot_index_check_file(const char *path)
{
	struct stat st;
	unsigned char *buf = NULL;
	size_t got = 0;
	int err;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode))
		goto out;
	/* libkmod reads an empty file as no index, safely: so do we. */
	err = -ENODATA;
	if (st.st_size == 0)
		goto out;
	err = -EFBIG;
	if ((uintmax_t)st.st_size > ROT_INDEX_SIZE_MAX)
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
	err = got == (size_t)st.st_size ? rot_index_check(buf, got) : -EINVAL;
out:
	free(buf);
	close(fd);
	return err;
}

struct rot_moddir {
	char *original; /* the module directory asked for; NULL: libkmod's default */
	char *private;  /* the view without the rejected indexes, or NULL */
	const char *rejected[INDEX_COUNT];
	int rejected_err[INDEX_COUNT];
	size_t nrejected;
	char mapped[PATH_MAX];
};

/* libkmod 30's default: /lib/modules/RELEASE of the running kernel. */
static char *default_moddir(void)
{
	struct utsname u;
	char *s;

	if (uname(&u) < 0)
		return NULL;
	if (asprintf(&s, "/lib/modules/%s", u.release) < 0)
		return NULL;
	return s;
}

static bool is_rejected(const struct rot_moddir *d, const char *name)
{
	for (size_t i = 0; i < d->nrejected; i++)
		if (strcmp(d->rejected[i], name) == 0)
			return true;
	return false;
}

/* Removes the private view's links and the view itself. */
static void remove_view(const char *view)
{
	DIR *dir = opendir(view);
	struct dirent *e;

	if (dir) {
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(dir), e->d_name, 0);
		closedir(dir);
	}
	rmdir(view);
}

/* A directory of links to every entry of original but the rejected ones. */
static int make_view(struct rot_moddir *d, const char *original)
{
	const char *tmp = getenv("TMPDIR");
	char target[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int err = 0;

	if (asprintf(&d->private, "%s/modrot-moddir.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		d->private = NULL;
		return -ENOMEM;
	}
	if (!mkdtemp(d->private)) {
		err = -errno;
		free(d->private);
		d->private = NULL;
		return err;
	}
	dir = opendir(original);
	if (!dir) {
		err = -errno;
		goto fail;
	}
	errno = 0;
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_rejected(d, e->d_name))
			continue;
		if ((size_t)snprintf(target, sizeof(target), "%s/%s", original, e->d_name) >=
		    sizeof(target)) {
			err = -ENAMETOOLONG;
			break;
		}
		char link[PATH_MAX];
		if ((size_t)snprintf(link, sizeof(link), "%s/%s", d->private, e->d_name) >=
		    sizeof(link)) {
			err = -ENAMETOOLONG;
			break;
		}
		if (symlink(target, link) < 0) {
			err = -errno;
			break;
		}
		errno = 0;
	}
	if (!err && errno)
		err = -errno;
	closedir(dir);
	if (!err)
		return 0;
fail:
	remove_view(d->private);
	free(d->private);
	d->private = NULL;
	return err;
}

int rot_moddir_open(const char *dirname, struct rot_moddir **out)
{
	struct rot_moddir *d = calloc(1, sizeof(*d));
	char *probe = NULL, path[PATH_MAX];
	int err = -ENOMEM;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	if (dirname && !(d->original = strdup(dirname)))
		goto fail;
	probe = dirname ? d->original : default_moddir();
	if (!probe)
		goto fail;
	for (size_t i = 0; i < INDEX_COUNT; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", probe, index_names[i]) >=
		    sizeof(path)) {
			err = -ENAMETOOLONG;
			goto fail;
		}
		int e = rot_index_check_file(path);
		/* Missing, or unreadable to us and so to libkmod: its own case. */
		if (e == 0 || e == -ENOENT || e == -ENODATA || e == -EACCES || e == -ENOTDIR)
			continue;
		/* Only what is not an index is left out; a failed read (EIO) or
		 * out of memory is the caller's error, not a missing index. */
		if (e != -EINVAL && e != -EFBIG) {
			err = e;
			goto fail;
		}
		d->rejected[d->nrejected] = index_names[i];
		d->rejected_err[d->nrejected++] = e;
	}
	if (d->nrejected) {
		err = make_view(d, probe);
		if (err < 0)
			goto fail;
		if (!d->original) {
			d->original = probe;
			probe = NULL;
		}
	}
	if (probe != d->original)
		free(probe);
	*out = d;
	return 0;
fail:
	if (probe != d->original)
		free(probe);
	/* The rejected names stay readable for the caller's message. */
	free(d->original);
	free(d);
	return err;
}

const char *rot_moddir_path(const struct rot_moddir *d)
{
	return d->private ? d->private : d->original;
}

size_t rot_moddir_rejected_count(const struct rot_moddir *d)
{
	return d->nrejected;
}

const char *rot_moddir_rejected(const struct rot_moddir *d, size_t i, int *err)
{
	if (i >= d->nrejected)
		return NULL;
	if (err)
		*err = d->rejected_err[i];
	return d->rejected[i];
}

const char *rot_moddir_original(const struct rot_moddir *d)
{
	return d->original;
}

const char *rot_moddir_unmap(struct rot_moddir *d, const char *path)
{
	size_t n;

	if (!d || !d->private || !path)
		return path;
	n = strlen(d->private);
	if (strncmp(path, d->private, n) != 0 || (path[n] != '/' && path[n] != '\0'))
		return path;
	if ((size_t)snprintf(d->mapped, sizeof(d->mapped), "%s%s", d->original, path + n) >=
	    sizeof(d->mapped))
		return path;
	return d->mapped;
}

void rot_moddir_close(struct rot_moddir *d)
{
	if (!d)
		return;
	if (d->private) {
		remove_view(d->private);
		free(d->private);
	}
	free(d->original);
	free(d);
}
