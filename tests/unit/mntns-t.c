// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mount tables of every mount namespace (lib/mntns.c), read from a
 * /proc made of plain files: PID/ns/mnt links and PID/mounts tables.
 * Which processes are read, in which order, which are passed over as
 * exiting, and which failures fail the rule closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "tap.h"

static char proc[] = "/tmp/modrot-mntns-t.XXXXXX";

static const char init_table[] = "/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0\n";

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", proc, rel);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_rf(const char *rel)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", proc, rel);
	if (system(cmd) != 0)
		printf("# %s failed\n", cmd);
}

/* Process who (a PID or "self") in the namespace of inode ns, with table
 * text (NULL: none). */
static void process(const char *who, unsigned long long ns, const char *text)
{
	char rel[128], link[64];
	snprintf(rel, sizeof(rel), "%s/%s", proc, who);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%s/ns", proc, who);
	mkdir(rel, 0755);
	snprintf(rel, sizeof(rel), "%s/%s/ns/mnt", proc, who);
	snprintf(link, sizeof(link), "mnt:[%llu]", ns);
	unlink(rel);
	if (ns && symlink(link, rel) < 0)
		printf("# symlink %s: %s\n", rel, strerror(errno));
	if (text) {
		snprintf(rel, sizeof(rel), "%s/mounts", who);
		put(rel, text);
	}
}

/*
 * A process that forks and exits while the tables are read, driven: this
 * readlink() stands in for libc's in the library linked into this test.
 * When the scan reads the link of the process named in fork_from, that
 * process forks (fork_to, a PID the scan has not listed, in the same
 * namespace and with the same table) and exits, before its link is read.
 * With forks_left > 1 the child does the same when its own link is read,
 * and so on: a namespace that keeps moving.
 */
static long fork_from, fork_to;
static int forks_left;
static unsigned long long fork_ns;
static const char *fork_table;

/*
 * A PID reused, driven the same way: when the scan reads the link of the
 * process named in reuse_at, the process reuse_pid exits and a new one
 * gets its PID, in namespace reuse_ns with table reuse_table. The old
 * directory is kept under another name until the end, so that no new one
 * gets its inode number: /proc never gives two processes the same. Each
 * further reuse (while reuses_left > 0) is in the next namespace. With
 * reuse_after, the PID is reused just after the link was read: between
 * the scan's read of a process's link and of its table.
 */
static long reuse_at, reuse_pid;
static int reuses_left;
static bool reuse_after;

/*
 * A process that leaves for a namespace of its own (unshare -m) just
 * after its link was read: same PID, same directory, a new link and a
 * table copied from the old namespace's.
 */
static long unshare_pid;
static int unshares_left;
static unsigned long long unshare_ns;
static const char *unshare_table;
static unsigned long long reuse_ns;
static const char *reuse_table;

static void process(const char *who, unsigned long long ns, const char *text);
static void rm_rf(const char *rel);

ssize_t readlink(const char *restrict path, char *restrict buf, size_t len)
{
	char mine[600];
	snprintf(mine, sizeof(mine), "%s/%ld/ns/mnt", proc, fork_from);
	if (forks_left > 0 && strcmp(path, mine) == 0) {
		char who[24];
		snprintf(who, sizeof(who), "%ld", fork_to);
		process(who, fork_ns, fork_table);
		snprintf(who, sizeof(who), "%ld", fork_from);
		rm_rf(who);
		forks_left--;
		fork_from = fork_to;
		fork_to = fork_to % 2 ? fork_to + 3 : fork_to - 1; /* up, or down */
	}
	snprintf(mine, sizeof(mine), "%s/%ld/ns/mnt", proc, reuse_at);
	bool after = reuse_after || unshares_left > 0;
	ssize_t n = after ? syscall(SYS_readlinkat, AT_FDCWD, path, buf, len) : 0;
	if (reuses_left > 0 && strcmp(path, mine) == 0) {
		char old[600], gone[600], made[600];
		process("made", reuse_ns++, reuse_table);
		snprintf(old, sizeof(old), "%s/%ld", proc, reuse_pid);
		static int reused;
		snprintf(gone, sizeof(gone), "%s/gone-%d", proc, ++reused);
		reuses_left--;
		snprintf(made, sizeof(made), "%s/made", proc);
		if (rename(old, gone) < 0 || rename(made, old) < 0)
			printf("# rename %s: %s\n", old, strerror(errno));
	}
	snprintf(mine, sizeof(mine), "%s/%ld/ns/mnt", proc, unshare_pid);
	if (unshares_left > 0 && strcmp(path, mine) == 0) {
		char who[24];
		snprintf(who, sizeof(who), "%ld", unshare_pid);
		process(who, unshare_ns, unshare_table);
		unshares_left--;
	}
	return after ? n : syscall(SYS_readlinkat, AT_FDCWD, path, buf, len);
}

