/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * simkernel: the simulated module kernel (a test instrument, see README.md).
 *
 * The state lives in DIR/state: a 4096-byte header followed by fixed-size
 * instance records, mapped with mmap so that an operation with 10,000
 * instances present touches memory, not files. Records are kept in the order
 * they entered their current kind (live or rotting), so "newest first" is a
 * reverse scan; a rotting instance is a fresh record appended at rot time.
 */
#ifndef SIMKERNEL_SIM_H
#define SIMKERNEL_SIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SIM_MAGIC "SIMKRN1"
#define SIM_HDR_SIZE 4096u
#define SIM_NAME_LEN 56 /* MODULE_NAME_LEN, with the NUL */
#define SIM_MAX_DEPS 8
#define SIM_RELEASE_LEN 64
#define SIM_VERMAGIC_LEN 128
#define SIM_FAILED_INIT_RING 64

#define SIM_MODULE_RECLAIM 0x40000000u

enum sim_mode { SIM_MODE_ROT = 0, SIM_MODE_STOCK = 1 };

/* header flags */
#define SIM_CFG_SIG_ENFORCE 0x1u
#define SIM_CFG_MODULES_DISABLED 0x2u
#define SIM_CFG_NO_RECLAIM_CHECKS 0x4u /* rot_reclaim_checks reads N: reclaim sees no strays */
#define SIM_CFG_ABI_REV1 0x8u /* rot-abi revision 1's delete_module (older kernels) */
#define SIM_CFG_ABI_REV2 0x10u /* revision 2: reclaim by delete_module, ioctl ENOTTY */
#define SIM_CFG_LINUX_612 0x20u /* create --kernel 6.12: 6.12's module memory types give SIZE */
#define SIM_CFG_ABI_REV3 0x40u /* revision 3: no /proc/module_pins, U7, R4's list (no flag: revision 4) */

/* the rot-abi.md revision a rot-mode state follows (1 to 4) */
static inline int sim_abi(uint32_t cfgflags)
{
	return (cfgflags & SIM_CFG_ABI_REV1) ? 1 : (cfgflags & SIM_CFG_ABI_REV2) ? 2 : (cfgflags & SIM_CFG_ABI_REV3) ? 3 : 4;
}

/* rot-abi.md revision 3's reclaim request (R1-R9), as the kernel's uapi has it */
#define SIM_ROT_RECLAIM_FORCE 0x1u
#define SIM_ROT_IOC_RECLAIM 0xc070b801u /* _IOWR(0xB8, 0x01, struct sim_rot_reclaim) */
struct sim_rot_reclaim {
	char name[64];
	uint32_t flags, freed, kept, why, pins, tasks, callbacks, probes;
	uint64_t bytes, percpu;
};
_Static_assert(sizeof(struct sim_rot_reclaim) == 112, "struct rot_reclaim is 112 bytes");

/* revision 4's request (rot-abi.md R11): the same layout on every ABI */
#define SIM_ROT_IOC_RECLAIM4 0xc0f0b802u /* _IOWR(0xB8, 0x02, struct sim_rot_reclaim4) */
#define SIM_WHERE_LEN 128
struct sim_rot_reclaim4 {
	char name[64];
	uint32_t flags, freed, kept, why, pins, tasks, refs, probes;
	uint64_t bytes, percpu;
	char where[SIM_WHERE_LEN];
};
_Static_assert(sizeof(struct sim_rot_reclaim4) == 240, "struct rot_reclaim4 is 240 bytes");
#define SIM_KEPT_REF 0x100u       /* R10: a word outside points into it */
#define SIM_KEPT_USER 0x200u      /* P7: a rotting instance that used it remains */
#define SIM_KEPT_UNSCANNED 0x400u /* R10: a region the scan could not read (never modelled) */

