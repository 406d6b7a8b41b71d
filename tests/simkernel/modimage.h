/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SIMKERNEL_MODIMAGE_H
#define SIMKERNEL_MODIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* Linux 6.12's enum mod_mem_type (include/linux/module.h) */
enum sim_mem_type { SIM_MOD_TEXT = 0, SIM_MOD_DATA, SIM_MOD_RODATA, SIM_MOD_RO_AFTER_INIT, SIM_MOD_INIT_TEXT,
		    SIM_MOD_INIT_DATA, SIM_MOD_INIT_RODATA, SIM_MOD_MEM_NUM_TYPES };

struct sim_sym {
	const char *name;
	char type;
	uint64_t off; /* from the core base */
};

/* Pointers point into the image, which must outlive this. */
struct sim_image {
	char name[SIM_NAME_LEN];
	uint64_t core, init; /* Linux 6.1's model: sections summed in file order */
	uint64_t mem[SIM_MOD_MEM_NUM_TYPES]; /* Linux 6.12's, per memory type, before PAGE_ALIGN */
	uint64_t pcpu_size, pcpu_align; /* .data..percpu: sh_size and sh_addralign */
	const char *modinfo;
	size_t modinfo_len;
	int has_init, has_exit, is_signed, has_crcs;
	const char **undef;
	size_t nundef;
	struct sim_sym *defs;
	size_t ndefs;
	uint64_t *coreoff;
};

int sim_image_parse(const void *image, size_t len, struct sim_image *im);
/* The core and init SIZE the simulated kernel gives the image (SIM_CFG_LINUX_612: 6.12's) */
void sim_image_sizes(const struct sim_image *im, int linux612, uint64_t *core, uint64_t *init);
void sim_image_free(struct sim_image *im);
const char *sim_modinfo_get(const struct sim_image *im, const char *key);
const char *sim_modinfo_next(const struct sim_image *im, const char *key, const char *after);

/* params.c: parse_args() for one module. *out: NULL-terminated "P=VALUE" */
int sim_params_apply(const struct sim_image *im, const char *args, char ***out);
void sim_params_free(char **v);

/* render.c */
int sim_base_symbol(const char *name);

#endif
