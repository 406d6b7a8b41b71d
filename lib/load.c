// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "dl-kmod.h"
#include "modrot.h"

struct rot_loader {
	struct kmod_ctx *ctx;
};

/* The tool reports each failure once, in its own words. */
static void silent(void *data, int priority, const char *file, int line, const char *fn,
		   const char *format, va_list args)
{
}

int rot_loader_new(struct rot_loader **out)
{
	/* No configuration: insmod, unlike modprobe, reads no modprobe.d. */
	static const char *const no_config[] = { NULL };
	int err = dl_kmod();
	if (err < 0)
		return err;
	struct rot_loader *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->ctx = kmod_new(NULL, no_config);
	if (!l->ctx) {
		free(l);
		return -ENOMEM;
	}
	kmod_set_log_fn(l->ctx, silent, NULL);
	*out = l;
	return 0;
}

void rot_loader_free(struct rot_loader *l)
{
	if (!l)
		return;
	kmod_unref(l->ctx);
	free(l);
}

static int insert_path(struct rot_loader *l, const char *path, const char *params, unsigned flags)
{
	struct kmod_module *mod;
	int err = kmod_module_new_from_path(l->ctx, path, &mod);
	if (err < 0)
		return err;
	unsigned kflags = 0;
	if (flags & ROT_LOAD_FORCE_VERMAGIC)
		kflags |= KMOD_INSERT_FORCE_VERMAGIC;
	if (flags & ROT_LOAD_FORCE_MODVERSION)
		kflags |= KMOD_INSERT_FORCE_MODVERSION;
	err = kmod_module_insert_module(mod, kflags, params ? params : "");
	kmod_module_unref(mod);
	return err;
}

/* libc has it (glibc and musl alike) but no header declares it. */
int init_module(void *image, unsigned long len, const char *params);

static int insert_image(const struct rot_modfile *mf, const char *params)
{
	size_t len;
	const void *image = rot_modfile_image(mf, &len);
	if (rot_modfile_problem(mf) != ROT_PROBLEM_NONE || !image || len == 0)
		return -ENOEXEC;
	/* libc's init_module(), as libkmod calls it, not syscall(): a test
	 * harness that stands in for the kernel (kmod's testsuite, the
	 * simulator) interposes the function, and may not know the number. */
	if (init_module((void *)image, (unsigned long)len, params ? params : "") == 0)
		return 0;
	return -errno;
}

int rot_loader_load(struct rot_loader *l, const char *path, const struct rot_modfile *mf,
		    const char *params, unsigned flags)
{
	if (!mf)
		return l && path ? insert_path(l, path, params, flags) : -EINVAL;
	/* forcing rewrites the image: what was checked would not be what loads */
	return flags ? -EINVAL : insert_image(mf, params);
}

bool rot_loader_can_read(struct rot_loader *l, const char *path)
{
	struct kmod_module *mod;
	struct kmod_list *info = NULL;
	if (kmod_module_new_from_path(l->ctx, path, &mod) < 0)
		return false;
	int n = kmod_module_get_info(mod, &info);
	kmod_module_info_free_list(info);
	kmod_module_unref(mod);
	return n > 0;
}
