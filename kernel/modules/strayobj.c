// SPDX-License-Identifier: GPL-2.0
/*
 * strayobj: a module whose exit function forgets one object that keeps
 * re-arming itself inside the module's memory, chosen at load time:
 *
 *   kind=timer     a timer_list
 *   kind=hrtimer   an hrtimer
 *   kind=work      a delayed work item on the system workqueue
 *   kind=none      nothing: exit leaves the instance idle
 *
 * Reclaim must refuse an instance with a stray object and free an idle
 * one; a forced reclaim must stop the object first.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/jiffies.h>
#include <linux/string.h>

static char *kind = "none";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "what exit forgets: none, timer, hrtimer or work");

static struct timer_list stray_timer;
static struct hrtimer stray_hrtimer;
static struct delayed_work stray_work;

static void stray_timer_fn(struct timer_list *t)
{
	mod_timer(&stray_timer, jiffies + msecs_to_jiffies(50));
}

static enum hrtimer_restart stray_hrtimer_fn(struct hrtimer *t)
{
	hrtimer_forward_now(t, ms_to_ktime(50));
	return HRTIMER_RESTART;
}

static void stray_work_fn(struct work_struct *w)
{
	schedule_delayed_work(&stray_work, msecs_to_jiffies(50));
}

static int __init strayobj_init(void)
{
	if (!strcmp(kind, "timer")) {
		timer_setup(&stray_timer, stray_timer_fn, 0);
		mod_timer(&stray_timer, jiffies + msecs_to_jiffies(50));
	} else if (!strcmp(kind, "hrtimer")) {
		hrtimer_init(&stray_hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		stray_hrtimer.function = stray_hrtimer_fn;
		hrtimer_start(&stray_hrtimer, ms_to_ktime(50), HRTIMER_MODE_REL);
	} else if (!strcmp(kind, "work")) {
		INIT_DELAYED_WORK(&stray_work, stray_work_fn);
		schedule_delayed_work(&stray_work, msecs_to_jiffies(50));
	} else if (strcmp(kind, "none")) {
		return -EINVAL;
	}
	return 0;
}

static void __exit strayobj_exit(void)
{
	/* The bug: whatever init started is left running. */
}

module_init(strayobj_init);
module_exit(strayobj_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit forgets a timer, hrtimer or work item");
