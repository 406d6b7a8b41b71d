/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmodrot: the only code in modrot that knows kernel interfaces.
 *
 * Every path under /proc and /sys, every module syscall, module files and
 * their signatures live behind this header, the library's only public one
 * (installed; pkg-config --cflags --libs libmodrot). Functions return 0 or
 * a negative errno value and never print; the tools turn results into
 * words and exit codes. Every function declared here is listed in
 * libmodrot.sym, and nothing else is exported.
 *
 * Since: every symbol here is in the version node LIBMODROT_1 and was
 * added in modrot 0.1 unless its comment names a later release; a symbol
 * added later goes into a new node of libmodrot.sym and says "since X.Y"
 * here. docs/architecture.md reviews this interface.
 */
#ifndef MODROT_H
#define MODROT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest module name the kernel accepts, without the NUL (MODULE_NAME_LEN - 1). */
#define ROT_NAME_MAX 55

/* ---- kernel state: one snapshot of /proc/modules and /proc/rotting_modules ---- */

enum rot_state {
	ROT_STATE_LIVE,
	ROT_STATE_LOADING,
	ROT_STATE_UNLOADING,
	ROT_STATE_ROTTING,
};

struct rot_snapshot;
struct rot_module;
struct rot_modfile; /* a module file read into memory (see "module files") */

/*
 * Reads /proc/modules and, where it exists, /proc/rotting_modules, each
 * whole and once. A module that rotted between the two reads is seen as
 * rotting only (its address shows up in both), so no instance is counted
 * twice. Returns -ENOENT when the kernel has no /proc/modules at all.
 */
int rot_snapshot_read(struct rot_snapshot **out);

void rot_snapshot_free(struct rot_snapshot *snap);

/* Where a kernel file did not parse: the file, its line (from 1) and what
 * is wrong with it, in words. */
struct rot_parse_error {
	const char *file;
	size_t line;
	const char *reason;
};

/*
 * After a function that parses a kernel file (rot_snapshot_read(),
 * rot_name_rotting(), rot_taint_read(), rot_kernel_facts_read()) returned
 * -EPROTO in this thread: where, and why. NULL when the last failure was
 * not a malformed file.
 */
const struct rot_parse_error *rot_parse_error_last(void); /* since 0.1 */

/*
 * OpenSSL's libcrypto, libelf, libzstd, liblzma and libkmod are opened the
 * first time a call needs one (reading a module file, a signature or a
 * keyring; inserting). A call that could not open one returns -ELIBACC;
 * this says which library and why ("libcrypto.so.3 could not be loaded:
 * cannot open shared object file: No such file or directory"). NULL when
 * none failed.
 */
const char *rot_library_error(void);

/* True when the kernel follows the module-rot ABI (/proc/rotting_modules exists). */
bool rot_snapshot_has_rot(const struct rot_snapshot *snap);
/* True when the kernel is of rot-abi revision 4 (D5: /proc/module_pins
 * exists, and the snapshot read it; since 0.1). */
bool rot_snapshot_has_pins(const struct rot_snapshot *snap);

/* Live (and loading or unloading) modules first, newest first; then
 * rotting instances, newest first. */
size_t rot_snapshot_count(const struct rot_snapshot *snap);
size_t rot_snapshot_live_count(const struct rot_snapshot *snap);
const struct rot_module *rot_snapshot_module(const struct rot_snapshot *snap, size_t i);

/* The position of m in the snapshot, for tools that keep per-module marks. */
size_t rot_snapshot_index_of(const struct rot_snapshot *snap, const struct rot_module *m);

/* The live module of that (normalised) name, or NULL. */
const struct rot_module *rot_snapshot_find_live(const struct rot_snapshot *snap, const char *name);

const char *rot_module_name(const struct rot_module *m);
uint64_t rot_module_size(const struct rot_module *m);
/* The kernel's use count; -ENOENT (-2, what kmod's lsmod prints then) on
 * a kernel built without CONFIG_MODULE_UNLOAD, whose /proc/modules shows
 * "- -" for the count and the holders. */
long rot_module_refcnt(const struct rot_module *m);
/* A rotting instance's outstanding pins (rot-abi.md C3, P1: the third
 * column of /proc/rotting_modules; 0 on a revision-2 kernel);
 * rot_module_refcnt() of a rotting instance is the same count. A live
 * module's pins on a revision-4 kernel (C5: /proc/module_pins), 0 on an
 * older one, whose pins no file shows (C1): rot_module_pins_known() tells
 * the two apart. */
unsigned long rot_module_pins(const struct rot_module *m);
/* Whether rot_module_pins() is the kernel's count (since 0.1): always for a
 * rotting instance; for a live module only when the snapshot read
 * /proc/module_pins and it had the module's line (a module loaded between
 * the reads of /proc/modules and /proc/module_pins has none). */
bool rot_module_pins_known(const struct rot_module *m);
/* Whether the live module declared MODULE_ROT_SAFE() (rot-abi.md C4, C5;
 * since 0.1): then it unloads while pinned (U8). False on a kernel older
 * than revision 4, which does not tell. */
bool rot_module_is_rot_safe(const struct rot_module *m);
enum rot_state rot_module_state(const struct rot_module *m);
bool rot_module_is_rotting(const struct rot_module *m);
bool rot_module_is_permanent(const struct rot_module *m);
uint64_t rot_module_address(const struct rot_module *m);
/* Module taint letters, e.g. "OE"; "" when untainted. */
const char *rot_module_taints(const struct rot_module *m);

