// SPDX-License-Identifier: GPL-2.0
/*
 * kthreader: a kthread that pins its own module and puts it on the way
 * out (module_put_and_kthread_exit()), as in-tree daemons do.  Exit
 * does not wait for it.  After the unload the thread sleeps on in
 * rotting code; reclaim must wait until it has put the pin and left.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

static int secs = 3;
module_param(secs, int, 0444);

static int kthreader_fn(void *unused)
{
	msleep(secs * 1000);
	module_put_and_kthread_exit(0);
}

static int __init kthreader_init(void)
{
	struct task_struct *t;

	__module_get(THIS_MODULE);
	t = kthread_run(kthreader_fn, NULL, "kthreader");
	if (IS_ERR(t)) {
		module_put(THIS_MODULE);
		return PTR_ERR(t);
	}
	return 0;
}

static void __exit kthreader_exit(void)
{
	/* Nothing: the thread holds its own pin. */
}

module_init(kthreader_init);
module_exit(kthreader_exit);
MODULE_ROT_SAFE();
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a kthread that puts its own module when it ends");
