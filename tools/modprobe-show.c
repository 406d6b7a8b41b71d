// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe's queries: -c (the configuration libkmod read, then the alias
 * and symbol indexes), --show-modversions and --show-exports. Their output
 * is kmod's, byte for byte: scripts parse it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "modprobe.h"

int mp_show_config(struct modprobe_run *r)
{
	static const struct {
		const char *word;
		struct kmod_config_iter *(*iter)(const struct kmod_ctx *ctx);
	} kinds[] = {
		{ "blacklist", kmod_config_get_blacklists },
		{ "install", kmod_config_get_install_commands },
		{ "remove", kmod_config_get_remove_commands },
		{ "alias", kmod_config_get_aliases },
		{ "options", kmod_config_get_options },
		{ "softdep", kmod_config_get_softdeps },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct kmod_config_iter *it = kinds[i].iter(r->ctx);
		if (!it)
			continue;
		while (kmod_config_iter_next(it)) {
			const char *value = kmod_config_iter_get_value(it);
			printf("%s %s", kinds[i].word, kmod_config_iter_get_key(it));
			if (value)
				printf(" %s\n", value);
			else
				putchar('\n');
		}
		kmod_config_iter_free_iter(it);
	}
	puts("\n# End of configuration files. Dumping indexes now:\n");
	int err = cli_flush_stdout();
	if (err < 0)
		return err;
	/* libkmod writes the indexes to the descriptor itself */
	err = kmod_dump_index(r->ctx, KMOD_INDEX_MODULES_ALIAS, STDOUT_FILENO);
	if (err >= 0)
		err = kmod_dump_index(r->ctx, KMOD_INDEX_MODULES_SYMBOL, STDOUT_FILENO);
	if (err < 0)
		mp_fail(r, err, false, "could not dump the module indexes of %s: %s", r->moddir,
			strerror(-err));
	return err;
}

/* symbol versions (what the module needs) or exported symbols (what it offers) */
static int show_crcs(struct modprobe_run *r, const char *path, bool exports)
{
	struct kmod_module *mod;
	struct kmod_list *list = NULL, *l;
	int err = kmod_module_new_from_path(r->ctx, path, &mod);

	if (err < 0) {
		mp_fail(r, err, true, "Module %s not found.", path);
		return err;
	}
	err = exports ? kmod_module_get_symbols(mod, &list) : kmod_module_get_versions(mod, &list);
	if (err < 0) {
		mp_fail(r, err, true, "could not get %s of %s: %s",
			exports ? "symbols" : "modversions", path, strerror(-err));
		kmod_module_unref(mod);
		return err;
	}
	kmod_list_foreach(l, list)
	{
		const char *sym = exports ? kmod_module_symbol_get_symbol(l)
					  : kmod_module_version_get_symbol(l);
		uint64_t crc = exports ? kmod_module_symbol_get_crc(l)
				       : kmod_module_version_get_crc(l);
		printf("0x%08" PRIx64 "\t%s\n", crc, sym);
	}
	if (exports)
		kmod_module_symbols_free_list(list);
	else
		kmod_module_versions_free_list(list);
	kmod_module_unref(mod);
	return 0;
}

int mp_show_modversions(struct modprobe_run *r, const char *path)
{
	return show_crcs(r, path, false);
}

int mp_show_exports(struct modprobe_run *r, const char *path)
{
	return show_crcs(r, path, true);
}
