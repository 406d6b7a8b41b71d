/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MODROT_MODDIR_CHECK_H
#define MODROT_MODDIR_CHECK_H

/*
 * Checks the binary indexes of moddir (kmod_get_dirname()) before libkmod
 * reads them (rot_moddir_check). Returns 0, or a negative errno after one
 * error line naming the index and telling to run depmod:
 * "modprobe: ERROR: DIR/modules.dep.bin is corrupt (run depmod)".
 */
int cli_moddir_check(const char *moddir);

#endif
