// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The mount tables of every mount namespace, for the in-use rule: a file
 * system mounted only inside a container, a service with PrivateMounts=
 * or an `unshare -m` shell keeps its module busy all the same. A
 * process's namespace is the link /proc/PID/ns/mnt ("mnt:[INODE]"), its
 * table /proc/PID/mounts as that process sees it (findmnt --task).
 *
 * One readlink per process, one read per namespace (and the link read
 * again after it: a table stands for the namespace only if the link
 * still names it, see process_read()): this process's first, then each
 * process in PID order whose namespace is new. A namespace counts as
 * read once a table of it was, so a process that exits on the way
 * (ENOENT, ESRCH, or a table read empty, which no live namespace has)
 * is passed over and the next process of that namespace stands in.
 *
 * The link needs ptrace access (PTRACE_MODE_READ: EACCES for another
 * user's process); the table does not. Such a process's table is read
 * anyway and dropped when its text was read already. Anything else that
 * keeps a table from being read (EACCES on the table, as under hidepid=1,
 * a read error, a link that names no namespace) fails the rule closed.
 *
 * What this cannot see: a namespace no process is in (kept by a bind
 * mount of its nsfs file or an open descriptor), and processes outside
 * this PID namespace's /proc. Where proc is mounted hidepid=2 (invisible)
 * or 4 (ptraceable), a caller without CAP_SYS_PTRACE (root included)
 * cannot list the processes it cannot ptrace: the rule fails closed
 * (EACCES, naming /proc).
 *
 * The only process of a namespace may fork and exit between the listing
 * and its turn, leaving its namespace to a child the listing never
 * named; or, once read, exit and leave its PID to a process of another
 * namespace. So /proc is listed again, and the processes new in it
 * read, until a listing names none; a list that keeps changing past a
 * bound is -EAGAIN, naming /proc. A process is new when its PID is new,
 * or the inode number of its directory is: /proc gives each process a
 * new inode, numbered from a counter, so a reused PID comes with a new
 * number. (A live process's inode may be dropped when memory is short
 * and made again with a new number: it then reads as new, which costs a
 * read, and past the bound a refusal, never a miss.) A process in a
 * chroot sees only the mounts below its root: the first process read
 * for a namespace stands for all of it.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "internal.h"

/* How many times /proc is listed again for processes that appeared while
 * the tables were read, before the scan gives up (-EAGAIN). */
#define MNTNS_RESCANS 8

/* The namespaces already read: a tree (tsearch) of inode numbers. */
static int ino_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int seen_add(void **seen, uint64_t ino)
{
	uint64_t *key = malloc(sizeof(*key)), **found;
	if (!key)
		return -ENOMEM;
	*key = ino;
	found = tsearch(key, seen, ino_cmp);
	if (!found || *found != key)
		free(key);
	return found ? 0 : -ENOMEM;
}

/* A process that is gone, or going: its /proc files vanish with it. */
static bool gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

/* The namespace of PROC/WHO/ns/mnt: its inode; -ENOLINK for a link that
 * names no mount namespace, or no link. */
static int ns_of(const char *proc, const char *who, uint64_t *ino, char *path, size_t cap)
{
	char link[64];
	snprintf(path, cap, "%s/%s/ns/mnt", proc, who);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == EINVAL ? -ENOLINK : -errno; /* EINVAL: no link at all */
	link[n] = '\0';
	char *end = NULL;
	if (strncmp(link, "mnt:[", 5) || link[5] < '1' || link[5] > '9')
		return -ENOLINK;
	errno = 0;
	unsigned long long v = strtoull(link + 5, &end, 10);
	if (errno || strcmp(end, "]"))
		return -ENOLINK;
	*ino = v;
	return 0;
}

/* Whether a table of the same text was read already (the hashes tell
 * tables apart before they are compared whole). */
static bool tables_have(const struct mntns_tables *t, const char *text)
{
	uint64_t hash = fnv1a(text, strlen(text));
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].hash == hash && !strcmp(t->v[i].text, text))
			return true;
	return false;
}

