/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DL_KMOD_H
#define MODROT_DL_KMOD_H
/* libkmod, opened on first use (dynlib.h): insertion, which insmod leaves to libkmod. */
#include <libkmod.h>

#include "dynlib.h"

#define DL_KMOD_FUNCTIONS(X)          \
	X(kmod_module_get_info)       \
	X(kmod_module_info_free_list) \
	X(kmod_module_insert_module)  \
	X(kmod_module_new_from_path)  \
	X(kmod_module_unref)          \
	X(kmod_new)                   \
	X(kmod_set_log_fn)            \
	X(kmod_unref)

DL_KMOD_FUNCTIONS(DYNLIB_DECLARE)

#define kmod_module_get_info (*dl_kmod_module_get_info)
#define kmod_module_info_free_list (*dl_kmod_module_info_free_list)
#define kmod_module_insert_module (*dl_kmod_module_insert_module)
#define kmod_module_new_from_path (*dl_kmod_module_new_from_path)
#define kmod_module_unref (*dl_kmod_module_unref)
#define kmod_new (*dl_kmod_new)
#define kmod_set_log_fn (*dl_kmod_set_log_fn)
#define kmod_unref (*dl_kmod_unref)

#endif
