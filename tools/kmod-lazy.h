/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libkmod for modinfo and modprobe, opened when the first context is made
 * (cli_kmod_new), not at start: libkmod brings libcrypto, libzstd and
 * liblzma, whose relocation was most of what -V, --help or a usage error
 * cost. Included before every source of the two tools (tools/Makefile.inc,
 * -include), it turns each libkmod function they call into a call through
 * a pointer that kmod_lazy_open() fills. A function called but missing
 * from the list below is an undefined symbol at link time, not a crash.
 */
#ifndef MODROT_KMOD_LAZY_H
#define MODROT_KMOD_LAZY_H
#include <libkmod.h>

/* clang-format off */
#define KMOD_LAZY_FUNCTIONS(X) \
	X(kmod_config_get_aliases) \
	X(kmod_config_get_blacklists) \
	X(kmod_config_get_install_commands) \
	X(kmod_config_get_options) \
	X(kmod_config_get_remove_commands) \
	X(kmod_config_get_softdeps) \
	X(kmod_config_iter_free_iter) \
	X(kmod_config_iter_get_key) \
	X(kmod_config_iter_get_value) \
	X(kmod_config_iter_next) \
	X(kmod_dump_index) \
	X(kmod_get_dirname) \
	X(kmod_list_last) \
	X(kmod_list_next) \
	X(kmod_list_prev) \
	X(kmod_load_resources) \
	X(kmod_module_get_dependencies) \
	X(kmod_module_get_holders) \
	X(kmod_module_get_info) \
	X(kmod_module_get_initstate) \
	X(kmod_module_get_install_commands) \
	X(kmod_module_get_module) \
	X(kmod_module_get_name) \
	X(kmod_module_get_path) \
	X(kmod_module_get_refcnt) \
	X(kmod_module_get_remove_commands) \
	X(kmod_module_get_softdeps) \
	X(kmod_module_get_symbols) \
	X(kmod_module_get_versions) \
	X(kmod_module_info_free_list) \
	X(kmod_module_info_get_key) \
	X(kmod_module_info_get_value) \
	X(kmod_module_new_from_lookup) \
	X(kmod_module_new_from_name) \
	X(kmod_module_new_from_name_lookup) \
	X(kmod_module_new_from_path) \
	X(kmod_module_probe_insert_module) \
	X(kmod_module_ref) \
	X(kmod_module_symbol_get_crc) \
	X(kmod_module_symbol_get_symbol) \
	X(kmod_module_symbols_free_list) \
	X(kmod_module_unref) \
	X(kmod_module_unref_list) \
	X(kmod_module_version_get_crc) \
	X(kmod_module_version_get_symbol) \
	X(kmod_module_versions_free_list) \
	X(kmod_new) \
	X(kmod_set_log_fn) \
	X(kmod_set_log_priority) \
	X(kmod_unref)
/* clang-format on */

#define KMOD_LAZY_DECLARE(fn) extern __typeof__(fn) *lazy_##fn;
KMOD_LAZY_FUNCTIONS(KMOD_LAZY_DECLARE)

/* Opens libkmod.so.2 and fills every pointer, once: 0, -ELIBACC with
 * kmod_lazy_error() saying why, or -ENOMEM (the loader was short of
 * memory; not remembered, the next call tries again). */
int kmod_lazy_open(void);
const char *kmod_lazy_error(void);
/* Before kmod_lazy_open(), from a tool that verifies no signature: the
 * signatures libkmod reads are only decoded (kmod-lazy.c says what that
 * spares). */
void kmod_lazy_crypto_decode_only(void);
/* Before kmod_lazy_open(), from a run that asks libkmod for no module's
 * information (kmod_module_get_info(), the one call that decodes a
 * signature): libkmod gets tools/libcrypto-none.c instead of libcrypto,
 * where that is installed and libkmod loads with it. */
void kmod_lazy_no_signatures(void);

