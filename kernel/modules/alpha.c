// SPDX-License-Identifier: GPL-2.0
/* alpha: a plain module that exports a function (beta uses it). */
#include <linux/module.h>
#include "alpha.h"

int alpha_fn(int x)
{
	return x + 1;
}
EXPORT_SYMBOL_GPL(alpha_fn);

static int __init alpha_init(void)
{
	return 0;
}

static void __exit alpha_exit(void)
{
}

module_init(alpha_init);
module_exit(alpha_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exports alpha_fn");
