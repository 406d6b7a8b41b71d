// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that knows libmodrot only through the installed modrot.h and
 * libmodrot.pc (tests/libmodrot.bats builds it in a DESTDIR): lists the
 * modules of one snapshot, then unloads the module argv[1] names. It
 * prints what the library returned; the library itself prints nothing.
 */
#include <stdio.h>
#include <string.h>

#include <modrot.h>

int main(int argc, char **argv)
{
	struct rot_snapshot *snap;
	int err = rot_snapshot_read(&snap);

	if (err < 0) {
		printf("snapshot: %s\n", strerror(-err));
		return 1;
	}
	printf("rot kernel: %s\n", rot_snapshot_has_rot(snap) ? "yes" : "no");
	for (size_t i = 0; i < rot_snapshot_count(snap); i++) {
		const struct rot_module *m = rot_snapshot_module(snap, i);
		printf("%s %s\n", rot_module_name(m), rot_state_name(rot_module_state(m)));
	}
	rot_snapshot_free(snap);
	for (int i = 1; i < argc; i++) {
		err = rot_unload(argv[i], 0);
		printf("unload %s: %s\n", argv[i], err < 0 ? strerror(-err) : "done");
	}
	return 0;
}
