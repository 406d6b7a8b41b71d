// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulated kernel log, DIR/kmsg: the lines the rot kernel prints
 * about a reclaim (rot-abi.md R4, R5, R7) and its audit records, one a
 * line, appended; `simkernel dmesg DIR` prints it. Only reclaim writes
 * here: the tools can read a real kernel's log, so a test of what they
 * say may need to read this one.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "sim.h"

void sim_klog(const char *dir, const char *fmt, ...)
{
	char path[PATH_MAX], line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (!sim_path(path, sizeof(path), dir, "kmsg"))
		return;
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* one write with O_APPEND: lines of concurrent writers never mix */
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
	close(fd);
}
