/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libkmod's own messages, in the tool's words: every tool that makes a
 * kmod_ctx makes it here. What libkmod writes to stderr while kmod_new()
 * runs, before a log function can be set, is caught and replayed. Each
 * line goes through cli_error() and its siblings (sanitised, syslog with
 * -s), and none with cli_set_quiet(true).
 *
 * Also the one file that works around what libkmod 30 lacks
 * (docs/architecture.md, "libkmod and the optional libraries").
 */
#ifndef MODROT_KMODLOG_H
#define MODROT_KMODLOG_H

#include <stddef.h>

struct kmod_ctx;
struct kmod_list;
struct kmod_module;

/* kmod_new(dirname, config_paths) with the tool's log function; NULL when
 * out of memory, also when kmod_new() lost a configuration line (kmod_lost()). */
struct kmod_ctx *cli_kmod_new(const char *dirname, const char *const *config_paths);

/*
 * libkmod 30 drops what a failed allocation or read would have added and
 * answers as if nothing had failed; the one trace left is errno. Call
 * kmod_trace_start() right before a libkmod call and kmod_lost() right
 * after it: -ENOMEM or -EIO means the answer is not to be trusted; 0 means
 * no such trace (a later system call inside libkmod may have hidden one).
 */
void kmod_trace_start(void);
int kmod_lost(void);

/*
 * kmod_module_new_from_name_lookup(ctx, name, mod), looked up by symbol
 * version in the libkmod the program runs with, newest first: the version
 * changed after libkmod 30. -ENOSYS, *mod NULL, when it has neither.
 */
int cli_kmod_new_from_name_lookup(struct kmod_ctx *ctx, const char *name, struct kmod_module **mod);

/*
 * kmod_module_get_info(mod, info), from image when the caller has mod's
 * file already decompressed (rot_modfile_check()) and NULL otherwise. The
 * bytes go to libkmod through a memory file; where that cannot be done,
 * libkmod reads mod's own file, as without image.
 */
int cli_kmod_get_info(struct kmod_ctx *ctx, struct kmod_module *mod, const void *image, size_t len,
		      struct kmod_list **info);

/*
 * kmod_module_insert_module() of the module image (the decompressed bytes
 * the caller checked) with flags (KMOD_INSERT_FORCE_*), through a memory
 * file, so the force strips those bytes, not what the path names by then.
 * The memory file's name is a number: ctx must know no module named so
 * (a context of its own). 0 or -errno.
 */
int cli_kmod_insert_image(struct kmod_ctx *ctx, const void *image, size_t len, unsigned flags,
			  const char *options);

/*
 * Checks the binary indexes of moddir (kmod_get_dirname()) before libkmod,
 * which before 34 trusts every offset in them, reads them. Returns 0, or a
 * negative errno after one error line, such as "DIR/modules.dep.bin is
 * corrupt (run depmod)".
 */
int cli_moddir_check(const char *moddir);

#endif
