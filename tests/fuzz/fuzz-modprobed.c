// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe.d as modprobe reads it: all of it is libkmod's parsing
 * (kmod_new's config_paths), so the input is a configuration file in a
 * private directory, read by libkmod over the committed seed indexes
 * (corpus/index, checked by index_check_file first, as the tools
 * do). Every list libkmod makes of it is walked, and the modules it names
 * are looked up with their options, install and remove commands and soft
 * dependencies.
 *
 * Speed without hiding state: each input gets its own kmod context (the
 * configuration is parsed in kmod_new, so a shared one would carry the
 * previous input's lists), but the file is a memfd named by
 * /proc/self/fd/N, not a file rewritten on disk, and the seed tree has
 * every index kmod_load_resources wants (the builtin ones empty, as
 * depmod writes them), so lookups use the mapped indexes as modprobe does
 * instead of opening an index file per lookup.
 */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-tmpdir.h"
#include "internal.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char moddir[64], conf[64];
static int conf_fd = -1;

static void silent(void *d, int priority, const char *f, int line, const char *fn,
		   const char *format, va_list args)
{
}

static void setup(void)
{
	/* modules.NAME.bin from corpus/index/FILE.bin */
	static const char *const names[][2] = { { "dep", "dep" },
						{ "alias", "alias" },
						{ "symbols", "symbols" },
						{ "builtin", "builtin" },
						{ "builtin.alias", "builtin" } };
	char src[PATH_MAX], dst[PATH_MAX], *slash;

	snprintf(moddir, sizeof(moddir), "/tmp/fuzz-modprobed.XXXXXX");
	if (!fuzz_tmpdir(moddir))
		abort();
	snprintf(src, sizeof(src), "%s", FUZZ_KEYRING);
	slash = strrchr(src, '/');
	if (!slash)
		abort();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(slash, sizeof(src) - (size_t)(slash - src), "/corpus/index/%s.bin",
			 names[i][1]);
		snprintf(dst, sizeof(dst), "%s/modules.%s.bin", moddir, names[i][0]);
		if (index_check_file(src) != 0 || symlink(src, dst) < 0)
			abort();
	}
	conf_fd = memfd_create("modprobe.conf", 0);
	if (conf_fd < 0)
		abort();
	snprintf(conf, sizeof(conf), "/proc/self/fd/%d", conf_fd);
	/* kmod_new parses the configuration before a log function is set. */
	setenv("KMOD_LOG", "0", 1);
}

/*
 * Once: the context really reads the memfd and maps every index, so that
 * a harness that silently read nothing cannot pass for one that fuzzes.
 */
static void self_check(void)
{
	static const char line[] = "options mt_net fuzz_self_check=1\n";
	const char *paths[] = { conf, NULL };
	struct kmod_list *list = NULL;
	const char *opts = NULL;

	if (pwrite(conf_fd, line, sizeof(line) - 1, 0) != (ssize_t)sizeof(line) - 1)
		abort();
	struct kmod_ctx *ctx = kmod_new(moddir, paths);
	if (!ctx || kmod_load_resources(ctx) != 0 ||
	    kmod_module_new_from_lookup(ctx, "mt_net", &list) < 0 || !list)
		abort();
	struct kmod_module *m = kmod_module_get_module(list);
	opts = kmod_module_get_options(m);
	if (!opts || !strstr(opts, "fuzz_self_check=1"))
		abort();
	kmod_module_unref(m);
	kmod_module_unref_list(list);
	kmod_unref(ctx);
}

static void walk(struct kmod_config_iter *it)
{
	while (kmod_config_iter_next(it)) {
		const char *k = kmod_config_iter_get_key(it);
		const char *v = kmod_config_iter_get_value(it);
		if (k && strlen(k) == SIZE_MAX)
			abort();
		if (v && strlen(v) == SIZE_MAX)
			abort();
	}
	kmod_config_iter_free_iter(it);
}

static void look_up(struct kmod_ctx *ctx, const char *name)
{
	struct kmod_list *list = NULL, *l;

	if (kmod_module_new_from_lookup(ctx, name, &list) < 0)
		return;
	kmod_list_foreach(l, list)
	{
		struct kmod_module *m = kmod_module_get_module(l);
		struct kmod_list *pre = NULL, *post = NULL, *deps;
		const char *s;
		if ((s = kmod_module_get_options(m)) && strlen(s) == SIZE_MAX)
			abort();
		if ((s = kmod_module_get_install_commands(m)) && strlen(s) == SIZE_MAX)
			abort();
		if ((s = kmod_module_get_remove_commands(m)) && strlen(s) == SIZE_MAX)
			abort();
		if (kmod_module_get_softdeps(m, &pre, &post) == 0) {
			kmod_module_unref_list(pre);
			kmod_module_unref_list(post);
		}
		deps = kmod_module_get_dependencies(m);
		kmod_module_unref_list(deps);
		kmod_module_unref(m);
	}
	kmod_module_unref_list(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "mt_net",  "mt_snd",  "mt_inst",          "mt_blocked",
					     "mtblock", "fs-mtfs", "symbol:mt_core_fn" };
	const char *paths[] = { conf, NULL };

	if (!moddir[0]) {
		setup();
		self_check();
	}
	if (ftruncate(conf_fd, 0) < 0 || (size && pwrite(conf_fd, data, size, 0) != (ssize_t)size))
		abort();
	struct kmod_ctx *ctx = kmod_new(moddir, paths);
	if (!ctx)
		abort();
	kmod_set_log_fn(ctx, silent, NULL);
	kmod_load_resources(ctx);
	walk(kmod_config_get_blacklists(ctx));
	walk(kmod_config_get_install_commands(ctx));
	walk(kmod_config_get_remove_commands(ctx));
	walk(kmod_config_get_aliases(ctx));
	walk(kmod_config_get_options(ctx));
	walk(kmod_config_get_softdeps(ctx));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		look_up(ctx, names[i]);
	/* The first word of the input, as a name typed on the command line. */
	char word[64];
	size_t n = 0;
	while (n < size && n < sizeof(word) - 1 && data[n] > ' ' && data[n] < 0x7f)
		n++;
	memcpy(word, data, n);
	word[n] = '\0';
	if (n)
		look_up(ctx, word);
	kmod_unref(ctx);
	return 0;
}
