// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "cli-errors.h"
#include "stopsignal.h"

static const int sigs[] = { SIGHUP, SIGINT, SIGTERM };

/* A lock-free atomic: safe to write from a handler, read from any thread. */
static atomic_int caught;

static void on_stop(int sig)
{
	int none = 0;
	atomic_compare_exchange_strong(&caught, &none, sig);
}

void stop_signals_catch(bool restart)
{
	struct sigaction sa = { .sa_handler = on_stop };

	/* While one is handled the others wait; once one was, it is back to
	 * its default, so the same signal again ends the run. */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = SA_RESETHAND | (restart ? SA_RESTART : 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int stop_signal(void)
{
	return atomic_load(&caught);
}

int stop_exit_code(void)
{
	int sig = stop_signal();
	return sig ? 128 + sig : 0;
}

const char *stop_signal_name(void)
{
	static const struct cli_word words[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { 0, NULL }
	};
	return cli_word_of(words, stop_signal(), "");
}

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

void stop_signal_sleep(const struct timespec *t)
{
	sigset_t stops, before;
	struct timespec start, now;

	sigemptyset(&stops);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&stops, sigs[i]);
	sigprocmask(SIG_BLOCK, &stops, &before);
	clock_gettime(CLOCK_MONOTONIC, &start);
	long long left = ns_of(t);
	/* Another signal's handler (none of ours restarts a sleep) would end
	 * ppoll early too: the rest of the interval is slept then. */
	while (!stop_signal() && left > 0) {
		struct timespec ts = { .tv_sec = (time_t)(left / 1000000000LL),
				       .tv_nsec = (long)(left % 1000000000LL) };
		if (ppoll(NULL, 0, &ts, &before) == 0 || errno != EINTR)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = ns_of(t) - (ns_of(&now) - ns_of(&start));
	}
	sigprocmask(SIG_SETMASK, &before, NULL);
}
