/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared inside libmodrot; not part of its interface. */
#ifndef MODROT_INTERNAL_H
#define MODROT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "modrot.h"

/* A whole file (a /proc one, whose size says 0), in a malloc'd,
 * NUL-terminated buffer. */
int proc_read_whole(const char *path, char **out, size_t *len);

/* A NUL-terminated copy of len bytes at text; NULL for NULL, or without memory. */
char *text_copy(const char *text, size_t len);

/* FNV-1a of len bytes at p, for a table that compares the keys too. */
static inline uint64_t fnv1a(const void *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char *c = p, *end = c + len; c < end; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	return h;
}

/* Maps the whole pages of [p, p + len) at once (lib/prefault.c says why):
 * for a fresh area of 64 KiB or more that is about to be written. */
void mem_prefault(void *p, size_t len);

struct stat;
/* Opens a file a user named for reading, without waiting (O_NONBLOCK)
 * and only when fstat says it is regular: returns the descriptor, -EINVAL
 * when it is not regular (st says what it is), or another negative errno.
 * Read it with file_read(). */
int file_open_regular(const char *path, struct stat *st);

/* read(2), again after EINTR, and after EAGAIN with O_NONBLOCK cleared:
 * a regular file opened by file_open_regular() reads as a blocking one. */
ssize_t file_read(int fd, void *buf, size_t len);

/* rot_file_read() of a file file_open_regular() opened (st its fstat),
 * from where its offset stands; closes fd. */
int file_read_whole(int fd, const struct stat *st, size_t limit, char **out, size_t *len);

/* A parse of a kernel file that failed with err: -EPROTO or -ERANGE (a
 * malformed file) records where and why (see rot_parse_error_last()) and
 * returns -EPROTO; any other err (no memory) is returned as it is. */
int parse_failed(int err, const char *file, size_t line, const char *reason);
void parse_error_clear(void);

/* ---- kernel-file fields (snapshot.c), for every /proc parser ---- */
/* A decimal (base 10) or hex (16) number filling s: -EPROTO not one, -ERANGE past 64 bits. */
int parse_u64(const char *s, unsigned base, uint64_t *out);
/* Live, Loading, Unloading or Rotting; -EPROTO otherwise. */
int parse_state(const char *s, size_t len, enum rot_state *state);
/* What the kernel can print as a module's name (no '/', not "." or ".."). */
bool valid_name(const char *s, size_t len);
/* Room for need elements of size in the array *arr points to (its
 * capacity *cap, grown by doubling from 16): false without memory. */
bool array_reserve(void *arr, size_t *cap, size_t need, size_t size);
/* A line a parser of a kernel file refuses: *reason says why; returns -EPROTO. */
static inline int malformed_line(const char **reason, const char *why)
{
	*reason = why;
	return -EPROTO;
}
/* A number field of such a line that did not parse (err -ERANGE: too
 * large, else -EPROTO): *reason says which; returns err. */
static inline int bad_number(const char **reason, int err, const char *too_large,
			     const char *not_number)
{
	*reason = err == -ERANGE ? too_large : not_number;
	return err;
}
/* Splits a line, from line to its newline or to end (a NUL), at each blank,
 * in place: the first max fields go to f, the newline (or end) becomes a
 * NUL at *eol. The number of fields, more than max if there are, or 0
 * for a line with a NUL byte before its end. */
size_t fields_split(char *line, const char *end, char **f, size_t max, char **eol);

/* Parses already-read file contents as rot_snapshot_read() does; rotting
 * may be NULL (a stock kernel), and pins (/proc/module_pins) NULL (a kernel
 * before revision 4). */
int snapshot_parse(const char *modules, size_t modules_len, const char *rotting, size_t rotting_len,
		   const char *pins, size_t pins_len, struct rot_snapshot **out);

/* ---- depmod's binary indexes (modindex.c) ---- */

/* Larger than any index depmod writes; libkmod's offsets reach 256 MiB. */
#define INDEX_SIZE_MAX (64u << 20)

/*
 * Checks an index image (modules.dep.bin and the like) against the format
 * depmod writes: 0 when libkmod 30 can read every node of it in bounds,
 * once each; -EINVAL when it cannot, -EFBIG when larger than
 * INDEX_SIZE_MAX, -ENOMEM. Outside lib, only the fuzz harness calls it.
 */
int index_check_image(const void *data, size_t len);