/* Holders in the order sysfs lists /sys/module/NAME/holders/, which is the
 * order kmod's lsmod prints them in. */
size_t rot_module_holder_count(const struct rot_module *m);
const char *rot_module_holder(const struct rot_module *m, size_t i);

const char *rot_state_name(enum rot_state state);

/* ---- unloading and reclaiming ---- */

/* delete_module(2) flag of rot-abi revision 2: free the rotting instances
 * of a name. Revision 3 refuses it (EINVAL); reclaim is an ioctl there. */
#define ROT_MODULE_RECLAIM 0x40000000u

enum rot_unload_flags {
	ROT_UNLOAD_FORCE =
		1 << 0, /* O_TRUNC: unload a permanent (or, on a stock kernel, used) module */
};

/*
 * Unloads a live module without waiting (O_NONBLOCK). On a rot kernel it
 * now rots; on a stock kernel its memory is freed. Returns delete_module's
 * negative errno: -ENOENT not live, -EWOULDBLOCK holders (or, stock, a
 * reference), -EBUSY loading, unloading or permanent, -EPERM.
 */
int rot_unload(const char *name, unsigned flags);

/* rot_reclaim() flags */
enum rot_reclaim_flags {
	/* ROT_RECLAIM_FORCE (rot-abi.md R5): stop the timers, work and RCU
	 * callbacks left in the instances first; pinned instances, instances a
	 * task is inside, with a kprobe or with a callback still running stay.
	 * On a revision-2 kernel, O_TRUNC: everything is freed; on revision 1,
	 * which refuses the combination and checks nothing, a plain reclaim. */
	ROT_RECLAIM_FORCE = 1 << 0,
	/* The caller unloaded the snapshot's live module of that name since
	 * the snapshot was read: its instance rots now, and is counted as
	 * seen (at the size the kernel lists for it when the snapshot saw it
	 * still Loading, whose size counted init memory). */
	ROT_RECLAIM_UNLOADED = 1 << 1,
};

/* Why a reclaim kept instances (rot_reclaim_result.why), as the kernel says (R4). */
#define ROT_KEPT_PIN 0x01u     /* pinned: an open file, a mount, a socket... */
#define ROT_KEPT_TASK 0x02u    /* a task's stack returns into it */
#define ROT_KEPT_TIMER 0x04u   /* a timer or hrtimer points into it */
#define ROT_KEPT_WORK 0x08u    /* a work item */
#define ROT_KEPT_RCU 0x10u     /* an RCU callback */
#define ROT_KEPT_KPROBE 0x20u  /* a kprobe on its text */
#define ROT_KEPT_RUNNING 0x40u /* a callback still running after the forced wait */
#define ROT_KEPT_OBJECT 0x80u  /* another tracked object in its memory (revision 3) */
/* revision 4 (R10, P7; since 0.1) */
#define ROT_KEPT_REF 0x100u       /* a word outside it points into it (the scan) */
#define ROT_KEPT_USER 0x200u      /* a rotting instance that used it remains */
#define ROT_KEPT_UNSCANNED 0x400u /* a region the scan could not read */

/*
 * What one reclaim of a name did (since 0.1). An extensible struct: the
 * caller sets size to sizeof(struct rot_reclaim_result) as it was built,
 * and the library fills only that much (members are only ever added at
 * the end), so a program built against 0.1 keeps working when a later
 * release adds a count. A size below ROT_RECLAIM_RESULT_SIZE_0_1 is -EINVAL.
 */
struct rot_reclaim_result {
	size_t size;         /* in: sizeof(struct rot_reclaim_result) */
	unsigned freed;      /* instances freed */
	unsigned kept;       /* instances of the name left rotting as still in use */
	unsigned why;        /* ROT_KEPT_* over the kept instances (revision 3; else 0) */
	unsigned pins;       /* outstanding pins of the kept instances */
	unsigned tasks;      /* tasks inside them */
	unsigned callbacks;  /* timers, work, RCU callbacks pointing in */
	unsigned probes;     /* kept instances with a kprobe on their text */
	uint64_t bytes;      /* bytes freed */
	uint64_t kept_bytes; /* bytes the kept instances hold */
	uint64_t percpu;     /* per-CPU bytes returned to the reserve (revision 3; else 0) */
	/* The rot-abi revision that answered: 3 the counts above are the
	 * kernel's reply; 2 or 1 (delete_module) only the count freed is the
	 * kernel's (on 1, estimated from the snapshot), and the rest is
	 * accounted from what the snapshot saw and what rots after. */
	unsigned revision;
	/* 0, or the negative errno of reading the kernel again to tell what
	 * the freed instances held or how many stay: the counts are then
	 * estimates from the snapshot alone. */
	int recount_err;
	/* since 0.1, revision 4 (R11): references the scan found outside task
	 * stacks (callbacks then counts them too, as revision 3's reply does) */
	unsigned refs;
	/* since 0.1, revision 4: where the first reference was found
	 * ("task PID (COMM) stack", "slab CACHE object", "rotting user NAME",
	 * ...: printable ASCII, as the kernel wrote it); "" when the kernel
	 * named none (an older revision, or only pins kept). Valid until the
	 * next rot_reclaim() of the same thread. */
	const char *where;
};
/* The size of struct rot_reclaim_result in 0.1: the least rot_reclaim() accepts. */
#define ROT_RECLAIM_RESULT_SIZE_0_1 (offsetof(struct rot_reclaim_result, recount_err) + sizeof(int))

