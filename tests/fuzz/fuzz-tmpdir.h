/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A harness's scratch directory (a flat one: files and links), removed
 * when the process exits, so that a run of the suite or of a fuzzer
 * leaves nothing behind in /tmp or /dev/shm.
 */
#ifndef FUZZ_TMPDIR_H
#define FUZZ_TMPDIR_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fuzz_tmpdir_path;

static void fuzz_tmpdir_remove(void)
{
	DIR *d = opendir(fuzz_tmpdir_path);
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(fuzz_tmpdir_path);
}

/* mkdtemp(tmpl), removed at exit: tmpl must live as long as the process. */
static char *fuzz_tmpdir(char *tmpl)
{
	if (!mkdtemp(tmpl))
		return NULL;
	fuzz_tmpdir_path = tmpl;
	atexit(fuzz_tmpdir_remove);
	return tmpl;
}

#endif
