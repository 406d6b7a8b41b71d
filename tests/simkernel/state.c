// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The instance table: create, lock, map, grow, look up.
 *
 * Every change happens between sim_open() and sim_close(), under an
 * exclusive flock on DIR/lock taken through a descriptor opened for that
 * call alone, so two threads of one process exclude each other as two
 * processes do. The state file is changed in place and never replaced:
 * readers keep a mapping of its header to notice new generations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim.h"

#define SIM_ADDR_BASE 0xffffffffc0000000ull
#define SIM_ADDR_END 0xffffffffff000000ull
#define SIM_INITIAL_CAP 256u

size_t sim_path(char *buf, size_t len, const char *dir, const char *rel)
{
	int n = snprintf(buf, len, "%s/%s", dir, rel);
	return (n < 0 || (size_t)n >= len) ? 0 : (size_t)n;
}

int sim_create_state(const char *dir, enum sim_mode mode, const char *release, uint32_t cfgflags,
		     uint32_t reclaim_wait_ms)
{
	char path[PATH_MAX];
	struct sim_header hdr;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, SIM_MAGIC, sizeof(SIM_MAGIC));
	hdr.recsize = sizeof(struct sim_rec);
	hdr.mode = mode;
	hdr.cfgflags = cfgflags;
	hdr.next_id = 1;
	hdr.next_addr = SIM_ADDR_BASE;
	hdr.next_seq = 1;
	hdr.reclaim_wait_ms = reclaim_wait_ms;
	if (strlen(release) >= SIM_RELEASE_LEN)
		return -ENAMETOOLONG;
	strcpy(hdr.release, release);
	snprintf(hdr.vermagic, sizeof(hdr.vermagic), "%s SMP preempt mod_unload modversions ", release);

	if (!sim_path(path, sizeof(path), dir, "state"))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int err = 0;
	if (ftruncate(fd, SIM_HDR_SIZE + (off_t)SIM_INITIAL_CAP * (off_t)sizeof(struct sim_rec)) < 0 ||
	    pwrite(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		err = -errno;
	close(fd);
	return err;
}

/*
 * The mapping of the state file is kept for the life of the process and
 * reused while the file (device, inode, size) is unchanged: mapping and
 * unmapping 2 MB of page tables per call would cost more than the call.
 * Only exclusive holders of the lock use it, and the lock admits one
 * holder at a time, threads included, so it needs no lock of its own.
 */
static struct {
	dev_t dev;
	ino_t ino;
	size_t len;
	void *map;
} cache;

static void sim_set_map(struct sim *s, void *m, size_t len)
{
	s->map = m;
	s->maplen = len;
	s->hdr = m;
	s->recs = (struct sim_rec *)((char *)m + SIM_HDR_SIZE);
	s->cap = (uint32_t)((len - SIM_HDR_SIZE) / sizeof(struct sim_rec));
}

static int sim_map(struct sim *s)
{
	struct stat st;
	if (fstat(s->statefd, &st) < 0)
		return -errno;
	if ((size_t)st.st_size < SIM_HDR_SIZE)
		return -EINVAL;
	size_t len = (size_t)st.st_size;
	if (s->cached && cache.map && cache.dev == st.st_dev && cache.ino == st.st_ino && cache.len == len) {
		sim_set_map(s, cache.map, len);
	} else {
		/* MAP_POPULATE: one batch of page-table work instead of a fault per page */
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->statefd, 0);
		if (m == MAP_FAILED)
			return -errno;
		if (s->cached) {
			if (cache.map)
				munmap(cache.map, cache.len);
			cache.dev = st.st_dev;
			cache.ino = st.st_ino;
			cache.len = len;
			cache.map = m;
		}
		sim_set_map(s, m, len);
	}
	if (memcmp(s->hdr->magic, SIM_MAGIC, sizeof(SIM_MAGIC)) || s->hdr->recsize != sizeof(struct sim_rec))
		return -EINVAL;
	return 0;
}

static void sim_unmap(struct sim *s)
{
	if (s->map && !s->cached)
		munmap(s->map, s->maplen);
	s->map = NULL;
	s->hdr = NULL;
	s->recs = NULL;
}

int sim_remap(struct sim *s)
{
	sim_unmap(s);
	return sim_map(s);
}

int sim_open(struct sim *s, const char *dir, int exclusive)
{
	char path[PATH_MAX];
	int err;

	memset(s, 0, sizeof(*s));
	s->lockfd = s->statefd = s->ledgerfd = -1;
	if (strlen(dir) >= sizeof(s->dir))
		return -ENAMETOOLONG;
	strcpy(s->dir, dir);
	if (!sim_path(path, sizeof(path), dir, "lock"))
		return -ENAMETOOLONG;
	s->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lockfd < 0)
		return -errno;
	/*
	 * The state file and the ledger are never replaced, only changed in
	 * place or appended to, so they are opened before the lock: every
	 * load takes it twice, and what it holds is what other loads wait for.
	 */
	sim_path(path, sizeof(path), dir, "state");
	s->statefd = open(path, O_RDWR | O_CLOEXEC);
	if (s->statefd < 0) {
		err = -errno;
		goto fail;
	}
	if (exclusive) {
		sim_path(path, sizeof(path), dir, "ledger");
		s->ledgerfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (s->ledgerfd < 0) {
			err = -errno;
			goto fail;
		}
	}
	while (flock(s->lockfd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
		if (errno != EINTR) {
			err = -errno;
			goto fail;
		}
	}
	s->cached = exclusive;
	err = sim_map(s);
	if (err)
		goto fail;
	return 0;
fail:
	sim_close(s);
	return err;
}

