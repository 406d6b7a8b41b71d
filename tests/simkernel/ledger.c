// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ledger: one line per allocation event, so that a test can prove no
 * byte was lost or freed twice, whatever the order of concurrent callers.
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

static int ledger_append(struct sim *s, const char *data, size_t n);

int sim_ledger(struct sim *s, const char *event, const struct sim_rec *r, uint64_t bytes)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "%" PRIu64 " %s %s 0x%016" PRIx64 " %" PRIu64 "\n",
			 s->hdr->next_seq++, event, r->name, r->addr, bytes);
	if (s->bulk) {
		if (s->llen + (size_t)n > s->lcap) {
			size_t cap = s->lcap ? s->lcap * 2 : 1 << 20;
			char *b = realloc(s->lbuf, cap);
			if (!b)
				return -ENOMEM;
			s->lbuf = b;
			s->lcap = cap;
		}
		memcpy(s->lbuf + s->llen, line, (size_t)n);
		s->llen += (size_t)n;
		return 0;
	}
	return ledger_append(s, line, (size_t)n);
}

int sim_ledger_flush(struct sim *s)
{
	int err = s->llen ? ledger_append(s, s->lbuf, s->llen) : 0;
	free(s->lbuf);
	s->lbuf = NULL;
	s->llen = s->lcap = 0;
	return err;
}

/* Appends under the lock, through the descriptor sim_open() opened before it. */
static int ledger_append(struct sim *s, const char *data, size_t n)
{
	if (s->ledgerfd < 0)
		return -EBADF; /* only exclusive holders change anything */
	return write(s->ledgerfd, data, n) == (ssize_t)n ? 0 : -EIO;
}

struct acct {
	uint64_t addr;
	uint64_t loaded, released; /* released: freed + init-freed + reclaimed */
	int rotted, reclaimed;
	uint64_t pcpu;      /* per-CPU bytes taken from the reserve */
	int pcpu_allocs, pcpu_frees;
};

static int acct_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct acct *)a)->addr, y = ((const struct acct *)b)->addr;
	return x < y ? -1 : x > y;
}

static struct acct *acct_find(struct acct *v, size_t n, uint64_t addr)
{
	struct acct key = { .addr = addr };
	return bsearch(&key, v, n, sizeof(*v), acct_cmp);
}

#define FAIL(...) do { snprintf(report, len, __VA_ARGS__); goto out; } while (0)

