// SPDX-License-Identifier: GPL-2.0
/* slowinit: init sleeps, so the module can be seen in state Loading. */
#include <linux/module.h>
#include <linux/delay.h>

/*
 * gate=1: init waits until the gate is written 0 (at most 30 s), so that
 * a test sees the module Loading for as long as it needs, however slow
 * the guest; /sys/module/slowinit/parameters/gate exists while init runs.
 */
static bool gate;
module_param(gate, bool, 0644);

static int __init slowinit_init(void)
{
	int waited = 0;

	if (!READ_ONCE(gate)) {
		msleep(1500);
		return 0;
	}
	while (READ_ONCE(gate) && waited < 30000) {
		msleep(20);
		waited += 20;
	}
	return 0;
}

static void __exit slowinit_exit(void)
{
}

module_init(slowinit_init);
module_exit(slowinit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init sleeps 1.5 s, or until its gate opens");