static int read_all(struct mntns_tables *t, char *what, size_t cap)
{
	return mntns_tables_read(proc, t, what, cap);
}

static void self_first_then_one_per_namespace_in_pid_order(void)
{
	struct mntns_tables t;
	char what[512] = "x";
	process("self", 4026531840ull, init_table);
	process("1", 4026531840ull, NULL); /* ours: never read (it has no table) */
	process("100", 4026532201ull, "c /srv mtfs rw 0 0\n");
	process("20", 4026532200ull, "b /x mtfs rw 0 0\n");
	process("30", 4026532200ull, NULL); /* 20's: never read */
	put("cmdline", "not a process\n");
	is_int(read_all(&t, what, sizeof(what)), 0, "every namespace read");
	is_int(t.n, 3, "one table each: this one's, then two others'");
	is_int(t.n > 0 ? t.v[0].pid : -1, 0, "this process's own table first");
	is_int(t.n > 1 ? t.v[1].pid : -1, 20, "then by PID: 20 before 100");
	is_int(t.n > 2 ? t.v[2].pid : -1, 100, "and 100");
	ok(t.n > 2 && strstr(t.v[2].text, "/srv mtfs"), "each its own table");
	mntns_tables_free(&t);
	rm_rf("1");
	rm_rf("20");
	rm_rf("30");
	rm_rf("100");
}

static void a_process_that_exits_is_passed_over(void)
{
	struct mntns_tables t;
	char what[512];
	process("10", 0, NULL);                             /* gone before its link was read */
	process("11", 4026532200ull, NULL);                 /* gone between link and table */
	process("12", 4026532200ull, "");                   /* its table read empty */
	process("13", 4026532200ull, "b /x mtfs rw 0 0\n"); /* still there: stands in */
	is_int(read_all(&t, what, sizeof(what)), 0, "the exiting ones are no error");
	is_int(t.n, 2, "their namespace is read through the one left");
	is_int(t.n > 1 ? t.v[1].pid : -1, 13, "which is 13");
	mntns_tables_free(&t);
	rm_rf("10");
	rm_rf("11");
	rm_rf("12");
	rm_rf("13");
}

