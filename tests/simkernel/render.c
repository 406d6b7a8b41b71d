// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The files a reader opens whole: /proc/modules, /proc/rotting_modules and
 * /proc/kallsyms. They are rendered on the first open after a change (see
 * sim_ensure_rendered), so a burst of loads costs one rendering, not one
 * per load. Each is rendered twice: with addresses, and with zeroes for
 * readers not allowed to see kernel pointers (DIR/root/.nocap/...).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

/* Holders of every live module, newest holder first (module_use lists). */
struct holdidx {
	uint32_t *live;  /* indices of live records, ascending id */
	uint32_t nlive;
	uint32_t *start; /* per live slot: offset into list; nlive + 1 entries */
	uint32_t *list;  /* record indices of holders */
};

static int live_slot(const struct sim *s, const struct holdidx *h, uint32_t id)
{
	uint32_t lo = 0, hi = h->nlive;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2, mid_id = s->recs[h->live[mid]].id;
		if (mid_id == id)
			return (int)mid;
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void holdidx_free(struct holdidx *h)
{
	free(h->live);
	free(h->start);
	free(h->list);
}

static int holdidx_build(struct sim *s, struct holdidx *h)
{
	uint32_t n = s->hdr->count, total = 0;
	memset(h, 0, sizeof(*h));
	h->live = malloc((n + 1) * sizeof(uint32_t));
	h->start = calloc(n + 2, sizeof(uint32_t));
	if (!h->live || !h->start)
		goto nomem;
	for (uint32_t i = 0; i < n; i++)
		if (s->recs[i].kind == SIM_LIVE)
			h->live[h->nlive++] = i;
	for (uint32_t k = 0; k < h->nlive; k++) {
		const struct sim_rec *r = &s->recs[h->live[k]];
		for (unsigned d = 0; d < r->ndeps; d++) {
			int slot = live_slot(s, h, r->deps[d]);
			if (slot >= 0) {
				h->start[slot + 1]++;
				total++;
			}
		}
	}
	for (uint32_t k = 0; k < h->nlive; k++)
		h->start[k + 1] += h->start[k];
	h->list = malloc((total + 1) * sizeof(uint32_t));
	uint32_t *fill = calloc(h->nlive + 1, sizeof(uint32_t));
	if (!h->list || !fill) {
		free(fill);
		goto nomem;
	}
	for (uint32_t k = h->nlive; k-- > 0;) {
		const struct sim_rec *r = &s->recs[h->live[k]];
		for (unsigned d = 0; d < r->ndeps; d++) {
			int slot = live_slot(s, h, r->deps[d]);
			if (slot >= 0)
				h->list[h->start[slot] + fill[slot]++] = h->live[k];
		}
	}
	free(fill);
	return 0;
nomem:
	holdidx_free(h);
	return -ENOMEM;
}

static uint64_t shown_size(const struct sim_rec *r)
{
	/* m_show() prints core + init: init is only still counted while loading */
	if (r->kind == SIM_LIVE)
		return (uint64_t)r->core + (r->mstate == SIM_LOADING ? r->init : 0);
	return (uint64_t)r->core + ((r->flags & SIM_F_INIT_FAILED) ? r->init : 0);
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

/* module_flags(): taint letters, then '+' loading or '-' unloading */
static char *put_flags(char *p, const struct sim_rec *r)
{
	char tl[32];
	if (!r->taints)
		return p;
	sim_taint_letters(r->taints, tl);
	p = put_str(p, " (");
	p = put_str(p, tl);
	if (r->kind == SIM_LIVE && r->mstate == SIM_LOADING)
		*p++ = '+';
	if (r->kind == SIM_LIVE && r->mstate == SIM_UNLOADING)
		*p++ = '-';
	*p++ = ')';
	return p;
}

static int write_variant(struct sim *s, const char *rel, const char *buf, size_t len)
{
	char path[PATH_MAX];
	if (!sim_path(path, sizeof(path), s->dir, rel))
		return -ENAMETOOLONG;
	return sim_write_atomic(path, buf, len);
}

static int render_proc(struct sim *s)
{
	struct holdidx h;
	int err = holdidx_build(s, &h);
	if (err)
		return err;
	size_t per = SIM_NAME_LEN + 64;
	size_t cap = (size_t)s->hdr->count * per + 64;
	for (uint32_t k = 0; k < h.nlive; k++)
		cap += (size_t)(h.start[k + 1] - h.start[k]) * (SIM_NAME_LEN + 1) + 16;
	char *mod = malloc(cap), *rot = malloc((size_t)s->hdr->count * per + 64);
	if (!mod || !rot) {
		err = -ENOMEM;
		goto out;
	}
	for (int nocap = 0; nocap < 2 && !err; nocap++) {
		char *p = mod;
		for (uint32_t k = h.nlive; k-- > 0;) {
			const struct sim_rec *r = &s->recs[h.live[k]];
			p = put_str(p, r->name);
			*p++ = ' ';
			p = sim_fmt_u64(p, shown_size(r));
			*p++ = ' ';
			uint32_t nh = h.start[k + 1] - h.start[k];
			uint64_t refs = 0;
			if (s->hdr->mode == SIM_MODE_STOCK)
				refs = nh + (uint64_t)(r->refs > 0 ? r->refs : 0);
			p = sim_fmt_u64(p, refs);
			*p++ = ' ';
			for (uint32_t j = h.start[k]; j < h.start[k + 1]; j++) {
				p = put_str(p, s->recs[h.list[j]].name);
				*p++ = ',';
			}
			if (r->flags & SIM_F_PERMANENT)
				p = put_str(p, "[permanent],");
			if (!nh && !(r->flags & SIM_F_PERMANENT))
				*p++ = '-';
			p = put_str(p, r->mstate == SIM_UNLOADING ? " Unloading" :
				       r->mstate == SIM_LOADING ? " Loading" : " Live");
			p = put_str(p, " 0x");
			p = sim_fmt_hex16(p, nocap ? 0 : r->addr);
			p = put_flags(p, r);
			*p++ = '\n';
		}
		err = write_variant(s, nocap ? "root/.nocap/proc/modules" : "root/proc/modules", mod,
				    (size_t)(p - mod));
		if (err || s->hdr->mode != SIM_MODE_ROT)
			continue;
		if (sim_abi(s->hdr->cfgflags) == 4) {
			/* rot-abi.md C5: NAME PINS SAFE, in /proc/modules' order; no
			 * pointer in it, so both variants read the same */
			p = mod;
			for (uint32_t k = h.nlive; k-- > 0;) {
				const struct sim_rec *r = &s->recs[h.live[k]];
				p = put_str(p, r->name);
				*p++ = ' ';
				p = sim_fmt_u64(p, r->pins);
				p = put_str(p, (r->flags & SIM_F_ROT_SAFE) ? " safe\n" : " -\n");
			}
			err = write_variant(s, nocap ? "root/.nocap/proc/module_pins" : "root/proc/module_pins", mod,
					    (size_t)(p - mod));
			if (err)
				continue;
		}
		int pins_shown = !(s->hdr->cfgflags & (SIM_CFG_ABI_REV1 | SIM_CFG_ABI_REV2));
		p = rot;
		for (uint32_t i = s->hdr->count; i-- > 0;) {
			const struct sim_rec *r = &s->recs[i];
			if (r->kind != SIM_ROT)
				continue;
			p = put_str(p, r->name);
			*p++ = ' ';
			p = sim_fmt_u64(p, shown_size(r));
			*p++ = ' ';
			p = sim_fmt_u64(p, pins_shown ? r->pins : 0); /* P1: revision 2 printed 0 */
			p = put_str(p, " [rotting], Rotting 0x");
			p = sim_fmt_hex16(p, nocap ? 0 : r->addr);
			p = put_flags(p, r);
			*p++ = '\n';
		}
		err = write_variant(s, nocap ? "root/.nocap/proc/rotting_modules" : "root/proc/rotting_modules",
				    rot, (size_t)(p - rot));
	}
out:
	free(mod);
	free(rot);
	holdidx_free(&h);
	return err;
}

/* A base of core kernel symbols: what fixture modules may call. */
static const char *const base_syms[] = {
	"T _stext", "T _printk", "T printk", "T memcpy", "T memset", "T memmove", "T strcmp",
	"T strlen", "T strscpy", "T kfree", "T __kmalloc", "T kmalloc_trace", "T msleep",
	"T mutex_lock", "T mutex_unlock", "T _raw_spin_lock", "T _raw_spin_unlock",
	"T __fentry__", "T __x86_return_thunk", "T __stack_chk_fail", "T __platform_driver_register",
	"T platform_driver_unregister", "T __register_chrdev", "T __unregister_chrdev",
	"T add_timer", "T del_timer_sync", "T init_timer_key", "D jiffies", "D param_ops_int",
	"D param_ops_uint", "D param_ops_long", "D param_ops_ulong", "D param_ops_bool",
	"D param_ops_charp", "D param_ops_short", "D param_ops_ushort", "D param_ops_byte",
	"T _etext",
};
#define BASE_ADDR 0xffffffff81000000ull

int sim_base_symbol(const char *name);
int sim_base_symbol(const char *name)
{
	for (size_t i = 0; i < sizeof(base_syms) / sizeof(base_syms[0]); i++)
		if (!strcmp(base_syms[i] + 2, name))
			return 1;
	return 0;
}

static int render_kallsyms(struct sim *s)
{
	size_t cap = 1 << 16, n[2] = { 0, 0 };
	char *buf[2] = { malloc(cap), malloc(cap) };
	int err = 0;

	for (int v = 0; v < 2; v++) {
		if (!buf[v])
			goto nomem;
		char *p = buf[v];
		for (size_t i = 0; i < sizeof(base_syms) / sizeof(base_syms[0]); i++) {
			p = sim_fmt_hex16(p, v ? 0 : BASE_ADDR + i * 0x40);
			*p++ = ' ';
			p = put_str(p, base_syms[i]);
			*p++ = '\n';
		}
		n[v] = (size_t)(p - buf[v]);
	}
	for (uint32_t i = 0; i < s->hdr->count; i++) {
		const struct sim_rec *r = &s->recs[i];
		if (r->kind != SIM_LIVE || !(r->flags & SIM_F_HAS_SYMS))
			continue;
		char path[PATH_MAX], rel[64];
		snprintf(rel, sizeof(rel), "syms/%" PRIu32, r->id);
		sim_path(path, sizeof(path), s->dir, rel);
		char *text = sim_read_file(path, NULL);
		if (!text)
			continue;
		/* lines: OFFSET TYPE NAME */
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			uint64_t off;
			char type, name[256];
			if (sscanf(line, "%" SCNx64 " %c %255s", &off, &type, name) != 3)
				continue;
			for (int v = 0; v < 2; v++) {
				if (n[v] + strlen(name) + SIM_NAME_LEN + 32 > cap) {
					size_t ncap = cap * 2;
					char *a = realloc(buf[0], ncap), *b = a ? realloc(buf[1], ncap) : NULL;
					if (a)
						buf[0] = a;
					if (b)
						buf[1] = b;
					if (!a || !b) {
						free(text);
						goto nomem;
					}
					cap = ncap;
				}
				char *p = buf[v] + n[v];
				p = sim_fmt_hex16(p, v ? 0 : r->addr + off);
				*p++ = ' ';
				*p++ = type;
				*p++ = ' ';
				p = put_str(p, name);
				p = put_str(p, "\t[");
				p = put_str(p, r->name);
				*p++ = ']';
				*p++ = '\n';
				n[v] = (size_t)(p - buf[v]);
			}
		}
		free(text);
	}
	err = write_variant(s, "root/proc/kallsyms", buf[0], n[0]);
	if (!err)
		err = write_variant(s, "root/.nocap/proc/kallsyms", buf[1], n[1]);
	free(buf[0]);
	free(buf[1]);
	return err;
nomem:
	free(buf[0]);
	free(buf[1]);
	return -ENOMEM;
}

int sim_render_lazy(struct sim *s, enum sim_lazy what)
{
	/* /proc/module_percpu apart: insmod reads it before each per-CPU
	 * module of a batch, which must not re-render /proc/modules each time */
	int err = what == SIM_LAZY_PROC	    ? render_proc(s) :
		  what == SIM_LAZY_KALLSYMS ? render_kallsyms(s) :
		  s->hdr->mode == SIM_MODE_ROT ? sim_percpu_render(s) : 0;
	if (!err)
		s->hdr->rendered[what] = s->hdr->gen;
	return err;
}

int sim_ensure_rendered(const char *dir, const struct sim_header *hdr, enum sim_lazy what)
{
	if (__atomic_load_n(&hdr->rendered[what], __ATOMIC_ACQUIRE) == __atomic_load_n(&hdr->gen, __ATOMIC_ACQUIRE))
		return 0;
	struct sim s;
	int err = sim_open(&s, dir, 1);
	if (err)
		return err;
	if (s.hdr->rendered[what] != s.hdr->gen)
		err = sim_render_lazy(&s, what);
	sim_close(&s);
	return err;
}

/* " pins=N timer=N ..." for what a test pinned or left inside an instance */
static void state_holds(FILE *f, const struct sim_rec *r)
{
	if (r->pins)
		fprintf(f, " pins=%" PRIu32, r->pins);
	for (unsigned h = 0; h < SIM_NHOLD; h++)
		if (r->hold[h])
			fprintf(f, " %s=%u", sim_hold_name(h), (unsigned)r->hold[h]);
}

/* " percpu=BYTES@OFFSET" for an instance holding part of the reserve */
static void state_percpu(FILE *f, const struct sim_pcpu_map *m, const struct sim_rec *r)
{
	const struct sim_pcpu_area *a = (r->flags & SIM_F_PERCPU) ? sim_percpu_find(m, r->id) : NULL;
	if (a)
		fprintf(f, " percpu=%" PRIu32 "@%" PRIu32, a->bytes, a->off);
}

int sim_state_print(struct sim *s, int fd)
{
	struct holdidx h;
	int err = holdidx_build(s, &h);
	if (err)
		return err;
	struct sim_pcpu_map pm;
	err = sim_percpu_read(s->dir, &pm);
	if (err) {
		holdidx_free(&h);
		return err;
	}
	FILE *f = fdopen(dup(fd), "w");
	if (!f) {
		holdidx_free(&h);
		sim_percpu_map_free(&pm);
		return -errno;
	}
	for (uint32_t k = h.nlive; k-- > 0;) {
		const struct sim_rec *r = &s->recs[h.live[k]];
		fprintf(f, "live %s %" PRIu64 " 0x%016" PRIx64 " %s refcnt=%u holders=", r->name, shown_size(r),
			r->addr, r->mstate == SIM_UNLOADING ? "Unloading" : r->mstate == SIM_LOADING ? "Loading" : "Live",
			s->hdr->mode == SIM_MODE_STOCK ? (h.start[k + 1] - h.start[k]) + (unsigned)(r->refs > 0 ? r->refs : 0) : 0);
		if (h.start[k] == h.start[k + 1])
			fputc('-', f);
		for (uint32_t j = h.start[k]; j < h.start[k + 1]; j++)
			fprintf(f, "%s%s", j == h.start[k] ? "" : ",", s->recs[h.list[j]].name);
		fprintf(f, " permanent=%d", (r->flags & SIM_F_PERMANENT) ? 1 : 0);
		state_holds(f, r);
		state_percpu(f, &pm, r);
		fputc('\n', f);
	}
	for (uint32_t i = s->hdr->count; i-- > 0;) {
		const struct sim_rec *r = &s->recs[i];
		if (r->kind != SIM_ROT)
			continue;
		fprintf(f, "rotting %s %" PRIu64 " 0x%016" PRIx64, r->name, shown_size(r), r->addr);
		state_holds(f, r);
		state_percpu(f, &pm, r);
		fputc('\n', f);
	}
	fprintf(f, "taint %" PRIu64 "\n", s->hdr->taint);
	err = fclose(f) ? -errno : 0;
	holdidx_free(&h);
	sim_percpu_map_free(&pm);
	return err;
}
