// SPDX-License-Identifier: GPL-2.0
/*
 * busyinit: init spins for 3 s without scheduling.  On a kernel without
 * preemption its CPU passes no RCU quiescent state meanwhile, so every
 * synchronize_rcu() started in that time waits for it: a reclaim, which
 * holds its lock across a grace period, can be kept waiting on purpose.
 */
#include <linux/module.h>
#include <linux/delay.h>

static int ms = 3000;
module_param(ms, int, 0444);

static int __init busyinit_init(void)
{
	mdelay(ms);
	return 0;
}

static void __exit busyinit_exit(void)
{
}

module_init(busyinit_init);
module_exit(busyinit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: init spins ms milliseconds (3 s), holding up RCU grace periods and stop_machine()");
