// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One consistent view of the kernel's modules, from one read of
 * /proc/modules and one of /proc/rotting_modules. Lines are split in
 * place; every string a rot_module hands out points into those buffers.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

struct rot_module {
	const char *name;
	const char *taints;
	const char **holders;
	uint64_t size;
	uint64_t address;
	long refcnt;
	uint32_t nholders;
	enum rot_state state;
	bool permanent;
};

struct rot_snapshot {
	char *bufs[2];
	struct rot_module *mods;
	const char **holder_pool;
	uint32_t *live_index;  /* open-addressing table of live positions + 1; built on first lookup */
	size_t live_index_mask;
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

/* Splits off the next space-separated field; NULL when the line has no more. */
static char *next_field(char **cursor)
{
	char *start = *cursor;
	if (!start || !*start)
		return NULL;
	char *sp = strchr(start, ' ');
	if (sp) {
		*sp = '\0';
		*cursor = sp + 1;
	} else {
		*cursor = NULL;
	}
	return start;
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -EPROTO;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EPROTO;
		if (v > (UINT64_MAX - d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + d;
	}
	*out = v;
	return 0;
}

static int parse_state(const char *s, enum rot_state *state)
{
	static const struct { const char *word; enum rot_state state; } words[] = {
		{ "Live", ROT_STATE_LIVE },
		{ "Loading", ROT_STATE_LOADING },
		{ "Unloading", ROT_STATE_UNLOADING },
		{ "Rotting", ROT_STATE_ROTTING },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(s, words[i].word) == 0) {
			*state = words[i].state;
			return 0;
		}
	}
	return -EPROTO;
}

static int holder_order(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	uint32_t hx = rot_kernfs_hash(x), hy = rot_kernfs_hash(y);
	if (hx != hy)
		return hx < hy ? -1 : 1;
	return strcmp(x, y);
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
		else if (tok[0] != '[')
			pool[m->nholders++] = tok;
		tok = comma ? comma + 1 : NULL;
	}
	if (m->nholders > 1)
		qsort(m->holders, m->nholders, sizeof(*m->holders), holder_order);
}

static int parse_line(char *line, struct rot_module *m, const char **pool)
{
	char *cursor = line;
	char *name = next_field(&cursor), *size = next_field(&cursor);
	char *refcnt = next_field(&cursor), *holders = next_field(&cursor);
	char *state = next_field(&cursor), *addr = next_field(&cursor);
	char *taints = next_field(&cursor);
	uint64_t v;

	if (!addr || next_field(&cursor))
		return -EPROTO;
	memset(m, 0, sizeof(*m));
	m->name = name;
	if (!*name || strlen(name) > ROT_NAME_MAX)
		return -EPROTO;
	if (parse_u64(size, 10, &m->size) < 0)
		return -EPROTO;
	/* A stock kernel may print a negative count for a module being torn down. */
	bool negative = refcnt[0] == '-';
	if (parse_u64(refcnt + negative, 10, &v) < 0 || v > (uint64_t)LONG_MAX)
		return -EPROTO;
	m->refcnt = negative ? -(long)v : (long)v;
	if (parse_state(state, &m->state) < 0)
		return -EPROTO;
	if (strncmp(addr, "0x", 2) != 0 || parse_u64(addr + 2, 16, &m->address) < 0)
		return -EPROTO;
	m->taints = "";
	if (taints) {
		size_t tl = strlen(taints);
		if (tl < 2 || taints[0] != '(' || taints[tl - 1] != ')')
			return -EPROTO;
		taints[tl - 1] = '\0';
		m->taints = taints + 1;
	}
	parse_holders(holders, m, pool);
	return 0;
}

/* Parses every line of buf into mods[*count...]; the holder pool advances. */
static int parse_file(char *buf, size_t len, struct rot_module *mods, size_t *count,
		      const char ***pool, bool rotting)
{
	char *end = buf + len;
	for (char *line = buf; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (nl)
			*nl = '\0';
		if (*line) {
			struct rot_module *m = &mods[*count];
			int err = parse_line(line, m, *pool);
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
	uint64_t *set = calloc(cap, sizeof(*set));
	if (!set)
		return;
	for (size_t i = s->live_count; i < s->count; i++) {
		uint64_t a = s->mods[i].address;
		if (!a)
			continue;
		size_t h = (size_t)((a >> 12) * 0x9E3779B97F4A7C15ull) & (cap - 1);
		while (set[h] && set[h] != a)
			h = (h + 1) & (cap - 1);
		set[h] = a;
	}
	size_t kept = 0;
	for (size_t i = 0; i < s->count; i++) {
		uint64_t a = s->mods[i].address;
		bool rotted = false;
		if (i < s->live_count && a) {
			size_t h = (size_t)((a >> 12) * 0x9E3779B97F4A7C15ull) & (cap - 1);
			while (set[h] && set[h] != a)
				h = (h + 1) & (cap - 1);
			rotted = set[h] == a;
		}
		if (rotted)
			continue;
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
	free(snap->live_index);
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

/* Tools that unload thousands of modules look each one up: index the live
 * names once rather than scanning the list per lookup. */
static int build_live_index(struct rot_snapshot *s)
{
	size_t cap = 16;
	while (cap < s->live_count * 2)
		cap <<= 1;
	s->live_index = calloc(cap, sizeof(*s->live_index));
	if (!s->live_index)
		return -ENOMEM;
	s->live_index_mask = cap - 1;
	for (size_t i = 0; i < s->live_count; i++) {
		size_t h = name_hash(s->mods[i].name) & s->live_index_mask;
		while (s->live_index[h])
			h = (h + 1) & s->live_index_mask;
		s->live_index[h] = (uint32_t)i + 1;
	}
	return 0;
}

const struct rot_module *rot_snapshot_find_live(const struct rot_snapshot *snap,
						const char *name)
{
	/* The index is a cache: building it does not change what the snapshot says. */
	struct rot_snapshot *s = (struct rot_snapshot *)snap;
	if (!s->live_index && build_live_index(s) < 0) {
		for (size_t i = 0; i < s->live_count; i++)
			if (strcmp(s->mods[i].name, name) == 0)
				return &s->mods[i];
		return NULL;
	}
	for (size_t h = name_hash(name) & s->live_index_mask; s->live_index[h];
	     h = (h + 1) & s->live_index_mask) {
		const struct rot_module *m = &s->mods[s->live_index[h] - 1];
		if (strcmp(m->name, name) == 0)
			return m;
	}
	return NULL;
}

const char *rot_module_name(const struct rot_module *m) { return m->name; }
uint64_t rot_module_size(const struct rot_module *m) { return m->size; }
long rot_module_refcnt(const struct rot_module *m) { return m->refcnt; }
enum rot_state rot_module_state(const struct rot_module *m) { return m->state; }
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