/*
 * What keeps a rotting instance from being reclaimed besides pins (R4),
 * each a count a test sets with `simkernel hold`; the order is the
 * ROT_KEPT_* bits' from ROT_KEPT_TASK (0x02) up.
 */
enum sim_hold { SIM_HOLD_TASK = 0, SIM_HOLD_TIMER, SIM_HOLD_WORK, SIM_HOLD_RCU, SIM_HOLD_KPROBE,
		SIM_HOLD_RUNNING, SIM_HOLD_REF, SIM_NHOLD };
/* SIM_HOLD_REF (revision 4 only): a reference the scan finds (R10), with
 * its WHERE in DIR/where/ID; it has no revision-3 ROT_KEPT bit */
#define SIM_KEPT_PIN 0x01u
#define SIM_KEPT_BIT(hold) (0x02u << (hold))
const char *sim_hold_name(unsigned hold);
int sim_hold_parse(const char *word);

/* what may be rendered lazily; rendered[i] is the generation it reflects */
enum sim_lazy { SIM_LAZY_PROC = 0, SIM_LAZY_KALLSYMS = 1, SIM_LAZY_PERCPU = 2, SIM_NLAZY = 3 };

struct sim_header {
	char magic[8];
	uint32_t recsize;
	uint32_t mode;
	uint32_t cfgflags;
	uint32_t count;  /* records in use, free slots included */
	uint32_t nfree;  /* free slots among them */
	uint32_t next_id;
	uint64_t gen;    /* bumped by every change of what is rendered */
	uint64_t rendered[SIM_NLAZY];
	uint64_t next_addr;
	uint64_t next_seq; /* ledger sequence */
	uint64_t taint;
	char release[SIM_RELEASE_LEN];
	char vermagic[SIM_VERMAGIC_LEN];
	/* ids of the latest instances whose init failed, a ring: a load waiting
	 * for one of them gets EBUSY (rot-abi.md L4) */
	uint32_t failed_init[SIM_FAILED_INIT_RING];
	uint32_t failed_init_next;
	/* rot-abi.md R5: how long a forced reclaim looks again for what still
	 * runs inside (ROT_FORCE_WAIT_MS, 5000 on the kernel; create
	 * --reclaim-wait MS) */
	uint32_t reclaim_wait_ms;
};

enum sim_kind { SIM_FREE = 0, SIM_LIVE = 1, SIM_ROT = 2 };
enum sim_mstate { SIM_LOADING = 0, SIM_RUNNING = 1, SIM_UNLOADING = 2 };

/* record flags */
#define SIM_F_PERMANENT 0x1u   /* init without exit */
#define SIM_F_INIT_FAILED 0x2u /* rotting with its init memory */
#define SIM_F_HAS_SYMS 0x4u    /* DIR/syms/ID lists its global symbols */
#define SIM_F_BOUND 0x8u       /* its drivers have devices (DIR/devices) */
#define SIM_F_PERCPU 0x10u     /* holds an area of the per-CPU reserve (DIR/percpu) */
#define SIM_F_PINS_BLOCK 0x20u /* rot-abi.md U7: pins refuse its unload (crypto, livepatch) */
#define SIM_F_ROT_SAFE 0x40u   /* rot-abi.md C4: .modinfo rot=safe (MODULE_ROT_SAFE()) */

struct sim_rec {
	char name[SIM_NAME_LEN];
	uint64_t addr;
	uint32_t id;
	uint32_t core;
	uint32_t init;
	uint32_t taints;
	int32_t refs; /* stock mode: references beyond holders */
	uint32_t exit_delay_ms;
	uint8_t kind, mstate, flags, ndeps;
	uint32_t deps[SIM_MAX_DEPS]; /* ids of the live modules this one uses; revision 4 keeps
				      * them in a rotting instance: the instances it used (P7) */
	uint8_t stray; /* enum sim_stray: what its exit leaves pointing into it */
	uint8_t pad[3];
	uint32_t pins;             /* rot mode: outstanding pins (rot-abi.md C3); they follow it into rot */
	uint16_t hold[SIM_NHOLD];  /* enum sim_hold counts: what else reclaim sees inside it (R4) */
};

