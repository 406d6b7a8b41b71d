// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the kernel reads from a module image: name, layout sizes, .modinfo,
 * symbols. Parsed by hand rather than with libelf because the preload is
 * mapped into every process a benchmark starts, and each extra library
 * costs start-up time in all of them.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modimage.h"

#define SIG_MARKER "~Module signature appended~\n"

static int in_bounds(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

const char *sim_modinfo_next(const struct sim_image *im, const char *key, const char *after)
{
	size_t kl = strlen(key);
	const char *p = after ? after + strlen(after) + 1 : im->modinfo;
	const char *end = im->modinfo + im->modinfo_len;
	while (p && p < end) {
		size_t rest = (size_t)(end - p);
		size_t l = strnlen(p, rest);
		if (l > kl && !strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
		p += l + 1;
	}
	return NULL;
}

const char *sim_modinfo_get(const struct sim_image *im, const char *key)
{
	return sim_modinfo_next(im, key, NULL);
}

static int add_sym(struct sim_image *im, const char *name, char type, uint64_t off, int undef)
{
	if (undef) {
		if (im->nundef % 32 == 0) {
			const char **n = realloc(im->undef, (im->nundef + 32) * sizeof(*n));
			if (!n)
				return -ENOMEM;
			im->undef = n;
		}
		im->undef[im->nundef++] = name;
		return 0;
	}
	if (im->ndefs % 32 == 0) {
		struct sim_sym *n = realloc(im->defs, (im->ndefs + 32) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		im->defs = n;
	}
	im->defs[im->ndefs++] = (struct sim_sym){ .name = name, .type = type, .off = off };
	return 0;
}

/* include/uapi/linux/elf.h: the kernel's own mark for .data..ro_after_init and __jump_table */
#define SIM_SHF_RO_AFTER_INIT 0x00200000ull
#define SIM_PAGE_SIZE 4096ull

/*
 * Linux 6.12's __layout_sections() (kernel/module/main.c), core then init:
 * five passes by flags (ARCH_SHF_SMALL is 0 on x86_64), each section going
 * to the memory type of the first pass it matches, at its alignment
 * (module_get_offset_and_type; arch_mod_section_prepend is 0 on x86).
 * flags[i] is what layout_and_allocate() left in sh_flags, 0 for a section
 * that is not laid out; a section laid out here gets 0. An init section
 * matching the ro_after_init pass maps to MOD_INVALID there and is
 * skipped (WARN_ON_ONCE), so a later pass takes it, as in the kernel.
 */
static void layout_612(const Elf64_Shdr *sh, unsigned shnum, const char *names, uint64_t *flags,
		       uint64_t mem[SIM_MOD_MEM_NUM_TYPES])
{
	static const uint64_t masks[5][2] = {
		{ SHF_EXECINSTR | SHF_ALLOC, 0 },
		{ SHF_ALLOC, SHF_WRITE },
		{ SIM_SHF_RO_AFTER_INIT | SHF_ALLOC, 0 },
		{ SHF_WRITE | SHF_ALLOC, 0 },
		{ SHF_ALLOC, 0 },
	};
	static const int core_type[5] = { SIM_MOD_TEXT, SIM_MOD_RODATA, SIM_MOD_RO_AFTER_INIT, SIM_MOD_DATA,
					  SIM_MOD_DATA };
	static const int init_type[5] = { SIM_MOD_INIT_TEXT, SIM_MOD_INIT_RODATA, -1, SIM_MOD_INIT_DATA,
					  SIM_MOD_INIT_DATA };
	for (int is_init = 0; is_init <= 1; is_init++) {
		for (unsigned m = 0; m < 5; m++) {
			int type = is_init ? init_type[m] : core_type[m];
			for (unsigned i = 1; i < shnum && type >= 0; i++) {
				int init_sec = !strncmp(names + sh[i].sh_name, ".init", 5);
				if (!flags[i] || (flags[i] & masks[m][0]) != masks[m][0] ||
				    (flags[i] & masks[m][1]) || init_sec != is_init)
					continue;
				uint64_t align = sh[i].sh_addralign ? sh[i].sh_addralign : 1;
				mem[type] = (mem[type] + align - 1) / align * align + sh[i].sh_size;
				flags[i] = 0;
			}
		}
	}
}

void sim_image_sizes(const struct sim_image *im, int linux612, uint64_t *core, uint64_t *init)
{
	if (!linux612) {
		*core = im->core;
		*init = im->init;
		return;
	}
	/* move_module(): each type that has bytes is its own area of
	 * PAGE_ALIGN(size) (module_memory_alloc), and /proc/modules sums them
	 * (module_total_size) */
	*core = *init = 0;
	for (int t = 0; t < SIM_MOD_MEM_NUM_TYPES; t++) {
		uint64_t bytes = (im->mem[t] + SIM_PAGE_SIZE - 1) / SIM_PAGE_SIZE * SIM_PAGE_SIZE;
		if (t >= SIM_MOD_INIT_TEXT)
			*init += bytes;
		else
			*core += bytes;
	}
}

void sim_image_free(struct sim_image *im)
{
	free(im->undef);
	free(im->defs);
	free(im->coreoff);
	memset(im, 0, sizeof(*im));
}

int sim_image_parse(const void *image, size_t len, struct sim_image *im)
{
	const unsigned char *base = image;
	memset(im, 0, sizeof(*im));

	size_t ml = sizeof(SIG_MARKER) - 1;
	if (len > ml && !memcmp(base + len - ml, SIG_MARKER, ml))
		im->is_signed = 1;
	if (len < sizeof(Elf64_Ehdr))
		return -ENOEXEC;
	const Elf64_Ehdr *eh = image;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_X86_64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
	    !in_bounds(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) || eh->e_shoff % 8)
		return -ENOEXEC;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (unsigned i = 1; i < eh->e_shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS && !in_bounds(len, sh[i].sh_offset, sh[i].sh_size))
			return -ENOEXEC;
	const Elf64_Shdr *shstr = &sh[eh->e_shstrndx];
	const char *names = (const char *)base + shstr->sh_offset;
	if (shstr->sh_size == 0 || names[shstr->sh_size - 1] != '\0')
		return -ENOEXEC;

	im->coreoff = calloc(eh->e_shnum, sizeof(uint64_t));
	if (!im->coreoff)
		return -ENOMEM;
	uint64_t *flags = calloc(eh->e_shnum, sizeof(uint64_t)); /* for layout_612() */
	if (!flags)
		return -ENOMEM;
	const Elf64_Shdr *symtab = NULL, *this_module = NULL;
	int pcpu_seen = 0, ro_after_init_seen = 0, jump_table_seen = 0;
	for (unsigned i = 1; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= shstr->sh_size) {
			free(flags);
			return -ENOEXEC;
		}
		const char *sn = names + sh[i].sh_name;
		if (!strcmp(sn, ".modinfo")) {
			im->modinfo = (const char *)base + sh[i].sh_offset;
			im->modinfo_len = sh[i].sh_size;
		} else if (!strcmp(sn, ".gnu.linkonce.this_module")) {
			this_module = &sh[i];
		} else if (!strcmp(sn, "__versions")) {
			im->has_crcs = 1;
		}
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
		/* rewrite_section_headers() drops SHF_ALLOC from .modinfo and __versions */
		if (!(sh[i].sh_flags & SHF_ALLOC) || !strcmp(sn, ".modinfo") || !strcmp(sn, "__versions"))
			continue;
		/* find_pcpusec(): allocated from the per-CPU reserve, not with the core */
		if (!pcpu_seen && !strcmp(sn, ".data..percpu")) {
			pcpu_seen = 1; /* the first of that name only, as find_sec() */
			im->pcpu_size = sh[i].sh_size;
			im->pcpu_align = sh[i].sh_addralign;
			continue;
		}
		/* layout_and_allocate(): find_sec() marks the first of each */
		flags[i] = sh[i].sh_flags;
		if ((!ro_after_init_seen && !strcmp(sn, ".data..ro_after_init")) ||
		    (!jump_table_seen && !strcmp(sn, "__jump_table"))) {
			ro_after_init_seen |= !strcmp(sn, ".data..ro_after_init");
			jump_table_seen |= !strcmp(sn, "__jump_table");
			flags[i] |= SIM_SHF_RO_AFTER_INIT;
		}
		uint64_t align = sh[i].sh_addralign ? sh[i].sh_addralign : 1;
		if (!strncmp(sn, ".init", 5)) {
			im->init = (im->init + align - 1) / align * align + sh[i].sh_size;
		} else {
			im->core = (im->core + align - 1) / align * align;
			im->coreoff[i] = im->core;
			im->core += sh[i].sh_size;
		}
	}
	layout_612(sh, eh->e_shnum, names, flags, im->mem);
	free(flags);
	/* setup_load_info(): no this_module section, no module */
	if (!this_module || this_module->sh_type == SHT_NOBITS || this_module->sh_size < 24 + SIM_NAME_LEN)
		return -ENOEXEC;
	if (!symtab)
		return -ENOEXEC; /* "module has no symbols (stripped?)" */

	const char *name = im->modinfo ? sim_modinfo_get(im, "name") : NULL;
	if (!name) {
		const char *n = (const char *)base + this_module->sh_offset + 24;
		size_t l = strnlen(n, SIM_NAME_LEN);
		if (l == 0 || l == SIM_NAME_LEN)
			return -ENOEXEC;
		name = n;
	}
	size_t nl = strlen(name);
	if (nl == 0 || nl >= SIM_NAME_LEN)
		return -ENOEXEC;
	memcpy(im->name, name, nl + 1);

	if (symtab->sh_link >= eh->e_shnum || symtab->sh_entsize != sizeof(Elf64_Sym))
		return -ENOEXEC;
	const Elf64_Shdr *strtab = &sh[symtab->sh_link];
	const char *strs = (const char *)base + strtab->sh_offset;
	if (strtab->sh_size == 0 || strs[strtab->sh_size - 1] != '\0')
		return -ENOEXEC;
	const Elf64_Sym *syms = (const Elf64_Sym *)(base + symtab->sh_offset);
	size_t nsyms = symtab->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 1; i < nsyms; i++) {
		unsigned bind = ELF64_ST_BIND(syms[i].st_info), type = ELF64_ST_TYPE(syms[i].st_info);
		if (syms[i].st_name >= strtab->sh_size)
			return -ENOEXEC;
		const char *sn = strs + syms[i].st_name;
		if (!*sn || (bind != STB_GLOBAL && bind != STB_WEAK) || type == STT_SECTION || type == STT_FILE)
			continue;
		unsigned shndx = syms[i].st_shndx;
		if (shndx == SHN_UNDEF) {
			if (add_sym(im, sn, 'U', 0, 1))
				return -ENOMEM;
			continue;
		}
		if (shndx >= eh->e_shnum)
			continue;
		if (!strcmp(sn, "init_module"))
			im->has_init = 1;
		else if (!strcmp(sn, "cleanup_module"))
			im->has_exit = 1;
		const char *secname = names + sh[shndx].sh_name;
		/* init symbols are gone from kallsyms once init has run */
		if (!(sh[shndx].sh_flags & SHF_ALLOC) || !strncmp(secname, ".init", 5) ||
		    !strcmp(secname, ".gnu.linkonce.this_module"))
			continue;
		char t = (sh[shndx].sh_flags & SHF_EXECINSTR) ? 'T' :
			 sh[shndx].sh_type == SHT_NOBITS ? 'B' :
			 (sh[shndx].sh_flags & SHF_WRITE) ? 'D' : 'R';
		if (add_sym(im, sn, t, im->coreoff[shndx] + syms[i].st_value, 0))
			return -ENOMEM;
	}
	return 0;
}
