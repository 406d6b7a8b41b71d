// SPDX-License-Identifier: GPL-2.0
/* slowexit: exit sleeps, so the module can be seen in state Unloading. */
#include <linux/module.h>
#include <linux/delay.h>

static int __init slowexit_init(void)
{
	return 0;
}

static void __exit slowexit_exit(void)
{
	msleep(1500);
}

module_init(slowexit_init);
module_exit(slowexit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit sleeps 1.5 s");
