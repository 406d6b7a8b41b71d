// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The in-use rule (lib/inuse.c): its inputs, the rule on one module, the
 * unused-set closure and the kernel's own refusal told from a snapshot.
 * Module names are ones no real kernel has, so the per-module sysfs read
 * of bound devices finds none; the mount table is this process's own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"
#include "tap.h"

static char dir[] = "/tmp/modrot-inuse-t.XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void remove_file(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink(path) < 0)
		rmdir(path);
}

static struct rot_snapshot *parse(const char *modules, const char *rotting)
{
	struct rot_snapshot *s = NULL;
	int err = snapshot_parse(modules, strlen(modules), rotting,
				     rotting ? strlen(rotting) : 0, NULL, 0, &s);
	if (err < 0)
		printf("# parse failed: %d\n", err);
	return s;
}

static size_t live_index(const struct rot_snapshot *s, const char *name)
{
	return rot_snapshot_index_of(s, rot_snapshot_find_live(s, name));
}

/* "proc" is mounted wherever this test can run (it reads /proc/self/mounts). */
static void a_mounted_type_marks_its_providers(void)
{
	write_file("modules.alias", "alias fs-proc modrot-unit-procfs\n"
				    "alias fs-proc modrot_unit_second\n"
				    "alias fs-nosuchfs modrot_unit_other\n"
				    "alias pci:v* modrot_unit_pci\n");
	struct rot_usage_ctx *ctx = NULL;
	char what[256] = "x";
	int err = rot_usage_ctx_read(NULL, dir, &ctx, what, sizeof(what));
	is_int(err, 0, "the rule's inputs are read");
	is_str(what, "", "nothing failed, nothing named");

	struct rot_snapshot *s = parse("modrot_unit_procfs 4096 0 - Live 0x1000\n"
				       "modrot_unit_second 4096 0 - Live 0x2000\n"
				       "modrot_unit_other 4096 0 - Live 0x3000\n",
				       "");
	struct rot_usage u = { .size = sizeof(u) };
	err = rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_procfs"), NULL, &u);
	is_int(err, 0, "usage of a provider");
	ok(u.mounts >= 1, "a '-' in the alias's name is read as '_', and its mounts count");
	is_str(u.mount_type, "proc", "the first mount's type is kept for messages");
	ok(rot_usage_in_use(&u), "a provider of a mounted type is in use");
	rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_second"), NULL, &u);
	ok(rot_usage_in_use(&u), "every provider of a mounted type is in use");
	rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_other"), NULL, &u);
	is_int(u.mounts, 0, "a type nobody mounts makes nobody busy");
	ok(!rot_usage_in_use(&u), "so that provider is unused");

	/* Without mounts considered (ctx NULL), the provider is unused. */
	rot_module_usage(NULL, s, rot_snapshot_find_live(s, "modrot_unit_procfs"), NULL, &u);
	ok(!rot_usage_in_use(&u), "ctx NULL considers no mounts");

	/* An extensible struct: a size below 0.1's is refused, untouched,
	 * and the rule fails closed on it. */
	struct rot_usage small;
	memset(&small, 0, sizeof(small));
	small.size = ROT_USAGE_SIZE_0_1 - 1;
	small.mounts = 7;
	is_int(rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_other"), NULL,
				&small),
	       -EINVAL, "a usage struct too small for 0.1 is refused");
	is_int(small.mounts, 7, "and left as it was");
	small.mounts = 0;
	ok(rot_usage_in_use(&small), "the rule cannot read it: in use, not unused");
	is_int(rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_other"), NULL, NULL),
	       -EINVAL, "no struct is refused");
	rot_usage_ctx_free(ctx);
	rot_snapshot_free(s);
}

