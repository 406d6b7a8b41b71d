// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Module names and aliases as typed: rot_name_normalise (what a tool lets
 * through as a module name) and libkmod's lookup of the same text as an
 * alias, over the committed seed indexes (corpus/index: the test tree's
 * modules.dep.bin, modules.alias.bin, modules.symbols.bin).
 *
 * An accepted name is 1..ROT_NAME_MAX bytes of printable ASCII without a
 * blank, '/' or '-', neither "." nor ".."; it is the typed basename less
 * its module extension with '-' as '_'; and DIR/NAME.ko names it again.
 */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-tmpdir.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct kmod_ctx *ctx;

static void silent(void *d, int priority, const char *f, int line, const char *fn,
		   const char *format, va_list args)
{
}

/* A module directory holding the seed indexes, found beside FUZZ_KEYRING. */
static void setup(void)
{
	static const char *const no_config[] = { NULL };
	static const char *const names[] = { "dep", "alias", "symbols" };
	static char dir[] = "/tmp/fuzz-name.XXXXXX";
	char src[PATH_MAX], dst[PATH_MAX], *slash;

	if (!fuzz_tmpdir(dir))
		abort();
	snprintf(src, sizeof(src), "%s", FUZZ_KEYRING);
	slash = strrchr(src, '/');
	if (!slash)
		abort();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(slash, sizeof(src) - (size_t)(slash - src), "/corpus/index/%s.bin",
			 names[i]);
		snprintf(dst, sizeof(dst), "%s/modules.%s.bin", dir, names[i]);
		if (symlink(src, dst) < 0)
			abort();
	}
	ctx = kmod_new(dir, no_config);
	if (!ctx)
		abort();
	kmod_set_log_fn(ctx, silent, NULL);
	kmod_load_resources(ctx);
}

static void check_name(const char *typed)
{
	char buf[ROT_NAME_MAX + 1], again[ROT_NAME_MAX + 1], path[ROT_NAME_MAX + 8];
	int err = rot_name_normalise(typed, buf);

	if (err == -EINVAL || err == -ENAMETOOLONG)
		return;
	if (err)
		abort();
	size_t len = strlen(buf);
	if (len == 0 || len > ROT_NAME_MAX || !strcmp(buf, ".") || !strcmp(buf, ".."))
		abort();
	for (size_t i = 0; i < len; i++)
		if (buf[i] <= ' ' || buf[i] >= 0x7f || buf[i] == '/' || buf[i] == '-')
			abort();
	const char *base = strrchr(typed, '/');
	base = base ? base + 1 : typed;
	for (size_t i = 0; i < len; i++)
		if (buf[i] != (base[i] == '-' ? '_' : base[i]))
			abort();
	snprintf(path, sizeof(path), "d/%s.ko", buf);
	if (rot_name_normalise(path, again) != 0 || strcmp(again, buf))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmod_list *list = NULL, *l;
	char *typed = strndup((const char *)data, size);

	if (!typed)
		abort();
	if (!ctx)
		setup();
	check_name(typed);
	/* libkmod's lookup of any text: an alias, a symbol:, a name. */
	if (kmod_module_new_from_lookup(ctx, typed, &list) == 0) {
		kmod_list_foreach(l, list)
		{
			struct kmod_module *m = kmod_module_get_module(l);
			if (!kmod_module_get_name(m))
				abort();
			kmod_module_unref(m);
		}
		kmod_module_unref_list(list);
	}
	free(typed);
	return 0;
}