static int tables_add(struct mntns_tables *t, char *text, long pid, size_t *total)
{
	size_t len = strlen(text);
	if (len > MNTNS_TOTAL_MAX - *total)
		return -EFBIG;
	struct mntns_table *v = realloc(t->v, (t->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->v[t->n++] = (struct mntns_table){ .text = text, .pid = pid, .hash = fnv1a(text, len) };
	*total += len;
	return 0;
}

/* A process as a listing names it: its PID, and the inode number of its
 * directory, which tells it from a later process with the same PID. */
struct proc_id {
	long pid;
	uint64_t ino;
};

static int id_cmp(const void *a, const void *b)
{
	const struct proc_id *x = a, *y = b;
	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* Whether CAP_SYS_PTRACE is in the effective set: under hidepid=2 or 4
 * only it sees every process, whatever the user (root without it does not). */
static bool may_ptrace_all(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[CAP_SYS_PTRACE / 32].effective & (1u << (CAP_SYS_PTRACE % 32));
}

/* Whether proc, as this process's table shows it mounted, hides from it
 * processes it cannot ptrace, which it can neither list nor tell were there. */
static bool processes_hidden(const char *proc, const char *self_text)
{
	size_t plen = strlen(proc);
	if (may_ptrace_all())
		return false;
	for (const char *l = self_text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		/* SOURCE TARGET TYPE OPTIONS ...: proc's own line */
		const char *target = strchr(l, ' ');
		if (!target || strncmp(target + 1, proc, plen) ||
		    strncmp(target + 1 + plen, " proc ", 6))
			continue;
		const char *o = target + 1 + plen + 6;
		while (*o && *o != ' ' && *o != '\n') {
			size_t n = strcspn(o, ", \n");
			static const char *const hiding[] = { "hidepid=2", "hidepid=invisible",
							      "hidepid=4", "hidepid=ptraceable" };
			for (size_t i = 0; i < sizeof(hiding) / sizeof(hiding[0]); i++)
				if (n == strlen(hiding[i]) && !strncmp(o, hiding[i], n))
					return true;
			o += n + (o[n] == ',');
		}
	}
	return false;
}

/* The processes in proc, in PID order: -errno when proc cannot be listed
 * (*out, when set, is the caller's to free either way). */
static int pids_list(const char *proc, struct proc_id **out, size_t *count)
{
	DIR *d = opendir(proc);
	struct proc_id *v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;
	struct dirent *e;

	if (!d)
		return -errno;
	for (errno = 0; (e = readdir(d)); errno = 0) {
		const char *p = e->d_name;
		char *end;
		if (*p < '1' || *p > '9')
			continue;
		long pid = strtol(p, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (!array_reserve(&v, &cap, n + 1, sizeof(*v))) {
			err = -ENOMEM;
			break;
		}
		v[n++] = (struct proc_id){ pid, e->d_ino };
	}
	if (!err && errno)
		err = -errno;
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), id_cmp);
	*out = v;
	*count = n;
	return err;
}

/* One process's table, when its namespace is new: 0 read (or passed over
 * as gone), -errno with path naming what could not be read. */
static int process_read(const char *proc, long pid, void **seen, struct mntns_tables *t,
			size_t *total, char *path, size_t cap)
{
	char who[24];
	uint64_t ino = 0;
	snprintf(who, sizeof(who), "%ld", pid);
	int err = ns_of(proc, who, &ino, path, cap);
	if (gone(err))
		return 0;
	if (err == -EACCES)
		ino = 0; /* which namespace is not ours to know: read its table */
	else if (err < 0 || tfind(&ino, seen, ino_cmp))
		return err;
	char *text = NULL;
	snprintf(path, cap, "%s/%ld/mounts", proc, pid);
	err = usage_input_read(path, &text);
	/* The link is read again: a process that exits between the two reads
	 * may fail the second some other way (a zombie's mounts are EINVAL),
	 * and one still there may not be the one whose link was read (its
	 * PID went to another process, or it left for a namespace of its own
	 * with unshare(2)). A table read is a real table either way: it is
	 * kept, but it stands for the namespace read first only while the
	 * link still names it; otherwise it stands for none, like a table of
	 * a process whose link is not ours to read. */
	char again[4096];
	uint64_t now = 0;
	if (err < 0 && !gone(err)) {
		if (gone(ns_of(proc, who, &now, again, sizeof(again))))
			err = -ENOENT;
	} else if (!err && ino && (ns_of(proc, who, &now, again, sizeof(again)) < 0 || now != ino)) {
		ino = 0;
	}
	/* A text read already shows no mount the rule does not have. */
	bool known = !err && text[0] && tables_have(t, text);
	if (gone(err) || (!err && !text[0]) || known) {
		free(text);
		return known && ino ? seen_add(seen, ino) : 0;
	}
	if (!err)
		err = tables_add(t, text, pid, total);
	if (err)
		free(text);
	else if (ino)
		err = seen_add(seen, ino);
	return err;
}

int mntns_tables_read(const char *proc, struct mntns_tables *t, char *what, size_t cap)
{
	void *seen = NULL;
	char path[4096];
	char *text = NULL;
	struct proc_id *pids = NULL;
	size_t npids = 0, total = 0;
	uint64_t self;

	*t = (struct mntns_tables){ 0 };
	int err = ns_of(proc, "self", &self, path, sizeof(path));
	if (!err) {
		snprintf(path, sizeof(path), "%s/self/mounts", proc);
		err = usage_input_read(path, &text);
	}
	if (!err) {
		err = tables_add(t, text, 0, &total);
		if (err)
			free(text);
	}
	if (!err)
		err = seen_add(&seen, self);
	if (!err && processes_hidden(proc, t->v[0].text)) {
		snprintf(path, sizeof(path), "%s", proc);
		err = -EACCES;
	}
	/* Each listing's processes not read yet are read, until a listing
	 * names none (bounded); at first, that is all of them. Telling them
	 * apart costs no read: the listing gives each its inode number. */
	for (unsigned round = 0; !err; round++) {
		struct proc_id *now = NULL;
		size_t nnow = 0, fresh = 0;
		snprintf(path, sizeof(path), "%s", proc);
		err = pids_list(proc, &now, &nnow);
		for (size_t i = 0; !err && i < nnow; i++) {
			/* inode 1: proc could make no inode (the process is
			 * exiting, or memory is short), so it names no one */
			if (npids && now[i].ino != 1 &&
			    bsearch(&now[i], pids, npids, sizeof(*pids), id_cmp))
				continue;
			fresh++;
			if (round <= MNTNS_RESCANS)
				err = process_read(proc, now[i].pid, &seen, t, &total, path,
						   sizeof(path));
		}
		if (!err && fresh && round > MNTNS_RESCANS) {
			snprintf(path, sizeof(path), "%s", proc);
			err = -EAGAIN;
		}
		if (err || !fresh) {
			free(now);
			break;
		}
		/* what was read now is the list the next listing is held to */
		struct proc_id *merged = realloc(pids, (npids + nnow) * sizeof(*pids));
		if (!merged) {
			free(now);
			err = -ENOMEM;
			break;
		}
		pids = merged;
		memcpy(pids + npids, now, nnow * sizeof(*now));
		npids += nnow;
		qsort(pids, npids, sizeof(*pids), id_cmp);
		free(now);
	}
	free(pids);
	tdestroy(seen, free);
	if (err < 0) {
		if (what && cap)
			snprintf(what, cap, "%s", err == -ENOMEM ? "" : path);
		mntns_tables_free(t);
	}
	return err;
}

void mntns_tables_free(struct mntns_tables *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	*t = (struct mntns_tables){ 0 };
}
