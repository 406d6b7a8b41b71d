// SPDX-License-Identifier: GPL-2.0-or-later
/* modreap --percpu's choice: the fewest rotting names that give back
 * enough of the per-CPU reserve. */
#include <stdbool.h>
#include <stdlib.h>

#include "reserve-pick.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool picked(const size_t *pick, size_t k, const size_t *want, size_t nwant)
{
	if (k != nwant)
		return false;
	for (size_t i = 0; i < k; i++)
		if (pick[i] != want[i])
			return false;
	return true;
}

/* The fewest names: checked against every subset of a small set. */
static size_t fewest_by_brute_force(const uint64_t *held, size_t n, uint64_t need)
{
	size_t best = n + 1;
	for (unsigned mask = 0; mask < (1u << n); mask++) {
		uint64_t sum = 0;
		size_t count = 0;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i) && held[i]) {
				sum += held[i];
				count++;
			}
		if (sum >= need && count < best)
			best = count;
	}
	return best;
}

int main(void)
{
	size_t pick[16];

	{
		const uint64_t held[] = { 3000, 1200, 0, 500 };
		const size_t want[] = { 1 };
		ok(picked(pick, reserve_pick(held, N(held), 1000, pick), want, N(want)),
		   "one name is enough: the smallest that is, not the largest");
	}
	{
		const uint64_t held[] = { 1500, 1500, 1500 };
		const size_t want[] = { 0, 1 };
		ok(picked(pick, reserve_pick(held, N(held), 2000, pick), want, N(want)),
		   "equal names are taken in their order");
	}
	{
		const uint64_t held[] = { 100, 4000, 2500, 800, 0 };
		const size_t want[] = { 1, 3 };
		ok(picked(pick, reserve_pick(held, N(held), 4700, pick), want, N(want)),
		   "two names: the largest, then the smallest that makes up the rest");
	}
	{
		const uint64_t held[] = { 100, 200, 0 };
		const size_t want[] = { 1, 0 };
		ok(picked(pick, reserve_pick(held, N(held), 5000, pick), want, N(want)),
		   "not enough in all of them: all that hold some, largest first");
	}
	{
		const uint64_t held[] = { 100, 200 };
		ok(reserve_pick(held, N(held), 0, pick) == 0, "nothing needed, nothing picked");
		ok(reserve_pick(held, 0, 10, pick) == 0, "no candidates, nothing picked");
	}
	{
		const uint64_t held[] = { 0, 0 };
		ok(reserve_pick(held, N(held), 10, pick) == 0, "names holding no per-CPU bytes are never picked");
		ok(reserve_pick_all(held, N(held), pick) == 0, "nor by --percpu without a size");
	}
	{
		const uint64_t held[] = { 8, 0, 336, 24, 336 };
		const size_t want[] = { 2, 4, 3, 0 };
		ok(picked(pick, reserve_pick_all(held, N(held), pick), want, N(want)),
		   "without a size: every name holding some, largest first");
	}

	/* Every need against every small set: always the fewest names, and enough. */
	bool fewest = true, enough = true;
	unsigned seed = 11;
	for (int round = 0; round < 2000; round++) {
		uint64_t held[8];
		size_t n = 1 + (size_t)(round % 8);
		uint64_t total = 0;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			held[i] = (seed >> 16) % 5 == 0 ? 0 : 4 * ((seed >> 8) % 400);
			total += held[i];
		}
		seed = seed * 1103515245u + 12345u;
		uint64_t need = 1 + (seed >> 8) % (total + 200);
		size_t k = reserve_pick(held, n, need, pick);
		uint64_t sum = 0;
		for (size_t i = 0; i < k; i++)
			sum += held[pick[i]];
		if (need <= total) {
			fewest &= k == fewest_by_brute_force(held, n, need);
			enough &= sum >= need;
		} else {
			enough &= sum == total;
		}
	}
	ok(fewest, "2000 random sets: never more names than the fewest that are enough");
	ok(enough, "2000 random sets: what is picked is enough, or all there is");

	return tap_done();
}
