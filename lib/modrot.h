/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmodrot: the only code in modrot that knows kernel interfaces.
 *
 * Every path under /proc and /sys and every module syscall lives behind
 * this header. Functions return 0 or a negative errno value and never
 * print; the tools turn results into words and exit codes.
 */
#ifndef MODROT_H
#define MODROT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/*
 * Reads /proc/modules and, where it exists, /proc/rotting_modules, each
 * whole and once. A module that rotted between the two reads is seen as
 * rotting only (its address shows up in both), so no instance is counted
 * twice. Returns -ENOENT when the kernel has no /proc/modules at all.
 */
int rot_snapshot_read(struct rot_snapshot **out);

/* Parses already-read file contents; rotting may be NULL (a stock kernel). */
int rot_snapshot_parse(const char *modules, size_t modules_len,
		       const char *rotting, size_t rotting_len,
		       struct rot_snapshot **out);

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
 * rot_snapshot_parse(), rot_rotting_of(), rot_taint_read(),
 * rot_kernel_facts_read()) returned -EPROTO in this thread: where, and
 * why. NULL when the last failure was not a malformed file.
 */
const struct rot_parse_error *rot_last_parse_error(void);

/* True when the kernel follows the module-rot ABI (/proc/rotting_modules exists). */
bool rot_snapshot_has_rot(const struct rot_snapshot *snap);

/* Live (and loading or unloading) modules first, newest first; then
 * rotting instances, newest first. */
size_t rot_snapshot_count(const struct rot_snapshot *snap);
size_t rot_snapshot_live_count(const struct rot_snapshot *snap);
const struct rot_module *rot_snapshot_module(const struct rot_snapshot *snap, size_t i);

/* The position of m in the snapshot, for tools that keep per-module marks. */
size_t rot_snapshot_index_of(const struct rot_snapshot *snap, const struct rot_module *m);

/* The live module of that (normalised) name, or NULL. */
const struct rot_module *rot_snapshot_find_live(const struct rot_snapshot *snap,
						const char *name);

const char *rot_module_name(const struct rot_module *m);
uint64_t rot_module_size(const struct rot_module *m);
long rot_module_refcnt(const struct rot_module *m);
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

/* delete_module(2) flag of the rot ABI: free the rotting instances of a name. */
#define ROT_MODULE_RECLAIM 0x40000000u

enum rot_unload_flags {
	ROT_UNLOAD_FORCE = 1 << 0, /* O_TRUNC: unload a permanent (or, on a stock kernel, used) module */
};

/*
 * Unloads a live module without waiting (O_NONBLOCK). On a rot kernel it
 * now rots; on a stock kernel its memory is freed. Returns delete_module's
 * negative errno: -ENOENT not live, -EWOULDBLOCK holders (or, stock, a
 * reference), -EBUSY loading, unloading or permanent, -EPERM.
 */
int rot_unload(const char *name, unsigned flags);

/*
 * Frees the rotting instances of name (one delete_module call) and taints
 * the kernel R. Returns the number of instances freed (> 0), as the kernel
 * counts them (rot-abi.md revision 2; a revision-1 kernel returns 0, and
 * then the snapshot's count of name's rotting instances is returned, plus
 * one if the snapshot's live instance has been unloaded since). A
 * stock kernel ignores unknown flag bits and would unload the live module
 * instead, so this refuses with -EOPNOTSUPP unless the snapshot shows a
 * rot kernel. -ENOENT: nothing of that name rots. -EBUSY: every instance
 * is still in use (an armed timer, queued work, an RCU callback or a probe
 * points into it) and none was freed; some refused instances may also
 * stay behind a positive return.
 */
int rot_reclaim(const struct rot_snapshot *snap, const char *name);

/*
 * The same with O_TRUNC: frees instances still in use too, after the kernel
 * deactivates what it can see (a stray reference may still crash it). On a
 * revision-1 kernel, which refuses the combination and checks nothing, a
 * plain reclaim.
 */
int rot_reclaim_force(const struct rot_snapshot *snap, const char *name);

/*
 * Whether the running kernel refuses to reclaim instances still in use
 * (/sys/module/module/parameters/rot_reclaim_checks): 1 it checks, 0 it
 * cannot see such objects and frees everything, -ENOENT no such file (a
 * stock or revision-1 kernel), another negative errno if unreadable.
 */
int rot_reclaim_checks(void);

/*
 * Reads /proc/rotting_modules alone: how many instances of name rot now,
 * and the bytes they hold. -ENOENT on a kernel without rot support.
 */
