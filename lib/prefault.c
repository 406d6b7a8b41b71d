// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fresh memory about to be written whole (a file read whole, the
 * snapshot's module array) costs a fault per page on first touch, dear on
 * a virtual machine (bench/README.md). MADV_POPULATE_WRITE (Linux 5.14)
 * maps the pages in one system call; an older kernel answers EINVAL and
 * they fault in as before. Only areas of 64 KiB or more are worth the call.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define PREFAULT_MIN (64 * 1024)

void mem_prefault(void *p, size_t len)
{
	if (len < PREFAULT_MIN)
		return;
	/* The loader's page size (4, 16 or 64 KiB): no system call. */
	long size = sysconf(_SC_PAGESIZE);
	if (size <= 0)
		return;
	uintptr_t mask = (uintptr_t)size - 1;
	/* Whole pages inside the area only: a page it shares with other
	 * allocations is theirs to fault. */
	uintptr_t start = ((uintptr_t)p + mask) & ~mask;
	uintptr_t end = ((uintptr_t)p + len) & ~mask;
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
