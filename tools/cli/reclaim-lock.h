/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reclaim lock (lib's rot_reclaim_lock) as rmmod, modprobe and modreap
 * take it: a bounded wait, the holder named, each refusal one line.
 */
#ifndef MODROT_RECLAIM_LOCK_H
#define MODROT_RECLAIM_LOCK_H

#include "cli-exit.h"

/* How long a run waits for another to let the lock go. A reclaiming run
 * holds it for one pass; longer means it is stuck or hostile. */
#define RECLAIM_LOCK_WAIT_S 10

/*
 * Takes the lock. Returns its descriptor, or a negative errno: -EINTR when
 * a stop signal (stopsignal.h) ended the wait (unsaid: the caller says it
 * stopped), otherwise
 * after one line that names the lock and the reason (the holder's PID when
 * the wait ran out), with *code the exit status it calls for.
 */
int reclaim_lock_take(enum cli_exit *code);

#endif
