// SPDX-License-Identifier: GPL-2.0-or-later
/* The snapshot parser against kernel-format text. */
#include <errno.h>
#include <stdlib.h>

#include "modrot.h"
#include "tap.h"

static struct rot_snapshot *parse(const char *modules, const char *rotting, int *err)
{
	struct rot_snapshot *s = NULL;
	*err = rot_snapshot_parse(modules, strlen(modules), rotting,
				  rotting ? strlen(rotting) : 0, &s);
	return s;
}

static void live_fields_are_parsed(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"beta 16384 0 - Live 0xffffffffc0004000 (OE)\n"
		"alpha 8192 0 beta,gamma,[permanent], Live 0xffffffffc0000000\n", "", &err);
	is_int(err, 0, "live lines parse");
	is_int(rot_snapshot_count(s), 2, "two modules");
	is_int(rot_snapshot_live_count(s), 2, "both live");
	ok(rot_snapshot_has_rot(s), "an empty rotting file still means a rot kernel");

	const struct rot_module *b = rot_snapshot_module(s, 0);
	is_str(rot_module_name(b), "beta", "newest first, as the kernel lists them");
	is_int(rot_module_size(b), 16384, "size");
	is_str(rot_module_taints(b), "OE", "taint letters without parentheses");
	ok(rot_module_address(b) == 0xffffffffc0004000ull, "address");
	is_int(rot_module_holder_count(b), 0, "'-' means no holders");

	const struct rot_module *a = rot_snapshot_find_live(s, "alpha");
	ok(a != NULL, "find_live finds alpha");
	is_int(rot_module_holder_count(a), 2, "[permanent] is not a holder");
	ok(rot_module_is_permanent(a), "[permanent] marks the module");
	is_str(rot_module_taints(a), "", "no taints");
	ok(rot_snapshot_find_live(s, "delta") == NULL, "find_live of an absent name is NULL");
	rot_snapshot_free(s);
}

static void holders_come_in_sysfs_order(void)
{
	int err;
	struct rot_snapshot *s = parse("a 1 3 zeta,eta,theta, Live 0x1000\n", NULL, &err);
	const struct rot_module *a = rot_snapshot_module(s, 0);
	is_int(rot_module_holder_count(a), 3, "three holders");
	int sorted = 1;
	for (size_t i = 1; i < 3; i++)
		sorted &= rot_kernfs_hash(rot_module_holder(a, i - 1)) <=
			  rot_kernfs_hash(rot_module_holder(a, i));
	ok(sorted, "holders are ordered by kernfs hash");
	ok(!rot_snapshot_has_rot(s), "no rotting file means a stock kernel");
	is_int(rot_module_refcnt(a), 3, "stock refcount kept");
	rot_snapshot_free(s);
}

static void rotting_instances_follow_live(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"a 4096 0 - Live 0xffffffffc0010000\n",
		"a 8192 0 [rotting], Rotting 0xffffffffc0002000\n"
		"a 8192 0 [rotting], Rotting 0xffffffffc0001000\n", &err);
	is_int(err, 0, "rotting lines parse");
	is_int(rot_snapshot_count(s), 3, "one live, two rotting");
	const struct rot_module *r = rot_snapshot_module(s, 1);
	ok(rot_module_is_rotting(r), "second entry rots");
	is_int(rot_module_holder_count(r), 0, "[rotting] is not a holder");
	is_str(rot_state_name(rot_module_state(r)), "rotting", "state name");
	rot_snapshot_free(s);
}

static void unload_between_reads_is_counted_once(void)
{
	int err;
	struct rot_snapshot *s = parse(
		"b 4096 0 - Live 0xffffffffc0020000\n"
		"a 4096 0 - Unloading 0xffffffffc0010000\n",
		"a 4096 0 [rotting], Rotting 0xffffffffc0010000\n", &err);
	is_int(rot_snapshot_count(s), 2, "the module that rotted in between shows once");
	is_int(rot_snapshot_live_count(s), 1, "and only as rotting");
	ok(rot_snapshot_find_live(s, "a") == NULL, "a is not live");
	rot_snapshot_free(s);

	/* Without kernel pointers, addresses are zero and nothing is dropped. */
	s = parse("a 4096 0 - Live 0x0000000000000000\n",
		  "a 4096 0 [rotting], Rotting 0x0000000000000000\n", &err);
	is_int(rot_snapshot_count(s), 2, "zero addresses are never matched");
	rot_snapshot_free(s);
}

