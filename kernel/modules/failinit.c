// SPDX-License-Identifier: GPL-2.0
/* failinit: init fails with -ENODEV, so the module rots at once. */
#include <linux/module.h>

static int __init failinit_init(void)
{
	return -ENODEV;
}

static void __exit failinit_exit(void)
{
}

module_init(failinit_init);
module_exit(failinit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init fails with ENODEV");