/*
 * What a module's exit leaves behind that still points into its memory once
 * it rots (behaviour key stray=): reclaim refuses such an instance unless
 * forced (rot-abi.md, "Reclaim", revision 2).
 */
enum sim_stray { SIM_STRAY_NONE = 0, SIM_STRAY_TIMER, SIM_STRAY_WORK, SIM_STRAY_RCU, SIM_STRAY_KPROBE };
const char *sim_stray_name(unsigned stray);

/* An open, locked, mapped state directory: one per operation. */
struct sim {
	char dir[3072];
	int lockfd;
	int statefd;
	int ledgerfd; /* exclusive holders: DIR/ledger, opened before the lock */
	void *map;
	size_t maplen;
	struct sim_header *hdr;
	struct sim_rec *recs;
	uint32_t cap;
	int cached;   /* the mapping is the process-wide cached one */
	int bulk;     /* populate: buffer the ledger, skip per-load refcnt updates */
	char *lbuf;
	size_t llen, lcap;
};

/* A device: present from `simkernel device add`, or declared by a module. */
#define SIM_BUS_LEN 32
#define SIM_DEVID_LEN 64
#define SIM_MODALIAS_LEN 256

struct sim_dev {
	char bus[SIM_BUS_LEN];
	char id[SIM_DEVID_LEN];
	char modalias[SIM_MODALIAS_LEN];
	char driver[SIM_NAME_LEN]; /* while bound */
	uint32_t bound;            /* id of the live module whose driver has it; 0: none */
	uint32_t owner;            /* id of the module that declared it; 0: present */
};

/* the device table, read whole under the lock */
struct sim_devtab {
	struct sim_dev *v;
	uint32_t n, cap;
};

/* taint bits (Linux 6.1 include/linux/panic.h) */
#define SIM_TAINT_PROPRIETARY 0
#define SIM_TAINT_FORCED_MODULE 1
#define SIM_TAINT_FORCED_RMMOD 3
#define SIM_TAINT_OOT 12

/* state.c */
int sim_create_state(const char *dir, enum sim_mode mode, const char *release, uint32_t cfgflags,
		     uint32_t reclaim_wait_ms);
int sim_open(struct sim *s, const char *dir, int exclusive);
int sim_relock(struct sim *s);
void sim_unlock(struct sim *s);
void sim_close(struct sim *s);
int sim_remap(struct sim *s);
struct sim_rec *sim_append(struct sim *s, const struct sim_rec *r);
void sim_free_slot(struct sim *s, struct sim_rec *r);
void sim_compact(struct sim *s);
struct sim_rec *sim_find_live(struct sim *s, const char *name);
struct sim_rec *sim_find_live_id(struct sim *s, uint32_t id);
int sim_has_holders(struct sim *s, uint32_t id);
unsigned sim_refcnt(struct sim *s, const struct sim_rec *r);
uint64_t sim_alloc_addr(struct sim *s, uint64_t bytes);
size_t sim_path(char *buf, size_t len, const char *dir, const char *rel);
int sim_header_map(const char *dir, const struct sim_header **hdr);

/* util.c */
int sim_write_file(int dirfd, const char *name, const char *data, size_t len);
int sim_write_atomic(const char *path, const char *data, size_t len);
int sim_rm_rf_at(int dirfd, const char *name);
void sim_sleep_ms(unsigned ms);
char *sim_read_file(const char *path, size_t *len);
char *sim_fmt_u64(char *p, uint64_t v);
char *sim_fmt_hex16(char *p, uint64_t v);
void sim_taint_letters(uint32_t taints, char *buf);