/* The rule fails closed: an input it cannot read is an error, never "no users". */
static void unreadable_inputs_fail_closed(void)
{
	struct rot_usage_ctx *ctx = (struct rot_usage_ctx *)1;
	char what[256];

	/* Issue 32: no index tells nothing of who provides a type (a
	 * container without /lib/modules/RELEASE): an error, never "none". */
	remove_file("modules.alias");
	is_int(rot_usage_ctx_read(NULL, dir, &ctx, what, sizeof(what)), -ENOENT,
	       "no index at all is an error on a kernel whose users are guessed");
	ok(strstr(what, "/modules.alias") != NULL, "the missing index is named: %s", what);
	char nodir[300];
	snprintf(nodir, sizeof(nodir), "%s/no-such-release", dir);
	is_int(rot_usage_ctx_read(NULL, nodir, &ctx, what, sizeof(what)), -ENOENT,
	       "no module directory is an error too");
	is_str(what, nodir, "and the directory is named");

	write_file("modules.alias.bin", "");
	is_int(rot_usage_ctx_read(NULL, dir, &ctx, what, sizeof(what)), -ENOENT,
	       "modules.alias missing beside modules.alias.bin is an error");
	ok(ctx == NULL, "and no context is returned");
	ok(strstr(what, "/modules.alias") && !strstr(what, ".bin"), "the missing file is named: %s",
	   what);

	char path[256];
	snprintf(path, sizeof(path), "%s/modules.alias", dir);
	mkdir(path, 0700);
	is_int(rot_usage_ctx_read(NULL, dir, &ctx, what, sizeof(what)), -EISDIR,
	       "a directory where modules.alias should be");
	remove_file("modules.alias");
	remove_file("modules.alias.bin");
}

/*
 * On a rot kernel: c holds b, b holds nothing else; a is alone; p is
 * permanent; l is loading; f provides the mounted proc type and holds h.
 */
static const char rot_modules[] = "modrot_unit_c 4096 0 - Live 0x1000\n"
				  "modrot_unit_b 4096 0 modrot_unit_c, Live 0x2000\n"
				  "modrot_unit_a 4096 0 - Live 0x3000\n"
				  "modrot_unit_p 4096 0 [permanent], Live 0x4000\n"
				  "modrot_unit_l 4096 0 - Loading 0x5000\n"
				  "modrot_unit_f 4096 0 - Live 0x6000\n"
				  "modrot_unit_h 4096 0 modrot_unit_f, Live 0x7000\n";

static void the_unused_set_is_closed_under_held_by(void)
{
	write_file("modules.alias", "alias fs-proc modrot_unit_f\n");
	struct rot_usage_ctx *ctx = NULL;
	rot_usage_ctx_read(NULL, dir, &ctx, NULL, 0);
	struct rot_snapshot *s = parse(rot_modules, "modrot_unit_b 4096 0 [rotting], Rotting 0x9000\n");
	size_t n = rot_snapshot_live_count(s), at = 99;
	bool *unused = calloc(n, sizeof(*unused));

	is_int(rot_snapshot_unused(ctx, s, 0, unused, NULL, &at), 0, "the closure is computed");
	ok(unused[live_index(s, "modrot_unit_c")], "c is unused");
	ok(unused[live_index(s, "modrot_unit_b")], "b is unused once its only holder c goes");
	ok(unused[live_index(s, "modrot_unit_a")], "a is unused");
	ok(!unused[live_index(s, "modrot_unit_p")], "a permanent module is not a candidate");
	ok(!unused[live_index(s, "modrot_unit_l")], "a loading module is not a candidate");
	ok(!unused[live_index(s, "modrot_unit_f")], "f provides a mounted type: in use");
	ok(!unused[live_index(s, "modrot_unit_h")], "h is held by f, which stays: in use");
	is_int(at, 99, "no failure index on success");

	rot_snapshot_unused(ctx, s, ROT_UNUSED_PERMANENT, unused, NULL, &at);
	ok(unused[live_index(s, "modrot_unit_p")], "ROT_UNUSED_PERMANENT takes permanent ones too");

	/* lsmod's INUSE column and modprobe -r ask the rule for one module:
	 * it agrees with the closure for a module held by nothing. */
	struct rot_usage u = { .size = sizeof(u) };
	rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_b"), NULL, &u);
	ok(rot_usage_in_use(&u), "alone, b is in use by its live holder c");
	bool gone[16] = { false };
	gone[live_index(s, "modrot_unit_c")] = true;
	rot_module_usage(ctx, s, rot_snapshot_find_live(s, "modrot_unit_b"), gone, &u);
	ok(!rot_usage_in_use(&u), "with c marked gone, b is unused");
	rot_module_usage(ctx, s, rot_snapshot_module(s, n), NULL, &u);
	ok(!rot_usage_in_use(&u), "a rotting instance is used by nothing");

	free(unused);
	rot_usage_ctx_free(ctx);
	rot_snapshot_free(s);
	remove_file("modules.alias");
}

