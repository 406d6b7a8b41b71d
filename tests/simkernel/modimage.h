/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SIMKERNEL_MODIMAGE_H
#define SIMKERNEL_MODIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "sim.h"

struct sim_sym {
	const char *name;
	char type;
	uint64_t off; /* from the core base */
};

/* Pointers point into the image, which must outlive this. */
struct sim_image {
	char name[SIM_NAME_LEN];
	uint64_t core, init;
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
void sim_image_free(struct sim_image *im);
const char *sim_modinfo_get(const struct sim_image *im, const char *key);
const char *sim_modinfo_next(const struct sim_image *im, const char *key, const char *after);

/* params.c: parse_args() for one module. *out: NULL-terminated "P=VALUE" */
int sim_params_apply(const struct sim_image *im, const char *args, char ***out);
void sim_params_free(char **v);

/* render.c */
int sim_base_symbol(const char *name);

#endif
