/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libkmod's own messages, in the tool's words: every tool that makes a
 * kmod_ctx makes it here. libkmod writes to stderr from the moment
 * kmod_new() starts (configuration it could not parse, KMOD_LOG=debug),
 * before a log function can be set; those lines are caught and replayed,
 * and every later one goes to the same function. Each line goes through
 * the CLI helper (the one sanitiser, syslog with -s), and none at all with
 * cli_set_quiet(true).
 *
 * This is also the one file that works around what libkmod 30 lacks: a
 * loss it does not report (kmod_lost(), from errno, never from its log
 * text), a module read from bytes in memory (cli_kmod_get_info(),
 * cli_kmod_insert_image()), a function whose symbol version changed
 * between releases (cli_kmod_new_from_name_lookup()), and indexes it
 * would trust unchecked (cli_moddir_check()).
 */
#ifndef MODROT_KMODLOG_H
#define MODROT_KMODLOG_H

#include <stddef.h>

struct kmod_ctx;
struct kmod_list;
struct kmod_module;

/* kmod_new(dirname, config_paths) with the tool's log function; NULL when
 * out of memory, also when kmod_new() lost an allocation or read it
 * did not report (a configuration line dropped: see kmod_lost()). */
struct kmod_ctx *cli_kmod_new(const char *dirname, const char *const *config_paths);

/*
 * libkmod 30 drops what a failed allocation or read would have added (a
 * modprobe.d line, an index node, a list entry, a softdep it could not
 * load) and returns as if nothing had failed: a lookup then says "not
 * found", a list comes back short. The one trace left is errno, which
 * malloc sets to ENOMEM and a failed read to EIO. Call kmod_trace_start()
 * right before a libkmod call and kmod_lost() right after it: -ENOMEM or
 * -EIO means something failed inside, and the answer is not to be
 * trusted; 0 means no such trace. (A later failing system call inside
 * libkmod can overwrite errno; then the loss goes unseen, as before.)
 */
void kmod_trace_start(void);
int kmod_lost(void);

/*
 * kmod_module_new_from_name_lookup(ctx, name, mod). libkmod 30 exports it
 * as version LIBKMOD_5; later releases export it as LIBKMOD_30 only (kmod
 * 34 does), so a program linked to it against libkmod 30 would not start
 * with a newer libkmod: a Debian 12 build once kmod is upgraded to Debian
 * 13's. It is looked up in the libkmod the program runs with, newest
 * version first. -ENOSYS, *mod NULL, when that libkmod has neither.
 */
int cli_kmod_new_from_name_lookup(struct kmod_ctx *ctx, const char *name, struct kmod_module **mod);

/*
 * kmod_module_get_info(mod, info), from image when the caller has mod's
 * file already decompressed (rot_modfile_check()) and NULL otherwise:
 * libkmod 30 reads a module only from a path, and would decode it a
 * second time. The bytes go into a memory file that libkmod opens by its
 * /proc/self/fd path and maps as it maps a plain module (it tells
 * compression by the first bytes, not by the name). Where that cannot be
 * done, libkmod reads mod's own file, as without image.
 */
int cli_kmod_get_info(struct kmod_ctx *ctx, struct kmod_module *mod, const void *image, size_t len,
		      struct kmod_list **info);

/*
 * kmod_module_insert_module() of the module image (decompressed, the bytes
 * the caller checked) with flags (KMOD_INSERT_FORCE_*), through the same
 * memory file: libkmod then strips what the force skips from those bytes,
 * not from whatever the module's path names by then. ctx must know no
 * module whose name is a number (the memory file's path names one): a
 * context of its own. 0 or -errno.
 */
int cli_kmod_insert_image(struct kmod_ctx *ctx, const void *image, size_t len, unsigned flags,
			  const char *options);

/*
 * Checks the binary indexes of moddir (kmod_get_dirname()) before libkmod
 * reads them (rot_moddir_check: libkmod before 34 trusts every offset in
 * them). Returns 0, or a negative errno after one error line naming the
 * index and telling to run depmod:
 * "modprobe: ERROR: DIR/modules.dep.bin is corrupt (run depmod)".
 */
int cli_moddir_check(const char *moddir);

#endif