/* klog.c: the kernel log and audit records (rot-abi.md R4, R5, R7) */
#define SIM_RECLAIM_WAIT_DEFAULT 5000u
void sim_klog(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ledger.c */
int sim_ledger(struct sim *s, const char *event, const struct sim_rec *r, uint64_t bytes);
int sim_ledger_check(const char *dir, char *report, size_t len);
int sim_ledger_flush(struct sim *s);

/* sysfs.c: incremental /sys/module updates */
int sim_sysfs_add(struct sim *s, const struct sim_rec *r, const char *const *params);
/* the two halves of sim_sysfs_add, which a load runs without the lock */
int sim_sysfs_stage(struct sim *s, const struct sim_rec *r, const char *const *params);
int sim_sysfs_publish(struct sim *s, const struct sim_rec *r, const char (*depnames)[SIM_NAME_LEN]);
void sim_sysfs_deps_refcnt(struct sim *s, const struct sim_rec *r);
int sim_sysfs_holder_of(struct sim *s, const char *dep, const char *holder, int add);
int sim_sysfs_remove(struct sim *s, const struct sim_rec *r);
int sim_sysfs_initstate(struct sim *s, const struct sim_rec *r);
int sim_sysfs_refcnt(struct sim *s, const struct sim_rec *r);
int sim_sysfs_holder(struct sim *s, const struct sim_rec *dep, const char *holder, int add);
int sim_render_small(struct sim *s); /* tainted */

/* devices.c: devices and driver binding */
int sim_devices_read(struct sim *s, struct sim_devtab *t);
int sim_devices_write(struct sim *s, const struct sim_devtab *t);
void sim_devices_free(struct sim_devtab *t);
struct sim_dev *sim_device_find(struct sim_devtab *t, const char *bus, const char *id);
int sim_device_check(struct sim_devtab *t, const char *bus, const char *id, const char *modalias);
int sim_device_add(struct sim *s, struct sim_devtab *t, const char *bus, const char *id, const char *modalias);
int sim_devices_bind(struct sim *s, struct sim_rec *r, const char *driver, const char *const *patterns,
		     const char *const *declared);
int sim_devices_unbind(struct sim *s, struct sim_rec *r);

/* mounts.c: file system types modules registered, and mounts */
int sim_fstypes_register(struct sim *s, const struct sim_rec *r, const char *const *aliases);
int sim_mounts_init(const char *dir);
/* ns: the mount namespace's name, NULL for the initial one */
int sim_mount(struct sim *s, const char *ns, const char *type, const char *source,
	      const char *target);
int sim_umount(struct sim *s, const char *ns, const char *target);
/* NS's mounts as /proc/PID/mounts shows them (malloc'd, *len bytes) */
char *sim_mounts_render(struct sim *s, const char *ns, size_t *len);

/* procns.c: mount namespaces and the processes in them */
#define SIM_MNTNS_INIT_INO 4026531840ull /* the initial namespace's inode */
int sim_procns_init(const char *dir);
/* NS's inode (NULL: the initial one); create makes a new NS; -ENOENT for
 * one not made, -EINVAL for a name that cannot be one. */
int sim_mntns_ino(const char *dir, const char *ns, int create, uint64_t *ino);
/* Rewrites /proc/PID/mounts of each process in NS to text. */
int sim_procs_publish(const char *dir, const char *ns, const char *text, size_t len);
/* Process PID enters NS (stage NULL), exits ("exit"), or is caught exiting
 * ("link": its ns/mnt gone; "mounts": its mounts gone; "empty": its mounts
 * read empty). */
int sim_process(struct sim *s, long pid, const char *ns, const char *stage);

/* render.c: lazily rendered /proc files */
int sim_render_lazy(struct sim *s, enum sim_lazy what);
int sim_ensure_rendered(const char *dir, const struct sim_header *hdr, enum sim_lazy what);
int sim_state_print(struct sim *s, int fd);

/* kernel.c: the syscalls' semantics */
int sim_sys_load(const char *dir, const void *image, size_t len, const char *args, unsigned flags);
/* 6.12's finit_module() of a file another call is loading (rot-abi.md L4):
 * sim_idem_begin() returns 1 for the call that loads (it then calls
 * sim_idem_end() with its result), 0 with *result the loading call's
 * result for one that waited, or a negative errno. On 6.1, always 1. */
struct sim_idem {
	char path[PATH_MAX];
};
int sim_idem_begin(const char *dir, uint64_t dev, uint64_t ino, struct sim_idem *idem, int *result);
void sim_idem_end(struct sim_idem *idem, int ret);
int sim_sys_delete(const char *dir, const char *name, unsigned flags);
int sim_add_synthetic(struct sim *s, const char *name, uint32_t core, uint32_t init, const uint32_t *deps, unsigned ndeps);
int sim_rot_synthetic(struct sim *s, uint32_t id);
/* ROT_IOC_RECLAIM on /proc/rotting_modules (rot-abi.md R1-R9): the number
 * freed, or a negative errno; req's out fields are written on success and
 * on -EBUSY */
int sim_sys_reclaim(const char *dir, struct sim_rot_reclaim *req);
/* ROT_IOC_RECLAIM4 (rot-abi.md R10-R13), revision 4 only (else -ENOTTY) */
int sim_sys_reclaim4(const char *dir, struct sim_rot_reclaim4 *req);
/* DIR/where/ID: where the scan finds a task's or a ref hold's reference
 * (kind "task" or "ref"); text NULL removes it */
int sim_where_set(const char *dir, uint32_t id, const char *kind, const char *text);
void sim_where_drop(const char *dir, uint32_t id);
void sim_changed(struct sim *s);
void sim_add_taint(struct sim *s, int bit);

/* reclaim.c: revision 2's and 1's reclaim by delete_module, under s's lock:
 * checks 0 sees nothing but kprobes (rev 1: nothing), force frees all */
int sim_reclaim_legacy(struct sim *s, const char *name, int checks, int force, struct sim_rot_reclaim *out);

/* percpu.c: the per-CPU module reserve (sizes per CPU) */
#define SIM_PERCPU_RESERVE_DEFAULT 8192u /* PERCPU_MODULE_RESERVE on x86_64 */

struct sim_pcpu_area {
	uint32_t id;    /* the instance's record id */
	uint32_t off;   /* from the start of the reserve */
	uint32_t bytes; /* allocated: the section's size in 4-byte units */
	uint32_t size;  /* the section's size, as /proc/module_percpu shows it */
	uint32_t held;  /* 0: id's; else held after a reclaim, the Nth (R15) */
};

struct sim_pcpu_map {
	uint32_t reserve;
	struct sim_pcpu_area *v; /* by offset */
	uint32_t n, cap;
};

int sim_percpu_create(const char *dir, uint32_t reserve);
int sim_percpu_read(const char *dir, struct sim_pcpu_map *m);
void sim_percpu_map_free(struct sim_pcpu_map *m);
uint32_t sim_percpu_free_bytes(const struct sim_pcpu_map *m, uint32_t *largest);
const struct sim_pcpu_area *sim_percpu_find(const struct sim_pcpu_map *m, uint32_t id);
/* percpu_modalloc(): whether an area of size and align fits now (-ENOMEM if not) */
int sim_percpu_fits(struct sim *s, uint64_t size, uint64_t align);
/* ... and taking it for r, once r has its id (same lock: it still fits) */
int sim_percpu_alloc(struct sim *s, struct sim_rec *r, uint64_t size, uint64_t align);
/* percpu_modfree(): a freed instance gives its area back, a reclaimed one
 * (hold) holds it back as R15 says; returns the bytes */
int sim_percpu_release(struct sim *s, const struct sim_rec *r, bool hold);
int sim_percpu_render(struct sim *s);

/* guard.c */
int sim_guard_install(void);

#endif
