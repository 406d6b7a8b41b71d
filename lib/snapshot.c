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
	char *bufs[2];
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

static size_t count_byte(const char *s, size_t len, char c)
{
	size_t n = 0;
	for (const char *p = s; (p = memchr(p, c, (size_t)(s + len - p))); p++)
		n++;
	return n;
}

static int parse_u64_checked(const char *s, unsigned base, uint64_t *out)
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
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, d, &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

/*
 * Runs twice per line of /proc/modules. 16 hex or 19 decimal digits cannot
 * overflow 64 bits: a number that short (all the kernel prints) takes a
 * loop without overflow checks; anything else the checked one, which
 * tells -EPROTO from -ERANGE.
 */
int parse_u64(const char *s, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	if (base == 16) {
		for (; i < 16; i++) {
			unsigned c = (unsigned char)s[i];
			unsigned d = c - '0';
			if (d > 9) {
				d = (c | 0x20) - 'a';
				if (d > 5)
					break;
				d += 10;
			}
			v = v << 4 | d;
		}
	} else if (base == 10) {
		for (; i < 19; i++) {
			unsigned d = (unsigned)(unsigned char)s[i] - '0';
			if (d > 9)
				break;
			v = v * 10 + d;
		}
	}
	if (i > 0 && s[i] == '\0') {
		*out = v;
		return 0;
	}
	return parse_u64_checked(s, base, out);
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
#else
/*
 * Eight hex digits, first digit in the lowest byte, a byte at a time in
 * parallel (no byte carries into the next: each is below 0x80 before any
 * addition). False unless every byte is 0-9, a-f or A-F.
 */
static bool hex8(uint64_t w, uint32_t *out)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	if (w & high)
		return false;
	uint64_t lower = w | 0x20 * ones;
	uint64_t digit = (w + (0x80 - '0') * ones) & ~(w + (0x80 - '9' - 1) * ones);
	uint64_t letter = (lower + (0x80 - 'a') * ones) & ~(lower + (0x80 - 'f' - 1) * ones);
	if (((digit | letter) & high) != high)
		return false;
	uint64_t n = (w & 0x0f * ones) + ((letter & high) >> 7) * 9;
	n = ((n << 4) | (n >> 8)) & 0x00ff00ff00ff00ffull;
	n = ((n << 8) | (n >> 16)) & 0x0000ffff0000ffffull;
	*out = (uint32_t)((n << 16) | (n >> 32));
	return true;
}

/* Sixteen hex digits at s, the first the most significant. */
static bool hex16(const char *s, uint64_t *out)
{
	uint64_t w[2];
	uint32_t hi, lo;
	memcpy(w, s, sizeof(w));
	if (!hex8(le64toh(w[0]), &hi) || !hex8(le64toh(w[1]), &lo))
		return false;
	*out = (uint64_t)hi << 32 | lo;
	return true;
}
#endif

/* "0x" and len - 2 hex digits: a kernel address, 16 digits on 64 bits. */
static int parse_address(const char *s, size_t len, uint64_t *out)
{
	if (len < 2 || s[0] != '0' || s[1] != 'x')
		return -EPROTO;
	if (len == 18 && hex16(s + 2, out))
		return 0;
	return parse_u64(s + 2, 16, out);
}

int parse_state(const char *s, enum rot_state *state)
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

struct keyed_name {
	uint32_t key;
	const char *name;
};