/* The same for a file: also -EISDIR when it is not a regular file,
 * -ENODATA when it is empty (libkmod reads that as no index, safely), and
 * the -errno of opening or reading it (-ENOENT when there is none). */
int index_check_file(const char *path);

/* Reads and checks the index at path; on success *out holds it (malloc'd). */
int index_read_checked(const char *path, unsigned char **out, size_t *out_len);

/* Calls fn for each value of an index that passed the check, in
 * kmod_dump_index()'s order: a node's values, then its children in
 * character order. Stops at fn's first nonzero return, and returns it;
 * -ENOMEM. */
int index_walk(const unsigned char *d, size_t len,
	       int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* ---- modules.alias against its binary index (fsalias.c) ---- */

/* Whether the "alias fs-TYPE MODULE" lines of alias_text (dir/modules.alias,
 * as the caller read it) are those depmod put into dir/modules.alias.bin:
 * 0 when they are; -ENOENT without the binary index; -ESTALE when they
 * differ, or the index is damaged or empty, since then nothing confirms
 * the text; -ENOMEM, or the -errno of a failed read. */
int index_confirms_fs_aliases(const char *dir, const char *alias_text);

/* ---- the in-use rule's inputs (inuse.c, mntns.c) ---- */

/* No real mount table or modules.alias comes near this: a bigger one is
 * junk, not an input. All namespaces' mount tables together get the same bound. */
#define USAGE_INPUT_MAX (64u << 20)
#define MNTNS_TOTAL_MAX USAGE_INPUT_MAX

/* Reads a regular file whole (procfile.c), up to USAGE_INPUT_MAX, NUL-terminated:
 * -EISDIR for a directory, -EINVAL for anything else not regular (a FIFO,
 * a device), -EFBIG for one too big, -EBADMSG for one with a NUL inside. */
int usage_input_read(const char *path, char **out);

/* One mount namespace's table, as the process it was read through sees it. */
struct mntns_table {
	char *text;    /* its mounts file, whole */
	long pid;      /* that process; 0 for this one (PROC/self) */
	uint64_t hash; /* of text */
};

struct mntns_tables {
	struct mntns_table *v;
	size_t n;
};

/* The table of every mount namespace a process in proc ("/proc") is in,
 * this process's first (mntns.c says how). -errno when a link or the table
 * of a process still there cannot be read (-ENOLINK: a link naming no mount
 * namespace; -EFBIG: the tables together over MNTNS_TOTAL_MAX; -EACCES:
 * proc hides processes; -EAGAIN: the process list kept changing), with
 * what (cap bytes, may be NULL) naming it. */
int mntns_tables_read(const char *proc, struct mntns_tables *t, char *what, size_t cap);
void mntns_tables_free(struct mntns_tables *t);

/* ---- reclaim accounting (unload.c) ---- */

/* What a run saw rot under a name before reclaiming it. */
struct reclaim_seen {
	size_t instances;
	uint64_t bytes;
	/* The size of one instance it did not see: one a concurrent unload
	 * left (the live module's size when known). */
	uint64_t unit;
};

/* From the snapshot, and the live instance the caller unloaded since
 * (ROT_RECLAIM_UNLOADED). */
void reclaim_seen_of(const struct rot_snapshot *snap, const char *name, unsigned flags,
		     struct reclaim_seen *seen);
/* Whether reclaim_estimate() will count instances freed beyond those seen
 * (so seen->unit must be known). */
bool reclaim_needs_unit(const struct reclaim_seen *seen, size_t freed, size_t left);
/* From res->freed (the kernel's count), what was seen and what still rots
 * (left instances holding left_bytes): res->bytes, res->kept, res->kept_bytes. */
void reclaim_estimate(const struct reclaim_seen *seen, size_t left, uint64_t left_bytes,
		      struct rot_reclaim_result *res);

/* ---- rotting instances by name (rotgroups.c) ---- */

/* Merges g's n entries (malloc'd) into one a name, largest total first
 * (then by name), into *groups (g itself) and *ngroups. */
void groups_merge(struct rot_group *g, size_t n, struct rot_group **groups, size_t *ngroups);

/* ---- per-CPU reserve (percpu.c) ---- */

/* Parses already-read contents, as rot_percpu_read() does. */
int percpu_parse(const char *text, size_t len, struct rot_percpu **out);
/* The per-CPU area's address of instance i. */
uint64_t percpu_address(const struct rot_percpu *pc, size_t i);

/* ---- devices (devices.c): a device set built by hand, for tests ---- */
struct rot_devices;
struct rot_devices *devices_new(void);
int devices_add_modalias(struct rot_devices *devs, const char *modalias, size_t len);

/* ---- extensible structs (struct rot_reclaim_result, struct rot_usage) ---- */

/*
 * Hands whole, filled as this release knows it (whole_size bytes, its
 * first member the size), to a caller's struct of caller_size bytes: a
 * caller built against an older release gets the members it knows, a
 * newer one's members beyond ours are zeroed, and its size is kept.
 */
static inline void sized_copy_out(void *caller, size_t caller_size, const void *whole,
				  size_t whole_size)
{
	memset(caller, 0, caller_size);
	memcpy(caller, whole, caller_size < whole_size ? caller_size : whole_size);
	memcpy(caller, &caller_size, sizeof(caller_size));
}

/* ---- the objects modrot.h keeps opaque (modsig.c, preflight.c) ----
 * Their limits here are this release's, not the ABI's: a longer answer
 * needs a larger array here, and no caller is rebuilt. */

struct rot_sig_info {
	enum rot_sig_status status;
	size_t content_len; /* bytes the signature covers: the image without the trailer */
	char signer[256];
	char key_id[128];
	char detail[256];
};

struct rot_kernel_facts {
	char release[65]; /* struct utsname's */
	int elf_class;
	int elf_machine;
	bool sig_support;
	bool sig_enforce;
	char vermagic[128];
};

/* Finds the signature trailer of an uncompressed module image, into a new
 * *out: its status (VALID here only means "a well-formed PKCS#7 trailer is
 * present"; nothing is verified), the length it covers and, when signed,
 * the signer and key id the signature names. Never fails on bad data: the
 * status says what is wrong. Returns 0, or -ENOMEM (*out NULL), or -ELIBACC. */
int modsig_inspect(const void *image, size_t len, struct rot_sig_info **out);
/* Certificates in a keyring. */
size_t keyring_count(const struct rot_keyring *kr);

/* ---- module files (modfile.c) ---- */

/* rot_modfile_read() of bytes already in memory (copied); path only names
 * them. */
int modfile_parse(const char *path, const void *buf, size_t len, struct rot_modfile **out);
/* The .modinfo vermagic; NULL if absent. */
const char *modfile_vermagic(const struct rot_modfile *mf);
/* True when the module carries symbol versions (a __versions section): the
 * kernel then checks CRCs and compares vermagic without the release. */
bool modfile_has_versions(const struct rot_modfile *mf);

/* ---- ELF structure (elfcheck.c) ---- */

enum elf_check_verdict {
	ELF_CHECK_OK,
	ELF_CHECK_TRUNCATED, /* need: bytes the headers or a section need; have: the image's */
	ELF_CHECK_MALFORMED, /* reason says what */
};

struct elf_check {
	enum elf_check_verdict verdict;
	uint64_t need, have;
	char reason[112];
	/* When OK: section indexes (0: absent). */
	uint32_t symtab, modinfo, this_module;
};

/*
 * Checks a native-byte-order ELF image's headers, sections, string tables
 * and symbol table as the kernel's loader would, before anything trusts
 * them. Returns 0 (the verdict is in res) or -ENOMEM.
 */
int elf_check_image(const void *image, size_t len, struct elf_check *res);

/* ---- decompression (decompress.c) ---- */

/* By magic bytes; ROT_COMP_NONE for anything else. */
enum rot_compression compression_detect(const void *buf, size_t len);

/*
 * Decompresses a whole xz or zstd stream into a malloc'd buffer of at most
 * limit bytes. -EBADMSG: corrupt data; -ENODATA: the stream ends early;
 * -EFBIG: larger than limit; -ENOMEM; -EPROTONOSUPPORT, touching nothing,
 * for any other c.
 */
int decompress_whole(enum rot_compression c, const void *in, size_t len, size_t limit, void **out,
		     size_t *out_len);

/*
 * Decodes a whole xz or zstd stream without keeping it, in constant
 * memory: 0 when it decompresses to at most limit bytes; -EFBIG past it;
 * -EBADMSG, -ENODATA, -ENOMEM as decompress_whole().
 */
int decompressed_size_check(enum rot_compression c, const void *in, size_t len, size_t limit);
#endif
