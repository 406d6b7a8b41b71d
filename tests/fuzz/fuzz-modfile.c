// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module file, plain or compressed, read and preflighted as insmod
 * --check would on a 6.1.0-sim x86_64 kernel that checks signatures.
 * Everything the modfile hands out is read whole, so that ASan sees any
 * pointer that strays outside the image.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "modrot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rot_symbols *kernel_symbols;

static void touch(const char *s)
{
	if (s)
		(void)strlen(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!kernel_symbols && (rot_symbols_new(&kernel_symbols) < 0 ||
				rot_symbols_add(kernel_symbols, "printk") < 0))
		abort();
	struct rot_modfile *mf;
	if (modfile_parse("fuzz.ko", data, size, &mf) < 0)
		return 0;
	touch(rot_modfile_name(mf));
	touch(modfile_vermagic(mf));
	touch(rot_modfile_problem_text(mf));
	static const char *const keys[] = { "alias", "depends", "parm", "license", "name" };
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const char *cursor = NULL, *v;
		while ((v = rot_modfile_modinfo_next(mf, keys[k], &cursor)))
			touch(v);
	}
	for (size_t i = 0; i < rot_modfile_undefined_count(mf); i++)
		touch(rot_modfile_undefined(mf, i));
	for (size_t i = 0; i < rot_modfile_defined_count(mf); i++)
		touch(rot_modfile_defined(mf, i));
	size_t len;
	const unsigned char *img = rot_modfile_image(mf, &len);
	if (len && img)
		(void)img[len - 1];

	/* By hand (internal.h): the simulated kernel's facts, whatever runs the fuzzer. */
	struct rot_kernel_facts k = { .release = "6.1.0-sim", .elf_class = ELFCLASS64,
				      .elf_machine = EM_X86_64, .sig_support = true,
				      .vermagic = "6.1.0-sim SMP preempt mod_unload modversions " };
	struct rot_preflight *pf;
	if (rot_preflight_new(&k, &pf) == 0) {
		rot_preflight_set_kernel_symbols(pf, kernel_symbols);
		if (rot_preflight_check(pf, mf) == 0) {
			touch(rot_preflight_module_text(pf));
			touch(rot_preflight_kernel_text(pf));
			for (size_t i = 0; i < rot_preflight_missing_count(pf); i++)
				touch(rot_preflight_missing(pf, i));
		}
		rot_preflight_free(pf);
	}
	rot_modfile_free(mf);
	return 0;
}