/*
 * Reclaims the rotting instances of name, and accounts for them: one entry
 * point for every tool (since 0.1). Asks with ROT_IOC_RECLAIM4 (rot-abi.md
 * R10-R13), then ROT_IOC_RECLAIM (R1-R9), then delete_module(MODULE_RECLAIM)
 * (revision 2 or 1), each only when the one before answered ENOTTY (D3).
 * On revision 4 or 3 the kernel's reply is the result. On revision 2 or 1
 * only the count freed is the kernel's (revision 1 returns 0: then it is
 * what the snapshot saw rot, plus its live instance if unloaded since);
 * when it differs from what the snapshot saw, /proc/rotting_modules is
 * read once more to tell how many stay and what the freed ones held.
 * -EOPNOTSUPP unless the snapshot shows a rot kernel: a stock kernel would
 * take the request for an unload.
 *
 * Returns the number freed (> 0), or -EBUSY when instances were kept and
 * none freed; *res is filled in both cases (and zeroed otherwise, but
 * for res->size). -ENOENT nothing of that name rots, -EOPNOTSUPP, -EPERM,
 * -EINVAL (also for res NULL or res->size too small; then nothing is asked).
 * Freeing taints the kernel R (ROT_TAINT_FORCED_RMMOD).
 */
int rot_reclaim(const struct rot_snapshot *snap, const char *name, unsigned flags,
		struct rot_reclaim_result *res);

/* Rotting instances of one name. */
struct rot_group {
	const char *name;
	size_t instances;
	uint64_t bytes;
};

/*
 * Groups the snapshot's rotting instances by name, largest total first
 * (then by name). *groups is malloc'd; its names point into the snapshot.
 */
int rot_snapshot_rotting_groups(const struct rot_snapshot *snap, struct rot_group **groups,
				size_t *ngroups);

/*
 * The one count of a name's rotting instances, in a snapshot (since 0.1):
 * returns how many of name rot there, and puts the bytes they hold in
 * *bytes and the size of the newest in *newest_size (0 when none); either
 * may be NULL. name is compared as the kernel lists it (normalised).
 */
size_t rot_snapshot_rotting_of(const struct rot_snapshot *snap, const char *name, uint64_t *bytes,
			       uint64_t *newest_size);

/*
 * The same count read now from /proc/rotting_modules alone (since 0.1):
 * what a failed init just left, or what a reclaim kept, is found this way
 * without a whole snapshot. Any output may be NULL. -ENOENT on a kernel
 * without rot support; -EPROTO for a malformed file. A query keyed by a
 * name, read now: rot_name_*.
 */
int rot_name_rotting(const char *name, size_t *instances, uint64_t *bytes, uint64_t *newest_size);

/*
 * Serialises reclaiming runs of modrot's tools, so that two of them never
 * reclaim the same instances while each counts them as its own. Take it
 * before reading the snapshot that the counts come from.
 *
 * The lock is a POSIX record lock on rot_reclaim_lock_path(), a regular
 * file owned by root, of mode 0600, in a directory owned by root that no
 * one else may write (made 0700 when missing): no other user can create,
 * open or hold it, so none can stall a reclaim. Waits at most timeout_ms
 * (0: one try). Returns a descriptor for rot_reclaim_unlock, or
 *   -ETIMEDOUT  another process held it the whole time; *holder (may be
 *               NULL) is its PID, 0 when it could not be told;
 *   -EINTR      a signal ended the wait;
 *   -EACCES     the caller may not make or open it (not root);
 *   -ELOOP      a symbolic link stands at the path or the directory's;
 *   -EPERM      the file or its directory is not what only root could make
 *               (another type, another owner, writable by others);
 *   another negative errno when the directory could not be made.
 */
int rot_reclaim_lock(unsigned timeout_ms, pid_t *holder);
/* The lock file's path: /run/modrot/reclaim.lock, or the absolute path in
 * MODROT_RECLAIM_LOCK (ignored in a setuid run). */
const char *rot_reclaim_lock_path(void);
void rot_reclaim_unlock(int lock);

/* ---- queries keyed by a module's name, read now (rot_name_*, since 0.1):
 * not a snapshot's struct rot_module, whose accessors are rot_module_* ---- */

/* True when name is built into the kernel (/sys/module/NAME without
 * initstate). */
bool rot_name_is_builtin(const char *name);

/* ---- the per-CPU module reserve (rot-abi.md, "Per-CPU memory") ---- */

/*
 * Modules with per-CPU data (DEFINE_PER_CPU) take it from a small fixed
 * reserve (PERCPU_MODULE_RESERVE, 8 KiB per CPU on x86_64), and a rotting
 * instance keeps its area until reclaimed: on a rot kernel the reserve
 * runs out long before memory does. All sizes here are per CPU.
 */
struct rot_percpu;

/*
 * Reads /proc/module_percpu (rot kernels only): -ENOENT on a kernel without
 * it. -EPROTO for a malformed file (rot_parse_error_last() says where).
 */
int rot_percpu_read(struct rot_percpu **out);
void rot_percpu_free(struct rot_percpu *pc);

/* The reserve's size, its free bytes and its largest free extent. */
uint64_t rot_percpu_reserve(const struct rot_percpu *pc);
uint64_t rot_percpu_free_bytes(const struct rot_percpu *pc);
uint64_t rot_percpu_largest(const struct rot_percpu *pc);

/* The instances holding per-CPU bytes: live ones newest first, then
 * rotting ones newest first. */
size_t rot_percpu_count(const struct rot_percpu *pc);
const char *rot_percpu_name(const struct rot_percpu *pc, size_t i);
uint64_t rot_percpu_bytes(const struct rot_percpu *pc, size_t i);
enum rot_state rot_percpu_state(const struct rot_percpu *pc, size_t i);

