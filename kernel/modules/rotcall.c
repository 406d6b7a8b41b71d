// SPDX-License-Identifier: GPL-2.0
/*
 * rotcall: a buggy module that registers rotcall_fn with rothook and never
 * unregisters it, so rothook calls into it after it rots.
 *
 * rotcall_fn returns x * 3 + 1, plus 100 when rothook_key is on, plus
 * what the static call rothook_sc returns (1000 or 2000): the result
 * tells which way its jump label and its static call site are patched.
 * It starts, after its 5-byte ftrace site, with plain loads and stores
 * (the call counter), where a kprobe can be optimised into a jump.
 */
#include <linux/module.h>
#include "rothook.h"

static int rotcall_calls;

static noinline int rotcall_fn(int x)
{
	int r;

	WRITE_ONCE(rotcall_calls, READ_ONCE(rotcall_calls) + 1);
	r = x * 3 + 1;
	if (static_branch_unlikely(&rothook_key))
		r += 100;
	return r + static_call(rothook_sc)(x);
}

static int __init rotcall_init(void)
{
	rothook_register(rotcall_fn);
	return 0;
}

static void __exit rotcall_exit(void)
{
	/* The bug: no rothook_register(NULL). */
}

module_init(rotcall_init);
module_exit(rotcall_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rot test: leaves rotcall_fn registered with rothook");
