// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-CPU module reserve, from /proc/module_percpu (rot kernels):
 *
 *     reserve SIZE free FREE largest LARGEST
 *     NAME BYTES STATE 0xADDRESS          one per instance holding per-CPU bytes
 *
 * Sizes are per CPU (modrot.h says why the reserve matters). A bad line
 * is -EPROTO with the line and reason, as in the other kernel files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

#define FILE_NAME "/proc/module_percpu"
/* The kernel's per-CPU allocator: 4-byte units, at most PCPU_MIN_UNIT_SIZE
 * in one area, alignments a power of two up to a page (percpu_modalloc()
 * caps larger ones at a page). */
#define PCPU_MIN_ALLOC 4u
#define PCPU_MAX_AREA (32u << 10)
#define PCPU_PAGE 4096u

struct percpu_entry {
	const char *name;
	uint64_t bytes;
	uint64_t address;
	enum rot_state state;
};

struct rot_percpu {
	char *buf;
	uint64_t reserve, free, largest;
	struct percpu_entry *v;
	size_t count;
};

void rot_percpu_free(struct rot_percpu *pc)
{
	if (!pc)
		return;
	free(pc->buf);
	free(pc->v);
	free(pc);
}

/* "reserve SIZE free FREE largest LARGEST": split in place */
static int parse_header(char *line, char *end, struct rot_percpu *pc, const char **reason)
{
	static const char *const keys[] = { "reserve", "free", "largest" };
	uint64_t *vals[] = { &pc->reserve, &pc->free, &pc->largest };
	char *f[6];
	*reason = "the first line is not \"reserve SIZE free FREE largest LARGEST\"";
	if (fields_split(line, end, f, 6, &end) != 6)
		return -EPROTO;
	for (size_t k = 0; k < 3; k++) {
		if (strcmp(f[2 * k], keys[k]) != 0)
			return -EPROTO;
		int err = parse_u64(f[2 * k + 1], 10, vals[k]);
		if (err < 0)
			return bad_number(reason, err, "a size does not fit 64 bits",
					  "a size is not a number");
	}
	if (pc->free > pc->reserve)
		return malformed_line(reason, "more is free than the reserve holds");
	if (pc->largest > pc->free)
		return malformed_line(reason, "the largest free extent is more than what is free");
	return 0;
}

/* "NAME BYTES STATE 0xADDRESS" */
static int parse_entry(char *line, char *end, struct percpu_entry *e, const char **reason)
{
	char *f[4];
	size_t n = fields_split(line, end, f, 4, &end);
	if (n != 4)
		return malformed_line(reason, n == 0  ? "a NUL byte inside the line"
					      : n > 4 ? "more fields than the kernel prints"
						      : "fewer fields than the kernel prints");
	e->name = f[0];
	if (!valid_name(f[0], (size_t)(f[1] - f[0]) - 1))
		return malformed_line(reason, "the name is empty, too long or not a module name");
	int err = parse_u64(f[1], 10, &e->bytes);
	if (err < 0)
		return bad_number(reason, err, "the per-CPU size does not fit 64 bits",
				  "the per-CPU size is not a number");
	if (e->bytes == 0)
		return malformed_line(reason, "an instance listed with no per-CPU bytes");
	if (parse_state(f[2], (size_t)(f[3] - f[2]) - 1, &e->state) < 0)
		return malformed_line(reason,
				      "the state is not Live, Loading, Unloading or Rotting");
	err = f[3][0] == '0' && f[3][1] == 'x' ? parse_u64(f[3] + 2, 16, &e->address) : -EPROTO;
	if (err < 0)
		return bad_number(reason, err, "the address does not fit 64 bits",
				  "the address is not 0x and hex digits");
	return 0;
}

