// SPDX-License-Identifier: GPL-2.0
/*
 * tsckhz: print the host's TSC frequency in kHz.  Under TCG the guest's
 * TSC is the host's, but the guest (no ACPI, so no HPET or PM timer to
 * calibrate against) cannot measure it and falls back on a jiffies
 * clock, which stands still while every CPU has interrupts off: a
 * reclaim's stop-the-machine pause would read 0.  kernel/run.sh hands
 * the guest this figure (tsc_early_khz=).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	struct timespec nap = { 0, 200000000 };
	uint64_t t0 = ns(), c0 = __rdtsc();

	nanosleep(&nap, NULL);
	uint64_t c1 = __rdtsc(), t1 = ns();

	if (t1 <= t0 || c1 <= c0)
		return 1;
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000u / (t1 - t0)));
	return 0;
}
