/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A long run told to stop by SIGHUP, SIGINT or SIGTERM does not die
 * half-way through its report: the handler only notes the signal. The run
 * finishes the call in flight, starts nothing new, prints what it did, and
 * exits 128 + the signal's number, as a shell reports a killed process.
 * The same signal again ends the process at once, for a call that never
 * returns.
 */
#ifndef MODROT_STOPSIGNAL_H
#define MODROT_STOPSIGNAL_H

#include <stdbool.h>
#include <time.h>

/*
 * Catches the three signals. restart: calls the signal lands in are
 * restarted (SA_RESTART), so a module syscall is never cut short;
 * without it a sleep or a lock wait returns EINTR, so the caller can
 * look at stop_signal() at once.
 */
void stop_signals_catch(bool restart);

/* Sleeps for *t, or less: returns at once when a stop signal was caught
 * before the call or arrives during it (ppoll(): none can slip between the
 * look and the sleep). */
void stop_signal_sleep(const struct timespec *t);

/* The signal caught, or 0. Safe from any thread. */
int stop_signal(void);

/* 128 + the signal caught (129, 130, 143), or 0 when none was. */
int stop_exit_code(void);

/* "SIGINT", for a message; "" when none was caught. */
const char *stop_signal_name(void);

#endif
