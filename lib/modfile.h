/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A module file read into memory, decompressed and inspected, and the
 * preflight that refuses a bad module before the kernel is involved. On a
 * rot kernel every failed init leaves memory rotting, so saying no here is
 * worth more than anywhere.
 */
#ifndef MODROT_MODFILE_H
#define MODROT_MODFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "modrot.h"

enum rot_compression {
	ROT_COMP_NONE,
	ROT_COMP_XZ,
	ROT_COMP_ZSTD,
	ROT_COMP_GZIP,
};

/* What is wrong with a module, found without the kernel. */
enum rot_problem {
	ROT_PROBLEM_NONE,
	ROT_PROBLEM_NOT_REGULAR,       /* a directory, device or fifo */
	ROT_PROBLEM_EMPTY,
	ROT_PROBLEM_TOO_BIG,           /* value: the limit in bytes */
	ROT_PROBLEM_CORRUPT_COMPRESSION,
	ROT_PROBLEM_TRUNCATED_COMPRESSION,
	ROT_PROBLEM_UNSUPPORTED_COMPRESSION, /* gzip, which this libkmod cannot read */
	ROT_PROBLEM_NOT_ELF,
	ROT_PROBLEM_TRUNCATED,         /* value: bytes the headers need; value2: bytes there are */
	ROT_PROBLEM_MALFORMED_ELF,     /* rot_modfile_problem_text() says what the kernel would refuse */
	ROT_PROBLEM_WRONG_CLASS,       /* rot_modfile_elf_class() is not the kernel's */
	ROT_PROBLEM_WRONG_MACHINE,     /* rot_modfile_elf_machine() is not the kernel's */
	ROT_PROBLEM_WRONG_BYTE_ORDER,  /* value: the file's EI_DATA (ELFDATA2LSB/MSB) */
	ROT_PROBLEM_NOT_RELOCATABLE,   /* value: the file's e_type */
	ROT_PROBLEM_NO_MODINFO,
	ROT_PROBLEM_NO_THIS_MODULE,
	ROT_PROBLEM_NO_SYMBOLS,        /* no symbol table: the kernel refuses such a module */
	ROT_PROBLEM_NO_NAME,
	ROT_PROBLEM_NAME_TOO_LONG,     /* value: its length; value2: the limit */
	/* Found by rot_preflight(): */
	ROT_PROBLEM_VERMAGIC,          /* text: the module's release; text2: the kernel's */
	ROT_PROBLEM_VERMAGIC_FLAGS,    /* same release, other build flags: text, text2 the whole strings */
	ROT_PROBLEM_ALREADY_LOADED,
	ROT_PROBLEM_UNDEFINED_SYMBOLS, /* rot_preflight.missing lists them */
	ROT_PROBLEM_UNSIGNED,          /* the kernel enforces signatures, or --verify asked */
	ROT_PROBLEM_BAD_SIGNATURE,     /* rot_preflight.sig says how */
};

struct rot_modfile;

/*
 * Reads path, decompresses it (by magic, not by name) and inspects its ELF
 * headers and .modinfo with libelf. Returns a negative errno when the file
 * cannot be read at all (-ENOENT, -EACCES, -ENOMEM, ...). Otherwise returns
 * 0 and a modfile whose rot_modfile_problem() says whether it is usable.
 */
int rot_modfile_read(const char *path, struct rot_modfile **out);
/* The same for bytes already in memory (copied); path only names them. */
int rot_modfile_parse(const char *path, const void *buf, size_t len, struct rot_modfile **out);
void rot_modfile_free(struct rot_modfile *mf);

enum rot_problem rot_modfile_problem(const struct rot_modfile *mf);
uint64_t rot_modfile_problem_value(const struct rot_modfile *mf);
uint64_t rot_modfile_problem_value2(const struct rot_modfile *mf);
/* ROT_PROBLEM_MALFORMED_ELF: what is wrong, in words ("" otherwise). */
const char *rot_modfile_problem_text(const struct rot_modfile *mf);

const char *rot_modfile_path(const struct rot_modfile *mf);
enum rot_compression rot_modfile_compression(const struct rot_modfile *mf);
/* ELFCLASS32/64 and e_machine of the image (0 before the ELF headers were read). */
int rot_modfile_elf_class(const struct rot_modfile *mf);
int rot_modfile_elf_machine(const struct rot_modfile *mf);
/* The uncompressed image, as the kernel would receive it. */
const void *rot_modfile_image(const struct rot_modfile *mf, size_t *len);

