// SPDX-License-Identifier: GPL-2.0
/*
 * lostimer: a buggy module whose exit function forgets a self-re-arming
 * timer that does not live in the module's own static memory.
 *
 *   where=heap    the timer is kmalloc'd (only its callback is in the module)
 *   where=percpu  the timer is in the module's per-CPU data
 *   busy=1        each callback runs 40 ms of its 50 ms period, so that a
 *                 reclaim looking at it is likely to find it running
 *
 * A reclaim must keep the instance (its callback will still run); a forced
 * one must stop the timer before freeing.  Freeing it armed panics the
 * kernel when the timer next fires.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/timer.h>

static char *where = "heap";
module_param(where, charp, 0444);
static bool busy;
module_param(busy, bool, 0444);

static DEFINE_PER_CPU(struct timer_list, lostimer_pcpu);
static struct timer_list *lostimer;
static unsigned long ticks;

static void lostimer_tick(struct timer_list *t)
{
	ticks++;
	if (busy)
		mdelay(40);
	mod_timer(t, jiffies + msecs_to_jiffies(50));
}

static int __init lostimer_init(void)
{
	if (!strcmp(where, "percpu")) {
		lostimer = per_cpu_ptr(&lostimer_pcpu, raw_smp_processor_id());
	} else if (!strcmp(where, "heap")) {
		lostimer = kzalloc(sizeof(*lostimer), GFP_KERNEL);
		if (!lostimer)
			return -ENOMEM;
	} else {
		return -EINVAL;
	}
	timer_setup(lostimer, lostimer_tick, 0);
	mod_timer(lostimer, jiffies + msecs_to_jiffies(50));
	return 0;
}

static void __exit lostimer_exit(void)
{
	/* The bug: no del_timer_sync(lostimer), no kfree(lostimer). */
}

module_init(lostimer_init);
module_exit(lostimer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit forgets a timer outside the module's static memory");