/*
 * Per-CPU bytes of each module of snap: bytes[i] for rot_snapshot_module(snap, i),
 * 0 when it holds none (bytes has rot_snapshot_count(snap) slots). Returns
 * how many of pc's instances were found in snap.
 */
size_t rot_percpu_per_module(const struct rot_percpu *pc, const struct rot_snapshot *snap,
			     uint64_t *bytes);

/* Rotting instances holding per-CPU bytes, grouped by name, most bytes
 * first (then by name). *groups is malloc'd; names point into pc. */
int rot_percpu_rotting_groups(const struct rot_percpu *pc, struct rot_group **groups,
			      size_t *ngroups);

/* What an area of size bytes takes from the reserve (whole 4-byte units). */
uint64_t rot_percpu_need(uint64_t size);

enum rot_percpu_fit {
	ROT_PERCPU_FITS,    /* the largest free extent holds it, whatever its alignment */
	ROT_PERCPU_MAY_FIT, /* only if that extent is aligned well enough: the kernel decides */
	ROT_PERCPU_NO_ROOM, /* larger than the largest free extent: the load fails with ENOMEM */
	ROT_PERCPU_NEVER,   /* larger than the reserve, or an area the kernel never gives */
};

/*
 * A module file's per-CPU data, as the kernel's percpu_modalloc() reads it:
 * the size of its .data..percpu section (0: none), and its alignment in
 * *align (may be NULL).
 */
uint64_t rot_modfile_percpu(const struct rot_modfile *mf, uint64_t *align);

/* Whether a module's per-CPU area (rot_modfile_percpu()) fits the reserve now. */
enum rot_percpu_fit rot_percpu_fit(const struct rot_percpu *pc, uint64_t size, uint64_t align);

/* ---- devices ---- */

/*
 * Devices bound to the drivers name registered: the symlinks (other than
 * "module") in each /sys/module/NAME/drivers/BUS:DRIVER/ directory. This
 * exists nowhere but sysfs, so it is read per module, and only when asked.
 * A module without drivers has none (0, not an error). Since 0.1.
 */
int rot_name_bound_devices(const char *name, size_t *count);

struct rot_devices;

/* Every present device's modalias, from /sys/bus/BUS/devices/ID/modalias. */
int rot_devices_read(struct rot_devices **out);
void rot_devices_free(struct rot_devices *devs);

/* True when some device's modalias matches the alias pattern (fnmatch, as
 * udev and kmod match aliases). */
bool rot_devices_match(const struct rot_devices *devs, const char *pattern);

/* ---- in use: one rule for every tool ---- */

/*
 * A module is in use when live modules depend on it (holders) or devices
 * are bound to its drivers, and also: on a rot kernel of revision 4 when
 * it is pinned (rot-abi.md C5, /proc/module_pins, read with the
 * snapshot); on a stock kernel when it holds references beyond its
 * holders; only on a rot kernel of revision 1 to 3, whose pins no file
 * shows, when a file system of a type it provides is mounted. The
 * reference count of a rot kernel (always 0) is never read as "unused".
 */
struct rot_usage_ctx;

/*
 * The in-use rule's inputs, for the kernel of snap (the snapshot the rule
 * will be asked about; NULL: a kernel of revision 1 to 3). Since 0.1, as
 * rot_usage_ctx_free(). On a stock kernel or one of revision 4 nothing is
 * read, and the context refuses (-EXDEV) to judge a module of a snapshot
 * of revision 1 to 3. On revision 1 to 3, MODDIR/modules.alias (moddir
 * NULL: /lib/modules/RELEASE of the running kernel), whose fs-TYPE aliases
 * say which modules provide a file system type, is read now; the mount
 * tables of every mount namespace a process is in (/proc/PID/mounts, one
 * process per namespace; one that exits meanwhile is passed over) are
 * read on the first judgement of a module that provides a type.
 * The rule fails closed: an input that cannot be read or trusted (missing,
 * not a regular file, over 64 MiB, malformed; -ESTALE a modules.alias its
 * binary index does not confirm; -ENOLINK a namespace link
 * naming no mount namespace; -EACCES "/proc" when proc hides processes
 * from a caller without CAP_SYS_PTRACE; -EAGAIN "/proc" when the process
 * list keeps changing) is -errno, never "no users". Then what (cap bytes;
 * may be NULL) gets the path of that input ("" when none: out of memory),
 * or, for the tables, rot_usage_ctx_failed_input() after the judgement
 * that needed them.
 */
int rot_usage_ctx_read(const struct rot_snapshot *snap, const char *moddir,
		       struct rot_usage_ctx **out, char *what, size_t cap);
void rot_usage_ctx_free(struct rot_usage_ctx *ctx);

/*
 * What uses a module (since 0.1). An extensible struct, as struct
 * rot_reclaim_result is: the caller sets size to sizeof(struct rot_usage),
 * the library fills and reads only that much, and a new kind of user is a
 * member added at the end. A size below ROT_USAGE_SIZE_0_1 is -EINVAL.
 */
struct rot_usage {
	size_t size;            /* in: sizeof(struct rot_usage) */
	size_t holders;         /* live holders, but those marked gone */
	size_t devices;         /* devices bound to its drivers */
	size_t mounts;          /* mounts of types it provides */
	long refs;              /* stock kernel: references beyond holders; rot: 0 */
	const char *mount_type; /* the first such mount, for messages (in ctx) */
	const char *mount_target;
	long mount_pid; /* the process in whose mount namespace it is; 0: the caller's */
	/* since 0.1, revision 4: its pins (rot-abi.md C5), each a user the
	 * kernel counts (an open file, a mount, a socket, a transform) */
	unsigned long pins;
};
/* The size of struct rot_usage in 0.1: the least the library accepts. */
#define ROT_USAGE_SIZE_0_1 (offsetof(struct rot_usage, mount_pid) + sizeof(long))

