// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "cli-msg.h"
#include "modrot.h"
#include "reclaim-lock.h"
#include "stopsignal.h"

int reclaim_lock_take(enum cli_exit *code)
{
	const char *path = rot_reclaim_lock_path();
	pid_t holder = 0;
	int lock = rot_reclaim_lock(0, &holder);

	if (lock == -ETIMEDOUT) {
		if (holder)
			cli_info("waiting up to %d s for the reclaim lock %s, held by PID %ld",
				 RECLAIM_LOCK_WAIT_S, path, (long)holder);
		lock = rot_reclaim_lock(RECLAIM_LOCK_WAIT_S * 1000u, &holder);
	}
	if (lock >= 0 || (lock == -EINTR && stop_signal()))
		return lock;
	*code = CLI_EXIT_PARTIAL;
	switch (lock) {
	case -ETIMEDOUT:
		if (holder)
			cli_error("the reclaim lock %s is held by PID %ld: gave up after %d s, nothing done",
				  path, (long)holder, RECLAIM_LOCK_WAIT_S);
		else
			cli_error("the reclaim lock %s stayed held: gave up after %d s, nothing done",
				  path, RECLAIM_LOCK_WAIT_S);
		break;
	case -EACCES:
		*code = CLI_EXIT_PERM;
		cli_error("cannot take the reclaim lock %s: %s (only root reclaims)", path,
			  strerror(-lock));
		break;
	case -ELOOP:
		cli_error("the reclaim lock %s, or its directory, is a symbolic link: not trusted, "
			  "nothing done",
			  path);
		break;
	case -EPERM:
		cli_error("the reclaim lock %s is not a root-owned regular file of mode 0600 in a "
			  "directory only root can write: not trusted, nothing done",
			  path);
		break;
	default:
		cli_error("cannot take the reclaim lock %s: %s", path, strerror(-lock));
		break;
	}
	return lock;
}
