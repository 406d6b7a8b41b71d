// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * index_check_image (lib/internal.h: depmod's binary indexes, before libkmod reads them):
 * an index it accepts, libkmod 30 reads whole without a fault or a hang.
 * Each accepted input is written as modules.dep.bin of a private
 * directory, and libkmod dumps every node and value of it, through the
 * mmap reader (kmod_load_resources) and the stdio one, and looks up a key.
 * index_check_file must agree with index_check_image.
 */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-tmpdir.h"
#include "internal.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];
static int devnull = -1;

static void silent(void *d, int priority, const char *f, int line, const char *fn,
		   const char *format, va_list args)
{
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz-index.XXXXXX", base);
	if (!fuzz_tmpdir(dir))
		abort();
	snprintf(file, sizeof(file), "%s/modules.dep.bin", dir);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		abort();
}

static void through_libkmod(const uint8_t *data, size_t size, int mapped)
{
	static const char *const no_config[] = { NULL };
	struct kmod_ctx *ctx = kmod_new(dir, no_config);
	struct kmod_list *list = NULL;
	char key[32];

	if (!ctx)
		abort();
	kmod_set_log_fn(ctx, silent, NULL);
	if (mapped)
		kmod_load_resources(ctx);
	kmod_dump_index(ctx, KMOD_INDEX_MODULES_DEP, devnull);
	/* A key from the input's last bytes: lookups walk one path. */
	size_t n = size < sizeof(key) - 1 ? size : sizeof(key) - 1;
	for (size_t i = 0; i < n; i++)
		key[i] = (char)(data[size - n + i] & 0x7f) ?: 'a';
	key[n] = '\0';
	if (kmod_module_new_from_lookup(ctx, key, &list) == 0)
		kmod_module_unref_list(list);
	kmod_unref(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (devnull < 0)
		setup();
	int err = index_check_image(data, size);
	if (err != 0 && err != -EINVAL && err != -EFBIG)
		abort();
	if (err)
		return 0;

	FILE *f = fopen(file, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (index_check_file(file) != 0)
		abort();
	through_libkmod(data, size, 1);
	through_libkmod(data, size, 0);
	unlink(file);
	return 0;
}
