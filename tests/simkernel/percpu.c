// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-CPU module reserve: what Linux 6.1's percpu_modalloc() takes a
 * module's .data..percpu area from (PERCPU_MODULE_RESERVE, the first
 * chunk's reserved region, 8 KiB on x86_64). Sizes are per CPU.
 *
 * The allocator is modelled as the kernel's reserved chunk behaves for
 * what modules ask of it: 4-byte units (PCPU_MIN_ALLOC_SIZE), an alignment
 * of at least 4, the first free extent that holds the aligned area. A
 * rotting instance keeps its area; only a free (stock unload, stock failed
 * init) or a reclaim gives it back. So the same load fails at the same
 * point as on the real kernel, and /proc/module_percpu shows why.
 *
 * A reclaim gives an area back as the rot kernel's guard does (rot-abi.md
 * R15): the area is held, counted free, but a load takes it only when the
 * aligned area fits nowhere else, and then the oldest held areas go first,
 * one at a time, until it fits. Placement, FREE and LARGEST are therefore
 * the real kernel's after reclaims too. The poison is not modelled.
 *
 * The map lives in DIR/percpu, read and written under the state lock by
 * loads and frees of modules that have per-CPU data (SIM_F_PERCPU) only:
 *
 *     reserve SIZE
 *     ID OFFSET BYTES SIZE   one per area, by offset: BYTES allocated, SIZE the section's
 *     0 OFFSET BYTES SIZE N  a held area, the Nth held (oldest lowest)
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PCPU_MIN_ALLOC 4u
#define PCPU_PAGE_SIZE 4096u
#define PCPU_MIN_UNIT_SIZE (32u << 10) /* the largest area pcpu_alloc() hands out */

static int map_path(const char *dir, char *path, size_t len)
{
	return sim_path(path, len, dir, "percpu") ? 0 : -ENAMETOOLONG;
}

int sim_percpu_create(const char *dir, uint32_t reserve)
{
	char path[PATH_MAX], text[32];
	int err = map_path(dir, path, sizeof(path));
	if (err)
		return err;
	snprintf(text, sizeof(text), "reserve %" PRIu32 "\n", reserve);
	return sim_write_atomic(path, text, strlen(text));
}

void sim_percpu_map_free(struct sim_pcpu_map *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int map_push(struct sim_pcpu_map *m, struct sim_pcpu_area a, uint32_t at)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 16;
		struct sim_pcpu_area *v = realloc(m->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	memmove(&m->v[at + 1], &m->v[at], (m->n - at) * sizeof(*m->v));
	m->v[at] = a;
	m->n++;
	return 0;
}

int sim_percpu_read(const char *dir, struct sim_pcpu_map *m)
{
	char path[PATH_MAX];
	memset(m, 0, sizeof(*m));
	int err = map_path(dir, path, sizeof(path));
	if (err)
		return err;
	char *text = sim_read_file(path, NULL);
	if (!text)
		return errno == ENOENT ? 0 : -errno; /* a state made before the reserve: none */
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save);
	if (!line || sscanf(line, "reserve %" SCNu32, &m->reserve) != 1)
		err = -EINVAL;
	for (line = strtok_r(NULL, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save)) {
		struct sim_pcpu_area a = { 0 };
		int got = sscanf(line, "%" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32, &a.id, &a.off,
				 &a.bytes, &a.size, &a.held);
		if (got != 4 && got != 5)
			err = -EINVAL;
		else
			err = map_push(m, a, m->n);
	}
	free(text);
	if (err)
		sim_percpu_map_free(m);
	return err;
}

static int map_write(const char *dir, const struct sim_pcpu_map *m)
{
	char path[PATH_MAX];
	int err = map_path(dir, path, sizeof(path));
	if (err)
		return err;
	size_t cap = 32 + (size_t)m->n * 48, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n += (size_t)snprintf(buf, cap, "reserve %" PRIu32 "\n", m->reserve);
	for (uint32_t i = 0; i < m->n; i++) {
		n += (size_t)snprintf(buf + n, cap - n, "%" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32,
				      m->v[i].id, m->v[i].off, m->v[i].bytes, m->v[i].size);
		if (m->v[i].held)
			n += (size_t)snprintf(buf + n, cap - n, " %" PRIu32, m->v[i].held);
		buf[n++] = '\n';
	}
	err = sim_write_atomic(path, buf, n);
	free(buf);
	return err;
}

