// SPDX-License-Identifier: GPL-2.0
/*
 * slowfail: init sleeps 1.5 s, then fails with -ENODEV, so a second load
 * of the name can be made to wait for a load that fails.
 */
#include <linux/module.h>
#include <linux/delay.h>

static int __init slowfail_init(void)
{
	msleep(1500);
	return -ENODEV;
}

static void __exit slowfail_exit(void)
{
}

module_init(slowfail_init);
module_exit(slowfail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init sleeps 1.5 s, then fails with ENODEV");