static void a_namespace_whose_process_forks_and_exits_is_still_read(void)
{
	struct mntns_tables t;
	char what[512] = "x", want[600];
	/* 50 is the only process in its namespace when /proc is listed; it
	 * forks 9, a PID below its own, and exits before its link is read. */
	process("50", 4026532300ull, "c /srv/ns mtfs rw 0 0\n");
	fork_from = 50;
	fork_to = 9;
	fork_ns = 4026532300ull;
	fork_table = "c /srv/ns mtfs rw 0 0\n";
	forks_left = 1;
	is_int(read_all(&t, what, sizeof(what)), 0, "a process that forks and exits is no error");
	is_int(forks_left, 0, "(it forked while the scan read it)");
	is_int(t.n, 2, "its namespace is read all the same");
	is_int(t.n > 1 ? t.v[1].pid : -1, 9, "through the child the first listing never named");
	ok(t.n > 1 && strstr(t.v[1].text, "/srv/ns mtfs"), "with the namespace's table");
	mntns_tables_free(&t);
	rm_rf("9");

	/* One that does so again at every listing: refused, naming /proc. */
	process("60", 4026532300ull, "c /srv/ns mtfs rw 0 0\n");
	fork_from = 60;
	fork_to = 61;
	forks_left = 1000;
	is_int(read_all(&t, what, sizeof(what)), -EAGAIN,
	       "a namespace that never holds still fails closed");
	snprintf(want, sizeof(want), "%s", proc);
	is_str(what, want, "naming /proc");
	is_int(t.n, 0, "and nothing is kept");
	ok(forks_left > 1000 - 20, "after a bounded number of listings");
	char who[24];
	snprintf(who, sizeof(who), "%ld", fork_from);
	forks_left = 0;
	rm_rf(who);
}

static void a_pid_reused_in_another_namespace_is_read_again(void)
{
	struct mntns_tables t;
	char what[512] = "x", want[600];
	/* 50 is read in its namespace; when the scan reads 70, 50 exits and
	 * a new process gets PID 50, the only one in a new namespace. */
	process("50", 4026532300ull, "a /srv/a mtfs rw 0 0\n");
	process("70", 4026531840ull, NULL); /* ours: never read */
	reuse_at = 70;
	reuse_pid = 50;
	reuse_ns = 4026532400ull;
	reuse_table = "b /srv/b mtfs rw 0 0\n";
	reuses_left = 1;
	is_int(read_all(&t, what, sizeof(what)), 0, "a PID reused is no error");
	is_int(reuses_left, 0, "(it was reused while the scan read 70)");
	is_int(t.n, 3, "the new process's namespace is read too");
	ok(t.n > 1 && t.v[1].pid == 50 && strstr(t.v[1].text, "/srv/a mtfs"),
	   "first the table of the process that exited");
	ok(t.n > 2 && t.v[2].pid == 50 && strstr(t.v[2].text, "/srv/b mtfs"),
	   "then the new one's, under the same PID");
	mntns_tables_free(&t);

	/* One reused again at every listing: refused, naming /proc. */
	reuse_at = 50;
	reuses_left = 1000;
	is_int(read_all(&t, what, sizeof(what)), -EAGAIN,
	       "a PID that never holds still fails closed");
	snprintf(want, sizeof(want), "%s", proc);
	is_str(what, want, "naming /proc");
	is_int(t.n, 0, "and nothing is kept");
	ok(reuses_left > 1000 - 20, "after a bounded number of listings");
	reuses_left = 0;
	rm_rf("50");
	rm_rf("70");
}

static void a_pid_reused_between_its_link_and_its_table_stands_for_nothing(void)
{
	struct mntns_tables t;
	char what[512] = "x";
	/* 50 and 60 share namespace A; just after 50's link is read, 50
	 * exits and a new 50 is the only process of namespace B. The table
	 * then read under 50 is B's: it must not count as A's, or 60 (A's
	 * other process) would be passed over and A's mounts never read. */
	process("50", 4026532500ull, "a /srv/a mtfs rw 0 0\n");
	process("60", 4026532500ull, "a /srv/a mtfs rw 0 0\n");
	reuse_at = 50;
	reuse_pid = 50;
	reuse_ns = 4026532600ull;
	reuse_table = "b /srv/b mtfs rw 0 0\n";
	reuses_left = 1;
	reuse_after = true;
	is_int(read_all(&t, what, sizeof(what)), 0, "a PID reused mid-read is no error");
	is_int(reuses_left, 0, "(it was reused after its link was read)");
	bool a = false, b = false;
	for (size_t i = 1; i < t.n; i++) {
		a = a || strstr(t.v[i].text, "/srv/a mtfs");
		b = b || (t.v[i].pid == 50 && strstr(t.v[i].text, "/srv/b mtfs"));
	}
	ok(a, "namespace A is read, through 60");
	ok(b, "namespace B is read, through the new 50");
	is_int(t.n, 3, "each once, with ours");
	mntns_tables_free(&t);
	reuse_after = false;
	rm_rf("50");
	rm_rf("60");
}

