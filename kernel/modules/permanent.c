// SPDX-License-Identifier: GPL-2.0
/* permanent: init without exit, so only a forced unload removes it. */
#include <linux/module.h>

static int __init permanent_init(void)
{
	return 0;
}

module_init(permanent_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init without exit");