/*
 * What uses the live module m. gone, when not NULL, marks by snapshot
 * index the modules the caller has unloaded since the snapshot: they hold
 * nothing any more. A rotting instance is used by nothing. Reads sysfs for
 * bound devices; ctx may be NULL (no mounts considered). The caller sets
 * u->size (-EINVAL when u is NULL or u->size below ROT_USAGE_SIZE_0_1).
 */
int rot_module_usage(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
		     const struct rot_module *m, const bool *gone, struct rot_usage *u);

/* Holders of m still live: those in the snapshot, but those marked gone. */
size_t rot_module_live_holders(const struct rot_snapshot *snap, const struct rot_module *m,
			       const bool *gone);

/* The rule itself, over the members u->size covers. */
bool rot_usage_in_use(const struct rot_usage *u);

/* The input the last rot_module_usage() (or rot_snapshot_unused()) of ctx
 * could not read or trust, for the words of a refusal (since 0.1): a path
 * (/proc/PID/mounts, /proc, /proc/module_pins, ...), or NULL when the
 * last one failed on nothing of ctx's or did not fail. */
const char *rot_usage_ctx_failed_input(const struct rot_usage_ctx *ctx);

/* rot_snapshot_unused() flags */
enum rot_unused_flags {
	ROT_UNUSED_PERMANENT = 1 << 0, /* permanent modules too (a forced unload takes them) */
};

/*
 * The live modules nothing uses (since 0.1): unused[i] for
 * rot_snapshot_module(snap, i), for each i below rot_snapshot_live_count().
 * A module whose holders are all unused is unused too, once they are
 * gone: the set is the largest one closed under "held by", found by
 * treating the candidates as gone. Candidates are modules in state Live
 * (permanent ones only with ROT_UNUSED_PERMANENT); ctx as for
 * rot_module_usage(). Returns 0, -ENOMEM, or the negative errno of
 * reading a module's bound devices with *failed set to its index: devices
 * that cannot be counted are not known to be none, so the rule fails
 * closed (unused is then all false). With unknown (an int per live
 * module, zeroed by the caller), only that module fails closed: it is
 * kept, unknown[i] says why, and the others are judged (architecture.md:
 * "A driver whose name has a slash").
 */
int rot_snapshot_unused(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
			unsigned flags, bool *unused, int *unknown, size_t *failed);

/*
 * What the kernel itself refuses an unload for, told from the snapshot so
 * that a refusal costs no syscall (since 0.1): -EWOULDBLOCK when a holder
 * not marked gone is live, or, on a stock kernel and without
 * ROT_UNLOAD_FORCE, m holds references beyond its holders (an open
 * device, a mount); -ENOENT when m is NULL; else 0. Bound devices and
 * mounts are the in-use rule's (rot_module_usage()), not the kernel's.
 */
int rot_module_unload_check(const struct rot_snapshot *snap, const struct rot_module *m,
			    const bool *gone, unsigned unload_flags);

/*
 * What delete_module(2) would answer for m, told from the snapshot alone
 * (since 0.1), in the kernel's own order: -ENOENT when m is NULL,
 * -EWOULDBLOCK for live holders (rot_module_unload_check(), which also
 * covers a stock kernel's references), -EBUSY when m is not Live (loading
 * or unloading) or, without ROT_UNLOAD_FORCE, permanent (an init and no
 * exit); else 0. A dry run asks this where the real run calls rot_unload(),
 * so that both reach the same verdict. The caller's capability is not
 * asked: a dry run does not need CAP_SYS_MODULE.
 */
int rot_module_unload_predict(const struct rot_snapshot *snap, const struct rot_module *m,
			      const bool *gone, unsigned unload_flags);

/* ---- kernel taint ---- */

#define ROT_TAINT_FORCED_RMMOD (1UL << 3) /* 'R': reclaim or forced unload */

/* Reads /proc/sys/kernel/tainted. */
int rot_taint_read(unsigned long *mask);

/*
 * Writes the taint letters of mask (Linux 6.1 order, e.g. "OR") into buf,
 * or "none" for zero. Returns the length, or -ENOSPC when buf is too small.
 */
int rot_taint_letters(unsigned long mask, char *buf, size_t len);

/* ---- module names ---- */

/*
 * Copies a user-typed module name into buf with '-' turned into '_', as the
 * kernel's build does. A path ("drivers/foo-bar.ko.zst") gives its basename
 * without the module extension. Returns -ENAMETOOLONG past ROT_NAME_MAX and
 * -EINVAL for what names no module: an empty name, "." or "..", a byte that
 * is not printable ASCII, a blank, or a '/' in anything but a module file's
 * path (one ending in .ko, .ko.gz, .ko.xz or .ko.zst).
 */
int rot_name_normalise(const char *typed, char buf[ROT_NAME_MAX + 1]);

/* The longest alias (a device's modalias, or one of modprobe.d) a tool
 * passes on: the kernel sends MODALIAS in a uevent of 2048 bytes at most. */
#define ROT_ALIAS_MAX 2047