static void a_process_that_unshares_between_its_link_and_its_table_is_kept(void)
{
	struct mntns_tables t;
	char what[512] = "x";
	/* 80 is the only process of namespace A; just after its link is
	 * read, it unshares into B, a copy of A's mounts. It keeps its PID
	 * and its directory, so no later listing names it as new: the table
	 * read now is the only one of B there will be. */
	process("80", 4026532700ull, "a /srv/a mtfs rw 0 0\n");
	unshare_pid = 80;
	unshare_ns = 4026532800ull;
	unshare_table = "a /srv/a mtfs rw 0 0\nb /srv/b mtfs rw 0 0\n";
	unshares_left = 1;
	is_int(read_all(&t, what, sizeof(what)), 0, "a process that unshares is no error");
	is_int(unshares_left, 0, "(it unshared after its link was read)");
	is_int(t.n, 2, "its table is kept, with ours");
	ok(t.n > 1 && t.v[1].pid == 80 && strstr(t.v[1].text, "/srv/b mtfs"),
	   "the table of the namespace it is in now");
	mntns_tables_free(&t);
	rm_rf("80");
}

static void what_cannot_be_read_fails_closed(void)
{
	struct mntns_tables t;
	char what[512], want[600];

	process("7", 4026532200ull, NULL);
	snprintf(want, sizeof(want), "%s/7/mounts", proc);
	char dirpath[600];
	snprintf(dirpath, sizeof(dirpath), "%s/7/mounts", proc);
	mkdir(dirpath, 0755);
	is_int(read_all(&t, what, sizeof(what)), -EISDIR, "a table that is a directory fails");
	is_str(what, want, "and is named");
	is_int(t.n, 0, "nothing is kept");
	rm_rf("7");

	process("8", 4026532200ull, "b /x mtfs rw 0 0\n");
	char link[600];
	snprintf(link, sizeof(link), "%s/8/ns/mnt", proc);
	unlink(link);
	if (symlink("net:[4026532200]", link) < 0)
		printf("# symlink: %s\n", strerror(errno));
	snprintf(want, sizeof(want), "%s/8/ns/mnt", proc);
	is_int(read_all(&t, what, sizeof(what)), -ENOLINK, "a link to no mount namespace fails");
	is_str(what, want, "and is named");
	unlink(link);
	mkdir(link, 0755);
	is_int(read_all(&t, what, sizeof(what)), -ENOLINK, "so does no link at all (a directory)");
	rm_rf("8");

	rm_rf("self/mounts");
	snprintf(want, sizeof(want), "%s/self/mounts", proc);
	is_int(read_all(&t, what, sizeof(what)), -ENOENT,
	       "this process's own table is no process gone");
	is_str(what, want, "and is named");
	process("self", 4026531840ull, init_table);

	rm_rf("self/ns");
	snprintf(want, sizeof(want), "%s/self/ns/mnt", proc);
	is_int(read_all(&t, what, sizeof(what)), -ENOENT, "nor is its own link");
	is_str(what, want, "which is named");
	process("self", 4026531840ull, init_table);
}

int main(void)
{
	if (!mkdtemp(proc)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	mkdir(proc, 0755);
	self_first_then_one_per_namespace_in_pid_order();
	a_process_that_exits_is_passed_over();
	a_namespace_whose_process_forks_and_exits_is_still_read();
	a_pid_reused_in_another_namespace_is_read_again();
	a_pid_reused_between_its_link_and_its_table_stands_for_nothing();
	a_process_that_unshares_between_its_link_and_its_table_is_kept();
	what_cannot_be_read_fails_closed();
	rm_rf("");
	return tap_done();
}
