// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

/* glibc exports the wrapper without declaring it in a header. */
extern int delete_module(const char *name, unsigned int flags);

/* delete_module's answer: a negative errno, or what it returned (0, or a reclaim's count). */
static int call_delete_module(const char *name, unsigned flags)
{
	int ret = delete_module(name, flags);
	return ret < 0 ? -errno : ret;
}

int rot_unload(const char *name, unsigned flags)
{
	return call_delete_module(name,
				  flags & ROT_UNLOAD_FORCE ? O_NONBLOCK | O_TRUNC : O_NONBLOCK);
}

/* Revision 2 and later have /sys/module/module/parameters/rot_reclaim_checks
 * (whether the kernel refuses to reclaim instances still in use); a
 * revision-1 kernel, as a stock one, has not. */
static bool revision_1(void)
{
	return access("/sys/module/module/parameters/rot_reclaim_checks", F_OK) < 0 &&
	       errno == ENOENT;
}

/* rot-abi.md revision 2's and 1's reclaim, for a kernel without the ioctl */
static int reclaim_delete_module(const struct rot_snapshot *snap, const char *name, bool force)
{
	unsigned flags = ROT_MODULE_RECLAIM | O_NONBLOCK;
	int ret = call_delete_module(name, force ? flags | O_TRUNC : flags);
	/* A revision-1 kernel refuses the combination, and it checks nothing
	 * anyway: a plain reclaim frees everything there. */
	if (ret == -EINVAL && force && revision_1())
		ret = call_delete_module(name, flags);
	if (ret != 0)
		return ret;
	/* Revision 1 returned 0 and freed every instance: what the snapshot
	 * saw rot is the best count there is, plus the live instance it saw
	 * if that has been unloaded since (by the caller, typically), and at
	 * least the one it freed. */
	char live[sizeof("/sys/module//initstate") + ROT_NAME_MAX];
	snprintf(live, sizeof(live), "/sys/module/%s/initstate", name);
	int seen = (int)rot_snapshot_rotting_of(snap, name, NULL, NULL);
	if (rot_snapshot_find_live(snap, name) && access(live, F_OK) < 0)
		seen++;
	return seen > 0 ? seen : 1;
}

/* The request, as the kernel series' include/uapi/linux/module.h has it. */
struct rot_reclaim_req {
	char name[64];
	uint32_t flags, freed, kept, why, pins, tasks, callbacks, probes;
	uint64_t bytes, percpu;
};
#define ROT_IOC_RECLAIM _IOWR(0xB8, 0x01, struct rot_reclaim_req)
_Static_assert(sizeof(struct rot_reclaim_req) == 112, "rot-abi.md: struct rot_reclaim is 112 bytes");
_Static_assert(ROT_IOC_RECLAIM == 0xc070b801u, "rot-abi.md: ROT_IOC_RECLAIM");

/* Revision 4's (R11): revision 3's, then where; the same layout on every ABI. */
struct rot_reclaim4_req {
	struct rot_reclaim_req r3; /* callbacks is refs there */
	char where[128];
};
#define ROT_IOC_RECLAIM4 _IOWR(0xB8, 0x02, struct rot_reclaim4_req)
_Static_assert(sizeof(struct rot_reclaim4_req) == 240,
	       "rot-abi.md: struct rot_reclaim4 is 240 bytes");
_Static_assert(ROT_IOC_RECLAIM4 == 0xc0f0b802u, "rot-abi.md: ROT_IOC_RECLAIM4");

/* where the last revision-4 reply of this thread found a reference */
static _Thread_local char reclaim_where[128];

/* ioctl(ROT_IOC_RECLAIM4), then ROT_IOC_RECLAIM on ENOTTY: what it
 * returned, or -errno; *req holds the reply, *revision who answered (4 or 3) */
