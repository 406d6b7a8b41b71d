// SPDX-License-Identifier: GPL-2.0
/*
 * stuckwork: a work item that queues itself again and then sleeps in
 * the module for 8 s, twice; exit forgets it.  The work is both running
 * and pending, which is where cancel_work_sync() waits for the running
 * instance: a forced reclaim that called it would sleep 8 s holding the
 * reclaim lock (for ever, had the work never returned).  A forced reclaim
 * must cancel the pending work without waiting, give up on the running
 * one after its bounded wait, and free nothing while it runs.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/workqueue.h>

static bool requeued;

static void stuckwork_fn(struct work_struct *work)
{
	if (!requeued) {
		requeued = true;
		schedule_work(work);
	}
	msleep(8000);
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
