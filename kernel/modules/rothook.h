/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ROTHOOK_H
#define ROTHOOK_H

#include <linux/jump_label.h>
#include <linux/static_call.h>

DECLARE_STATIC_KEY_FALSE(rothook_key);
DECLARE_STATIC_CALL(rothook_sc, int (int));
void rothook_register(int (*fn)(int));
void rothook_register_percpu(void __percpu *area);

#endif