static int reclaim_ioctl(const char *name, bool force, struct rot_reclaim4_req *req,
			 unsigned *revision)
{
	memset(req, 0, sizeof(*req));
	snprintf(req->r3.name, sizeof(req->r3.name), "%s", name);
	req->r3.flags = force ? 0x1u : 0;
	int fd = open("/proc/rotting_modules", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EOPNOTSUPP : -errno; /* gone: no rot kernel now */
	*revision = 4;
	int ret = ioctl(fd, ROT_IOC_RECLAIM4, req);
	if (ret < 0 && errno == ENOTTY) {
		*revision = 3;
		ret = ioctl(fd, ROT_IOC_RECLAIM, &req->r3);
	}
	int err = ret < 0 ? -errno : ret;
	close(fd);
	req->where[sizeof(req->where) - 1] = '\0';
	return err;
}

/* ---- accounting: what the freed instances held, and what stays ---- */

void reclaim_seen_of(const struct rot_snapshot *snap, const char *name, unsigned flags,
		     struct reclaim_seen *seen)
{
	uint64_t newest;
	seen->instances = rot_snapshot_rotting_of(snap, name, &seen->bytes, &seen->unit);
	/* What a concurrent unload leaves is the live module (while Loading,
	 * SIZE counts init memory too: then the newest rotting one). */
	const struct rot_module *live = rot_snapshot_find_live(snap, name);
	if (live && rot_module_state(live) != ROT_STATE_LOADING)
		seen->unit = rot_module_size(live);
	if (!live || !(flags & ROT_RECLAIM_UNLOADED))
		return;
	uint64_t size = rot_module_size(live);
	/* Seen Loading, its SIZE counted init memory, freed since: ask what
	 * the instance it left rotting holds. */
	if (rot_module_state(live) == ROT_STATE_LOADING &&
	    rot_name_rotting(name, NULL, NULL, &newest) == 0)
		size = newest;
	seen->instances++;
	seen->bytes += size;
	seen->unit = size;
}

/* The pure part of what reclaim_account() works out. The kernel's count is
 * exact; what the freed instances held is known from what was seen. When
 * the two disagree, what still rots (left) tells which seen instances
 * stayed (still in use); instances freed beyond those seen rotted after
 * the snapshot, from a concurrent unload, and count at seen->unit each. */
static size_t clamp_left(const struct reclaim_seen *seen, size_t *left, uint64_t *left_bytes)
{
	if (*left > seen->instances) { /* more rotted since: not ours to judge */
		*left = seen->instances;
		*left_bytes = seen->bytes;
	}
	return seen->instances - *left;
}

bool reclaim_needs_unit(const struct reclaim_seen *seen, size_t freed, size_t left)
{
	uint64_t left_bytes = 0;
	return freed >= clamp_left(seen, &left, &left_bytes);
}

void reclaim_estimate(const struct reclaim_seen *seen, size_t left, uint64_t left_bytes,
		      struct rot_reclaim_result *res)
{
	size_t expected = clamp_left(seen, &left, &left_bytes);
	uint64_t expected_bytes = seen->bytes > left_bytes ? seen->bytes - left_bytes : 0;
	if (res->freed >= expected)
		res->bytes = expected_bytes + (res->freed - expected) * seen->unit;
	else /* another caller reclaimed some of them first */
		res->bytes = expected ? expected_bytes / expected * res->freed : 0;
	res->kept = (unsigned)left;
	res->kept_bytes = left_bytes;
}

/* Nothing of name was seen: a module of that name loaded again now has the size of the one freed. */
static int size_now(const char *name, uint64_t *size)
{
	struct rot_snapshot *snap;
	*size = 0;
	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return err;
	const struct rot_module *m = rot_snapshot_find_live(snap, name);
	if (m && rot_module_state(m) != ROT_STATE_LOADING) /* Loading: init memory too */
		*size = rot_module_size(m);
	rot_snapshot_free(snap);
	return 0;
}

/* How many of name rot now, and their bytes (0 when the read fails:
 * res->recount_err says why). */
static void recount(const char *name, struct rot_reclaim_result *res, size_t *left,
		    uint64_t *left_bytes)
{
	*left = 0; /* rot_name_rotting() sets nothing when it fails */
	*left_bytes = 0;
	int err = rot_name_rotting(name, left, left_bytes, NULL);
	if (err < 0)
		res->recount_err = err;
}

/* Revision 2 or 1 freed res->freed instances: what they held, and what stays. */
static void reclaim_account(const char *name, const struct reclaim_seen *seen,
			    struct rot_reclaim_result *res)
{
	size_t left;
	uint64_t left_bytes;

	if (res->freed == seen->instances) {
		res->bytes = seen->bytes;
		return;
	}
	recount(name, res, &left, &left_bytes);
	struct reclaim_seen s = *seen;
	int err;
	if (!s.unit && reclaim_needs_unit(seen, res->freed, left) &&
	    (err = size_now(name, &s.unit)) < 0)
		res->recount_err = err;
	reclaim_estimate(&s, left, left_bytes, res);
}

/* rot_reclaim() into a whole struct of this release's size. */
static int reclaim_run(const struct rot_snapshot *snap, const char *name, unsigned flags,
		       struct rot_reclaim_result *res)
{
	reclaim_where[0] = '\0';
	*res = (struct rot_reclaim_result){ .size = sizeof(*res), .where = reclaim_where };
	/* A stock kernel would take revision 2's request for an unload. */
	if (!rot_snapshot_has_rot(snap))
		return -EOPNOTSUPP;
	struct reclaim_seen seen;
	reclaim_seen_of(snap, name, flags, &seen);
	bool force = flags & ROT_RECLAIM_FORCE;
	struct rot_reclaim4_req req4;
	const struct rot_reclaim_req *r = &req4.r3;
	unsigned revision = 3;
	int ret = reclaim_ioctl(name, force, &req4, &revision);
	if (ret >= 0 || ret == -EBUSY) {
		if (revision == 4)
			memcpy(reclaim_where, req4.where, sizeof(reclaim_where));
		*res = (struct rot_reclaim_result){
			.freed = r->freed,
			.kept = r->kept,
			.why = r->why,
			.pins = r->pins,
			.tasks = r->tasks,
			.callbacks = r->callbacks,
			.probes = r->probes,
			.bytes = r->bytes,
			.size = sizeof(*res),
			.percpu = r->percpu,
			.revision = revision,
			.refs = revision == 4 ? r->callbacks : 0,
			.where = reclaim_where,
		};
		/* the kernel counted both sides; only what the kept ones hold is ours to read */
		size_t left;
		if (res->kept)
			recount(name, res, &left, &res->kept_bytes);
		return ret;
	}
	/* D3: only a kernel that does not know the request may be asked the
	 * old way; it has /proc/rotting_modules (opened above), so it is a
	 * rot kernel, not a stock one that would unload instead. */
	if (ret != -ENOTTY)
		return ret;
	res->revision = revision_1() ? 1 : 2;
	ret = reclaim_delete_module(snap, name, force);
	if (ret == -EBUSY) { /* every instance kept: none left to count means those seen stay */
		size_t left;
		uint64_t left_bytes;
		recount(name, res, &left, &left_bytes);
		res->kept = (unsigned)(left ? left : seen.instances);
		res->kept_bytes = left ? left_bytes : seen.bytes;
	}
	if (ret <= 0)
		return ret;
	res->freed = (unsigned)ret;
	reclaim_account(name, &seen, res);
	return ret;
}

int rot_reclaim(const struct rot_snapshot *snap, const char *name, unsigned flags,
		struct rot_reclaim_result *res)
{
	if (!res || res->size < ROT_RECLAIM_RESULT_SIZE_0_1)
		return -EINVAL;
	struct rot_reclaim_result whole;
	int ret = reclaim_run(snap, name, flags, &whole);
	sized_copy_out(res, res->size, &whole, sizeof(whole));
	return ret;
}

bool rot_name_is_builtin(const char *name)
{
	char path[sizeof("/sys/module//initstate") + ROT_NAME_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

/* /run is root's, so no one else can make the lock's directory first.
 * MODROT_RECLAIM_LOCK is for tests; secure_getenv ignores it in a setuid run. */
const char *rot_reclaim_lock_path(void)
{
	const char *env = secure_getenv("MODROT_RECLAIM_LOCK");
	return env && env[0] == '/' ? env : "/run/modrot/reclaim.lock";
}

/* Opens the lock's directory, made when it is missing, and checks that no
 * one but root could have put anything in it. */
static int lock_dir_open(const char *dir)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 && errno == ENOTDIR) {
		/* O_DIRECTORY answers first for a symbolic link to a directory */
		struct stat lst;
		return lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode) ? -ELOOP : -EPERM;
	}
	if (dfd < 0)
		return -errno;
	struct stat st;
	int err = fstat(dfd, &st) < 0 ? -errno : 0;
	if (!err && (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)))
		err = -EPERM;
	if (err < 0) {
		close(dfd);
		return err;
	}
	return dfd;
}

