// SPDX-License-Identifier: GPL-2.0
/* params: an int, a charp and a bool parameter, shown in sysfs. */
#include <linux/module.h>
#include <linux/moduleparam.h>

static int count;
module_param(count, int, 0444);
MODULE_PARM_DESC(count, "how many");

static char *label;
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "a label");

static bool verbose;
module_param(verbose, bool, 0444);
MODULE_PARM_DESC(verbose, "chatty");

static int __init params_init(void)
{
	if (verbose)
		pr_info("params: count=%d label=%s\n", count, label ? label : "(null)");
	return 0;
}

static void __exit params_exit(void)
{
}

module_init(params_init);
module_exit(params_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: module parameters");
