// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fresh memory about to be written whole, its pages taken in one call.
 *
 * A buffer lib fills at once (a file read whole, the snapshot's module
 * array) is new memory: each of its pages costs a fault on first touch,
 * a trap into the kernel and back, costly on a virtual machine
 * (bench/README.md). MADV_POPULATE_WRITE (Linux 5.14) maps them all in one system call; an
 * older kernel answers EINVAL and the pages fault in as before. Only
 * areas of 64 KiB or more are worth the call.
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
