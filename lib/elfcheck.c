// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The structure checks the kernel's loader makes before it trusts a
 * module's headers (elf_validity_check and setup_load_info in Linux 6.1),
 * made on the raw bytes before libelf is handed the image: libelf trusts
 * offsets, counts and links, a hostile file does not deserve that. Sizes
 * add up without overflow, string tables end in a NUL, the one symbol
 * table is well formed, and no two sections share bytes.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct shdr {
	uint32_t name, type, link, info;
	uint64_t flags, offset, size, entsize;
};

struct image {
	const unsigned char *p;
	bool is64;
	uint64_t shoff;
	uint32_t shnum;
	struct elf_check *res;
};

/* The verdicts. Each returns 0: a verdict on the image is no failure to
 * check it (the only one is -ENOMEM). */
__attribute__((format(printf, 2, 3))) static int malformed(struct elf_check *res, const char *fmt,
							   ...)
{
	va_list ap;
	va_start(ap, fmt);
	res->verdict = ELF_CHECK_MALFORMED;
	vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
	return 0;
}

static int truncated(struct elf_check *res, uint64_t need, uint64_t have)
{
	res->verdict = ELF_CHECK_TRUNCATED;
	res->need = need;
	res->have = have;
	return 0;
}

/* Only called for i < shnum, whose headers were checked to lie in the image. */
static struct shdr shdr_at(const struct image *im, uint32_t i)
{
	const unsigned char *at = im->p + im->shoff +
				  (uint64_t)i * (im->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
	if (im->is64) {
		Elf64_Shdr h;
		memcpy(&h, at, sizeof(h));
		return (struct shdr){ h.sh_name,  h.sh_type,   h.sh_link, h.sh_info,
				      h.sh_flags, h.sh_offset, h.sh_size, h.sh_entsize };
	}
	Elf32_Shdr h;
	memcpy(&h, at, sizeof(h));
	return (struct shdr){ h.sh_name,  h.sh_type,   h.sh_link, h.sh_info,
			      h.sh_flags, h.sh_offset, h.sh_size, h.sh_entsize };
}

static bool has_bytes(const struct shdr *s)
{
	return s->type != SHT_NOBITS && s->type != SHT_NULL;
}

/* A string table is usable when it has bytes and its last one is NUL;
 * when not, the image is malformed, and what names the table. */
static bool string_table_ok(const struct image *im, const struct shdr *s, const char *what)
{
	if (!has_bytes(s) || s->size == 0)
		malformed(im->res, "%s is empty", what);
	else if (im->p[s->offset + s->size - 1] != '\0')
		malformed(im->res, "%s does not end in a NUL byte", what);
	return im->res->verdict == ELF_CHECK_OK;
}

struct extent {
	uint64_t start, end;
	uint32_t index; /* section index; UINT32_MAX: the ELF header, UINT32_MAX - 1: the table */
};

static int by_start(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static const char *extent_name(uint32_t index, char *buf, size_t len)
{
	if (index == UINT32_MAX)
		return "the ELF header";
	if (index == UINT32_MAX - 1)
		return "the section header table";
	snprintf(buf, len, "section %u", index);
	return buf;
}

/* By start, stably: a module's few dozen sections mostly lie in file order
 * already, where insertion is near linear and spares qsort's calls
 * through a pointer; qsort past that. */
static void sort_extents(struct extent *e, size_t n)
{
	if (n > 64) {
		qsort(e, n, sizeof(*e), by_start);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct extent v = e[i];
		size_t j = i;
		while (j > 0 && by_start(&e[j - 1], &v) > 0) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = v;
	}
}

/* Two sections (or a section and the headers) sharing bytes: a file made to
 * confuse whoever reads one of them. Sorted, so n log n. */
static int check_overlaps(const struct image *im, uint64_t ehsize, uint64_t table_end)
{
	struct extent *e = malloc(((size_t)im->shnum + 2) * sizeof(*e));
	size_t n = 0;
	if (!e)
		return -ENOMEM;
	e[n++] = (struct extent){ 0, ehsize, UINT32_MAX };
	e[n++] = (struct extent){ im->shoff, table_end, UINT32_MAX - 1 };
	for (uint32_t i = 1; i < im->shnum; i++) {
		struct shdr s = shdr_at(im, i);
		if (has_bytes(&s) && s.size > 0)
			e[n++] = (struct extent){ s.offset, s.offset + s.size, i };
	}
	sort_extents(e, n);
	for (size_t i = 1; i < n; i++) {
		if (e[i].start < e[i - 1].end) {
			char a[24], b[24];
			malformed(im->res, "%s and %s overlap",
				  extent_name(e[i - 1].index, a, sizeof(a)),
				  extent_name(e[i].index, b, sizeof(b)));
			break;
		}
	}
	free(e);
	return 0;
}

/* The one symbol table: entries of the right size, a NUL-terminated string
 * table behind sh_link, every name inside it. */
static int check_symtab(const struct image *im, uint32_t idx)
{
	struct elf_check *res = im->res;
	struct shdr s = shdr_at(im, idx);
	size_t entsize = im->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (s.entsize != entsize)
		return malformed(res, "the symbol table's entries are %llu bytes, not %zu",
				 (unsigned long long)s.entsize, entsize);
	if (s.size % entsize)
		return malformed(res, "the symbol table's size is not a whole number of entries");
	if (s.link == SHN_UNDEF || s.link >= im->shnum)
		return malformed(res,
				 "the symbol table's string table (sh_link %u) is not a section",
				 s.link);
	uint64_t nsyms = s.size / entsize;
	if (s.info > nsyms)
		return malformed(res,
				 "the symbol table's first global symbol (sh_info %u) is past its end",
				 s.info);
	struct shdr str = shdr_at(im, s.link);
	if (str.type != SHT_STRTAB)
		str.type = SHT_NULL; /* no string table: as one without bytes */
	if (!string_table_ok(im, &str, "the symbol table's string table"))
		return 0;
	/* Both classes' entries begin with st_name; st_shndx lies elsewhere in each. */
	size_t shndx_at = im->is64 ? offsetof(Elf64_Sym, st_shndx) : offsetof(Elf32_Sym, st_shndx);
	for (uint64_t i = 0; i < nsyms; i++) {
		uint32_t name;
		uint16_t shndx;
		const unsigned char *at = im->p + s.offset + i * entsize;
		memcpy(&name, at, sizeof(name));
		memcpy(&shndx, at + shndx_at, sizeof(shndx));
		if (name >= str.size)
			return malformed(res, "symbol %llu's name lies outside the string table",
					 (unsigned long long)i);
		if (shndx >= im->shnum && shndx < SHN_LORESERVE)
			return malformed(res, "symbol %llu is in section %u, which does not exist",
					 (unsigned long long)i, shndx);
	}
	res->symtab = idx;
	return 0;
}

static int check_sections(const struct image *im, uint32_t shstrndx)
{
	struct elf_check *res = im->res;
	struct shdr strs = shdr_at(im, shstrndx);
	if (!string_table_ok(im, &strs, "the section name table"))
		return 0;
	struct shdr zero = shdr_at(im, 0);
	if (zero.type != SHT_NULL || zero.size != 0)
		return malformed(res, "section 0 is not the null section");
	uint32_t symtabs = 0, symtab = 0;
	for (uint32_t i = 1; i < im->shnum; i++) {
		struct shdr s = shdr_at(im, i);
		if (s.name >= strs.size)
			return malformed(res,
					 "section %u's name lies outside the section name table", i);
		if (s.link >= im->shnum)
			return malformed(res, "section %u links to section %u, which does not exist",
					 i, s.link);
		if (s.type == SHT_REL || s.type == SHT_RELA) {
			size_t want = s.type == SHT_REL
					      ? (im->is64 ? sizeof(Elf64_Rel) : sizeof(Elf32_Rel))
					      : (im->is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela));
			if (s.info >= im->shnum)
				return malformed(res,
						 "section %u relocates section %u, which does not exist",
						 i, s.info);
			if (s.entsize != want || s.size % want)
				return malformed(res,
						 "section %u's relocations are not %zu-byte entries",
						 i, want);
		}
		if (s.type == SHT_SYMTAB) {
			symtabs++;
			symtab = i;
		}
		const char *name = (const char *)im->p + strs.offset + s.name;
		if (strcmp(name, ".modinfo") == 0) {
			if (!has_bytes(&s))
				return malformed(res, "the .modinfo section holds no data");
			if (s.size && im->p[s.offset + s.size - 1] != '\0')
				return malformed(res,
						 "the .modinfo section does not end in a NUL byte");
			res->modinfo = i;
		} else if (strcmp(name, ".gnu.linkonce.this_module") == 0) {
			if (!has_bytes(&s))
				return malformed(res,
						 "the .gnu.linkonce.this_module section holds no data");
			res->this_module = i;
		}
	}
	if (symtabs > 1)
		return malformed(res, "%u symbol tables; the kernel takes exactly one", symtabs);
	return symtabs == 1 ? check_symtab(im, symtab) : 0;
}

int elf_check_image(const void *image, size_t len, struct elf_check *res)
{
	struct image im = { .p = image, .res = res };
	memset(res, 0, sizeof(*res));

	/* Byte order was looked at by the caller: native order only. */
	if (len > EI_CLASS && im.p[EI_CLASS] != ELFCLASS32 && im.p[EI_CLASS] != ELFCLASS64)
		return malformed(res, "unknown ELF class %u", im.p[EI_CLASS]);
	im.is64 = len > EI_CLASS && im.p[EI_CLASS] == ELFCLASS64;
	size_t ehsize = im.is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t shentsize = im.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (len < ehsize)
		return truncated(res, ehsize, len);
	union {
		Elf32_Ehdr c32;
		Elf64_Ehdr c64;
	} eh;
	memcpy(&eh, image, ehsize);
	im.shoff = im.is64 ? eh.c64.e_shoff : eh.c32.e_shoff;
	uint16_t e_shentsize = im.is64 ? eh.c64.e_shentsize : eh.c32.e_shentsize;
	uint16_t e_shstrndx = im.is64 ? eh.c64.e_shstrndx : eh.c32.e_shstrndx;
	im.shnum = im.is64 ? eh.c64.e_shnum : eh.c32.e_shnum;
	/* The table's extent first: a table past the end is a truncated file. */
	uint64_t table = (uint64_t)im.shnum * (e_shentsize ? e_shentsize : shentsize), table_end;
	if (__builtin_add_overflow(im.shoff, table, &table_end) || table_end > len)
		return truncated(res, table_end < im.shoff ? UINT64_MAX : table_end, len);
	if (e_shentsize != shentsize)
		return malformed(res, "section headers are %u bytes, not %zu", e_shentsize,
				 shentsize);
	/* Extended numbering (e_shnum 0) is not something the kernel reads. */
	if (im.shnum == 0 || im.shoff == 0)
		return malformed(res, "no section header table");
	if (e_shstrndx >= im.shnum)
		return malformed(res, "the section name table's index %u is not a section",
				 e_shstrndx);
	for (uint32_t i = 0; i < im.shnum; i++) {
		struct shdr s = shdr_at(&im, i);
		uint64_t end;
		if (has_bytes(&s) && (__builtin_add_overflow(s.offset, s.size, &end) || end > len))
			return truncated(res, end < s.offset ? UINT64_MAX : end, len);
	}
	check_sections(&im, e_shstrndx);
	if (res->verdict != ELF_CHECK_OK)
		return 0;
	return check_overlaps(&im, ehsize, table_end);
}