/* A stock kernel's count holds references beyond the holders (an open device, a mount). */
static void stock_references_count_beyond_holders(void)
{
	struct rot_snapshot *s = parse("modrot_unit_user 4096 0 - Live 0x1000\n"
				       "modrot_unit_held 4096 1 modrot_unit_user, Live 0x2000\n"
				       "modrot_unit_open 4096 2 - Live 0x3000\n",
				       NULL);
	size_t n = rot_snapshot_live_count(s), at;
	bool unused[3];
	is_int(rot_snapshot_unused(NULL, s, 0, unused, NULL, &at), 0, "closure on a stock kernel");
	ok(unused[live_index(s, "modrot_unit_user")], "user is unused");
	ok(unused[live_index(s, "modrot_unit_held")], "held's one reference is its holder's");
	ok(!unused[live_index(s, "modrot_unit_open")], "open holds 2 foreign references: in use");
	is_int(n, 3, "three live modules");
	rot_snapshot_free(s);
}

/* What the kernel itself refuses, told without a syscall (rmmod's precheck). */
static void the_kernels_refusal_is_told_from_the_snapshot(void)
{
	struct rot_snapshot *rot = parse(rot_modules, "");
	const struct rot_module *b = rot_snapshot_find_live(rot, "modrot_unit_b");
	bool gone[16] = { false };

	is_int(rot_module_unload_check(rot, NULL, NULL, 0), -ENOENT, "no module: -ENOENT");
	is_int(rot_module_unload_check(rot, b, NULL, 0), -EWOULDBLOCK, "a live holder refuses");
	is_int(rot_module_unload_check(rot, b, NULL, ROT_UNLOAD_FORCE), -EWOULDBLOCK,
	       "forcing does not unload under a holder");
	gone[live_index(rot, "modrot_unit_c")] = true;
	is_int(rot_module_unload_check(rot, b, gone, 0), 0, "a holder marked gone holds nothing");
	is_int(rot_module_unload_check(rot, rot_snapshot_find_live(rot, "modrot_unit_f"), NULL, 0),
	       0, "mounts are the rule's, not the kernel's");
	rot_snapshot_free(rot);

	struct rot_snapshot *stock = parse("modrot_unit_user 4096 0 - Live 0x1000\n"
					   "modrot_unit_held 4096 1 modrot_unit_user, Live 0x2000\n"
					   "modrot_unit_open 4096 2 - Live 0x3000\n",
					   NULL);
	const struct rot_module *open = rot_snapshot_find_live(stock, "modrot_unit_open");
	const struct rot_module *held = rot_snapshot_find_live(stock, "modrot_unit_held");
	is_int(rot_module_unload_check(stock, open, NULL, 0), -EWOULDBLOCK,
	       "stock: references beyond the holders refuse");
	is_int(rot_module_unload_check(stock, open, NULL, ROT_UNLOAD_FORCE), 0,
	       "stock: -f unloads a module with references");
	memset(gone, 0, sizeof(gone));
	gone[live_index(stock, "modrot_unit_user")] = true;
	is_int(rot_module_unload_check(stock, held, gone, 0), 0,
	       "stock: a holder's own reference goes with it");
	rot_snapshot_free(stock);
}

/*
 * Revision 4 (rot-abi.md C5, D5): pins from /proc/module_pins say it all;
 * no index and no mount table is read, so neither may be missing.
 */
