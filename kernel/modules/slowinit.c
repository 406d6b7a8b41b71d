// SPDX-License-Identifier: GPL-2.0
/* slowinit: init sleeps, so the module can be seen in state Loading. */
#include <linux/module.h>
#include <linux/delay.h>

static int __init slowinit_init(void)
{
	msleep(1500);
	return 0;
}

static void __exit slowinit_exit(void)
{
}

module_init(slowinit_init);
module_exit(slowinit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init sleeps 1.5 s");
