// SPDX-License-Identifier: GPL-2.0
/*
 * bulk: the template of the 200 modules kernel/run.sh --figures loads and
 * unloads to time insmod (copied to bulk001.c ... bulk200.c).  Init
 * sleeps init_delay_us microseconds, as a driver probing hardware would.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static unsigned int init_delay_us;
module_param(init_delay_us, uint, 0444);
MODULE_PARM_DESC(init_delay_us, "microseconds init sleeps");

static int __init bulk_init(void)
{
	if (init_delay_us)
		usleep_range(init_delay_us, init_delay_us + init_delay_us / 10 + 1);
	return 0;
}

static void __exit bulk_exit(void)
{
}

module_init(bulk_init);
module_exit(bulk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: one of many small modules, for timing loads");
