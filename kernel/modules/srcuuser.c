// SPDX-License-Identifier: GPL-2.0
/*
 * srcuuser: a static SRCU struct used by a timer that exit forgets.  The
 * timer goes on entering and leaving SRCU read-side sections in rotting
 * code; the srcu_struct must stay usable until reclaim.  Torn down at
 * unload, its per-CPU data is freed and srcu_read_lock() writes through a
 * NULL per-CPU pointer: the timer logs it once if it sees that.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/srcu.h>
#include <linux/timer.h>

DEFINE_STATIC_SRCU(srcuuser_srcu);
static struct timer_list srcuuser_timer;
static unsigned long ticks;
static bool warned;

static void srcuuser_tick(struct timer_list *t)
{
	int idx;

	if (!READ_ONCE(srcuuser_srcu.sda)) {
		if (!warned)
			pr_err("srcuuser: srcu_struct torn down while still in use\n");
		warned = true;
	} else {
		idx = srcu_read_lock(&srcuuser_srcu);
		ticks++;
		srcu_read_unlock(&srcuuser_srcu, idx);
	}
	mod_timer(&srcuuser_timer, jiffies + msecs_to_jiffies(20));
}

static int __init srcuuser_init(void)
{
	timer_setup(&srcuuser_timer, srcuuser_tick, 0);
	mod_timer(&srcuuser_timer, jiffies + msecs_to_jiffies(20));
	return 0;
}

static void __exit srcuuser_exit(void)
{
	/* The bug: no del_timer_sync(&srcuuser_timer). */
}

module_init(srcuuser_init);
module_exit(srcuuser_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a static SRCU struct used after unload");
