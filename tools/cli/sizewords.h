/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sizes in the tools' text output, as util-linux's lsblk prints them:
 * human-readable by default ("4.9K"), exact bytes with -b/--bytes. What
 * kmod prints (lsmod's layout, modinfo's fields, modprobe's kmod lines)
 * and JSON keep bytes: they never come here.
 */
#ifndef MODROT_SIZEWORDS_H
#define MODROT_SIZEWORDS_H

#include <stdbool.h>
#include <stdint.h>

/* Enough for any size with any unit words the tools use. */
#define SIZE_WORDS_MAX 64

/*
 * lsblk's form: powers of 1024 with one letter (B, K, M, G, T, P, E), at
 * most one decimal, rounded half up, and no ".0": 512 is "512B", 1024
 * "1K", 5000 "4.9K", 1048575 "1024K". buf holds SIZE_WORDS_MAX bytes.
 */
const char *size_human(uint64_t bytes, char *buf);

/* -b/--bytes: every size of the run in bytes. */
void size_words_set_bytes(bool on);

/*
 * A size with its unit words, such as "bytes" or "per-CPU bytes": with
 * -b, the number and the words ("1500 per-CPU bytes"; "" gives the bare
 * number); else the human size and the words without their last "bytes"
 * ("1.5K per-CPU", "1.9K").
 */
const char *size_words(uint64_t bytes, const char *unit, char *buf);

#endif