/*
 * Whether typed can be a module name or alias to look up (libkmod 30
 * normalises an alias into a PATH_MAX stack buffer without a bound, so
 * what is longer must never reach it): -ENAMETOOLONG past ROT_ALIAS_MAX
 * bytes, else 0.
 */
int rot_alias_check(const char *typed);

/* ---- files a user names (a keyring, a module file, a list) ----
 *
 * Opened without waiting (opening a FIFO waits for a writer) and accepted
 * only when fstat says regular; never read past limit bytes, however
 * large the file claims or turns out to be. -EINVAL: not a regular file
 * (a directory, FIFO, device or socket); -EFBIG: larger than limit; else
 * the negative errno of open or read.
 */
int rot_file_check(const char *path, uint64_t limit);
/* The whole file, NUL-terminated, in a malloc'd *out. */
int rot_file_read(const char *path, size_t limit, char **out, size_t *len);
/* The same of a descriptor the caller has open, from its offset to its
 * end (a pipe, a terminal: standard input), which stays open; -EFBIG past
 * limit. A signal whose handler does not restart reads (no SA_RESTART)
 * ends a read that waits with -EINTR. Since 0.1. */
int rot_fd_read(int fd, size_t limit, char **out, size_t *len);

/* The largest module file modrot reads (compressed or not, and once
 * decompressed): more than any module. */
#define ROT_MODFILE_MAX (512u << 20)
/* The largest keyring file (one file of a keyring directory). */
#define ROT_KEYRING_FILE_MAX (16u << 20)

/* ---- module signatures ----
 *
 * As the kernel's sign-file appends them: a detached PKCS#7 (CMS)
 * signature over the uncompressed module, then a struct module_signature,
 * then the magic "~Module signature appended~\n". Verification uses
 * OpenSSL against a keyring of X.509 certificates.
 */

#define ROT_MODSIG_MAGIC "~Module signature appended~\n"

struct rot_keyring;

/*
 * Loads every X.509 certificate (PEM or DER) from a file, or from the
 * regular files of a directory. -ENOENT: no such path; -ENOKEY: nothing in
 * it parsed as a certificate; -EINVAL: neither a regular file nor a
 * directory (a FIFO, a device); -EFBIG: a file larger than
 * ROT_KEYRING_FILE_MAX; other negative errno values from reading.
 */
int rot_keyring_load(const char *path, struct rot_keyring **out);
void rot_keyring_free(struct rot_keyring *kr);

enum rot_sig_status {
	ROT_SIG_VALID,       /* verified against a certificate of the keyring */
	ROT_SIG_UNSIGNED,    /* no signature trailer */
	ROT_SIG_MALFORMED,   /* trailer present, but its struct, lengths or PKCS#7 data are wrong */
	ROT_SIG_UNSUPPORTED, /* a signature type other than PKCS#7 */
	ROT_SIG_UNKNOWN_KEY, /* signed by a key that is not in the keyring */
	ROT_SIG_BAD,         /* signed by a keyring key, but the module does not match */
	ROT_SIG_UNCHECKED,   /* signed by a keyring key, but OpenSSL failed before it could
			      * compare (a key or digest it could not set up) */
};

/*
 * What a module's signature trailer says, and, once verified, the verdict
 * (since 0.1, as every rot_sig_info_* function). Opaque: a later release
 * may tell more (a second signer, the digest).
 */
struct rot_sig_info;

enum rot_sig_status rot_sig_info_status(const struct rot_sig_info *info);
/* The signer's subject CN (or its issuer's, when the key is unknown); "" if none. */
const char *rot_sig_info_signer(const struct rot_sig_info *info);
/* The hex subject key identifier of the signing certificate, or "serial " +
 * hex serial when the key is unknown; "" if none. */
const char *rot_sig_info_key_id(const struct rot_sig_info *info);
/* OpenSSL's reason for MALFORMED, BAD or UNCHECKED; "" otherwise. */
const char *rot_sig_info_detail(const struct rot_sig_info *info);
void rot_sig_info_free(struct rot_sig_info *info);

/* Finds the signature trailer of an uncompressed module image and
 * verifies it against the keyring, into a new *out whose status is the
 * verdict. Returns 0, -ENOMEM or -ELIBACC (*out NULL). */
int rot_modsig_verify(const struct rot_keyring *kr, const void *image, size_t len,
		      struct rot_sig_info **out);

/* ---- module files ----
 *
 * A module file read into memory, decompressed and inspected, and the
 * preflight that refuses a bad module before the kernel is involved. On a
 * rot kernel every failed init leaves memory rotting, so saying no here is
 * worth more than anywhere.
 */

enum rot_compression {
	ROT_COMP_NONE,
	ROT_COMP_XZ,
	ROT_COMP_ZSTD,
	ROT_COMP_GZIP,
};