#define kmod_config_get_aliases (*lazy_kmod_config_get_aliases)
#define kmod_config_get_blacklists (*lazy_kmod_config_get_blacklists)
#define kmod_config_get_install_commands (*lazy_kmod_config_get_install_commands)
#define kmod_config_get_options (*lazy_kmod_config_get_options)
#define kmod_config_get_remove_commands (*lazy_kmod_config_get_remove_commands)
#define kmod_config_get_softdeps (*lazy_kmod_config_get_softdeps)
#define kmod_config_iter_free_iter (*lazy_kmod_config_iter_free_iter)
#define kmod_config_iter_get_key (*lazy_kmod_config_iter_get_key)
#define kmod_config_iter_get_value (*lazy_kmod_config_iter_get_value)
#define kmod_config_iter_next (*lazy_kmod_config_iter_next)
#define kmod_dump_index (*lazy_kmod_dump_index)
#define kmod_get_dirname (*lazy_kmod_get_dirname)
#define kmod_list_last (*lazy_kmod_list_last)
#define kmod_list_next (*lazy_kmod_list_next)
#define kmod_list_prev (*lazy_kmod_list_prev)
#define kmod_load_resources (*lazy_kmod_load_resources)
#define kmod_module_get_dependencies (*lazy_kmod_module_get_dependencies)
#define kmod_module_get_holders (*lazy_kmod_module_get_holders)
#define kmod_module_get_info (*lazy_kmod_module_get_info)
#define kmod_module_get_initstate (*lazy_kmod_module_get_initstate)
#define kmod_module_get_install_commands (*lazy_kmod_module_get_install_commands)
#define kmod_module_get_module (*lazy_kmod_module_get_module)
#define kmod_module_get_name (*lazy_kmod_module_get_name)
#define kmod_module_get_path (*lazy_kmod_module_get_path)
#define kmod_module_get_refcnt (*lazy_kmod_module_get_refcnt)
#define kmod_module_get_remove_commands (*lazy_kmod_module_get_remove_commands)
#define kmod_module_get_softdeps (*lazy_kmod_module_get_softdeps)
#define kmod_module_get_symbols (*lazy_kmod_module_get_symbols)
#define kmod_module_get_versions (*lazy_kmod_module_get_versions)
#define kmod_module_info_free_list (*lazy_kmod_module_info_free_list)
#define kmod_module_info_get_key (*lazy_kmod_module_info_get_key)
#define kmod_module_info_get_value (*lazy_kmod_module_info_get_value)
#define kmod_module_new_from_lookup (*lazy_kmod_module_new_from_lookup)
#define kmod_module_new_from_name (*lazy_kmod_module_new_from_name)
#define kmod_module_new_from_name_lookup (*lazy_kmod_module_new_from_name_lookup)
#define kmod_module_new_from_path (*lazy_kmod_module_new_from_path)
#define kmod_module_probe_insert_module (*lazy_kmod_module_probe_insert_module)
#define kmod_module_ref (*lazy_kmod_module_ref)
#define kmod_module_symbol_get_crc (*lazy_kmod_module_symbol_get_crc)
#define kmod_module_symbol_get_symbol (*lazy_kmod_module_symbol_get_symbol)
#define kmod_module_symbols_free_list (*lazy_kmod_module_symbols_free_list)
#define kmod_module_unref (*lazy_kmod_module_unref)
#define kmod_module_unref_list (*lazy_kmod_module_unref_list)
#define kmod_module_version_get_crc (*lazy_kmod_module_version_get_crc)
#define kmod_module_version_get_symbol (*lazy_kmod_module_version_get_symbol)
#define kmod_module_versions_free_list (*lazy_kmod_module_versions_free_list)
#define kmod_new (*lazy_kmod_new)
#define kmod_set_log_fn (*lazy_kmod_set_log_fn)
#define kmod_set_log_priority (*lazy_kmod_set_log_priority)
#define kmod_unref (*lazy_kmod_unref)

#endif