static void revision_4_reads_pins_and_no_table(void)
{
	const char mods[] = "modrot_unit_fs 4096 0 - Live 0x1000\n"
			    "modrot_unit_net 4096 0 - Live 0x2000\n"
			    "modrot_unit_new 4096 0 - Loading 0x3000\n";
	const char pins[] = "modrot_unit_fs 2 -\nmodrot_unit_net 0 safe\n";
	struct rot_snapshot *s = NULL;
	is_int(snapshot_parse(mods, strlen(mods), "", 0, pins, strlen(pins), &s), 0,
	       "a revision-4 snapshot");
	ok(s && rot_snapshot_has_pins(s), "it has pins (D5)");
	const struct rot_module *fs = rot_snapshot_find_live(s, "modrot_unit_fs");
	const struct rot_module *net = rot_snapshot_find_live(s, "modrot_unit_net");
	const struct rot_module *fresh = rot_snapshot_find_live(s, "modrot_unit_new");
	is_int((int)rot_module_pins(fs), 2, "a live module's pins");
	ok(!rot_module_is_rot_safe(fs) && rot_module_is_rot_safe(net), "SAFE is read (C4)");
	ok(!rot_module_pins_known(fresh), "a module without a line has no known pins");

	struct rot_usage_ctx *ctx = NULL;
	char what[256] = "x";
	remove_file("modules.alias");
	is_int(rot_usage_ctx_read(s, dir, &ctx, what, sizeof(what)), 0,
	       "no index is needed: the kernel tells");
	struct rot_usage u = { .size = sizeof(u) };
	is_int(rot_module_usage(ctx, s, fs, NULL, &u), 0, "usage of a pinned module");
	is_int((int)u.pins, 2, "its pins");
	ok(rot_usage_in_use(&u), "a pinned module is in use");
	is_int((int)u.mounts, 0, "no mount is counted");
	rot_module_usage(ctx, s, net, NULL, &u);
	ok(!rot_usage_in_use(&u), "an unpinned one is unused");
	is_int(rot_module_usage(ctx, s, fresh, NULL, &u), -ENODATA,
	       "pins not known: no verdict, not unused");
	is_str(rot_usage_ctx_failed_input(ctx), "/proc/module_pins", "and the input is named");
	struct rot_usage old = { .size = ROT_USAGE_SIZE_0_1 };
	rot_module_usage(ctx, s, fs, NULL, &old);
	ok(!rot_usage_in_use(&old), "a 0.1-sized caller cannot see pins (documented, members added at the end)");
	rot_usage_ctx_free(ctx);

	/* a context made for a revision-4 kernel refuses a revision-3 snapshot */
	rot_usage_ctx_read(s, dir, &ctx, what, sizeof(what));
	struct rot_snapshot *s3 = parse(mods, "");
	is_int(rot_module_usage(ctx, s3, rot_snapshot_find_live(s3, "modrot_unit_fs"), NULL, &u), -EXDEV,
	       "a context of another kernel does not judge");
	rot_usage_ctx_free(ctx);
	rot_snapshot_free(s3);

	const char bad[] = "modrot_unit_fs two -\n";
	struct rot_snapshot *b = NULL;
	is_int(snapshot_parse(mods, strlen(mods), "", 0, bad, strlen(bad), &b), -EBADMSG,
	       "a malformed /proc/module_pins is refused");
	ok(b == NULL, "with no snapshot");
	rot_snapshot_free(s);

	/* C5 prints /proc/modules' order; lines out of it still find their module */
	const char shuffled[] = "modrot_unit_net 0 safe\nmodrot_unit_late 1 -\nmodrot_unit_fs 2 -\n";
	is_int(snapshot_parse(mods, strlen(mods), "", 0, shuffled, strlen(shuffled), &s), 0,
	       "pins lines out of order, one of a module loaded since");
	is_int((int)rot_module_pins(rot_snapshot_find_live(s, "modrot_unit_fs")), 2,
	       "each line on its module");
	ok(rot_module_is_rot_safe(rot_snapshot_find_live(s, "modrot_unit_net")), "SAFE too");
	rot_snapshot_free(s);
	const char blanks[] = "modrot_unit_fs  2 -\n";
	is_int(snapshot_parse(mods, strlen(mods), "", 0, blanks, strlen(blanks), &b), -EBADMSG,
	       "a run of blanks, which no kernel prints, is refused");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	a_mounted_type_marks_its_providers();
	unreadable_inputs_fail_closed();
	the_unused_set_is_closed_under_held_by();
	stock_references_count_beyond_holders();
	the_kernels_refusal_is_told_from_the_snapshot();
	revision_4_reads_pins_and_no_table();
	rmdir(dir);
	return tap_done();
}