/* From .modinfo (or .gnu.linkonce.this_module for the name); NULL if absent. */
const char *rot_modfile_name(const struct rot_modfile *mf);
const char *rot_modfile_vermagic(const struct rot_modfile *mf);
/* Iterates every value of a .modinfo key ("parm", "depends", "alias", ...):
 * start with *cursor = NULL; returns NULL at the end. */
const char *rot_modfile_modinfo_next(const struct rot_modfile *mf, const char *key,
				     const char **cursor);
/* True when the module carries symbol versions (a __versions section): the
 * kernel then checks CRCs and compares vermagic without the release. */
bool rot_modfile_has_versions(const struct rot_modfile *mf);
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
 * live modules' symbols). One read of the file; only wanted names are kept,
 * so a kernel's hundred thousand symbols cost a scan, not a table.
 */
int rot_symbols_read_kallsyms(const char *const *wanted, size_t nwanted,
			      struct rot_symbols **out);
/* An empty set, for modules of a batch to add what they define. */
int rot_symbols_new(struct rot_symbols **out);
int rot_symbols_add(struct rot_symbols *set, const char *name);
bool rot_symbols_has(const struct rot_symbols *set, const char *name);
void rot_symbols_free(struct rot_symbols *set);

/* ---- preflight ---- */

struct rot_kernel_facts {
	char release[65];      /* uname -r */
	int elf_class;         /* ELFCLASS64 ... , 0 when unknown */
	int elf_machine;       /* EM_X86_64 ... , 0 when unknown */
	bool sig_support;      /* the kernel checks signatures (the sig_enforce parameter exists) */
	bool sig_enforce;      /* /sys/module/module/parameters/sig_enforce is Y */
	/* The kernel's whole vermagic ("6.1.0 SMP preempt mod_unload modversions "),
	 * from a module this release shipped; "" when none can be read. */
	char vermagic[128];
};

/* uname, sig_enforce and the kernel's vermagic: read once per run. The
 * vermagic is that of the first module /lib/modules/RELEASE/modules.dep
 * lists: the kernel build stamps every module it ships with its own. */
int rot_kernel_facts_read(struct rot_kernel_facts *facts);

struct rot_keyring;

struct rot_preflight_input {
	const struct rot_kernel_facts *kernel;
	const struct rot_snapshot *snap;           /* for "already loaded"; may be NULL */
	const struct rot_symbols *kernel_symbols;  /* may be NULL: symbols not checked */
	const struct rot_symbols *batch_symbols;   /* defined by modules loaded before, may be NULL */
	const struct rot_keyring *keyring;         /* --verify; NULL: signatures only if enforced */
	bool force_vermagic;
};

struct rot_preflight {
	enum rot_problem problem;
	char text[128];           /* see enum rot_problem */
	char text2[128];
	const char **missing;     /* undefined symbols nobody offers (point into the modfile) */
	size_t nmissing;
	struct rot_sig_info *sig; /* when a signature was looked at */
};

/*
 * Every check that does not need the kernel to act: the file's own problem,
 * then signature, vermagic, already loaded, undefined symbols. Stops at the
 * first problem. Returns 0 (the verdict is in res) or -ENOMEM.
 */
int rot_preflight(const struct rot_modfile *mf, const struct rot_preflight_input *in,
		  struct rot_preflight *res);
void rot_preflight_release(struct rot_preflight *res);

/* ---- loading, through libkmod ---- */

/* One per thread: libkmod contexts are not shared between threads. */
struct rot_loader;

enum rot_load_flags {
	ROT_LOAD_FORCE_VERMAGIC = 1 << 0,
	ROT_LOAD_FORCE_MODVERSION = 1 << 1,
};

int rot_loader_new(struct rot_loader **out);
void rot_loader_free(struct rot_loader *loader);

/*
 * Inserts the module file at path (plain or compressed; libkmod reads it)
 * with the parameter string params. Returns the kernel's negative errno
 * (libkmod's own messages are silenced: the tool says it once).
 */
int rot_loader_insert(struct rot_loader *loader, const char *path, const char *params,
		      unsigned flags);

/*
 * Inserts the image rot_modfile_read() read (decompressed by modrot) with
 * init_module(2): the bytes preflight looked at, and --verify verified,
 * are the bytes the kernel gets, whatever the path names by now. Nothing
 * can be forced this way (forcing rewrites the image). Returns the
 * kernel's negative errno; -ENOEXEC for a modfile with a problem.
 */
int rot_load_image(const struct rot_modfile *mf, const char *params);

/* True when libkmod can read the file's modinfo: how to tell whether this
 * system's libkmod decompresses a format modrot does not (gzip). */
bool rot_loader_can_read(struct rot_loader *loader, const char *path);

#endif