/* Held areas count as free: a load that needs them gets them. */
uint32_t sim_percpu_free_bytes(const struct sim_pcpu_map *m, uint32_t *largest)
{
	uint32_t used = 0, end = 0, big = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		if (m->v[i].held)
			continue;
		used += m->v[i].bytes;
		if (m->v[i].off - end > big)
			big = m->v[i].off - end;
		end = m->v[i].off + m->v[i].bytes;
	}
	if (m->reserve - end > big)
		big = m->reserve - end;
	if (largest)
		*largest = big;
	return m->reserve - used;
}

const struct sim_pcpu_area *sim_percpu_find(const struct sim_pcpu_map *m, uint32_t id)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!m->v[i].held && m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

/*
 * pcpu_alloc() for the reserved chunk: the size in 4-byte units, the
 * alignment at least 4 (percpu_modalloc() first caps it at a page), the
 * first extent that fits. Sets *slot to the index the area goes in.
 * -ENOMEM as the kernel's percpu_modalloc() fails: a size of nothing
 * sensible, an alignment not a power of two, or no room.
 */
static uint64_t effective_align(uint64_t align)
{
	if (align > PCPU_PAGE_SIZE)
		return PCPU_PAGE_SIZE;
	return align < PCPU_MIN_ALLOC ? PCPU_MIN_ALLOC : align;
}

/* What pcpu_alloc() refuses whatever is free. */
static bool illegal(uint64_t size, uint64_t align)
{
	align = effective_align(align);
	return size > PCPU_MIN_UNIT_SIZE || (align & (align - 1));
}

static int find_fit(const struct sim_pcpu_map *m, uint64_t size, uint64_t align, struct sim_pcpu_area *a,
		    uint32_t *slot)
{
	if (illegal(size, align))
		return -ENOMEM;
	align = effective_align(align);
	uint32_t bytes = (uint32_t)((size + PCPU_MIN_ALLOC - 1) & ~(uint64_t)(PCPU_MIN_ALLOC - 1));
	uint64_t start = 0;
	for (uint32_t i = 0; i <= m->n; i++) {
		uint64_t end = i < m->n ? m->v[i].off : m->reserve;
		uint64_t at = (start + align - 1) & ~(align - 1);
		if (at + bytes <= end) {
			a->off = (uint32_t)at;
			a->bytes = bytes;
			a->size = (uint32_t)size;
			*slot = i;
			return 0;
		}
		if (i < m->n)
			start = (uint64_t)m->v[i].off + m->v[i].bytes;
	}
	return -ENOMEM;
}

static void map_remove(struct sim_pcpu_map *m, uint32_t at)
{
	memmove(&m->v[at], &m->v[at + 1], (m->n - at - 1) * sizeof(*m->v));
	m->n--;
}

/* Gives the oldest held area back; false when none is held. */
static bool release_oldest(struct sim_pcpu_map *m)
{
	uint32_t oldest = UINT32_MAX;
	for (uint32_t i = 0; i < m->n; i++)
		if (m->v[i].held && (oldest == UINT32_MAX || m->v[i].held < m->v[oldest].held))
			oldest = i;
	if (oldest == UINT32_MAX)
		return false;
	map_remove(m, oldest);
	return true;
}

/*
 * find_fit(), giving held areas back oldest first until the area fits; a
 * request the allocator refuses whatever is free gives nothing back.
 */
static int find_fit_releasing(struct sim_pcpu_map *m, uint64_t size, uint64_t align, struct sim_pcpu_area *a,
			      uint32_t *slot)
{
	int err;
	while ((err = find_fit(m, size, align, a, slot)) == -ENOMEM && !illegal(size, align) && release_oldest(m))
		;
	return err;
}

int sim_percpu_fits(struct sim *s, uint64_t size, uint64_t align)
{
	if (!size)
		return 0;
	struct sim_pcpu_map m;
	int err = sim_percpu_read(s->dir, &m);
	if (err)
		return err;
	struct sim_pcpu_area a;
	uint32_t slot, before = m.n;
	err = find_fit_releasing(&m, size, align, &a, &slot);
	/* the kernel's attempt gives held areas back whether or not it fits */
	int werr = m.n != before ? map_write(s->dir, &m) : 0;
	sim_percpu_map_free(&m);
	return err ? err : werr;
}

