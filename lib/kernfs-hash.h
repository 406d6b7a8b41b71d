/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kernfs_name_hash(), the order of every sysfs directory listing. Private
 * to libmodrot (rot_kernfs_hash() is the public face) and compiled into
 * the simulated kernel too, so that both order names by one definition.
 * Needs only the C library.
 */
#ifndef MODROT_KERNFS_HASH_H
#define MODROT_KERNFS_HASH_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The hash of name as a kernel of this program's word size whose char is
 * signed (char_signed) or unsigned computes it: the kernel feeds each char
 * to partial_name_hash() as an unsigned long, so with a signed char a byte
 * above 0x7f arrives sign-extended. Bytes up to 0x7f hash the same either
 * way.
 */
uint32_t kernfs_name_hash(const char *name, bool char_signed);

/*
 * Whether the kernel of that release (uname -r) has a signed char: before
 * 6.2 a kernel used its architecture's C ABI, as this program's compiler
 * does (signed on x86, unsigned on arm64, ppc, s390, riscv); since 6.2
 * every kernel is built with -funsigned-char. An unreadable release is
 * taken as older.
 */
bool kernfs_char_signed(const char *release);

#endif
