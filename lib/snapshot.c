// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One consistent view of the kernel's modules, from one read of
 * /proc/modules, one of /proc/rotting_modules and, on a revision-4 kernel,
 * one of /proc/module_pins. Lines are split in place; every
 * string a rot_module hands out points into those buffers.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"
#include "kernfs-hash.h"
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
	uint32_t live_pins; /* revision 4: a live module's pins (C5) */
	uint16_t nholders;
	uint8_t state; /* enum rot_state */
	bool permanent;
	bool rot_safe;   /* revision 4: declared MODULE_ROT_SAFE() (C4) */
	bool pins_known; /* revision 4: /proc/module_pins had its line */
};

struct rot_snapshot {
	char *bufs[3]; /* /proc/modules, /proc/rotting_modules, /proc/module_pins */
	struct rot_module *mods;
	const char **holder_pool;
	/* Open-addressing table of live positions + 1, built on the first lookup.
	 * Threads share a snapshot (insmod's batch), so it is published atomically. */
	_Atomic(uint32_t *) live_index;
	size_t count;
	size_t live_count;
	bool has_rot;
	bool has_pins; /* /proc/module_pins was read: revision 4 (D5) */
};

/* Runs twice per line of /proc/modules: inlined there. */
static inline int number(const char *s, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -EPROTO;
	for (; *s; s++) {
		unsigned c = (unsigned char)*s, d = c - '0';
		if (d > 9) {
			d = (c | 0x20) - 'a';
			if (base != 16 || d > 5)
				return -EPROTO;
			d += 10;
		}
		/* below 2^60, v * 16 + 15 fits: checked only above */
		if (v >> 60 == 0)
			v = v * base + d;
		else if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
			 __builtin_add_overflow(v, d, &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

int parse_u64(const char *s, unsigned base, uint64_t *out)
{
	return number(s, base, out);
}

#ifdef __SSE2__
/*
 * Sixteen hex digits at s, the first the most significant, in one 16-byte
 * vector: which bytes are digits and which letters (signed compares: a
 * byte at or above 0x80 is in neither range), each byte's value, then the
 * pairs joined into bytes. False unless every byte is 0-9, a-f or A-F.
 */
static bool hex16(const char *s, uint64_t *out)
{
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i lower = _mm_or_si128(c, _mm_set1_epi8(0x20));
	__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
				      _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
	__m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
				       _mm_cmplt_epi8(lower, _mm_set1_epi8('f' + 1)));
	if (_mm_movemask_epi8(_mm_or_si128(digit, letter)) != 0xffff)
		return false;
	__m128i nibble = _mm_add_epi8(_mm_and_si128(c, _mm_set1_epi8(0x0f)),
				      _mm_and_si128(letter, _mm_set1_epi8(9)));
	/* each 16-bit lane: first digit << 4 | second digit */
	__m128i pair = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nibble, _mm_set1_epi16(0xff)), 4),
				    _mm_srli_epi16(nibble, 8));
	uint64_t v;
	_mm_storel_epi64((__m128i *)(void *)&v, _mm_packus_epi16(pair, pair));
	*out = be64toh(v);
	return true;
}
#endif

/* "0x" and len - 2 hex digits: a kernel address, 16 digits on 64 bits. */
static int parse_address(const char *s, size_t len, uint64_t *out)
{
	if (len < 2 || s[0] != '0' || s[1] != 'x')
		return -EPROTO;
#ifdef __SSE2__
	if (len == 18 && hex16(s + 2, out))
		return 0;
#endif
	return number(s + 2, 16, out);
}

static inline int state_of(const char *s, size_t len, enum rot_state *state)
{
	/* Lengths first, then one inlined compare: this runs once per line. */
	if (len == 4 && memcmp(s, "Live", 4) == 0)
		*state = ROT_STATE_LIVE;
	else if (len == 7 && memcmp(s, "Rotting", 7) == 0)
		*state = ROT_STATE_ROTTING;
	else if (len == 7 && memcmp(s, "Loading", 7) == 0)
		*state = ROT_STATE_LOADING;
	else if (len == 9 && memcmp(s, "Unloading", 9) == 0)
		*state = ROT_STATE_UNLOADING;
	else
		return -EPROTO;
	return 0;
}

