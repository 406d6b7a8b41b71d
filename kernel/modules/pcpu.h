/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module whose only state is PCPU_BYTES of per-CPU data, from the
 * module per-CPU reserve (PERCPU_MODULE_RESERVE).  The includer defines
 * PCPU_BYTES, and PCPU_ALIGN when it is not 8.  Init writes every CPU's
 * copy, so the area is really used.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>

/*
 * 8-byte aligned, not the 32 GCC gives a large array: the reserve starts
 * where the kernel's static per-CPU data ends, which is 8-byte aligned but
 * no more, and alignment is of the address.  Up to 8, a module lands at the
 * same offsets in the reserve whatever its start, as the simulated kernel
 * (which starts the reserve on a page) places it.
 */
#ifndef PCPU_ALIGN
#define PCPU_ALIGN 8
#endif
static DEFINE_PER_CPU(u8 [PCPU_BYTES], pcpu_area) __aligned(PCPU_ALIGN);

static int __init pcpu_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pcpu_area, cpu), cpu + 1, PCPU_BYTES);
	return 0;
}

static void __exit pcpu_exit(void)
{
}

module_init(pcpu_init);
module_exit(pcpu_exit);
MODULE_LICENSE("GPL");
