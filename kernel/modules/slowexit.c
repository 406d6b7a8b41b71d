// SPDX-License-Identifier: GPL-2.0
/* slowexit: exit sleeps, so the module can be seen in state Unloading. */
#include <linux/module.h>
#include <linux/delay.h>

static int __init slowexit_init(void)
{
	return 0;
}

/*
 * gate=1: exit waits until the gate is written 0 (at most 30 s), so that
 * a test sees the module Unloading for as long as it needs, however slow
 * the machine; /sys/module/slowexit/parameters/gate exists until the
 * exit has returned.
 */
static bool gate;
module_param(gate, bool, 0644);

static void __exit slowexit_exit(void)
{
	int waited = 0;

	if (!READ_ONCE(gate)) {
		msleep(1500);
		return;
	}
	while (READ_ONCE(gate) && waited < 30000) {
		msleep(20);
		waited += 20;
	}
}

module_init(slowexit_init);
module_exit(slowexit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit sleeps 1.5 s, or until its gate opens");