/* Takes ownership of buf (NUL-terminated at len). */
static int percpu_build(char *buf, size_t len, struct rot_percpu **out)
{
	parse_error_clear();
	struct rot_percpu *pc = calloc(1, sizeof(*pc));
	if (!pc) {
		free(buf);
		return -ENOMEM;
	}
	pc->buf = buf;
	char *end = buf + len;
	size_t lineno = 0, cap = 0;
	uint64_t held = 0;
	bool seen_rotting = false;
	int err = 0;
	const char *reason = NULL;
	for (char *line = buf; line <= end && !err;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *eol = nl ? nl : end;
		lineno++;
		if (lineno == 1) {
			err = parse_header(line, eol, pc, &reason);
		} else if (eol > line) {
			if (!array_reserve(&pc->v, &cap, pc->count + 1, sizeof(*pc->v))) {
				err = -ENOMEM;
				break;
			}
			struct percpu_entry *e = &pc->v[pc->count];
			err = parse_entry(line, eol, e, &reason);
			if (!err && seen_rotting && e->state != ROT_STATE_ROTTING) {
				reason = "a live module after the rotting instances";
				err = -EPROTO;
			}
			/* instances cannot hold more than is not free */
			if (!err && (__builtin_add_overflow(held, e->bytes, &held) ||
				     held > pc->reserve - pc->free)) {
				reason = "the instances hold more than the reserve less what is free";
				err = -EPROTO;
			}
			if (!err) {
				seen_rotting = e->state == ROT_STATE_ROTTING;
				pc->count++;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (err < 0) {
		rot_percpu_free(pc);
		return parse_failed(err, FILE_NAME, lineno, reason);
	}
	*out = pc;
	return 0;
}

int percpu_parse(const char *text, size_t len, struct rot_percpu **out)
{
	char *buf = text_copy(text, len);
	return buf ? percpu_build(buf, len, out) : -ENOMEM;
}

int rot_percpu_read(struct rot_percpu **out)
{
	char *buf;
	size_t len;
	parse_error_clear();
	int err = proc_read_whole(FILE_NAME, &buf, &len);
	if (err < 0)
		return err;
	return percpu_build(buf, len, out);
}

uint64_t rot_percpu_reserve(const struct rot_percpu *pc)
{
	return pc->reserve;
}
uint64_t rot_percpu_free_bytes(const struct rot_percpu *pc)
{
	return pc->free;
}
uint64_t rot_percpu_largest(const struct rot_percpu *pc)
{
	return pc->largest;
}
size_t rot_percpu_count(const struct rot_percpu *pc)
{
	return pc->count;
}

const char *rot_percpu_name(const struct rot_percpu *pc, size_t i)
{
	return i < pc->count ? pc->v[i].name : NULL;
}

uint64_t rot_percpu_bytes(const struct rot_percpu *pc, size_t i)
{
	return i < pc->count ? pc->v[i].bytes : 0;
}

enum rot_state rot_percpu_state(const struct rot_percpu *pc, size_t i)
{
	return i < pc->count ? pc->v[i].state : ROT_STATE_LIVE;
}

uint64_t percpu_address(const struct rot_percpu *pc, size_t i)
{
	return i < pc->count ? pc->v[i].address : 0;
}

/*
 * Both files list live modules newest first, then rotting instances newest
 * first, and this one only those holding per-CPU bytes: a merge walk joins
 * them. An entry is matched by name, kind (live or rotting) and, when the
 * reader may see addresses, address. One the snapshot lacks (loaded or
 * reclaimed between the two reads) is skipped without moving on.
 */
size_t rot_percpu_per_module(const struct rot_percpu *pc, const struct rot_snapshot *snap,
			     uint64_t *bytes)
{
	size_t n = rot_snapshot_count(snap), j = 0, matched = 0;
	memset(bytes, 0, n * sizeof(*bytes));
	for (size_t i = 0; i < pc->count; i++) {
		const struct percpu_entry *e = &pc->v[i];
		bool rotting = e->state == ROT_STATE_ROTTING;
		for (size_t k = j; k < n; k++) {
			const struct rot_module *m = rot_snapshot_module(snap, k);
			if (rot_module_is_rotting(m) != rotting ||
			    strcmp(rot_module_name(m), e->name) != 0 ||
			    rot_module_address(m) != e->address)
				continue;
			bytes[k] = e->bytes;
			matched++;
			j = k + 1;
			break;
		}
	}
	return matched;
}

int rot_percpu_rotting_groups(const struct rot_percpu *pc, struct rot_group **groups,
			      size_t *ngroups)
{
	struct rot_group *g = malloc((pc->count + 1) * sizeof(*g));
	size_t n = 0;
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < pc->count; i++)
		if (pc->v[i].state == ROT_STATE_ROTTING)
			g[n++] = (struct rot_group){ pc->v[i].name, 1, pc->v[i].bytes };
	groups_merge(g, n, groups, ngroups);
	return 0;
}

uint64_t rot_percpu_need(uint64_t size)
{
	if (size > UINT64_MAX - (PCPU_MIN_ALLOC - 1))
		return UINT64_MAX;
	return (size + PCPU_MIN_ALLOC - 1) & ~(uint64_t)(PCPU_MIN_ALLOC - 1);
}

enum rot_percpu_fit rot_percpu_fit(const struct rot_percpu *pc, uint64_t size, uint64_t align)
{
	if (size == 0)
		return ROT_PERCPU_FITS;
	if (align > PCPU_PAGE)
		align = PCPU_PAGE;
	if (align < PCPU_MIN_ALLOC)
		align = PCPU_MIN_ALLOC;
	uint64_t need = rot_percpu_need(size);
	if (size > PCPU_MAX_AREA || (align & (align - 1)) || need > pc->reserve)
		return ROT_PERCPU_NEVER;
	if (need > pc->largest)
		return ROT_PERCPU_NO_ROOM;
	/* The largest extent starts on a 4-byte boundary: aligning within it
	 * wastes at most align - 4 bytes. */
	if (need + align - PCPU_MIN_ALLOC <= pc->largest)
		return ROT_PERCPU_FITS;
	return ROT_PERCPU_MAY_FIT;
}