int sim_percpu_alloc(struct sim *s, struct sim_rec *r, uint64_t size, uint64_t align)
{
	if (!size)
		return 0;
	struct sim_pcpu_map m;
	int err = sim_percpu_read(s->dir, &m);
	if (err)
		return err;
	struct sim_pcpu_area a = { .id = r->id };
	uint32_t slot;
	err = find_fit_releasing(&m, size, align, &a, &slot);
	if (!err)
		err = map_push(&m, a, slot);
	if (!err)
		err = map_write(s->dir, &m);
	if (!err) {
		r->flags |= SIM_F_PERCPU;
		sim_ledger(s, "pcpu_alloc", r, a.bytes);
	}
	sim_percpu_map_free(&m);
	return err;
}

int sim_percpu_release(struct sim *s, const struct sim_rec *r, bool hold)
{
	if (!(r->flags & SIM_F_PERCPU))
		return 0;
	struct sim_pcpu_map m;
	int err = sim_percpu_read(s->dir, &m);
	if (err)
		return err;
	uint32_t newest = 0;
	for (uint32_t i = 0; i < m.n; i++)
		if (m.v[i].held > newest)
			newest = m.v[i].held;
	int freed = 0;
	for (uint32_t i = 0; i < m.n; i++) {
		if (m.v[i].held || m.v[i].id != r->id)
			continue;
		sim_ledger(s, "pcpu_free", r, m.v[i].bytes);
		freed = (int)m.v[i].bytes;
		if (hold) {
			m.v[i].id = 0;
			m.v[i].held = newest + 1;
		} else {
			map_remove(&m, i);
		}
		err = map_write(s->dir, &m);
		break;
	}
	sim_percpu_map_free(&m);
	return err ? err : freed;
}

static char *put(char *p, const char *str)
{
	size_t n = strlen(str);
	memcpy(p, str, n);
	return p + n;
}

static char *put_line(char *p, const struct sim_rec *r, const struct sim_pcpu_area *a, int nocap)
{
	p = put(p, r->name);
	*p++ = ' ';
	p = sim_fmt_u64(p, a->size); /* mod->percpu_size: the section's, not rounded */
	*p++ = ' ';
	p = put(p, r->kind == SIM_ROT ? "Rotting" :
		   r->mstate == SIM_LOADING ? "Loading" :
		   r->mstate == SIM_UNLOADING ? "Unloading" : "Live");
	p = put(p, " 0x");
	p = sim_fmt_hex16(p, nocap ? 0 : r->addr);
	*p++ = '\n';
	return p;
}

/*
 * /proc/module_percpu (rot mode): the reserve, then every instance holding
 * per-CPU bytes, in /proc/modules order, then /proc/rotting_modules order.
 * Rendered lazily on its own (SIM_LAZY_PERCPU), from the same generation.
 */
int sim_percpu_render(struct sim *s)
{
	struct sim_pcpu_map m;
	int err = sim_percpu_read(s->dir, &m);
	if (err)
		return err;
	uint32_t largest, free_bytes = sim_percpu_free_bytes(&m, &largest);
	size_t cap = 96 + (size_t)m.n * (SIM_NAME_LEN + 48);
	char *buf = malloc(cap);
	if (!buf) {
		sim_percpu_map_free(&m);
		return -ENOMEM;
	}
	for (int nocap = 0; nocap < 2 && !err; nocap++) {
		char *p = buf + snprintf(buf, cap, "reserve %" PRIu32 " free %" PRIu32 " largest %" PRIu32 "\n",
					 m.reserve, free_bytes, largest);
		for (int kind = SIM_LIVE; kind <= SIM_ROT && m.n; kind++) {
			for (uint32_t i = s->hdr->count; i-- > 0;) {
				const struct sim_rec *r = &s->recs[i];
				if (r->kind != kind || !(r->flags & SIM_F_PERCPU))
					continue;
				const struct sim_pcpu_area *a = sim_percpu_find(&m, r->id);
				if (a)
					p = put_line(p, r, a, nocap);
			}
		}
		char path[PATH_MAX];
		if (!sim_path(path, sizeof(path), s->dir,
			      nocap ? "root/.nocap/proc/module_percpu" : "root/proc/module_percpu"))
			err = -ENAMETOOLONG;
		else
			err = sim_write_atomic(path, buf, (size_t)(p - buf));
	}
	free(buf);
	sim_percpu_map_free(&m);
	return err;
}