/* Re-take the lock after sleeping outside it (init and exit delays). */
int sim_relock(struct sim *s)
{
	while (flock(s->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	return sim_remap(s);
}

void sim_unlock(struct sim *s)
{
	sim_unmap(s);
	flock(s->lockfd, LOCK_UN);
}

void sim_close(struct sim *s)
{
	sim_unmap(s);
	if (s->lockfd >= 0)
		close(s->lockfd); /* drops the flock, first: nothing below needs it */
	if (s->statefd >= 0)
		close(s->statefd);
	if (s->ledgerfd >= 0)
		close(s->ledgerfd);
	s->statefd = s->ledgerfd = s->lockfd = -1;
}

static int sim_grow(struct sim *s)
{
	off_t newsize = SIM_HDR_SIZE + (off_t)s->cap * 2 * (off_t)sizeof(struct sim_rec);
	if (ftruncate(s->statefd, newsize) < 0)
		return -errno;
	return sim_remap(s);
}

/* Returns the new record; pointers into the table taken before are stale. */
struct sim_rec *sim_append(struct sim *s, const struct sim_rec *r)
{
	struct sim_rec copy = *r;
	if (s->hdr->count == s->cap && sim_grow(s) < 0)
		return NULL;
	struct sim_rec *n = &s->recs[s->hdr->count++];
	*n = copy;
	return n;
}

void sim_free_slot(struct sim *s, struct sim_rec *r)
{
	memset(r, 0, sizeof(*r));
	s->hdr->nfree++;
}

void sim_compact(struct sim *s)
{
	if (s->hdr->nfree < 64 || s->hdr->nfree * 2 < s->hdr->count)
		return;
	uint32_t out = 0;
	for (uint32_t i = 0; i < s->hdr->count; i++) {
		if (s->recs[i].kind == SIM_FREE)
			continue;
		if (out != i)
			s->recs[out] = s->recs[i];
		out++;
	}
	memset(&s->recs[out], 0, (size_t)(s->hdr->count - out) * sizeof(struct sim_rec));
	s->hdr->count = out;
	s->hdr->nfree = 0;
}

struct sim_rec *sim_find_live(struct sim *s, const char *name)
{
	for (uint32_t i = s->hdr->count; i-- > 0;) {
		struct sim_rec *r = &s->recs[i];
		if (r->kind == SIM_LIVE && r->name[0] == name[0] && !strcmp(r->name, name))
			return r;
	}
	return NULL;
}

/* Live records sit in ascending id order: they never move but to compact. */
struct sim_rec *sim_find_live_id(struct sim *s, uint32_t id)
{
	for (uint32_t i = s->hdr->count; i-- > 0;) {
		struct sim_rec *r = &s->recs[i];
		if (r->kind == SIM_LIVE && r->id == id)
			return r;
	}
	return NULL;
}

int sim_has_holders(struct sim *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->hdr->count; i++) {
		const struct sim_rec *r = &s->recs[i];
		if (r->kind != SIM_LIVE)
			continue;
		for (unsigned d = 0; d < r->ndeps; d++)
			if (r->deps[d] == id)
				return 1;
	}
	return 0;
}

static unsigned sim_count_holders(struct sim *s, uint32_t id)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < s->hdr->count; i++) {
		const struct sim_rec *r = &s->recs[i];
		if (r->kind != SIM_LIVE)
			continue;
		for (unsigned d = 0; d < r->ndeps; d++)
			n += r->deps[d] == id;
	}
	return n;
}

/* module_refcount(): 0 under rot; holders plus extra references in stock. */
unsigned sim_refcnt(struct sim *s, const struct sim_rec *r)
{
	if (s->hdr->mode == SIM_MODE_ROT)
		return 0;
	return sim_count_holders(s, r->id) + (unsigned)(r->refs > 0 ? r->refs : 0);
}

uint64_t sim_alloc_addr(struct sim *s, uint64_t bytes)
{
	uint64_t size = (bytes + 4095) & ~4095ull;
	if (size == 0)
		size = 4096;
	if (s->hdr->next_addr + size > SIM_ADDR_END || s->hdr->next_addr + size < s->hdr->next_addr)
		return 0;
	uint64_t a = s->hdr->next_addr;
	s->hdr->next_addr += size;
	return a;
}

/*
 * Readers map the header page once per process and compare generations from
 * memory: a mapping survives a program that closes every descriptor.
 */
int sim_header_map(const char *dir, const struct sim_header **hdr)
{
	char path[PATH_MAX];
	if (!sim_path(path, sizeof(path), dir, "state"))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	void *m = mmap(NULL, SIM_HDR_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	int err = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (memcmp(((const struct sim_header *)m)->magic, SIM_MAGIC, sizeof(SIM_MAGIC))) {
		munmap(m, SIM_HDR_SIZE);
		return -EINVAL;
	}
	*hdr = m;
	return 0;
}