static int by_key_then_name(const void *a, const void *b)
{
	const struct keyed_name *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Holders in kernfs order, each name hashed once. Lists are short, so an
 * insertion sort on the stack does; a pathological fan-in (tens of
 * thousands of holders) gets qsort instead of quadratic time.
 */
static int sort_holders_sysfs_order(const char **h, uint32_t n)
{
	struct keyed_name small[64], *k = small;
	if (n > 64 && !(k = malloc(n * sizeof(*k))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		k[i] = (struct keyed_name){ kernfs_hash(h[i]), h[i] };
	if (n > 64) {
		qsort(k, n, sizeof(*k), by_key_then_name);
	} else {
		for (uint32_t i = 1; i < n; i++) {
			struct keyed_name v = k[i];
			uint32_t j = i;
			while (j > 0 && by_key_then_name(&k[j - 1], &v) > 0) {
				k[j] = k[j - 1];
				j--;
			}
			k[j] = v;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		h[i] = k[i].name;
	if (k != small)
		free(k);
	return 0;
}

/* What the kernel can print as a module's name: kobject names hold no '/',
 * and "." or ".." would name another sysfs directory. */
bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len > ROT_NAME_MAX || memchr(s, '/', len))
		return false;
	return !(s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')));
}

/*
 * HOLDERS is "-" or "a,b,[permanent]," ("[rotting]," in the rotting file):
 * every entry ends with a comma, which is what sized the pool (one slot per
 * comma). Bracketed markers other than [permanent] are the kernel's and
 * are skipped.
 */
static int parse_holders(char *field, struct rot_module *m, const char **pool, const char **reason)
{
	m->holders = pool;
	m->nholders = 0;
	if (strcmp(field, "-") == 0)
		return 0;
	size_t len = strlen(field);
	if (len == 0 || field[len - 1] != ',') {
		*reason = "the holders field is not \"-\" nor a list ending in a comma";
		return -EPROTO;
	}
	for (char *tok = field; *tok;) {
		char *comma = strchr(tok, ',');
		*comma = '\0';
		size_t tl = (size_t)(comma - tok);
		if (tok[0] == '[') {
			if (tl < 2 || tok[tl - 1] != ']') {
				*reason = "a holder marker without its closing bracket";
				return -EPROTO;
			}
			if (strcmp(tok, "[permanent]") == 0)
				m->permanent = true;
		} else if (!valid_name(tok, tl)) {
			*reason = "a holder's name is empty, too long or not a module name";
			return -EPROTO;
		} else if (m->nholders == UINT16_MAX) {
			*reason = "more than 65535 holders";
			return -ERANGE;
		} else {
			pool[m->nholders++] = tok;
		}
		tok = comma + 1;
	}
	if (m->nholders > 1 && sort_holders_sysfs_order(m->holders, m->nholders) < 0)
		return -ENOMEM;
	return 0;
}

enum { F_NAME, F_SIZE, F_REFCNT, F_HOLDERS, F_STATE, F_ADDR, F_TAINTS, F_MAX };

/*
 * line..end is one line without its newline; fields are split in place.
 * On -EPROTO or -ERANGE *reason says which field is wrong.
 */
static int parse_line(char *line, char *end, struct rot_module *m, const char **pool,
		      const char **reason)
{
	char *f[F_MAX];
	size_t n = 1;
	uint64_t v;

	if (memchr(line, '\0', (size_t)(end - line))) {
		*reason = "a NUL byte inside the line";
		return -EPROTO;
	}
	f[0] = line;
	for (char *p = line; (p = memchr(p, ' ', (size_t)(end - p))); p++) {
		if (n == F_MAX) {
			*reason = "more fields than the kernel prints";
			return -EPROTO;
		}
		*p = '\0';
		f[n++] = p + 1;
	}
	*end = '\0';
	if (n < F_TAINTS) {
		*reason = "fewer fields than the kernel prints";
		return -EPROTO;
	}

	memset(m, 0, sizeof(*m));
	m->name = f[F_NAME];
	size_t name_len = (size_t)(f[F_SIZE] - f[F_NAME]) - 1;
	if (!valid_name(m->name, name_len)) {
		*reason = "the name is empty, too long or not a module name";
		return -EPROTO;
	}
	int err = parse_u64(f[F_SIZE], 10, &m->size);
	if (err < 0) {
		*reason = err == -ERANGE ? "the size does not fit 64 bits"
					 : "the size is not a number";
		return err;
	}
	/* A kernel built without CONFIG_MODULE_UNLOAD prints "- -" for the
	 * count and the holders: it keeps no count, and its sysfs has no
	 * refcnt file, for which kmod's lsmod prints -ENOENT. */
	bool no_unload = strcmp(f[F_REFCNT], "-") == 0 && strcmp(f[F_HOLDERS], "-") == 0 &&
			 strcmp(f[F_STATE], "Rotting") != 0;
	static char enoent[] = "-2";
	if (no_unload)
		f[F_REFCNT] = enoent;
	/* A stock kernel may print a negative count for a module being torn down. */
	bool negative = f[F_REFCNT][0] == '-';
	err = parse_u64(f[F_REFCNT] + negative, 10, &v);
	if (err == 0 && v > INT32_MAX)
		err = -ERANGE;
	if (err < 0) {
		/* a rotting line's third column counts its pins (rot-abi.md P1) */
		bool pins = strcmp(f[F_STATE], "Rotting") == 0;
		*reason = err == -ERANGE ? (pins ? "the pin count does not fit 32 bits"
						 : "the reference count does not fit 32 bits")
					 : (pins ? "the pin count is not a number"
						 : "the reference count is not a number");
		return err;
	}
	m->refcnt = negative ? -(int32_t)v : (int32_t)v;
	enum rot_state state;
	if (parse_state(f[F_STATE], &state) < 0) {
		*reason = "the state is not Live, Loading, Unloading or Rotting";
		return -EPROTO;
	}
	/* pins are a count, never negative */
	if (state == ROT_STATE_ROTTING && negative) {
		*reason = "the pin count is not a number";
		return -EPROTO;
	}
	m->state = (uint8_t)state;
	char *addr = f[F_ADDR];
	err = parse_address(addr, (size_t)((n > F_TAINTS ? f[F_TAINTS] - 1 : end) - addr),
			    &m->address);
	if (err < 0) {
		*reason = err == -ERANGE ? "the address does not fit 64 bits"
					 : "the address is not 0x and hex digits";
		return err;
	}
	m->taints = "";
	if (n > F_TAINTS) {
		char *t = f[F_TAINTS];
		size_t tl = (size_t)(end - t);
		if (tl < 2 || t[0] != '(' || t[tl - 1] != ')') {
			*reason = "the taints are not in parentheses";
			return -EPROTO;
		}
		/* A module coming or going also shows its state there, '+'
		 * or '-' after the taint letters ("(+)", "(OE-)"): the state
		 * column already says it. */
		if (t[tl - 2] == '+' || t[tl - 2] == '-')
			tl--;
		t[tl - 1] = '\0';
		m->taints = t + 1;
	}
	return parse_holders(f[F_HOLDERS], m, pool, reason);
}

/* Where parse_file() puts what it reads: the modules, and the holder
 * names of them all, in line order. */
struct line_sink {
	struct rot_module *mods;
	size_t count, cap;
	const char **pool;
	size_t pool_used, pool_cap;
	bool fast; /* parse_line_fast() first (always, but in the tests that compare) */
};

/*
 * Bytes the fast path takes in a name: printable ASCII but the blank, the
 * comma (it ends a holder) and '/' (never in a name). A line with any
 * other byte in a name goes to parse_line(), which knows every rule.
 */
static const bool name_byte[256] = {
	[0x21 ... 0x2b] = true, /* '!' to '+' */
	[0x2d ... 0x2e] = true, /* '-' and '.' */
	[0x30 ... 0x7e] = true, /* '0' to '~' */
};

/* A holder read on the fast path: its kernfs order key, where it is. */
struct fast_holder {
	uint32_t key;
	uint32_t len;
	char *name;
};

#define FAST_HOLDERS_MAX 64

/* Decimal digits at *p (at most max of them), then a blank: their count
 * (0: none, too many, or no blank after them) and value. */
static inline size_t digits_then_blank(const unsigned char **p, size_t max, uint64_t *v)
{
	const unsigned char *s = *p, *q = s;
	uint64_t n = 0;
	for (unsigned d; (d = (unsigned)*q - '0') <= 9 && (size_t)(q - s) < max; q++)
		n = n * 10 + d;
	if (q == s || *q != ' ')
		return 0;
	*p = q + 1;
	*v = n;
	return (size_t)(q - s);
}

/*
 * A size, as the kernel prints it (one to seven digits), then a blank, from
 * one 8-byte load: which bytes are digits, then the digits combined in
 * three multiplications (digit pairs, then pairs of pairs, then the two
 * halves). Anything else goes to digits_then_blank().
 */
static inline size_t size_then_blank(const unsigned char **p, const unsigned char *e, uint64_t *v)
{
	if (e - *p < 8)
		return digits_then_blank(p, 19, v);
	uint64_t w;
	memcpy(&w, *p, sizeof(w));
	w = le64toh(w);
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t t = w - 0x30 * ones;
	/* a byte's high bit: below '0' (borrow), at or above 0x80, or above '9' */
	uint64_t bad = (t | (t + 0x76 * ones) | w) & high;
	if (!bad)
		return digits_then_blank(p, 19, v); /* eight digits or more */
	unsigned k = (unsigned)__builtin_ctzll(bad) / 8;
	if (k == 0 || (*p)[k] != ' ')
		return digits_then_blank(p, 19, v);
	t <<= 8 * (8 - k); /* the k digits at the top, zeros below */
	t = ((t & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
	t = ((t & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
	t = ((t & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
	*v = t;
	*p += k + 1;
	return k;
}

#ifdef __SSE2__
/* Past the run of name bytes (name_byte[]) at p, 16 at a time while 16
 * bytes are left before e. */
static inline const unsigned char *skip_name(const unsigned char *p, const unsigned char *e)
{
	for (; e - p >= 16; p += 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* signed: below '!' is a blank, a control or a byte at or above 0x80 */
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(c, _mm_set1_epi8('!')),
							 _mm_cmpeq_epi8(c, _mm_set1_epi8(0x7f))),
					    _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8(',')),
							 _mm_cmpeq_epi8(c, _mm_set1_epi8('/'))));
		unsigned mask = (unsigned)_mm_movemask_epi8(stop);
		if (mask)
			return p + __builtin_ctz(mask);
	}
	while (name_byte[*p])
		p++;
	return p;
}
#else
static inline const unsigned char *skip_name(const unsigned char *p, const unsigned char *e)
{
	(void)e;
	while (name_byte[*p])
		p++;
	return p;
}
#endif

static inline bool dot_or_dotdot(const unsigned char *s, size_t len)
{
	return s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.'));
}

/* Room for n more holders in the pool (grown by doubling; parse_file()
 * points every module at its holders once all lines are read). */
static bool pool_reserve(struct line_sink *k, size_t n)
{
	if (k->pool_cap - k->pool_used >= n)
		return true;
	size_t cap = k->pool_cap;
	while (cap - k->pool_used < n)
		cap *= 2;
	const char **grown = realloc(k->pool, cap * sizeof(*grown));
	if (!grown)
		return false;
	k->pool = grown;
	k->pool_cap = cap;
	return true;
}

/*
 * The lines a kernel prints, in one pass over the bytes, with nothing
 * looked up twice: "name size count holders Live|Rotting 0x<16 hex
 * digits>[ (taints)]\n", the holders "-" or up to 64 plain names and the
 * markers [permanent] and [rotting], each name hashed into its kernfs
 * order key as it is read. The buffer ends in a NUL: every scan stops at
 * a NUL, and only the one at end ends a line. Nothing is written until
 * the whole line has passed; anything else (another state, a short
 * address, a byte outside printable ASCII or a NUL, another marker, a
 * long number) returns 1 with the line untouched, for parse_line() to
 * parse and, when wrong, to say what is wrong. On 0, *eol is where the
 * line ends.
 */
static int parse_line_fast(char *line, const char *end, struct rot_module *m, struct line_sink *k,
			   char **eol)
{
	const unsigned char *p = (const unsigned char *)line, *e = (const unsigned char *)end;
	struct fast_holder h[FAST_HOLDERS_MAX];
	size_t nh = 0;
	uint64_t size, count;
	bool permanent = false;

	p = skip_name(p, e);
	size_t name_len = (size_t)(p - (const unsigned char *)line);
	if (*p != ' ' || name_len == 0 || name_len > ROT_NAME_MAX ||
	    dot_or_dotdot((const unsigned char *)line, name_len))
		return 1;
	p++;
	if (!size_then_blank(&p, e, &size))
		return 1;
	bool negative = *p == '-';
	p += negative;
	if ((unsigned)p[0] - '0' <= 9 && p[1] == ' ') { /* one digit, on every line of a rot kernel */
		count = (unsigned)p[0] - '0';
		p += 2;
	} else if (!digits_then_blank(&p, 10, &count) || count > INT32_MAX) {
		return 1;
	}

	if (p[0] == '-' && p[1] == ' ') {
		p++;
	} else {
		do {
			if (*p == '[') {
				if (e - p >= 10 && memcmp(p, "[rotting],", 10) == 0) {
					p += 10;
				} else if (e - p >= 12 && memcmp(p, "[permanent],", 12) == 0) {
					permanent = true;
					p += 12;
				} else {
					return 1;
				}
				continue;
			}
			const unsigned char *t = p;
			unsigned long hash = 0;
			p = skip_name(p, e);
			for (const unsigned char *c = t; c < p; c++)
				hash = kernfs_hash_step(hash, *c);
			size_t tl = (size_t)(p - t);
			if (*p != ',' || tl == 0 || tl > ROT_NAME_MAX || dot_or_dotdot(t, tl) ||
			    nh == FAST_HOLDERS_MAX)
				return 1;
			h[nh++] = (struct fast_holder){ kernfs_hash_end(hash), (uint32_t)tl,
							(char *)t };
			p++;
		} while (*p != ' ');
	}
	p++;

	enum rot_state state;
	if (e - p > 5 && memcmp(p, "Live ", 5) == 0) {
		state = ROT_STATE_LIVE;
		p += 5;
	} else if (e - p > 8 && memcmp(p, "Rotting ", 8) == 0 && !negative) {
		state = ROT_STATE_ROTTING;
		p += 8;
	} else {
		return 1;
	}
	uint64_t address;
	if (e - p < 18 || p[0] != '0' || p[1] != 'x' || !hex16((const char *)p + 2, &address))
		return 1;
	p += 18;
	unsigned char *taints = NULL;
	if (*p == ' ') {
		taints = (unsigned char *)p + 1;
		const unsigned char *q = taints;
		while (*q != '\n' && *q != ' ' && *q != '\0')
			q++;
		if ((*q != '\n' && q != e) || q - taints < 2 || taints[0] != '(' || q[-1] != ')' ||
		    q[-2] == '+' || q[-2] == '-')
			return 1;
		p = q;
	} else if (*p != '\n' && p != e) {
		return 1;
	}
	if (!pool_reserve(k, nh))
		return -ENOMEM;

	/* The line passed: end the strings handed out, in place. */
	line[name_len] = '\0';
	if (taints) {
		((char *)p)[-1] = '\0';
		taints++;
	}
	for (size_t i = 0; i < nh; i++)
		h[i].name[h[i].len] = '\0';
	/* kernfs order: by key, then by name (an insertion sort; lists are short) */
	for (size_t i = 1; i < nh; i++) {
		struct fast_holder v = h[i];
		size_t j = i;
		while (j > 0 && (h[j - 1].key > v.key ||
				 (h[j - 1].key == v.key && strcmp(h[j - 1].name, v.name) > 0))) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = v;
	}
	const char **pool = k->pool + k->pool_used;
	for (size_t i = 0; i < nh; i++)
		pool[i] = h[i].name;
	k->pool_used += nh;

	/* One assignment, so each field this line does not give (the pins,
	 * filled from another file) starts zero, as parse_line() leaves it. */
	*m = (struct rot_module){
		.name = line,
		.taints = taints ? (const char *)taints : "",
		.holders = NULL, /* pointed into the pool when every line is read */
		.size = size,
		.address = address,
		.refcnt = negative ? -(int32_t)count : (int32_t)count,
		.nholders = (uint16_t)nh,
		.state = (uint8_t)state,
		.permanent = permanent,
	};
	*eol = (char *)p;
	return 0;
}

static int parse_failed(int err, const char *file, size_t line, const char *reason)
{
	if (err == -EPROTO || err == -ERANGE)
		return parse_error_set(file, line, reason);
	return err;
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
		if (k->count == k->cap) {
			size_t cap = k->cap * 2;
			struct rot_module *grown = realloc(k->mods, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			k->mods = grown;
			k->cap = cap;
		}
		struct rot_module *m = &k->mods[k->count];
		const char *reason = NULL;
		char *eol;
		int err = k->fast ? parse_line_fast(line, end, m, k, &eol) : 1;
		if (err == 1) {
			eol = memchr(line, '\n', (size_t)(end - line));
			if (!eol)
				eol = end;
			/* parse_holders() takes a slot per comma at most */
			if (!pool_reserve(k, count_byte(line, (size_t)(eol - line), ',')))
				return -ENOMEM;
			err = parse_line(line, eol, m, k->pool + k->pool_used, &reason);
			if (err == 0)
				k->pool_used += m->nholders;
		}
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

/* Takes ownership of both buffers (either may be NULL for "absent");
 * each is its length and a NUL. */
static int snapshot_build(char *mbuf, size_t mlen, char *rbuf, size_t rlen, bool fast,
			  struct rot_snapshot **out)
{
	parse_error_clear();
	struct rot_snapshot *s = calloc(1, sizeof(*s));
	if (!s) {
		free(mbuf);
		free(rbuf);
		return -ENOMEM;
	}
	s->bufs[0] = mbuf;
	s->bufs[1] = rbuf;
	s->has_rot = rbuf != NULL;

	/* First guesses (a kernel's line is 40 to 60 bytes, one in two has a
	 * holder); both grow as the lines need. */
	size_t len = mlen + (rbuf ? rlen : 0);
	struct line_sink k = { .cap = len / 48 + 16, .pool_cap = len / 64 + 16, .fast = fast };
	k.mods = malloc(k.cap * sizeof(*k.mods));
	k.pool = malloc(k.pool_cap * sizeof(*k.pool));
	s->mods = k.mods;
	s->holder_pool = k.pool;
	if (!k.mods || !k.pool) {
		rot_snapshot_free(s);
		return -ENOMEM;
	}
	mem_prefault(k.mods, k.cap * sizeof(*k.mods));
	mem_prefault(k.pool, k.pool_cap * sizeof(*k.pool));

	int err = parse_file(mbuf, mlen, &k, false);
	s->live_count = k.count;
	if (err == 0 && rbuf)
		err = parse_file(rbuf, rlen, &k, true);
	s->mods = k.mods;
	s->holder_pool = k.pool;
	s->count = k.count;
	if (err < 0) {
		rot_snapshot_free(s);
		return err;
	}
	/* The pool has every module's holders in line order; it has moved as
	 * it grew, so the modules are pointed into it now. */
	const char **at = k.pool;
	for (size_t i = 0; i < s->count; i++) {
		s->mods[i].holders = at;
		at += s->mods[i].nholders;
	}
	if (rbuf)
		drop_live_that_rotted(s);
	*out = s;
	return 0;
}

/*
 * One /proc/module_pins line (rot-abi.md revision 4, C5), `NAME PINS SAFE`
 * in /proc/modules' order, where SAFE is `safe` for a module that declared
 * MODULE_ROT_SAFE() (C4), `-` otherwise; split in place. -EBADMSG for
 * anything but the kernel's form.
 */
static int pins_line(char *line, const char **name, uint32_t *pins, bool *safe)
{
	char *save = NULL;
	char *n = strtok_r(line, " ", &save);
	char *p = n ? strtok_r(NULL, " ", &save) : NULL;
	char *s = p ? strtok_r(NULL, " ", &save) : NULL;
	uint64_t v;
	if (!s || strtok_r(NULL, " ", &save) || !valid_name(n, strlen(n)) ||
	    parse_u64(p, 10, &v) < 0 || v > UINT32_MAX)
		return -EBADMSG;
	if (strcmp(s, "safe") && strcmp(s, "-"))
		return -EBADMSG;
	*name = n;
	*pins = (uint32_t)v;
	*safe = !strcmp(s, "safe");
	return 0;
}

/* Puts each /proc/module_pins line onto its live module, and takes
 * ownership of pbuf (NULL: no such file, so not a revision-4 kernel). A
 * line of a module /proc/modules did not list (loaded between the two
 * reads) is passed over; a module without a line keeps pins_known false. */
static int snapshot_pins(struct rot_snapshot *s, char *pbuf, size_t plen)
{
	if (!pbuf)
		return 0;
	s->has_pins = true;
	int err = 0;
	char *end = pbuf + plen;
	for (char *line = pbuf; !err && line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl) {
			err = -EBADMSG; /* a file cut short: every line ends */
			break;
		}
		*nl = '\0';
		const char *name;
		uint32_t pins;
		bool safe;
		err = pins_line(line, &name, &pins, &safe);
		struct rot_module *m = err ? NULL
					   : (struct rot_module *)rot_snapshot_find_live(s, name);
		if (m) {
			m->live_pins = pins;
			m->rot_safe = safe;
			m->pins_known = true;
		}
		line = nl + 1;
	}
	free(pbuf);
	return err;
}

int snapshot_parse_text(const char *modules, size_t modules_len, const char *rotting,
			size_t rotting_len, bool fast, struct rot_snapshot **out)
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
	return snapshot_build(m, modules_len, r, rotting_len, fast, out);
}

int snapshot_parse(const char *modules, size_t modules_len, const char *rotting, size_t rotting_len,
		   struct rot_snapshot **out)
{
	return snapshot_parse_text(modules, modules_len, rotting, rotting_len, true, out);
}

int snapshot_parse_pins(const char *modules, size_t modules_len, const char *rotting,
			size_t rotting_len, const char *pins, size_t pins_len,
			struct rot_snapshot **out)
{
	*out = NULL;
	int err = snapshot_parse_text(modules, modules_len, rotting, rotting_len, true, out);
	char *p = err == 0 && pins ? malloc(pins_len + 1) : NULL;
	if (err == 0 && pins && !p)
		err = -ENOMEM;
	if (p) {
		memcpy(p, pins, pins_len);
		p[pins_len] = '\0';
		err = snapshot_pins(*out, p, pins_len);
	}
	if (err < 0 && *out) {
		rot_snapshot_free(*out);
		*out = NULL;
	}
	return err;
}

int rot_snapshot_read(struct rot_snapshot **out)
{
	char *mbuf, *rbuf = NULL, *pbuf = NULL;
	size_t mlen, rlen = 0, plen = 0;

	int err = proc_read_whole("/proc/modules", &mbuf, &mlen);
	if (err < 0)
		return err;
	err = proc_read_whole("/proc/rotting_modules", &rbuf, &rlen);
	if (err < 0 && err != -ENOENT) {
		free(mbuf);
		return err;
	}
	/* D5: only a rot kernel of revision 4 has it; read after /proc/modules,
	 * so a module listed there and gone since has no line, never a stale one */
	if (rbuf) {
		err = proc_read_whole("/proc/module_pins", &pbuf, &plen);
		if (err < 0 && err != -ENOENT) {
			free(mbuf);
			free(rbuf);
			return err;
		}
	}
	err = snapshot_build(mbuf, mlen, rbuf, rlen, true, out);
	if (err == 0) {
		err = snapshot_pins(*out, pbuf, plen);
		if (err < 0) {
			rot_snapshot_free(*out);
			*out = NULL;
		}
	} else {
		free(pbuf);
	}
	return err;
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
	switch (state) {
	case ROT_STATE_LIVE:
		return "live";
	case ROT_STATE_LOADING:
		return "loading";
	case ROT_STATE_UNLOADING:
		return "unloading";
	case ROT_STATE_ROTTING:
		return "rotting";
	}
	return "unknown";
}