/* What is wrong with a module, found without the kernel. */
enum rot_problem {
	ROT_PROBLEM_NONE,
	ROT_PROBLEM_NOT_REGULAR, /* a directory, device or fifo */
	ROT_PROBLEM_EMPTY,
	ROT_PROBLEM_TOO_BIG, /* expected: the limit in bytes */
	ROT_PROBLEM_CORRUPT_COMPRESSION,
	ROT_PROBLEM_TRUNCATED_COMPRESSION,
	ROT_PROBLEM_UNSUPPORTED_COMPRESSION, /* gzip, which this libkmod cannot read */
	ROT_PROBLEM_NOT_ELF,
	ROT_PROBLEM_TRUNCATED,     /* value: bytes there are; expected: bytes the headers need */
	ROT_PROBLEM_MALFORMED_ELF, /* rot_modfile_problem_text() says what the kernel would refuse */
	ROT_PROBLEM_WRONG_CLASS,   /* rot_modfile_elf_class() is not the kernel's */
	ROT_PROBLEM_WRONG_MACHINE, /* rot_modfile_elf_machine() is not the kernel's */
	ROT_PROBLEM_WRONG_BYTE_ORDER, /* value: the file's EI_DATA (ELFDATA2LSB/MSB); expected: the kernel's */
	ROT_PROBLEM_NOT_RELOCATABLE, /* value: the file's e_type */
	ROT_PROBLEM_NO_MODINFO,
	ROT_PROBLEM_NO_THIS_MODULE,
	ROT_PROBLEM_NO_SYMBOLS, /* no symbol table: the kernel refuses such a module */
	ROT_PROBLEM_NO_NAME,
	ROT_PROBLEM_NAME_TOO_LONG, /* value: its length; expected: the limit */
	/* Found by rot_preflight_check() (rot_preflight_module_text(), _kernel_text()): */
	ROT_PROBLEM_VERMAGIC,       /* the module's release, and the kernel's */
	ROT_PROBLEM_VERMAGIC_FLAGS, /* same release, other build flags: the whole strings */
	ROT_PROBLEM_ALREADY_LOADED,
	ROT_PROBLEM_UNDEFINED_SYMBOLS, /* rot_preflight_missing() lists them */
	ROT_PROBLEM_UNSIGNED,          /* the kernel enforces signatures, or --verify asked */
	ROT_PROBLEM_BAD_SIGNATURE,     /* rot_preflight_sig() says how */
};

/*
 * Reads path, decompresses it (by magic, not by name) and inspects its ELF
 * headers and .modinfo with libelf. Returns a negative errno when the file
 * cannot be read at all (-ENOENT, -EACCES, -ENOMEM, ...). Otherwise returns
 * 0 and a modfile whose rot_modfile_problem() says whether it is usable.
 */
int rot_modfile_read(const char *path, struct rot_modfile **out);

/*
 * Whether a module file may go to a reader that trusts it, as libkmod
 * does (since 0.1): a regular file of at most ROT_MODFILE_MAX bytes that,
 * xz- or zstd-compressed, decompresses to at most ROT_MODFILE_MAX bytes.
 * With image NULL the decompressed bytes are counted in constant memory
 * and nothing is kept; else a compressed file's decompressed bytes are
 * left in *image (malloc'd, *image_len long) so that they need not be
 * decoded again, and *image is NULL for a file stored plain. 0; -EINVAL
 * not a regular file; -EFBIG larger, or decompressing larger; -EBADMSG
 * corrupt, -ENODATA cut short; -ELIBACC no library to decompress it;
 * -ENOMEM; else -errno of a read.
 */
int rot_modfile_check(const char *path, void **image, size_t *image_len);
void rot_modfile_free(struct rot_modfile *mf);

enum rot_problem rot_modfile_problem(const struct rot_modfile *mf);
/* The numbers enum rot_problem names: the module's own (value), and what
 * the kernel or modrot expects instead (expected); 0 when it names none. */
uint64_t rot_modfile_problem_value(const struct rot_modfile *mf);
uint64_t rot_modfile_problem_expected(const struct rot_modfile *mf);
/* ROT_PROBLEM_MALFORMED_ELF: what is wrong, in words ("" otherwise). */
const char *rot_modfile_problem_text(const struct rot_modfile *mf);

enum rot_compression rot_modfile_compression(const struct rot_modfile *mf);
/* ELFCLASS32/64 and e_machine of the image (0 before the ELF headers were read). */
int rot_modfile_elf_class(const struct rot_modfile *mf);
int rot_modfile_elf_machine(const struct rot_modfile *mf);
/* The uncompressed image, as the kernel would receive it. */
const void *rot_modfile_image(const struct rot_modfile *mf, size_t *len);

/* From .modinfo (or .gnu.linkonce.this_module for the name); NULL if absent. */
const char *rot_modfile_name(const struct rot_modfile *mf);
/* Iterates every value of a .modinfo key ("parm", "depends", "alias", ...):
 * start with *cursor = NULL; returns NULL at the end. */
const char *rot_modfile_modinfo_next(const struct rot_modfile *mf, const char *key,
				     const char **cursor);
/* Undefined global symbols the kernel must resolve. */
size_t rot_modfile_undefined_count(const struct rot_modfile *mf);
const char *rot_modfile_undefined(const struct rot_modfile *mf, size_t i);
/* Global symbols the module defines (and so offers to modules loaded after it). */
size_t rot_modfile_defined_count(const struct rot_modfile *mf);
const char *rot_modfile_defined(const struct rot_modfile *mf, size_t i);

/* ---- the running kernel's symbols ---- */

struct rot_symbols;

/*
 * The subset of wanted names that /proc/kallsyms lists (the kernel's and
 * live modules' symbols), scanned a buffer at a time: the kernel's symbols
 * cost neither a table nor a copy of the file.
 */
int rot_symbols_read_kallsyms(const char *const *wanted, size_t nwanted, struct rot_symbols **out);
/* An empty set, for modules of a batch to add what they define. */
int rot_symbols_new(struct rot_symbols **out);
int rot_symbols_add(struct rot_symbols *set, const char *name);
bool rot_symbols_has(const struct rot_symbols *set, const char *name);
void rot_symbols_free(struct rot_symbols *set);

/* ---- preflight ---- */

