// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>

#include "modrot.h"

/* libc has it (glibc and musl alike) but no header declares it. */
int init_module(void *image, unsigned long len, const char *params);

int rot_modfile_insert(const struct rot_modfile *mf, const char *params)
{
	if (!mf)
		return -EINVAL;
	size_t len;
	const void *image = rot_modfile_image(mf, &len);
	if (rot_modfile_problem(mf) != ROT_PROBLEM_NONE || !image || len == 0)
		return -ENOEXEC;
	/* libc's init_module(), as libkmod calls it, not syscall(): a test
	 * harness that stands in for the kernel (kmod's testsuite, the
	 * simulator) interposes the function, and may not know the number. */
	if (init_module((void *)image, (unsigned long)len, params ? params : "") == 0)
		return 0;
	return -errno;
}