int rot_rotting_total(const char *name, size_t *instances, uint64_t *bytes);

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
 * Reads /proc/rotting_modules alone: how many instances of name rot, and
 * the size of the newest. What a failed init just left is found this way
 * without a whole snapshot. -ENOENT on a kernel without rot support.
 */
int rot_rotting_of(const char *name, size_t *instances, uint64_t *newest_size);

/*
 * Serialises reclaiming runs of modrot's tools (flock on /sys/module), so
 * that two of them never reclaim the same instances while each counts
 * them as its own. Take it before reading the snapshot that the counts
 * come from. Returns a descriptor for rot_reclaim_unlock, or a negative
 * errno (-EINTR when a signal interrupted the wait).
 */
int rot_reclaim_lock(void);
void rot_reclaim_unlock(int lock);

/* True when name is built into the kernel (/sys/module/NAME without initstate). */
bool rot_module_is_builtin(const char *name);

/* ---- the per-CPU module reserve (rot-abi.md, "Per-CPU memory") ---- */

/*
 * Modules with per-CPU data (DEFINE_PER_CPU) take it from a small fixed
 * reserve (PERCPU_MODULE_RESERVE, 8 KiB per CPU on x86_64), and a rotting
 * instance keeps its area until reclaimed. All sizes here are per CPU.
 */
struct rot_percpu;

/*
 * Reads /proc/module_percpu (rot kernels only): -ENOENT on a kernel without
 * it. -EPROTO for a malformed file (rot_last_parse_error() says where).
 */
int rot_percpu_read(struct rot_percpu **out);
/* Parses already-read contents, as rot_percpu_read() does. */
int rot_percpu_parse(const char *text, size_t len, struct rot_percpu **out);
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
uint64_t rot_percpu_address(const struct rot_percpu *pc, size_t i);

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

struct rot_modfile;

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
 * A module without drivers has none (0, not an error).
 */
int rot_module_bound_devices(const char *name, size_t *count);

struct rot_devices;

/* Every present device's modalias, from /sys/bus/BUS/devices/ID/modalias. */
int rot_devices_read(struct rot_devices **out);
void rot_devices_free(struct rot_devices *devs);

/* True when some device's modalias matches the alias pattern (fnmatch, as
 * udev and kmod match aliases). */
bool rot_devices_match(const struct rot_devices *devs, const char *pattern);

/* ---- in use: one rule for every tool ---- */

/*
 * A module is in use when live modules depend on it (holders), devices are
 * bound to its drivers, or a file system of a type it provides is mounted;
 * on a stock kernel also when it holds references beyond its holders. The
 * reference count of a rot kernel (always 0) is never read as "unused".
 */
struct rot_usage_ctx;

/*
 * Reads the mount table (/proc/self/mounts) once and, for the types
 * mounted, which modules provide them: the `alias fs-TYPE NAME` lines of
 * MODDIR/modules.alias (depmod's index of MODULE_ALIAS_FS). moddir NULL is
 * /lib/modules/RELEASE of the running kernel. Without an index no module
 * is known to provide a type (not an error).
 */
int rot_usage_open(const char *moddir, struct rot_usage_ctx **out);
void rot_usage_close(struct rot_usage_ctx *ctx);

struct rot_usage {
	size_t holders;           /* live holders, but those marked gone */
	size_t devices;           /* devices bound to its drivers */
	size_t mounts;            /* mounts of types it provides */
	long refs;                /* stock kernel: references beyond holders; rot: 0 */
	const char *mount_type;   /* the first such mount, for messages (in ctx) */
	const char *mount_target;
};

/*
 * What uses the live module m. gone, when not NULL, marks by snapshot
 * index the modules the caller has unloaded since the snapshot: they hold
 * nothing any more. A rotting instance is used by nothing. Reads sysfs for
 * bound devices; ctx may be NULL (no mounts considered).
 */
int rot_module_usage(const struct rot_usage_ctx *ctx, const struct rot_snapshot *snap,
		     const struct rot_module *m, const bool *gone, struct rot_usage *u);

/* Holders of m still live: those in the snapshot, but those marked gone. */
size_t rot_module_live_holders(const struct rot_snapshot *snap, const struct rot_module *m,
			       const bool *gone);

/* The rule itself. */
bool rot_usage_in_use(const struct rot_usage *u);

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

/* The sysfs directory order key of a name (kernfs_name_hash). */
uint32_t rot_kernfs_hash(const char *name);

#endif
