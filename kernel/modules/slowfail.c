// SPDX-License-Identifier: GPL-2.0
/*
 * slowfail: init sleeps 1.5 s, or until its gate opens, then fails with
 * -ENODEV, so a second load of the name can be made to wait for a load
 * that fails.
 */
#include <linux/module.h>
#include <linux/delay.h>

/* gate=1: init waits until the gate is written 0 (at most 30 s). */
static bool gate;
module_param(gate, bool, 0644);

static int __init slowfail_init(void)
{
	int waited = 0;

	if (!READ_ONCE(gate)) {
		msleep(1500);
		return -ENODEV;
	}
	while (READ_ONCE(gate) && waited < 30000) {
		msleep(20);
		waited += 20;
	}
	return -ENODEV;
}

static void __exit slowfail_exit(void)
{
}

module_init(slowfail_init);
module_exit(slowfail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init sleeps 1.5 s, or until its gate opens, then fails with ENODEV");
