/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* kernfs_name_hash(), the order of every sysfs directory listing: private
 * to libmodrot, and compiled into the simulated kernel too (it needs only
 * the C library), so that both order names by one definition. */
#ifndef MODROT_KERNFS_HASH_H
#define MODROT_KERNFS_HASH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* The hash of name as a kernel of this program's word size computes it,
 * its char signed or not: each char goes to partial_name_hash() as an
 * unsigned long, so a signed char's bytes above 0x7f arrive sign-extended. */
uint32_t kernfs_name_hash(const char *name, bool char_signed);

/* The hash in two steps, for a parser that hashes a name while it reads
 * it: from 0, each char (as the kernel widens it) through
 * partial_name_hash(), then end_name_hash(): hash_long(hash, 32), kept to
 * 31 bits and out of 0, 1 and INT_MAX, which mark "." and ".." and the end. */
static inline unsigned long kernfs_hash_step(unsigned long hash, unsigned long ch)
{
	return (hash + (ch << 4) + (ch >> 4)) * 11;
}

static inline uint32_t kernfs_hash_end(unsigned long hash)
{
	uint32_t h;
	if (sizeof(unsigned long) == 8)
		h = (uint32_t)(((uint64_t)hash * 0x61C8864680B583EBull) >> 32);
	else
		h = (uint32_t)hash * 0x61C88647u;
	h &= 0x7fffffffu;
	if (h < 2)
		h += 2;
	if (h >= INT_MAX)
		h = INT_MAX - 1;
	return h;
}

/*
 * Whether the kernel of that release (uname -r) has a signed char: before
 * 6.2 a kernel used its architecture's C ABI, as this program's compiler
 * does (signed on x86, unsigned on arm64, ppc, s390, riscv); since 6.2
 * every kernel is built with -funsigned-char. An unreadable release is
 * taken as older.
 */
bool kernfs_char_signed(const char *release);

/* The sysfs directory order key of a name as the running kernel computes
 * it (lib/kernfs.c): kernfs_name_hash() with the char of its release. */
uint32_t kernfs_hash(const char *name);

#endif
