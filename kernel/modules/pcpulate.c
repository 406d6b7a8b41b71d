// SPDX-License-Identifier: GPL-2.0
/*
 * pcpulate: 64 bytes of per-CPU data, whose address it gives rothook at
 * init; rothook keeps it only encoded, as a device would.  After reclaim,
 * rothook's pcpu_byte writes where the scan saw no reference: the guard
 * over reclaimed per-CPU data (rot-abi.md R15) must notice.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include "rothook.h"

static DEFINE_PER_CPU(u8 [64], pcpulate_area) __aligned(8);

static int __init pcpulate_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pcpulate_area, cpu), 0x11, 64);
	rothook_register_percpu(&pcpulate_area);
	return 0;
}

static void __exit pcpulate_exit(void)
{
}

module_init(pcpulate_init);
module_exit(pcpulate_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: gives rothook its per-CPU area, encoded");
