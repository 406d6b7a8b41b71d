// SPDX-License-Identifier: GPL-2.0
/*
 * stuckwork: a work item that queues itself again and then sleeps in
 * the module, 20 s the first time and 2 s the second; exit forgets it.
 * While the first run sleeps, the work is both running (a worker's stack
 * returns into the module) and pending (the worker pool's list holds it):
 * a reclaim must keep the instance, a forced one must give up after its
 * bounded wait, which the first run outlasts with room to spare, and free
 * nothing while either run lasts.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>

static bool requeued, first_done;

static void stuckwork_fn(struct work_struct *work)
{
	if (!requeued) {
		requeued = true;
		schedule_work(work);
	}
	msleep(first_done ? 2000 : 20000);
	first_done = true;
}

static DECLARE_WORK(stuckwork, stuckwork_fn);

static int __init stuckwork_init(void)
{
	schedule_work(&stuckwork);
	return 0;
}

static void __exit stuckwork_exit(void)
{
	/* The bug: no cancel_work_sync(&stuckwork). */
}

module_init(stuckwork_init);
module_exit(stuckwork_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: exit forgets a long work item that re-queued itself");
