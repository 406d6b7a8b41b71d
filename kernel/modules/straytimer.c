// SPDX-License-Identifier: GPL-2.0
/*
 * straytimer: a buggy module whose exit function forgets a timer that
 * re-arms itself forever.
 *
 * After unloading, the rotting instance keeps its timer armed inside its
 * own memory, so a plain reclaim must refuse it (EBUSY) and a forced one
 * (MODULE_RECLAIM|O_TRUNC) must stop the timer before freeing.  Unlike
 * rottimer it never stops by itself, and it prints nothing.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

static struct timer_list straytimer;
static unsigned long ticks;

static void straytimer_tick(struct timer_list *t)
{
	ticks++;
	mod_timer(&straytimer, jiffies + msecs_to_jiffies(50));
}

static int __init straytimer_init(void)
{
	timer_setup(&straytimer, straytimer_tick, 0);
	mod_timer(&straytimer, jiffies + msecs_to_jiffies(50));
	return 0;
}

static void __exit straytimer_exit(void)
{
	/* The bug: no del_timer_sync(&straytimer). */
}

module_init(straytimer_init);
module_exit(straytimer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit forgets a self-re-arming timer");