/* Opens the lock file, made 0600 when it is missing. O_NONBLOCK keeps a
 * FIFO planted there from stalling the open; the checks after refuse it. */
static int lock_file_open(void)
{
	char dir[PATH_MAX];
	const char *path = rot_reclaim_lock_path();
	const char *slash = strrchr(path, '/');
	size_t dlen = (size_t)(slash - path);

	if (!slash[1] || dlen >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	int dfd = lock_dir_open(dlen ? dir : "/");
	if (dfd < 0)
		return dfd;
	int fd = openat(dfd, slash + 1,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	int err = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0)
		return err == -ENXIO || err == -EISDIR ? -EPERM : err;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int rot_reclaim_lock(unsigned timeout_ms, pid_t *holder)
{
	if (holder)
		*holder = 0;
	int fd = lock_file_open();
	if (fd < 0)
		return fd;
	/* A POSIX record lock, not flock(): F_GETLK names the process that
	 * holds it (an open file description lock would report no PID).
	 * It is the process's: nothing else in a tool opens this file, so
	 * no close elsewhere can drop it. */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	uint64_t deadline = now_ms() + timeout_ms;
	long step_ms = 10;
	for (;;) {
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return fd;
		if (errno != EACCES && errno != EAGAIN) {
			int err = -errno;
			close(fd);
			return err;
		}
		/* A kernel built without file locking (CONFIG_FILE_LOCKING=n)
		 * refuses every lock with EACCES and cannot even be asked who
		 * holds one (EINVAL): nobody can hold this one, so it is ours. */
		struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		bool asked = fcntl(fd, F_GETLK, &probe) == 0;
		if (!asked && errno == EINVAL)
			return fd;
		uint64_t now = now_ms();
		if (now >= deadline) {
			/* who holds it, or 0 when it was let go meanwhile */
			if (holder && asked && probe.l_type != F_UNLCK && probe.l_pid > 0)
				*holder = probe.l_pid;
			close(fd);
			return -ETIMEDOUT;
		}
		/* Polled, so that the wait is bounded without a timer signal
		 * the library would have to own. A signal ends the sleep with
		 * EINTR (nanosleep is never restarted), and the wait with it. */
		uint64_t left = deadline - now;
		long ms = (uint64_t)step_ms < left ? step_ms : (long)left;
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR) {
			close(fd);
			return -EINTR;
		}
		if (step_ms < 200)
			step_ms *= 2;
	}
}

void rot_reclaim_unlock(int lock)
{
	if (lock >= 0)
		close(lock);
}

int rot_module_unload_predict(const struct rot_snapshot *snap, const struct rot_module *m,
			      const bool *gone, unsigned unload_flags)
{
	/* the kernel looks at the holders (rot_module_unload_check()'s first
	 * answer), the state, a missing exit, then the references (stock) */
	if (!m || rot_module_live_holders(snap, m, gone))
		return rot_module_unload_check(snap, m, gone, unload_flags);
	if (rot_module_state(m) != ROT_STATE_LIVE ||
	    (rot_module_is_permanent(m) && !(unload_flags & ROT_UNLOAD_FORCE)))
		return -EBUSY;
	return rot_module_unload_check(snap, m, gone, unload_flags);
}
