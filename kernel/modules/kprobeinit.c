// SPDX-License-Identifier: GPL-2.0
/*
 * kprobeinit: init registers a kprobe on a function in its own init text,
 * calls it, and fails.  The instance rots with its init memory, and the
 * kprobe, whose struct is in the instance, stays registered: the probe
 * must be disarmed in the init text as in core text, and reclaim, forced
 * or not, must never free text or a struct kprobe the kprobe table still
 * holds.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

static unsigned long hits;

static int kprobeinit_pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static noinline int __init kprobeinit_target(int x)
{
	return x + 1;
}

static struct kprobe kprobeinit_probe = {
	.pre_handler = kprobeinit_pre,
};

static int __init kprobeinit_init(void)
{
	int err;

	kprobeinit_probe.addr = (kprobe_opcode_t *)kprobeinit_target;
	err = register_kprobe(&kprobeinit_probe);
	if (err)
		return err;
	kprobeinit_target(1);
	pr_info("kprobeinit: probe hit %lu time(s); failing init\n", hits);
	return -ENODEV;
}

module_init(kprobeinit_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: a kprobe on the init text of a failed init");