/*
 * What the running kernel accepts, read once per run (since 0.1, as every
 * rot_kernel_facts_* function): uname, sig_enforce and the kernel's
 * vermagic. Opaque: the release and the vermagic are as long as the kernel
 * makes them, and a new fact is a new accessor. The vermagic is that of
 * the first module /lib/modules/RELEASE/modules.dep lists: the kernel
 * build stamps every module it ships with its own. Returns 0, or a
 * negative errno (-EPROTO: sig_enforce reads neither Y nor N) and *out NULL.
 */
struct rot_kernel_facts;

int rot_kernel_facts_read(struct rot_kernel_facts **out);
void rot_kernel_facts_free(struct rot_kernel_facts *kf);
/* ELFCLASS64 ... and EM_X86_64 ... of the machine; 0 when unknown. */
int rot_kernel_facts_elf_class(const struct rot_kernel_facts *kf);
int rot_kernel_facts_elf_machine(const struct rot_kernel_facts *kf);

/*
 * A preflight (since 0.1, as every rot_preflight_* function): what the
 * checks are given, set once, and the verdict of the last
 * rot_preflight_check(). Opaque, so that a new check
 * takes a new setter and a new verdict a new accessor. kernel must outlive
 * it, as must what the setters are given. Returns 0, -ENOMEM or -EINVAL
 * (kernel NULL).
 */
struct rot_preflight;

int rot_preflight_new(const struct rot_kernel_facts *kernel, struct rot_preflight **out);
void rot_preflight_free(struct rot_preflight *pf);
/* For "already loaded"; none by default. */
void rot_preflight_set_snapshot(struct rot_preflight *pf, const struct rot_snapshot *snap);
/* The kernel's symbols; none by default: undefined symbols are not checked. */
void rot_preflight_set_kernel_symbols(struct rot_preflight *pf, const struct rot_symbols *set);
/* Symbols defined by the modules loaded before this one; none by default. */
void rot_preflight_set_batch_symbols(struct rot_preflight *pf, const struct rot_symbols *set);
/* --verify; none by default: signatures are looked at only if the kernel checks them. */
void rot_preflight_set_keyring(struct rot_preflight *pf, const struct rot_keyring *kr);
/* --force-vermagic: the vermagic is not compared. */
void rot_preflight_set_force_vermagic(struct rot_preflight *pf, bool force);

/*
 * Every check that does not need the kernel to act: the file's own problem,
 * then signature, class and machine, vermagic, already loaded, undefined
 * symbols. Stops at the first problem. Returns 0 (the verdict is read with
 * the accessors below, until the next check or rot_preflight_free()) or
 * -ENOMEM.
 */
int rot_preflight_check(struct rot_preflight *pf, const struct rot_modfile *mf);
enum rot_problem rot_preflight_problem(const struct rot_preflight *pf);
/* The words enum rot_problem names: the module's side, and the kernel's;
 * "" when the problem has none. */
const char *rot_preflight_module_text(const struct rot_preflight *pf);
const char *rot_preflight_kernel_text(const struct rot_preflight *pf);
/* ROT_PROBLEM_UNDEFINED_SYMBOLS: the undefined symbols nobody offers
 * (valid while the modfile checked is). */
size_t rot_preflight_missing_count(const struct rot_preflight *pf);
const char *rot_preflight_missing(const struct rot_preflight *pf, size_t i);
/* The signature, when one was looked at; else NULL. */
const struct rot_sig_info *rot_preflight_sig(const struct rot_preflight *pf);

/* ---- depmod's binary indexes, checked before libkmod reads them ---- */

/*
 * Checks the five binary indexes libkmod opens in moddir (modules.dep.bin,
 * modules.alias.bin, modules.symbols.bin, modules.builtin.bin,
 * modules.builtin.alias.bin) before the caller lets libkmod read them.
 * Returns 0 when each is absent, empty (libkmod reads those as no index)
 * or well-formed, or moddir is no directory; else sets *index to the file's
 * name and returns -EINVAL (corrupt), -EISDIR (not a regular file: a
 * directory, a FIFO, a device), -EFBIG (larger than any index depmod
 * writes), -ENOMEM or the -errno of opening or reading it (-EACCES,
 * -ELOOP, -EIO ...). Compiled in only against a libkmod older than 34,
 * which bounded its index reader; with a newer one it returns 0 at once.
 * A directory that passed is remembered by what stat(2) says of the five
 * files (lib/indexcache.c).
 */
int rot_moddir_check(const char *moddir, const char **index);

/*
 * Calls fn(ctx, key, value) for each value of the n indexes at paths
 * (modules.alias.bin, ...) in the order of libkmod's kmod_dump_index():
 * each index's keys depth first, children in character order. Every index
 * is read and checked as rot_moddir_check() checks it before fn is first
 * called. Returns 0, fn's first nonzero return (the walk stops there), or
 * rot_moddir_check()'s errors, -ENODATA for an empty file. Since 0.1.
 */
int rot_index_foreach(const char *const *paths, size_t n,
		      int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* ---- loading ---- */

/*
 * Inserts the image rot_modfile_read() read (decompressed by modrot) with
 * init_module(2): the bytes preflight looked at, and --verify verified,
 * are the bytes the kernel gets, whatever the file's path names by now.
 * params is the parameter string (NULL: none). Returns 0, the kernel's
 * negative errno, -ENOEXEC for a modfile with a problem, or -EINVAL for
 * no modfile. Loading by path, and forced loads, are libkmod's
 * (kmod_module_insert_module()), which the tools call themselves.
 */
int rot_modfile_insert(const struct rot_modfile *mf, const char *params);

#ifdef __cplusplus
}
#endif

#endif