int sim_ledger_check(const char *dir, char *report, size_t len)
{
	char path[PATH_MAX];
	struct sim s;
	int ret = 1;
	uint64_t tot[5] = { 0 }; /* loaded init_freed freed reclaimed rotted */
	uint64_t pcpu_tot[2] = { 0 }; /* per-CPU bytes allocated, given back */
	int pcpu_seen = 0;
	struct sim_pcpu_map pm = { 0 };
	struct acct *v = NULL;
	size_t nv = 0, cap = 0;

	int err = sim_open(&s, dir, 0);
	if (err) {
		snprintf(report, len, "cannot open state: %s", strerror(-err));
		return 1;
	}
	sim_path(path, sizeof(path), dir, "ledger");
	char *text = sim_read_file(path, NULL);
	if (!text)
		text = strdup("");

	/* pass 1: loads, which must come first for every address */
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char ev[32], name[SIM_NAME_LEN + 8];
		uint64_t seq, addr, bytes;
		if (sscanf(line, "%" SCNu64 " %31s %63s %" SCNx64 " %" SCNu64, &seq, ev, name, &addr, &bytes) != 5)
			FAIL("malformed line: %s", line);
		if (!strcmp(ev, "load")) {
			if (nv == cap) {
				cap = cap ? cap * 2 : 256;
				struct acct *nvv = realloc(v, cap * sizeof(*v));
				if (!nvv)
					FAIL("out of memory");
				v = nvv;
			}
			v[nv++] = (struct acct){ .addr = addr, .loaded = bytes };
			tot[0] += bytes;
		}
		if (next)
			next[-1] = '\n';
		line = next;
	}
	qsort(v, nv, sizeof(*v), acct_cmp);
	for (size_t i = 1; i < nv; i++)
		if (v[i].addr == v[i - 1].addr)
			FAIL("address 0x%016" PRIx64 " loaded twice", v[i].addr);

	/* pass 2: releases */
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char ev[32], name[SIM_NAME_LEN + 8];
		uint64_t seq, addr, bytes;
		sscanf(line, "%" SCNu64 " %31s %63s %" SCNx64 " %" SCNu64, &seq, ev, name, &addr, &bytes);
		line = next;
		if (!strcmp(ev, "load"))
			continue;
		struct acct *a = acct_find(v, nv, addr);
		if (!a)
			FAIL("seq %" PRIu64 ": %s of 0x%016" PRIx64 " that was never loaded", seq, ev, addr);
		if (!strcmp(ev, "pcpu_alloc") || !strcmp(ev, "pcpu_free")) {
			/* the per-CPU reserve, accounted apart from SIZE (per CPU) */
			pcpu_seen = 1;
			if (ev[5] == 'a') {
				if (a->pcpu_allocs++)
					FAIL("seq %" PRIu64 ": per-CPU area of %s 0x%016" PRIx64 " allocated twice", seq,
					     name, addr);
				a->pcpu = bytes;
				pcpu_tot[0] += bytes;
			} else {
				if (!a->pcpu_allocs || a->pcpu_frees++ || bytes != a->pcpu)
					FAIL("seq %" PRIu64 ": per-CPU area of %s 0x%016" PRIx64
					     " freed without being allocated, twice or with another size", seq, name, addr);
				pcpu_tot[1] += bytes;
			}
			continue;
		}
		if (!strcmp(ev, "rot")) {
			a->rotted++;
			tot[4] += bytes;
			continue;
		}
		if (!strcmp(ev, "reclaim")) {
			if (!a->rotted)
				FAIL("seq %" PRIu64 ": reclaim of %s 0x%016" PRIx64 " that did not rot", seq, name, addr);
			if (a->reclaimed++)
				FAIL("seq %" PRIu64 ": %s 0x%016" PRIx64 " reclaimed twice", seq, name, addr);
			tot[3] += bytes;
		} else if (!strcmp(ev, "init_free")) {
			tot[1] += bytes;
		} else if (!strcmp(ev, "free")) {
			tot[2] += bytes;
		} else {
			FAIL("seq %" PRIu64 ": unknown event %s", seq, ev);
		}
		a->released += bytes;
		if (a->released > a->loaded)
			FAIL("seq %" PRIu64 ": %s 0x%016" PRIx64 " released %" PRIu64 " bytes of %" PRIu64,
			     seq, name, addr, a->released, a->loaded);
	}

	err = sim_percpu_read(dir, &pm);
	if (err)
		FAIL("cannot read the per-CPU map: %s", strerror(-err));
	uint64_t live = 0, rotting = 0, pcpu_held[2] = { 0 };
	for (uint32_t i = 0; i < s.hdr->count; i++) {
		const struct sim_rec *r = &s.recs[i];
		uint64_t held = r->core;
		if ((r->kind == SIM_LIVE && r->mstate == SIM_LOADING) || (r->flags & SIM_F_INIT_FAILED))
			held += r->init;
		if (r->kind == SIM_LIVE)
			live += held;
		else if (r->kind == SIM_ROT)
			rotting += held;
		else
			continue;
		struct acct *a = acct_find(v, nv, r->addr);
		if (!a)
			FAIL("%s 0x%016" PRIx64 " in the state but never loaded", r->name, r->addr);
		const struct sim_pcpu_area *pa = (r->flags & SIM_F_PERCPU) ? sim_percpu_find(&pm, r->id) : NULL;
		if ((r->flags & SIM_F_PERCPU) && (!pa || !a->pcpu_allocs || a->pcpu_frees || pa->bytes != a->pcpu))
			FAIL("%s 0x%016" PRIx64 ": its per-CPU area disagrees with the ledger", r->name, r->addr);
		if (pa)
			pcpu_held[r->kind == SIM_ROT] += pa->bytes;
	}
	snprintf(report, len,
		 "loaded %" PRIu64 " init_freed %" PRIu64 " freed %" PRIu64 " reclaimed %" PRIu64
		 " live %" PRIu64 " rotting %" PRIu64,
		 tot[0], tot[1], tot[2], tot[3], live, rotting);
	if (tot[0] != tot[1] + tot[2] + tot[3] + live + rotting) {
		size_t l = strlen(report);
		snprintf(report + l, len - l, "\nunbalanced: loaded != init_freed + freed + reclaimed + live + rotting");
		goto out;
	}
	/* a second line once anything has had per-CPU data */
	if (pcpu_seen || pm.n) {
		size_t l = strlen(report);
		uint32_t largest, free_bytes = sim_percpu_free_bytes(&pm, &largest);
		snprintf(report + l, len - l,
			 "\npercpu reserve %" PRIu32 " allocated %" PRIu64 " freed %" PRIu64 " live %" PRIu64
			 " rotting %" PRIu64 " free %" PRIu32,
			 pm.reserve, pcpu_tot[0], pcpu_tot[1], pcpu_held[0], pcpu_held[1], free_bytes);
		l = strlen(report);
		if (pcpu_tot[0] != pcpu_tot[1] + pcpu_held[0] + pcpu_held[1]) {
			snprintf(report + l, len - l, "\nunbalanced: percpu allocated != freed + live + rotting");
			goto out;
		}
		if (pcpu_held[0] + pcpu_held[1] + free_bytes != pm.reserve) {
			snprintf(report + l, len - l, "\nunbalanced: percpu live + rotting + free != reserve");
			goto out;
		}
	}
	ret = 0;
out:
	sim_percpu_map_free(&pm);
	free(v);
	free(text);
	sim_close(&s);
	return ret;
}
