// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One consistent view of the kernel's modules, from one read of
 * /proc/modules and one of /proc/rotting_modules. Lines are split in
 * place; every string a rot_module hands out points into those buffers.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

/* Kept small: a snapshot holds one per line, and on a VM every page of a
 * fresh allocation costs a fault. */
struct rot_module {
	const char *name;
	const char *taints;
	const char **holders;
	uint64_t size;
	uint64_t address;
	int32_t refcnt;
	uint16_t nholders;
	uint8_t state;     /* enum rot_state */
	bool permanent;
};

struct rot_snapshot {
	char *bufs[2];
	struct rot_module *mods;
	const char **holder_pool;
	/* Open-addressing table of live positions + 1, built on the first lookup.
	 * Threads share a snapshot (insmod's batch), so it is published atomically. */
	_Atomic(uint32_t *) live_index;
	size_t count;
	size_t live_count;
	bool has_rot;
};

static size_t count_byte(const char *s, size_t len, char c)
{
	size_t n = 0;
	for (const char *p = s; (p = memchr(p, c, (size_t)(s + len - p))); p++)
		n++;
	return n;
}

static int parse_u64(const char *s, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -EPROTO;
	for (; *s; s++) {
		unsigned d = (unsigned)(unsigned char)*s - '0';
		if (d > 9) {
			unsigned letter = ((unsigned)(unsigned char)*s | 0x20) - 'a';
			if (base != 16 || letter > 5)
				return -EPROTO;
			d = letter + 10;
		}
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) || __builtin_add_overflow(v, d, &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

static int parse_state(const char *s, enum rot_state *state)
{
	/* Dispatch on the first letters: this runs once per line. */
	switch (s[0]) {
	case 'L':
		if (strcmp(s, "Live") == 0)
			*state = ROT_STATE_LIVE;
		else if (strcmp(s, "Loading") == 0)
			*state = ROT_STATE_LOADING;
		else
			return -EPROTO;
		return 0;
	case 'U':
		*state = ROT_STATE_UNLOADING;
		return strcmp(s, "Unloading") == 0 ? 0 : -EPROTO;
	case 'R':
		*state = ROT_STATE_ROTTING;
		return strcmp(s, "Rotting") == 0 ? 0 : -EPROTO;
	}
	return -EPROTO;
}

/* Insertion sort by kernfs hash, each name hashed once: holder lists are short. */
static void sort_holders_sysfs_order(const char **h, uint32_t n)
{
	uint32_t keys[64];
	if (n > 64) {
		/* Pathological fan-in: fall back to hashing inside the comparisons. */
		for (uint32_t i = 1; i < n; i++)
			for (uint32_t j = i; j > 0; j--) {
				uint32_t a = rot_kernfs_hash(h[j - 1]), b = rot_kernfs_hash(h[j]);
				if (a < b || (a == b && strcmp(h[j - 1], h[j]) <= 0))
					break;
				const char *t = h[j];
				h[j] = h[j - 1];
				h[j - 1] = t;
			}
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		keys[i] = rot_kernfs_hash(h[i]);
	for (uint32_t i = 1; i < n; i++) {
		const char *name = h[i];
		uint32_t key = keys[i], j = i;
		while (j > 0 && (keys[j - 1] > key || (keys[j - 1] == key && strcmp(h[j - 1], name) > 0))) {
			keys[j] = keys[j - 1];
			h[j] = h[j - 1];
			j--;
		}
		keys[j] = key;
		h[j] = name;
	}
}

/* HOLDERS is "-" or "a,b,[permanent]," ("[rotting]," in the rotting file). */
static void parse_holders(char *field, struct rot_module *m, const char **pool)
{
	m->holders = pool;
	m->nholders = 0;
	if (strcmp(field, "-") == 0)
		return;
	for (char *tok = field; tok && *tok;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		if (strcmp(tok, "[permanent]") == 0)
			m->permanent = true;
		else if (tok[0] != '[' && m->nholders < UINT16_MAX)
			pool[m->nholders++] = tok;
		tok = comma ? comma + 1 : NULL;
	}
	if (m->nholders > 1)
		sort_holders_sysfs_order(m->holders, m->nholders);
}

enum { F_NAME, F_SIZE, F_REFCNT, F_HOLDERS, F_STATE, F_ADDR, F_TAINTS, F_MAX };

/* line..end is one line without its newline; fields are split in place. */
static int parse_line(char *line, char *end, struct rot_module *m, const char **pool)
{
	char *f[F_MAX];
	size_t n = 1;
	uint64_t v;

	f[0] = line;
	for (char *p = line; (p = memchr(p, ' ', (size_t)(end - p))); p++) {
		if (n == F_MAX)
			return -EPROTO;
		*p = '\0';
		f[n++] = p + 1;
	}
	*end = '\0';
	if (n < F_TAINTS)
		return -EPROTO;

	memset(m, 0, sizeof(*m));
	m->name = f[F_NAME];
	size_t name_len = (size_t)(f[F_SIZE] - f[F_NAME]) - 1;
	if (name_len == 0 || name_len > ROT_NAME_MAX)
		return -EPROTO;
	if (parse_u64(f[F_SIZE], 10, &m->size) < 0)
		return -EPROTO;
	/* A stock kernel may print a negative count for a module being torn down. */
	bool negative = f[F_REFCNT][0] == '-';
	if (parse_u64(f[F_REFCNT] + negative, 10, &v) < 0 || v > INT32_MAX)
		return -EPROTO;
	m->refcnt = negative ? -(int32_t)v : (int32_t)v;
	enum rot_state state;
	if (parse_state(f[F_STATE], &state) < 0)
		return -EPROTO;
	m->state = (uint8_t)state;
	char *addr = f[F_ADDR];
	if (addr[0] != '0' || addr[1] != 'x' || parse_u64(addr + 2, 16, &m->address) < 0)
		return -EPROTO;
	m->taints = "";
	if (n > F_TAINTS) {
		char *t = f[F_TAINTS];
		size_t tl = (size_t)(end - t);
		if (tl < 2 || t[0] != '(' || t[tl - 1] != ')')
			return -EPROTO;
		t[tl - 1] = '\0';
		m->taints = t + 1;
	}
	parse_holders(f[F_HOLDERS], m, pool);
	return 0;
}

/* Parses every line of buf into mods[*count...]; the holder pool advances. */
static int parse_file(char *buf, size_t len, struct rot_module *mods, size_t *count,
		      const char ***pool, bool rotting)
{
	char *end = buf + len;
	for (char *line = buf; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eol = nl ? nl : end;
		if (eol > line) {
			struct rot_module *m = &mods[*count];
			int err = parse_line(line, eol, m, *pool);
			if (err < 0)
				return err;
			if (rotting != (m->state == ROT_STATE_ROTTING))
				return -EPROTO;
			*pool += m->nholders;
			(*count)++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

/*
 * An unload between the two reads shows the module live in the first file
 * and rotting in the second, at the same address. Keep the newer fact.
 * Readers without the right to see kernel pointers get zero addresses;
 * there the two cannot be told apart and nothing is dropped.
 */
static void drop_live_that_rotted(struct rot_snapshot *s)
{
	size_t nrot = s->count - s->live_count;
	if (s->live_count == 0 || nrot == 0)
		return;
	size_t cap = 16;
	while (cap < nrot * 2)
		cap <<= 1;
	/* Slots hold snapshot positions + 1 of rotting instances, keyed by address. */
	uint32_t *set = calloc(cap, sizeof(*set));
	if (!set)
		return;
	for (size_t i = s->live_count; i < s->count; i++) {
		uint64_t a = s->mods[i].address;
		if (!a)
			continue;
		size_t h = (size_t)((a >> 12) * 0x9E3779B97F4A7C15ull) & (cap - 1);
		while (set[h] && s->mods[set[h] - 1].address != a)
			h = (h + 1) & (cap - 1);
		set[h] = (uint32_t)i + 1;
	}
	size_t kept = 0;
	for (size_t i = 0; i < s->count; i++) {
		uint64_t a = s->mods[i].address;
		bool rotted = false;
		if (i < s->live_count && a) {
			size_t h = (size_t)((a >> 12) * 0x9E3779B97F4A7C15ull) & (cap - 1);
			while (set[h] && s->mods[set[h] - 1].address != a)
				h = (h + 1) & (cap - 1);
			rotted = set[h] != 0;
		}
		if (!rotted)
			s->mods[kept++] = s->mods[i];
	}
	s->live_count -= s->count - kept;
	s->count = kept;
	free(set);
}

/* Takes ownership of both buffers (either may be NULL for "absent"). */
static int snapshot_build(char *mbuf, size_t mlen, char *rbuf, size_t rlen,
			  struct rot_snapshot **out)
{
	struct rot_snapshot *s = calloc(1, sizeof(*s));
	if (!s) {
		free(mbuf);
		free(rbuf);
		return -ENOMEM;
	}
	s->bufs[0] = mbuf;
	s->bufs[1] = rbuf;
	s->has_rot = rbuf != NULL;

	size_t lines = count_byte(mbuf, mlen, '\n') + 1;
	size_t commas = count_byte(mbuf, mlen, ',');
	if (rbuf) {
		lines += count_byte(rbuf, rlen, '\n') + 1;
		commas += count_byte(rbuf, rlen, ',');
	}
	s->mods = malloc(lines * sizeof(*s->mods));
	s->holder_pool = malloc((commas + 1) * sizeof(*s->holder_pool));
	if (!s->mods || !s->holder_pool) {
		rot_snapshot_free(s);
		return -ENOMEM;
	}

	const char **pool = s->holder_pool;
	int err = parse_file(mbuf, mlen, s->mods, &s->count, &pool, false);
	s->live_count = s->count;
	if (err == 0 && rbuf)
		err = parse_file(rbuf, rlen, s->mods, &s->count, &pool, true);
	if (err < 0) {
		rot_snapshot_free(s);
		return err;
	}
	if (rbuf)
		drop_live_that_rotted(s);
	*out = s;
	return 0;
}

int rot_snapshot_parse(const char *modules, size_t modules_len,
		       const char *rotting, size_t rotting_len,
		       struct rot_snapshot **out)
{
	char *m = malloc(modules_len + 1);
	char *r = rotting ? malloc(rotting_len + 1) : NULL;
	if (!m || (rotting && !r)) {
		free(m);
		free(r);
		return -ENOMEM;
	}
	memcpy(m, modules, modules_len);
	m[modules_len] = '\0';
	if (r) {
		memcpy(r, rotting, rotting_len);
		r[rotting_len] = '\0';
	}
	return snapshot_build(m, modules_len, r, rotting_len, out);
}

int rot_snapshot_read(struct rot_snapshot **out)
{
	char *mbuf, *rbuf = NULL;
	size_t mlen, rlen = 0;

	int err = proc_read_whole("/proc/modules", &mbuf, &mlen);
	if (err < 0)
		return err;
	err = proc_read_whole("/proc/rotting_modules", &rbuf, &rlen);
	if (err < 0 && err != -ENOENT) {
		free(mbuf);
		return err;
	}
	return snapshot_build(mbuf, mlen, rbuf, rlen, out);
}

void rot_snapshot_free(struct rot_snapshot *snap)
{
	if (!snap)
		return;
	free(snap->bufs[0]);
	free(snap->bufs[1]);
	free(snap->mods);
	free(snap->holder_pool);
	free(atomic_load(&snap->live_index));
	free(snap);
}

bool rot_snapshot_has_rot(const struct rot_snapshot *snap)
{
	return snap->has_rot;
}

size_t rot_snapshot_count(const struct rot_snapshot *snap)
{
	return snap->count;
}

size_t rot_snapshot_live_count(const struct rot_snapshot *snap)
{
	return snap->live_count;
}

const struct rot_module *rot_snapshot_module(const struct rot_snapshot *snap, size_t i)
{
	return i < snap->count ? &snap->mods[i] : NULL;
}

size_t rot_snapshot_index_of(const struct rot_snapshot *snap, const struct rot_module *m)
{
	return (size_t)(m - snap->mods);
}

static size_t name_hash(const char *name)
{
	size_t h = 14695981039346656037ull; /* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	return h;
}

/* The table's size depends on the live count alone, so every thread agrees on it. */
static size_t live_index_mask(const struct rot_snapshot *s)
{
	size_t cap = 16;
	while (cap < s->live_count * 2)
		cap <<= 1;
	return cap - 1;
}

/* Tools that unload thousands of modules look each one up: index the live
 * names once rather than scanning the list per lookup. */
static uint32_t *live_index(struct rot_snapshot *s)
{
	uint32_t *index = atomic_load(&s->live_index);
	if (index)
		return index;
	size_t mask = live_index_mask(s);
	index = calloc(mask + 1, sizeof(*index));
	if (!index)
		return NULL;
	for (size_t i = 0; i < s->live_count; i++) {
		size_t h = name_hash(s->mods[i].name) & mask;
		while (index[h])
			h = (h + 1) & mask;
		index[h] = (uint32_t)i + 1;
	}
	uint32_t *none = NULL;
	if (!atomic_compare_exchange_strong(&s->live_index, &none, index)) {
		/* Another thread published the same table first. */
		free(index);
		index = none;
	}
	return index;
}

const struct rot_module *rot_snapshot_find_live(const struct rot_snapshot *snap,
						const char *name)
{
	/* The index is a cache: building it does not change what the snapshot says. */
	struct rot_snapshot *s = (struct rot_snapshot *)snap;
	uint32_t *index = live_index(s);
	if (!index) {
		for (size_t i = 0; i < s->live_count; i++)
			if (strcmp(s->mods[i].name, name) == 0)
				return &s->mods[i];
		return NULL;
	}
	size_t mask = live_index_mask(s);
	for (size_t h = name_hash(name) & mask; index[h]; h = (h + 1) & mask) {
		const struct rot_module *m = &s->mods[index[h] - 1];
		if (strcmp(m->name, name) == 0)
			return m;
	}
	return NULL;
}

const char *rot_module_name(const struct rot_module *m) { return m->name; }
uint64_t rot_module_size(const struct rot_module *m) { return m->size; }
long rot_module_refcnt(const struct rot_module *m) { return m->refcnt; }
enum rot_state rot_module_state(const struct rot_module *m) { return (enum rot_state)m->state; }
bool rot_module_is_rotting(const struct rot_module *m) { return m->state == ROT_STATE_ROTTING; }
bool rot_module_is_permanent(const struct rot_module *m) { return m->permanent; }
uint64_t rot_module_address(const struct rot_module *m) { return m->address; }
const char *rot_module_taints(const struct rot_module *m) { return m->taints; }
size_t rot_module_holder_count(const struct rot_module *m) { return m->nholders; }

const char *rot_module_holder(const struct rot_module *m, size_t i)
{
	return i < m->nholders ? m->holders[i] : NULL;
}

const char *rot_state_name(enum rot_state state)
{
	switch (state) {
	case ROT_STATE_LIVE: return "live";
	case ROT_STATE_LOADING: return "loading";
	case ROT_STATE_UNLOADING: return "unloading";
	case ROT_STATE_ROTTING: return "rotting";
	}
	return "unknown";
}