static void malformed_lines_are_refused(void)
{
	static const char *const bad[] = {
		"a 4096 0 - Live\n",                       /* no address */
		"a x 0 - Live 0x1000\n",                   /* size not a number */
		"a 4096 0 - Sleeping 0x1000\n",            /* unknown state */
		"a 4096 0 - Live 1000\n",                  /* address without 0x */
		"a 4096 0 - Live 0x1000 OE\n",             /* taints without () */
		"a 4096 0 - Live 0x1000 (O) extra\n",      /* trailing field */
		"a 99999999999999999999999 0 - Live 0x1\n",/* overflow */
		"a 4096 0 [rotting], Rotting 0x1000\n",    /* rotting line in /proc/modules */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err;
		struct rot_snapshot *s = parse(bad[i], NULL, &err);
		ok(err < 0 && s == NULL, "refused: %.*s", (int)strcspn(bad[i], "\n"), bad[i]);
	}
	int err;
	struct rot_snapshot *s = parse("", "a 1 0 - Live 0x1000\n", &err);
	ok(err == -EPROTO && !s, "a live line in /proc/rotting_modules is refused");
}

static void taint_letters_follow_linux_6_1(void)
{
	char buf[40];
	is_int(rot_taint_letters(0, buf, sizeof(buf)), 4, "zero is 'none'");
	is_str(buf, "none", "zero is 'none'");
	rot_taint_letters(ROT_TAINT_FORCED_RMMOD, buf, sizeof(buf));
	is_str(buf, "R", "bit 3 is R");
	rot_taint_letters(8 | 4096 | 8192, buf, sizeof(buf));
	is_str(buf, "ROE", "R, O and E in bit order");
	rot_taint_letters(1UL << 18, buf, sizeof(buf));
	is_str(buf, "N", "bit 18 is N");
	rot_taint_letters(1UL << 19, buf, sizeof(buf));
	is_str(buf, "?", "an unknown bit shows as ?");
	is_int(rot_taint_letters(0xff, buf, 4), -ENOSPC, "short buffer is ENOSPC");
}

static void names_are_normalised(void)
{
	char name[ROT_NAME_MAX + 1];
	is_int(rot_name_normalise("snd-pcm", name), 0, "dash name");
	is_str(name, "snd_pcm", "dashes become underscores");
	rot_name_normalise("/lib/modules/x/snd-hda-intel.ko.zst", name);
	is_str(name, "snd_hda_intel", "a path gives its basename without extension");
	rot_name_normalise("a.ko.xz", name);
	is_str(name, "a", ".ko.xz is stripped");
	rot_name_normalise("x.ko", name);
	is_str(name, "x", ".ko is stripped");
	is_int(rot_name_normalise(".ko", name), -EINVAL, "nothing but an extension");
	is_int(rot_name_normalise("", name), -EINVAL, "empty");
	char longname[80];
	memset(longname, 'a', 56);
	longname[56] = '\0';
	is_int(rot_name_normalise(longname, name), -ENAMETOOLONG, "56 bytes is too long");
	longname[55] = '\0';
	is_int(rot_name_normalise(longname, name), 0, "55 bytes fits");
}

static void kernfs_hash_matches_the_kernel(void)
{
	/* Values follow kernfs_name_hash(name, NULL) in fs/kernfs/dir.c. */
	ok(rot_kernfs_hash("") == 2, "empty name hashes to 2 (hash < 2 is bumped)");
	ok(rot_kernfs_hash("a") >= 2 && rot_kernfs_hash("a") < 0x7fffffff, "hash in range");
	ok(rot_kernfs_hash("snd") != rot_kernfs_hash("dns"), "order of bytes matters");
}

int main(void)
{
	live_fields_are_parsed();
	holders_come_in_sysfs_order();
	rotting_instances_follow_live();
	unload_between_reads_is_counted_once();
	malformed_lines_are_refused();
	taint_letters_follow_linux_6_1();
	names_are_normalised();
	kernfs_hash_matches_the_kernel();
	return tap_done();
}
