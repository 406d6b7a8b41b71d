// SPDX-License-Identifier: GPL-2.0
/*
 * sleeper: a character device (/dev/rotsleep) whose read() sleeps in the
 * module until a signal.  An open file pins the module (its fops owner);
 * a reader asleep in read() is a task inside the module.  Exit removes
 * the device and wakes nobody.
 *
 * Unloading works (the module rots, the file stays open, the reader
 * sleeps on in rotting code); reclaim must keep the instance until the
 * reader has returned and the file is closed, or the reader returns into
 * freed text.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

static DECLARE_WAIT_QUEUE_HEAD(sleeper_wq);
static unsigned long late_calls;

static ssize_t sleeper_read(struct file *file, char __user *buf, size_t len,
			    loff_t *ppos)
{
	int err = wait_event_interruptible(sleeper_wq, false);

	/* Runs after the unload too: rotting code, still mapped. */
	late_calls++;
	return err;
}

static const struct file_operations sleeper_fops = {
	.owner	= THIS_MODULE,
	.read	= sleeper_read,
	.llseek	= noop_llseek,
};

static struct miscdevice sleeper_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "rotsleep",
	.fops	= &sleeper_fops,
};

static int __init sleeper_init(void)
{
	return misc_register(&sleeper_dev);
}

static void __exit sleeper_exit(void)
{
	misc_deregister(&sleeper_dev);
}

module_init(sleeper_init);
module_exit(sleeper_exit);
MODULE_ROT_SAFE();
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a device whose reader sleeps inside the module");
