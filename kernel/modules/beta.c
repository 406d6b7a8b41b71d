// SPDX-License-Identifier: GPL-2.0
/* beta: uses alpha_fn, so alpha holds beta while beta is live. */
#include <linux/module.h>
#include "alpha.h"

/* Exported for symbol lookups; no module calls it. */
int beta_fn(int x);

int beta_fn(int x)
{
	return alpha_fn(x) * 2;
}
EXPORT_SYMBOL_GPL(beta_fn);

static int __init beta_init(void)
{
	return beta_fn(1) == 4 ? 0 : -EINVAL;
}

static void __exit beta_exit(void)
{
}

module_init(beta_init);
module_exit(beta_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: uses alpha_fn, exports beta_fn");
