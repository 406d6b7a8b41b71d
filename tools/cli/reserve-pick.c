// SPDX-License-Identifier: GPL-2.0-or-later
#include "reserve-pick.h"

/* Ties in their order. An insertion sort: there are at most a few
 * thousand rotting names. */
size_t reserve_pick_all(const uint64_t *held, size_t n, size_t *order)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!held[i])
			continue;
		size_t j = k++;
		for (; j > 0 && held[order[j - 1]] < held[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return k;
}

size_t reserve_pick(const uint64_t *held, size_t n, uint64_t need, size_t *pick)
{
	size_t k = reserve_pick_all(held, n, pick);
	uint64_t sum = 0;
	size_t count = 0;

	if (need == 0)
		return 0;
	/* The k largest hold the most any k names can: the first prefix
	 * that reaches need is the fewest names that can. */
	while (count < k && sum < need)
		sum += held[pick[count++]];
	if (sum < need)
		return k;
	/* The last one taken may be swapped for the smallest one after it
	 * that still makes up what the others leave missing (a smaller one
	 * only: equal ones keep their order). */
	uint64_t missing = need - (sum - held[pick[count - 1]]);
	for (size_t j = k; j-- > count;) {
		if (held[pick[j]] >= missing && held[pick[j]] < held[pick[count - 1]]) {
			pick[count - 1] = pick[j];
			break;
		}
	}
	return count;
}
