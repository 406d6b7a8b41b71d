/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The patterns of issue 31's table, one module each (rp_KIND.c sets KIND):
 * each leaves something behind that still reaches into the module after
 * its exit, which does nothing.  Reclaim of a rotting rp_* instance must
 * answer EBUSY (a revision-4 kernel: why=ref or task) and the guest live.
 * Not run by kernel/run.sh: see ../README.md.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/delay.h>

struct heap {
	struct timer_list t;
	struct delayed_work dw;
	struct kthread_delayed_work kdw;
	struct rcu_work rw;
	struct irq_work iw;
};
static struct heap *h;
static struct kthread_worker *kworker;
static unsigned long runs;

static __maybe_unused void t_fn(struct timer_list *t) { runs++; mod_timer(t, jiffies + HZ / 10); }
static __maybe_unused void dw_fn(struct work_struct *w) { runs++; schedule_delayed_work(&h->dw, HZ / 10); }
static __maybe_unused void kdw_fn(struct kthread_work *w) { runs++; kthread_queue_delayed_work(kworker, &h->kdw, HZ / 10); }
static __maybe_unused void rw_fn(struct work_struct *w) { runs++; if (runs % 64 == 0) msleep(1); queue_rcu_work(system_wq, &h->rw); }
static __maybe_unused void iw_fn(struct irq_work *w) { runs++; irq_work_queue(w); }
static __maybe_unused int kp_pre(struct kprobe *p, struct pt_regs *regs) { runs++; return 0; }
static struct kprobe kp __maybe_unused = { .symbol_name = "kernel_clone", .pre_handler = kp_pre };

static noinline int deep(int n)
{
	if (n)
		return deep(n - 1) + 1;
	while (!kthread_should_stop())
		msleep_interruptible(100);
	return 0;
}
static __maybe_unused int deep_thread(void *arg) { return deep(80); }

static int __init rp_init(void)
{
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
#if KIND == 1
	timer_setup(&h->t, t_fn, 0);
	mod_timer(&h->t, jiffies + HZ / 10);
#elif KIND == 2
	INIT_DELAYED_WORK(&h->dw, dw_fn);
	schedule_delayed_work(&h->dw, HZ / 10);
#elif KIND == 3
	kworker = kthread_create_worker(0, "rp_kworker");
	if (IS_ERR(kworker))
		return PTR_ERR(kworker);
	kthread_init_delayed_work(&h->kdw, kdw_fn);
	kthread_queue_delayed_work(kworker, &h->kdw, HZ / 10);
#elif KIND == 4
	INIT_RCU_WORK(&h->rw, rw_fn);
	queue_rcu_work(system_wq, &h->rw);
#elif KIND == 5
	h->iw = IRQ_WORK_INIT_LAZY(iw_fn);
	irq_work_queue(&h->iw);
#elif KIND == 6
	return register_kprobe(&kp);
#elif KIND == 7
	return PTR_ERR_OR_ZERO(kthread_run(deep_thread, NULL, "rp_deep"));
#endif
	return 0;
}

/* Leaves everything behind, as a buggy driver would. */
static void __exit rp_exit(void) { }
module_init(rp_init);
module_exit(rp_exit);
MODULE_LICENSE("GPL");
