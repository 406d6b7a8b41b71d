// SPDX-License-Identifier: GPL-2.0
/* delta: a module on its own. */
#include <linux/module.h>

static char delta_data[4000] = { 1 };

static int __init delta_init(void)
{
	return delta_data[0] == 1 ? 0 : -EINVAL;
}

static void __exit delta_exit(void)
{
}

module_init(delta_init);
module_exit(delta_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a module on its own");
