// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A preload for tests/modreap.bats: the first sleep of at least
 * SLEEP_SIGNAL_MIN seconds (ppoll or nanosleep) sends the process a
 * SIGTERM just before it sleeps, from user space: the moment between a
 * loop's look at its stop flag and its sleep. A loop whose sleep does not
 * end at once on that signal sleeps out its whole interval.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int sent;

static void maybe_signal(const struct timespec *t)
{
	const char *min = getenv("SLEEP_SIGNAL_MIN");
	if (sent || !t || !min || t->tv_sec < atol(min))
		return;
	sent = 1;
	static const char line[] = "signalled before sleeping\n";
	(void)!write(STDERR_FILENO, line, sizeof(line) - 1);
	kill(getpid(), SIGTERM);
}

int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *t, const sigset_t *mask)
{
	static int (*next)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	if (!next)
		next = (int (*)(struct pollfd *, nfds_t, const struct timespec *,
				const sigset_t *))dlsym(RTLD_NEXT, "ppoll");
	maybe_signal(t);
	return next(fds, n, t, mask);
}

int nanosleep(const struct timespec *t, struct timespec *rem)
{
	static int (*next)(const struct timespec *, struct timespec *);
	if (!next)
		next = (int (*)(const struct timespec *, struct timespec *))dlsym(RTLD_NEXT,
										  "nanosleep");
	maybe_signal(t);
	return next(t, rem);
}
