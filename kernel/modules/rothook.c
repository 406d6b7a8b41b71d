// SPDX-License-Identifier: GPL-2.0
/*
 * rothook: holds what another module (rotcall) leaves behind when it is
 * unloaded, so that a scenario can call into the rotting module and look
 * at its text.
 *
 * rotcall registers a function here and never unregisters it.  Through
 * /sys/module/rothook/parameters/:
 *   call    write N: call the registered function with N; read: its result
 *   bytes   the first 16 bytes of the registered function's text, in hex
 *   key     0/1: the static key rothook_key, which rotcall branches on
 *   target  1/2: where the static call rothook_sc points (rothook_one or
 *           rothook_two), which rotcall calls
 *   hide    write 1: keep the registered function only encoded, where a
 *           reachability scan cannot recognise it (as a pointer kept in
 *           a device's memory would be); call still calls it
 *   pcpu    read: the per-CPU area pcpulate registered, as a number
 *           (a per-CPU offset, not an address), or none
 *   pcpu_byte  read: the first byte of that area on CPU 0, in hex;
 *           write N: store N there
 * Writing key or target patches every live user of the key or the static
 * call; a rotting rotcall must no longer be patched.  pcpulate's area is
 * kept only encoded, from the start: the scan never sees it.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include "rothook.h"

DEFINE_STATIC_KEY_FALSE(rothook_key);
EXPORT_SYMBOL_GPL(rothook_key);

static int rothook_one(int x)
{
	return 1000;
}

static int rothook_two(int x)
{
	return 2000;
}

DEFINE_STATIC_CALL(rothook_sc, rothook_one);
EXPORT_STATIC_CALL_GPL(rothook_sc);

static int (*hooked)(int);
static int result;

/* hide: the function's address, inverted: no word points into its module. */
static unsigned long hidden;

void rothook_register(int (*fn)(int))
{
	WRITE_ONCE(hidden, 0);
	WRITE_ONCE(hooked, fn);
}
EXPORT_SYMBOL_GPL(rothook_register);

static int (*rothook_fn(void))(int)
{
	unsigned long h = READ_ONCE(hidden);

	return h ? (int (*)(int))~h : READ_ONCE(hooked);
}

static int hide_set(const char *val, const struct kernel_param *kp)
{
	int (*fn)(int) = READ_ONCE(hooked);
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (!on || !fn)
		return on ? -ENOENT : -EINVAL;
	WRITE_ONCE(hidden, ~(unsigned long)fn);
	WRITE_ONCE(hooked, NULL);
	return 0;
}

static const struct kernel_param_ops hide_ops = {
	.set = hide_set,
};
module_param_cb(hide, &hide_ops, NULL, 0200);

static int call_set(const char *val, const struct kernel_param *kp)
{
	int (*fn)(int) = rothook_fn();
	int x, ret;

	ret = kstrtoint(val, 0, &x);
	if (ret)
		return ret;
	if (!fn)
		return -ENOENT;
	result = fn(x);
	return 0;
}

static int call_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", result);
}

static const struct kernel_param_ops call_ops = {
	.set = call_set,
	.get = call_get,
};
module_param_cb(call, &call_ops, NULL, 0644);

static int bytes_get(char *buffer, const struct kernel_param *kp)
{
	int (*fn)(int) = rothook_fn();

	if (!fn)
		return sysfs_emit(buffer, "none\n");
	return sysfs_emit(buffer, "%16phN\n", (void *)fn);
}

static const struct kernel_param_ops bytes_ops = {
	.get = bytes_get,
};
module_param_cb(bytes, &bytes_ops, NULL, 0444);

static bool key_on;

static int key_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on && !key_on)
		static_branch_enable(&rothook_key);
	else if (!on && key_on)
		static_branch_disable(&rothook_key);
	key_on = on;
	return 0;
}

static int key_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", key_on);
}

static const struct kernel_param_ops key_ops = {
	.set = key_set,
	.get = key_get,
};
module_param_cb(key, &key_ops, NULL, 0644);

static int target = 1;

static int target_set(const char *val, const struct kernel_param *kp)
{
	int t, ret = kstrtoint(val, 0, &t);

	if (ret)
		return ret;
	if (t != 1 && t != 2)
		return -EINVAL;
	static_call_update(rothook_sc, t == 1 ? rothook_one : rothook_two);
	target = t;
	return 0;
}

static int target_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", target);
}

static const struct kernel_param_ops target_ops = {
	.set = target_set,
	.get = target_get,
};
module_param_cb(target, &target_ops, NULL, 0644);

/* pcpulate's per-CPU area, inverted: no word points into its module. */
static unsigned long hidden_percpu;

void rothook_register_percpu(void __percpu *area)
{
	WRITE_ONCE(hidden_percpu, ~(unsigned long)area);
}
EXPORT_SYMBOL_GPL(rothook_register_percpu);

static u8 *rothook_percpu_byte(void)
{
	unsigned long h = READ_ONCE(hidden_percpu);

	return h ? per_cpu_ptr((u8 __percpu *)~h, 0) : NULL;
}

static int pcpu_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long h = READ_ONCE(hidden_percpu);

	if (!h)
		return sysfs_emit(buffer, "none\n");
	return sysfs_emit(buffer, "%lu\n", ~h);
}

static const struct kernel_param_ops pcpu_ops = {
	.get = pcpu_get,
};
module_param_cb(pcpu, &pcpu_ops, NULL, 0444);

static int pcpu_byte_set(const char *val, const struct kernel_param *kp)
{
	u8 *p = rothook_percpu_byte();
	u8 v;
	int ret = kstrtou8(val, 0, &v);

	if (ret)
		return ret;
	if (!p)
		return -ENOENT;
	WRITE_ONCE(*p, v);
	return 0;
}

static int pcpu_byte_get(char *buffer, const struct kernel_param *kp)
{
	u8 *p = rothook_percpu_byte();

	if (!p)
		return sysfs_emit(buffer, "none\n");
	return sysfs_emit(buffer, "%02x\n", READ_ONCE(*p));
}

static const struct kernel_param_ops pcpu_byte_ops = {
	.set = pcpu_byte_set,
	.get = pcpu_byte_get,
};
module_param_cb(pcpu_byte, &pcpu_byte_ops, NULL, 0644);

static int __init rothook_init(void)
{
	return 0;
}

static void __exit rothook_exit(void)
{
}

module_init(rothook_init);
module_exit(rothook_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: calls into what rotcall left registered");
