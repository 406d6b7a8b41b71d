/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which rotting names to reclaim to give back a number of bytes of the
 * per-CPU module reserve. Reclaim frees a whole name at a time, and every
 * reclaim is a risk (it taints the kernel R), so the choice is the fewest
 * names whose per-CPU bytes together reach what is needed.
 */
#ifndef MODROT_RESERVE_PICK_H
#define MODROT_RESERVE_PICK_H

#include <stddef.h>
#include <stdint.h>

/*
 * held[i] is the per-CPU bytes the rotting instances of candidate i hold
 * (0: it holds none and is never picked). Writes into pick the indices of
 * the fewest candidates whose held bytes sum to at least need, largest
 * first, and returns how many. Of the sets that small it takes the
 * largest candidates but the last, and for the last the smallest one that
 * is still enough: no more is reclaimed than the count requires. When
 * even all of them are not enough, it picks all of them (the caller tells
 * the shortfall). need 0 picks nothing. pick has room for n entries.
 * Ties keep the candidates' order.
 */
size_t reserve_pick(const uint64_t *held, size_t n, uint64_t need, size_t *pick);

/* Every candidate that holds per-CPU bytes, largest first. */
size_t reserve_pick_all(const uint64_t *held, size_t n, size_t *pick);

#endif
