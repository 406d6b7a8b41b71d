/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MODROT_MODDIR_CHECK_H
#define MODROT_MODDIR_CHECK_H

/*
 * The module directory a tool gives kmod_new(), with the binary indexes
 * that fail rot_index_check_file() left out: one warning line names each
 * ("modprobe: WARNING: DIR/modules.dep.bin is corrupt: read as missing
 * (run depmod)"). dirname NULL is the running kernel's. Returns 0 and sets
 * *path (NULL stays NULL when nothing was left out), or a negative errno
 * after one error line. The view is removed at exit.
 */
int cli_moddir_open(const char *dirname, const char **path);

/* A module path libkmod made in the view, as the real directory's path:
 * what a tool prints. Valid until the next call. */
const char *cli_moddir_shown(const char *path);

#endif
