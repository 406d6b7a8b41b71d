// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Directory order under /sys. kernfs lists a directory's children sorted by
 * kernfs_name_hash() (then name), after "." and "..". Programs such as
 * kmod's lsmod print holders in that order, so a listing of a simulated
 * /sys directory must come back in it too, not in the host's order.
 *
 * opendir() of a served /sys directory reads it whole at once and keeps the
 * sorted entries beside the real DIR, which stays valid for dirfd() and the
 * like; readdir() of any other DIR goes straight to libc.
 */
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kernfs-hash.h"
#include "preload.h"

_Static_assert(sizeof(struct dirent) == sizeof(struct dirent64), "dirent and dirent64 differ");

struct sorted_dir {
	DIR *dir;
	struct dirent64 *ents;
	size_t n, pos;
	struct sorted_dir *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sorted_dir *dirs;
static int ndirs; /* read without the lock: a quick "none registered" */

DECLARE_NEXT(readdir64);
DECLARE_NEXT(readdir);
DECLARE_NEXT(closedir);
DECLARE_NEXT(rewinddir);

struct keyed {
	uint32_t hash;
	struct dirent64 ent;
};

static int dot_rank(const char *n)
{
	return !strcmp(n, ".") ? 0 : !strcmp(n, "..") ? 1 : 2;
}

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int rx = dot_rank(x->ent.d_name), ry = dot_rank(y->ent.d_name);
	if (rx != ry || rx < 2)
		return rx - ry;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(x->ent.d_name, y->ent.d_name);
}

void sk_sysdir_register(void *d)
{
	struct keyed *k = NULL;
	size_t n = 0, cap = 0;
	struct dirent64 *e;
	/* Hashed as the simulated release's kernel would (lib/kernfs-hash.c,
	 * the definition libmodrot uses too). */
	const struct sim_header *h = sk_header();
	bool char_signed = kernfs_char_signed(h ? h->release : "");

	while ((e = NEXT(readdir64)(d))) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			struct keyed *nk = realloc(k, cap * sizeof(*k));
			if (!nk) {
				free(k);
				NEXT(rewinddir)(d);
				return; /* host order is better than no listing */
			}
			k = nk;
		}
		k[n].ent = *e;
		k[n].hash = kernfs_name_hash(e->d_name, char_signed);
		n++;
	}
	qsort(k, n, sizeof(*k), keyed_cmp);
	struct sorted_dir *sd = calloc(1, sizeof(*sd));
	struct dirent64 *ents = malloc((n ? n : 1) * sizeof(*ents));
	if (!sd || !ents) {
		free(sd);
		free(ents);
		free(k);
		NEXT(rewinddir)(d);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ents[i] = k[i].ent;
		ents[i].d_off = (off64_t)(i + 1);
	}
	free(k);
	sd->dir = d;
	sd->ents = ents;
	sd->n = n;
	pthread_mutex_lock(&lock);
	sd->next = dirs;
	dirs = sd;
	__atomic_add_fetch(&ndirs, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}

/* Returns 1 and the next entry (or NULL at the end) for a registered dir. */
static int sorted_next(DIR *d, struct dirent64 **out)
{
	if (!__atomic_load_n(&ndirs, __ATOMIC_ACQUIRE))
		return 0;
	int found = 0;
	pthread_mutex_lock(&lock);
	for (struct sorted_dir *sd = dirs; sd; sd = sd->next) {
		if (sd->dir != d)
			continue;
		*out = sd->pos < sd->n ? &sd->ents[sd->pos++] : NULL;
		found = 1;
		break;
	}
	pthread_mutex_unlock(&lock);
	return found;
}

SK_EXPORT struct dirent64 *readdir64(DIR *d)
{
	struct dirent64 *e;
	if (sorted_next(d, &e))
		return e;
	return NEXT(readdir64)(d);
}

SK_EXPORT struct dirent *readdir(DIR *d)
{
	struct dirent64 *e;
	if (sorted_next(d, &e))
		return (struct dirent *)e;
	return NEXT(readdir)(d);
}

SK_EXPORT void rewinddir(DIR *d)
{
	if (__atomic_load_n(&ndirs, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&lock);
		for (struct sorted_dir *sd = dirs; sd; sd = sd->next)
			if (sd->dir == d)
				sd->pos = 0;
		pthread_mutex_unlock(&lock);
	}
	NEXT(rewinddir)(d);
}

SK_EXPORT int closedir(DIR *d)
{
	if (__atomic_load_n(&ndirs, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&lock);
		for (struct sorted_dir **p = &dirs; *p; p = &(*p)->next) {
			if ((*p)->dir != d)
				continue;
			struct sorted_dir *sd = *p;
			*p = sd->next;
			free(sd->ents);
			free(sd);
			__atomic_sub_fetch(&ndirs, 1, __ATOMIC_RELEASE);
			break;
		}
		pthread_mutex_unlock(&lock);
	}
	return NEXT(closedir)(d);
}