int parse_state(const char *s, size_t len, enum rot_state *state)
{
	return state_of(s, len, state);
}

/* What the kernel can print as a module's name: kobject names hold no '/',
 * and "." or ".." would name another sysfs directory. */
static inline bool name_ok(const char *s, size_t len)
{
	if (len == 0 || len > ROT_NAME_MAX || memchr(s, '/', len))
		return false;
	return !(s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')));
}

bool valid_name(const char *s, size_t len)
{
	return name_ok(s, len);
}

/* A holder's kernfs order key, and its name. */
struct keyed_name {
	uint32_t key;
	const char *name;
};

/* Where parse_file() puts what it reads: the modules, the holder names of
 * them all in line order, and the keys of one line's holders. */
struct line_sink {
	struct rot_module *mods;
	size_t count, cap;
	const char **pool;
	size_t pool_used, pool_cap;
	struct keyed_name *keys;
	size_t keys_cap;
};

bool array_reserve(void *arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t grown_cap = *cap ? *cap : 16;
	while (grown_cap < need)
		grown_cap *= 2;
	void *grown = realloc(*(void **)arr, grown_cap * size);
	if (!grown)
		return false;
	*(void **)arr = grown;
	*cap = grown_cap;
	return true;
}

static int by_key_then_name(const void *a, const void *b)
{
	const struct keyed_name *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Holders in kernfs order. Lists are short, so an insertion sort does; a
 * pathological fan-in (tens of thousands of holders) gets qsort instead
 * of quadratic time.
 */
static void sort_holders_sysfs_order(struct keyed_name *k, size_t n)
{
	if (n > 64) {
		qsort(k, n, sizeof(*k), by_key_then_name);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct keyed_name v = k[i];
		size_t j = i;
		while (j > 0 && by_key_then_name(&k[j - 1], &v) > 0) {
			k[j] = k[j - 1];
			j--;
		}
		k[j] = v;
	}
}

/*
 * HOLDERS is "-" or "a,b,[permanent]," ("[rotting]," in the rotting file):
 * every entry ends with a comma. Bracketed markers other than [permanent]
 * are the kernel's and are skipped. Each name is hashed into its kernfs
 * order key as it is read; the names go to the end of the pool in that
 * order.
 */
static int parse_holders(char *field, size_t len, struct rot_module *m, struct line_sink *k,
			 const char **reason)
{
	if (len == 1 && field[0] == '-')
		return 0;
	if (len == 0 || field[len - 1] != ',')
		return malformed_line(reason,
				      "the holders field is not \"-\" nor a list ending in a comma");
	size_t n = 0;
	for (char *tok = field; *tok;) {
		unsigned long hash = 0;
		unsigned char high = 0;
		char *comma = tok;
		if (*tok == '[') {
			comma = strchr(tok, ',');
		} else {
			for (; *comma != ','; comma++) {
				hash = kernfs_hash_step(hash, (unsigned char)*comma);
				high |= (unsigned char)*comma;
			}
		}
		*comma = '\0';
		size_t tl = (size_t)(comma - tok);
		if (tok[0] == '[') {
			if (tl < 2 || tok[tl - 1] != ']')
				return malformed_line(reason,
						      "a holder marker without its closing bracket");
			if (tl == 11 && memcmp(tok, "[permanent]", 11) == 0)
				m->permanent = true;
		} else if (!name_ok(tok, tl)) {
			return malformed_line(
				reason, "a holder's name is empty, too long or not a module name");
		} else if (n == UINT16_MAX) {
			*reason = "more than 65535 holders";
			return -ERANGE;
		} else if (!array_reserve(&k->keys, &k->keys_cap, n + 1, sizeof(*k->keys))) {
			return -ENOMEM;
		} else {
			/* The running kernel's char decides a byte above 0x7f. */
			k->keys[n++] = (struct keyed_name){ high & 0x80 ? kernfs_hash(tok)
									: kernfs_hash_end(hash),
							    tok };
		}
		tok = comma + 1;
	}
	if (!array_reserve(&k->pool, &k->pool_cap, k->pool_used + n, sizeof(*k->pool)))
		return -ENOMEM;
	sort_holders_sysfs_order(k->keys, n);
	for (size_t i = 0; i < n; i++)
		k->pool[k->pool_used++] = k->keys[i].name;
	m->nholders = (uint16_t)n;
	return 0;
}

/* Which of the 16 bytes at p (fewer when end, the buffer's NUL, comes
 * first) are a blank, a newline or another control character, a NUL
 * included: one bit each. */
static inline unsigned stops(const char *p, const char *end)
{
	unsigned mask = 0;
#ifdef __SSE2__
	if (end - p >= 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* c <= ' ' unsigned: min(c, ' ') == c */
		return (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_min_epu8(c, _mm_set1_epi8(' ')), c));
	}
#endif
	for (unsigned i = 0; i < 16 && p + i <= end; i++)
		mask |= (unsigned)((unsigned char)p[i] <= ' ') << i;
	return mask;
}

size_t fields_split(char *line, const char *end, char **f, size_t max, char **eol)
{
	size_t n = 1;
	bool nul = false;
	f[0] = line;
	/* ends at the newline or at end, whose NUL is a stop */
	for (char *chunk = line;; chunk += 16) {
		for (unsigned mask = stops(chunk, end); mask; mask &= mask - 1) {
			char *c = chunk + __builtin_ctz(mask);
			if (*c == ' ') {
				*c = '\0';
				if (n < max)
					f[n] = c + 1;
				n++;
			} else if (*c == '\n' || c == end) {
				*c = '\0';
				*eol = c;
				return nul ? 0 : n;
			} else {
				nul |= *c == '\0';
			}
		}
	}
}

enum { F_NAME, F_SIZE, F_REFCNT, F_HOLDERS, F_STATE, F_ADDR, F_TAINTS, F_MAX };

/*
 * One line, from line to its newline or to end (the buffer's NUL), split
 * into its fields in place; *eol is where it ends. On -EPROTO or -ERANGE
 * *reason says which field is wrong.
 */
static int parse_line(char *line, char *end, struct rot_module *m, struct line_sink *k, char **eol,
		      const char **reason)
{
	char *f[F_MAX];
	uint64_t v;

	size_t n = fields_split(line, end, f, F_MAX, eol);
	char *p = *eol;
	if (n == 0)
		return malformed_line(reason, "a NUL byte inside the line");
	if (n > F_MAX)
		return malformed_line(reason, "more fields than the kernel prints");
	if (n < F_TAINTS)
		return malformed_line(reason, "fewer fields than the kernel prints");

	memset(m, 0, sizeof(*m));
	m->name = f[F_NAME];
	size_t name_len = (size_t)(f[F_SIZE] - f[F_NAME]) - 1;
	if (!name_ok(m->name, name_len))
		return malformed_line(reason, "the name is empty, too long or not a module name");
	int err = number(f[F_SIZE], 10, &m->size);
	if (err < 0)
		return bad_number(reason, err, "the size does not fit 64 bits",
				  "the size is not a number");
	enum rot_state state = ROT_STATE_LIVE;
	bool state_ok = state_of(f[F_STATE], (size_t)(f[F_ADDR] - f[F_STATE]) - 1, &state) == 0;
	bool rotting = state_ok && state == ROT_STATE_ROTTING;
	/* A kernel built without CONFIG_MODULE_UNLOAD prints "- -" for the
	 * count and the holders: it keeps no count, and its sysfs has no
	 * refcnt file, for which kmod's lsmod prints -ENOENT. */
	bool no_unload = strcmp(f[F_REFCNT], "-") == 0 && strcmp(f[F_HOLDERS], "-") == 0 && !rotting;
	static char enoent[] = "-2";
	if (no_unload)
		f[F_REFCNT] = enoent;
	/* A stock kernel may print a negative count for a module being torn down. */
	bool negative = f[F_REFCNT][0] == '-';
	err = number(f[F_REFCNT] + negative, 10, &v);
	if (err == 0 && v > INT32_MAX)
		err = -ERANGE;
	/* a rotting line's third column counts its pins (rot-abi.md P1) */
	if (err < 0 && rotting)
		return bad_number(reason, err, "the pin count does not fit 32 bits",
				  "the pin count is not a number");
	if (err < 0)
		return bad_number(reason, err, "the reference count does not fit 32 bits",
				  "the reference count is not a number");
	m->refcnt = negative ? -(int32_t)v : (int32_t)v;
	if (!state_ok)
		return malformed_line(reason,
				      "the state is not Live, Loading, Unloading or Rotting");
	/* pins are a count, never negative */
	if (rotting && negative)
		return malformed_line(reason, "the pin count is not a number");
	m->state = (uint8_t)state;
	char *addr = f[F_ADDR];
	err = parse_address(addr, (size_t)((n > F_TAINTS ? f[F_TAINTS] - 1 : p) - addr),
			    &m->address);
	if (err < 0)
		return bad_number(reason, err, "the address does not fit 64 bits",
				  "the address is not 0x and hex digits");
	m->taints = "";
	if (n > F_TAINTS) {
		char *t = f[F_TAINTS];
		size_t tl = (size_t)(p - t);
		if (tl < 2 || t[0] != '(' || t[tl - 1] != ')')
			return malformed_line(reason, "the taints are not in parentheses");
		/* A module coming or going also shows its state there, '+'
		 * or '-' after the taint letters ("(+)", "(OE-)"): the state
		 * column already says it. */
		if (t[tl - 2] == '+' || t[tl - 2] == '-')
			tl--;
		t[tl - 1] = '\0';
		m->taints = t + 1;
	}
	return parse_holders(f[F_HOLDERS], (size_t)(f[F_STATE] - f[F_HOLDERS]) - 1, m, k, reason);
}

/* Parses every line of buf (len bytes and a NUL) into the sink. */
static int parse_file(char *buf, size_t len, struct line_sink *k, bool rotting)
{
	const char *file = rotting ? "/proc/rotting_modules" : "/proc/modules";
	char *end = buf + len;
	size_t lineno = 0;
	for (char *line = buf; line < end;) {
		lineno++;
		if (*line == '\n') {
			line++;
			continue;
		}
		if (!array_reserve(&k->mods, &k->cap, k->count + 1, sizeof(*k->mods)))
			return -ENOMEM;
		struct rot_module *m = &k->mods[k->count];
		const char *reason = NULL;
		char *eol;
		int err = parse_line(line, end, m, k, &eol, &reason);
		if (err < 0)
			return parse_failed(err, file, lineno, reason);
		if (rotting != (m->state == ROT_STATE_ROTTING))
			return parse_failed(-EPROTO, file, lineno,
					    rotting ? "a module that is not Rotting"
						    : "a Rotting instance among live modules");
		k->count++;
		line = eol + 1;
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
	/* at most two thirds full: short probes, and few pages to touch */
	size_t cap = 16;
	while (cap < nrot + nrot / 2)
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
	/* Modules move only from the first one dropped on (none, as a rule). */
	size_t kept = 0;
	for (size_t i = 0; i < s->count; i++) {
		uint64_t a = s->mods[i].address;
		bool rotted = false;
		if (i < s->live_count && a) {
			size_t h = (size_t)((a >> 12) * 0x9E3779B97F4A7C15ull) & (cap - 1);
			while (set[h] && s->mods[set[h] - 1].address != a)
				h = (h + 1) & (cap - 1);
			rotted = set[h] != 0;
		} else if (i >= s->live_count && kept == i) {
			kept = s->count; /* nothing dropped: nothing to move */
			break;
		}
		if (!rotted) {
			if (kept != i)
				s->mods[kept] = s->mods[i];
			kept++;
		}
	}
	s->live_count -= s->count - kept;
	s->count = kept;
	free(set);
}

/*
 * Puts each /proc/module_pins line (rot-abi.md revision 4, C5: `NAME PINS
 * SAFE`, SAFE `safe` for a module that declared MODULE_ROT_SAFE() (C4),
 * `-` otherwise) onto its live module; pbuf NULL: no such file, so not a
 * revision-4 kernel. -EBADMSG for anything but the kernel's form. The
 * lines come in /proc/modules' order, so each is first matched against
 * the module after the last one found. A line of a module /proc/modules
 * did not list (loaded between the two reads) is passed over; a module
 * without a line keeps pins_known false.
 */
static int snapshot_pins(struct rot_snapshot *s, char *pbuf, size_t plen)
{
	if (!pbuf)
		return 0;
	s->has_pins = true;
	int err = 0;
	char *end = pbuf + plen;
	size_t next = 0;
	for (char *line = pbuf; line < end;) {
		char *f[4], *eol;
		uint64_t pins;
		size_t n = fields_split(line, end, f, 4, &eol);
		/* the name of the module in order was checked in /proc/modules */
		struct rot_module *m = &s->mods[next];
		bool in_order = next < s->live_count && strcmp(m->name, f[0]) == 0;
		/* a file cut short (every line ends), a field too many or too few */
		if (n != 3 || eol == end ||
		    (!in_order && !name_ok(f[0], (size_t)(f[1] - f[0]) - 1)) ||
		    number(f[1], 10, &pins) < 0 || pins > UINT32_MAX ||
		    ((eol - f[2] != 1 || f[2][0] != '-') &&
		     (eol - f[2] != 4 || memcmp(f[2], "safe", 4)))) {
			err = -EBADMSG;
			break;
		}
		if (!in_order)
			m = (struct rot_module *)rot_snapshot_find_live(s, f[0]);
		if (m) {
			m->live_pins = (uint32_t)pins;
			m->rot_safe = f[2][0] == 's';
			m->pins_known = true;
			next = (size_t)(m - s->mods) + 1;
		}
		line = eol + 1;
	}
	return err;
}

/* Takes ownership of the three buffers (the rotting and the pins ones may
 * be NULL for "absent"); each is its length and a NUL. */
static int snapshot_build(char *mbuf, size_t mlen, char *rbuf, size_t rlen, char *pbuf, size_t plen,
			  struct rot_snapshot **out)
{
	parse_error_clear();
	*out = NULL;
	struct rot_snapshot *s = calloc(1, sizeof(*s));
	if (!s) {
		free(mbuf);
		free(rbuf);
		free(pbuf);
		return -ENOMEM;
	}
	s->bufs[0] = mbuf;
	s->bufs[1] = rbuf;
	s->bufs[2] = pbuf;
	s->has_rot = rbuf != NULL;

	/* First guesses (a kernel's line is 40 to 60 bytes, one in two has a
	 * holder); both grow as the lines need. */
	size_t len = mlen + (rbuf ? rlen : 0);
	struct line_sink k = { .cap = len / 48 + 16, .pool_cap = len / 64 + 16 };
	k.mods = malloc(k.cap * sizeof(*k.mods));
	k.pool = malloc(k.pool_cap * sizeof(*k.pool));
	s->mods = k.mods;
	s->holder_pool = k.pool;
	if (!k.mods || !k.pool) {
		rot_snapshot_free(s);
		return -ENOMEM;
	}
	/* what lines of a kernel's usual length fill; past it, pages fault in as used */
	mem_prefault(k.mods, len / 56 * sizeof(*k.mods));
	mem_prefault(k.pool, k.pool_cap * sizeof(*k.pool));

	int err = parse_file(mbuf, mlen, &k, false);
	s->live_count = k.count;
	if (err == 0 && rbuf)
		err = parse_file(rbuf, rlen, &k, true);
	free(k.keys);
	s->mods = k.mods;
	s->holder_pool = k.pool;
	s->count = k.count;
	/* The pool has every module's holders in line order; it has moved as
	 * it grew, so the modules are pointed into it now. */
	const char **at = k.pool;
	for (size_t i = 0; err == 0 && i < s->count; i++) {
		s->mods[i].holders = at;
		at += s->mods[i].nholders;
	}
	if (err == 0 && rbuf)
		drop_live_that_rotted(s);
	if (err == 0)
		err = snapshot_pins(s, pbuf, plen);
	if (err < 0) {
		rot_snapshot_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int snapshot_parse(const char *modules, size_t modules_len, const char *rotting, size_t rotting_len,
		   const char *pins, size_t pins_len, struct rot_snapshot **out)
{
	char *m = text_copy(modules, modules_len), *r = text_copy(rotting, rotting_len);
	char *p = text_copy(pins, pins_len);
	*out = NULL;
	if (!m || (rotting && !r) || (pins && !p)) {
		free(m);
		free(r);
		free(p);
		return -ENOMEM;
	}
	return snapshot_build(m, modules_len, r, rotting_len, p, pins_len, out);
}

int rot_snapshot_read(struct rot_snapshot **out)
{
	char *mbuf, *rbuf = NULL, *pbuf = NULL;
	size_t mlen, rlen = 0, plen = 0;

	int err = proc_read_whole("/proc/modules", &mbuf, &mlen);
	if (err < 0)
		return err;
	err = proc_read_whole("/proc/rotting_modules", &rbuf, &rlen);
	/* D5: only a rot kernel of revision 4 has it; read after /proc/modules,
	 * so a module listed there and gone since has no line, never a stale one */
	if (rbuf)
		err = proc_read_whole("/proc/module_pins", &pbuf, &plen);
	if (err < 0 && err != -ENOENT) {
		free(mbuf);
		free(rbuf);
		return err;
	}
	return snapshot_build(mbuf, mlen, rbuf, rlen, pbuf, plen, out);
}

void rot_snapshot_free(struct rot_snapshot *snap)
{
	if (!snap)
		return;
	for (size_t i = 0; i < 3; i++)
		free(snap->bufs[i]);
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

const struct rot_module *rot_snapshot_find_live(const struct rot_snapshot *snap, const char *name)
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

const char *rot_module_name(const struct rot_module *m)
{
	return m->name;
}
uint64_t rot_module_size(const struct rot_module *m)
{
	return m->size;
}
long rot_module_refcnt(const struct rot_module *m)
{
	return m->refcnt;
}

unsigned long rot_module_pins(const struct rot_module *m)
{
	return m->state == ROT_STATE_ROTTING ? (unsigned long)m->refcnt : m->live_pins;
}

bool rot_snapshot_has_pins(const struct rot_snapshot *snap)
{
	return snap->has_pins;
}

bool rot_module_pins_known(const struct rot_module *m)
{
	return m->state == ROT_STATE_ROTTING || m->pins_known;
}

bool rot_module_is_rot_safe(const struct rot_module *m)
{
	return m->rot_safe;
}
enum rot_state rot_module_state(const struct rot_module *m)
{
	return (enum rot_state)m->state;
}
bool rot_module_is_rotting(const struct rot_module *m)
{
	return m->state == ROT_STATE_ROTTING;
}
bool rot_module_is_permanent(const struct rot_module *m)
{
	return m->permanent;
}
uint64_t rot_module_address(const struct rot_module *m)
{
	return m->address;
}
const char *rot_module_taints(const struct rot_module *m)
{
	return m->taints;
}
size_t rot_module_holder_count(const struct rot_module *m)
{
	return m->nholders;
}

const char *rot_module_holder(const struct rot_module *m, size_t i)
{
	return i < m->nholders ? m->holders[i] : NULL;
}

const char *rot_state_name(enum rot_state state)
{
	static const char *const names[] = { [ROT_STATE_LIVE] = "live",
					     [ROT_STATE_LOADING] = "loading",
					     [ROT_STATE_UNLOADING] = "unloading",
					     [ROT_STATE_ROTTING] = "rotting" };
	return (unsigned)state < sizeof(names) / sizeof(names[0]) ? names[state] : "unknown";
}
