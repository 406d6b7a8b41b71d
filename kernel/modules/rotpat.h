/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ways of leaving something behind, one module each (rp_KIND.c sets
 * KIND): each init registers or starts something that reaches into the
 * module, and each exit forgets it, as a buggy driver would.  None
 * declares MODULE_ROT_SAFE(), and nothing pins them, so each unloads and
 * rots.  Reclaim of a rotting rp_* instance must then answer EBUSY
 * because something still reaches it (why=ref, or task for a task
 * running in it), and the guest must live: scenarios/patterns.sh.
 *
 * The reclaim scan knows none of these kinds by name: each is found as
 * a word, somewhere the kernel keeps state, that points into the module.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/notifier.h>
#include <linux/shrinker.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/ftrace.h>
#include <linux/tracepoint.h>
#include <linux/task_work.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/interrupt.h>
#include <linux/async.h>

struct heap {
	struct timer_list t;
	struct delayed_work dw;
	struct kthread_delayed_work kdw;
	struct rcu_work rw;
	struct irq_work iw;
	struct callback_head tw;
	struct tasklet_struct tl;
};
static struct heap *h;
static struct kthread_worker *kworker;
static unsigned long runs;

static __maybe_unused void t_fn(struct timer_list *t) { runs++; mod_timer(t, jiffies + HZ / 10); }
static __maybe_unused void dw_fn(struct work_struct *w) { runs++; schedule_delayed_work(&h->dw, HZ / 10); }
static __maybe_unused void kdw_fn(struct kthread_work *w) { runs++; kthread_queue_delayed_work(kworker, &h->kdw, HZ / 10); }
static __maybe_unused void rw_fn(struct work_struct *w) { runs++; if (runs % 64 == 0) msleep(1); queue_rcu_work(system_wq, &h->rw); }
static __maybe_unused void iw_fn(struct irq_work *w) { runs++; irq_work_queue(w); }
/* A tasklet and a lazy irq_work that schedule each other, once a tick. */
static __maybe_unused void tl_fn(struct tasklet_struct *t) { runs++; irq_work_queue(&h->iw); }
static __maybe_unused void tl_iw_fn(struct irq_work *w) { tasklet_schedule(&h->tl); }
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

/* A notifier on the module chain: runs at every later load. */
static __maybe_unused int nb_fn(struct notifier_block *nb, unsigned long ev, void *data) { runs++; return NOTIFY_DONE; }
static struct notifier_block nb __maybe_unused = { .notifier_call = nb_fn };

/* A shrinker: memory pressure calls it. */
static __maybe_unused unsigned long shr_count(struct shrinker *s, struct shrink_control *sc) { runs++; return 0; }
static __maybe_unused unsigned long shr_scan(struct shrinker *s, struct shrink_control *sc) { return SHRINK_STOP; }
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
static struct shrinker shr __maybe_unused = { .count_objects = shr_count, .scan_objects = shr_scan, .seeks = DEFAULT_SEEKS };
#endif

/* A proc entry: reading /proc/rp_proc runs the module's show(). */
static __maybe_unused int proc_show(struct seq_file *m, void *v) { seq_printf(m, "%lu\n", ++runs); return 0; }

/* ftrace ops on one function: every call of it calls the module. */
static __maybe_unused void ft_fn(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op, struct ftrace_regs *fregs) { runs++; }
static struct ftrace_ops ft_ops __maybe_unused = { .func = ft_fn };

/* A tracepoint probe on sched_process_fork: every fork calls it. */
static __maybe_unused void tp_probe(void *data, struct task_struct *parent, struct task_struct *child) { runs++; }
static struct tracepoint *tp_found;
static __maybe_unused void tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		tp_found = tp;
}

/*
 * task_work queued on a user task asleep in the kernel (its pid given as
 * the parameter): it runs when that task next returns to user space.
 */
static __maybe_unused void tw_fn(struct callback_head *cb) { runs++; }
static int target_pid;
module_param(target_pid, int, 0444);

/*
 * An interrupt handler on a legacy line no device of the guest uses
 * (shared, so it takes nothing from anyone): free_irq() forgotten.
 */
static __maybe_unused irqreturn_t irq_fn(int irq, void *dev) { runs++; return IRQ_NONE; }
static int irq_line = 7;
module_param(irq_line, int, 0444);

/*
 * Async work still running at unload (loaded with async_probe=1, so that
 * init returns without waiting for it): delete_module() waits for all
 * async work after exit, as on a stock kernel, so nothing is left.
 */
static __maybe_unused void async_fn(void *data, async_cookie_t cookie)
{
	msleep(3000);
	pr_info("rp_async: async work done\n");
}

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
#elif KIND == 8
	return register_module_notifier(&nb);
#elif KIND == 9
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
	return register_shrinker(&shr, "rp_shrinker");
#else
	{
		struct shrinker *s = shrinker_alloc(0, "rp_shrinker");

		if (!s)
			return -ENOMEM;
		s->count_objects = shr_count;
		s->scan_objects = shr_scan;
		shrinker_register(s);
	}
#endif
#elif KIND == 10
	return proc_create_single("rp_proc", 0444, NULL, proc_show) ? 0 : -ENOMEM;
#elif KIND == 11
	{
		int err = ftrace_set_filter(&ft_ops, "kernel_clone", strlen("kernel_clone"), 1);

		return err ? err : register_ftrace_function(&ft_ops);
	}
#elif KIND == 12
	for_each_kernel_tracepoint(tp_find, NULL);
	if (!tp_found)
		return -ENOENT;
	return tracepoint_probe_register(tp_found, tp_probe, NULL);
#elif KIND == 13
	{
		struct task_struct *t;
		int err;

		rcu_read_lock();
		t = pid_task(find_vpid(target_pid), PIDTYPE_PID);
		if (t)
			get_task_struct(t);
		rcu_read_unlock();
		if (!t)
			return -ESRCH;
		init_task_work(&h->tw, tw_fn);
		err = task_work_add(t, &h->tw, TWA_RESUME);
		put_task_struct(t);
		return err;
	}
#elif KIND == 14
	return request_irq(irq_line, irq_fn, IRQF_SHARED, "rp_irq", h);
#elif KIND == 15
	async_schedule(async_fn, NULL);
#elif KIND == 16
	tasklet_setup(&h->tl, tl_fn);
	h->iw = IRQ_WORK_INIT_LAZY(tl_iw_fn);
	tasklet_schedule(&h->tl);
#endif
	return 0;
}

/* Leaves everything behind, as a buggy driver would. */
static void __exit rp_exit(void) { }
module_init(rp_init);
module_exit(rp_exit);
MODULE_LICENSE("GPL");
