// SPDX-License-Identifier: GPL-2.0
/*
 * rottimer: a buggy module whose exit function forgets its timer.
 *
 * The timer re-arms itself every 100 ms and keeps running after the
 * module is unloaded, into the module's rotting code.  On a stock kernel
 * the first tick after rmmod faults in freed memory.  After the module's
 * exit it ticks AFTER_EXIT_TICKS more times, printing its own address
 * with %pS (kallsyms must still resolve rotting code) and hitting one
 * WARN (the bug table must still know rotting code), then stops, so that
 * the module can be reclaimed safely afterwards.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

#define AFTER_EXIT_TICKS 5

static struct timer_list rottimer;
static bool exited;
static int ticks_after_exit;

static void rottimer_tick(struct timer_list *t)
{
	if (exited) {
		ticks_after_exit++;
		pr_info("rottimer: tick %d after exit, running in %pS\n",
			ticks_after_exit, rottimer_tick);
		WARN_ONCE(ticks_after_exit == 2,
			  "rottimer: WARN from rotting code\n");
		if (ticks_after_exit >= AFTER_EXIT_TICKS) {
			pr_info("rottimer: done, timer stopped\n");
			return;
		}
	}
	mod_timer(&rottimer, jiffies + msecs_to_jiffies(100));
}

static int __init rottimer_init(void)
{
	timer_setup(&rottimer, rottimer_tick, 0);
	mod_timer(&rottimer, jiffies + msecs_to_jiffies(100));
	return 0;
}

static void __exit rottimer_exit(void)
{
	/* The bug: no del_timer_sync(&rottimer). */
	exited = true;
}

module_init(rottimer_init);
module_exit(rottimer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a timer that outlives the module's exit");
