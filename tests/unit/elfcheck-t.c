// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lib/elfcheck.c on its own: the ELF header and section table checks that
 * run before anything trusts a module image, each refusal with its words.
 * The symbol-table and overlap siblings are in tests/unit/modfile-t.c,
 * through modfile_parse().
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

static Elf64_Ehdr *ehdr(unsigned char *img)
{
	return (Elf64_Ehdr *)img;
}

static Elf64_Shdr *shdr(unsigned char *img, unsigned i)
{
	return (Elf64_Shdr *)(img + ehdr(img)->e_shoff) + i;
}

static unsigned section(unsigned char *img, const char *name)
{
	const char *names = (const char *)img + shdr(img, ehdr(img)->e_shstrndx)->sh_offset;
	for (unsigned i = 0; i < ehdr(img)->e_shnum; i++)
		if (strcmp(names + shdr(img, i)->sh_name, name) == 0)
			return i;
	return 0;
}

static struct elf_check check(const unsigned char *img, size_t len)
{
	struct elf_check res;
	if (elf_check_image(img, len, &res) < 0)
		res.verdict = (enum elf_check_verdict)-1;
	return res;
}

static void a_good_module_passes_and_its_sections_are_found(const unsigned char *img,
							     size_t len)
{
	unsigned char *copy = malloc(len);
	memcpy(copy, img, len);
	struct elf_check res = check(copy, len);
	is_int(res.verdict, ELF_CHECK_OK, "alpha.ko passes");
	is_int(res.symtab, section(copy, ".symtab"), "the symbol table's index");
	is_int(res.modinfo, section(copy, ".modinfo"), "the .modinfo index");
	is_int(res.this_module, section(copy, ".gnu.linkonce.this_module"),
	       "the this_module index");
	is_str(res.reason, "", "no reason when it passes");
	free(copy);
}

/* Each header field the kernel reads, broken one at a time. */
static void header_fields_are_checked(const unsigned char *img, size_t len)
{
	unsigned char *c = malloc(len);
	struct elf_check res;

	memcpy(c, img, len);
	c[EI_CLASS] = 7;
	res = check(c, len);
	is_int(res.verdict, ELF_CHECK_MALFORMED, "an unknown class");
	is_str(res.reason, "unknown ELF class 7", "named with its value");

	res = check(img, sizeof(Elf64_Ehdr) - 1);
	is_int(res.verdict, ELF_CHECK_TRUNCATED, "shorter than its header");
	ok(res.need == sizeof(Elf64_Ehdr) && res.have == sizeof(Elf64_Ehdr) - 1,
	   "needs the header's 64 bytes, has 63");

	memcpy(c, img, len);
	ehdr(c)->e_shentsize = 32;
	res = check(c, len);
	is_int(res.verdict, ELF_CHECK_MALFORMED, "section headers of the wrong size");
	is_str(res.reason, "section headers are 32 bytes, not 64", "named");

	memcpy(c, img, len);
	ehdr(c)->e_shnum = 0;
	res = check(c, len);
	is_str(res.reason, "no section header table", "e_shnum 0 (extended numbering)");

	memcpy(c, img, len);
	ehdr(c)->e_shstrndx = ehdr(c)->e_shnum;
	res = check(c, len);
	ok(res.verdict == ELF_CHECK_MALFORMED &&
		   strstr(res.reason, "the section name table's index") != NULL,
	   "e_shstrndx past the table: %s", res.reason);

	memcpy(c, img, len);
	ehdr(c)->e_shoff = len;
	res = check(c, len);
	is_int(res.verdict, ELF_CHECK_TRUNCATED, "a section table past the end");
	ok(res.have == len, "has the image's length");

	memcpy(c, img, len);
	ehdr(c)->e_shoff = ~(Elf64_Off)0 - 8;
	res = check(c, len);
	ok(res.verdict == ELF_CHECK_TRUNCATED && res.need == UINT64_MAX,
	   "a table offset that wraps needs more than 64 bits can say");
	free(c);
}

static void sections_are_checked(const unsigned char *img, size_t len)
{
	unsigned char *c = malloc(len);
	struct elf_check res;

	memcpy(c, img, len);
	shdr(c, 0)->sh_type = SHT_PROGBITS;
	res = check(c, len);
	is_str(res.reason, "section 0 is not the null section", "section 0 must be null");

	memcpy(c, img, len);
	unsigned text = section(c, ".text");
	shdr(c, text)->sh_name = (Elf64_Word)shdr(c, ehdr(c)->e_shstrndx)->sh_size;
	res = check(c, len);
	ok(strstr(res.reason, "name lies outside the section name table") != NULL,
	   "a section name past the name table: %s", res.reason);

	memcpy(c, img, len);
	Elf64_Shdr *names = shdr(c, ehdr(c)->e_shstrndx);
	c[names->sh_offset + names->sh_size - 1] = 'x';
	res = check(c, len);
	is_str(res.reason, "the section name table does not end in a NUL byte",
	       "an unterminated name table");

	memcpy(c, img, len);
	shdr(c, section(c, ".modinfo"))->sh_type = SHT_NOBITS;
	res = check(c, len);
	is_str(res.reason, "the .modinfo section holds no data", "a .modinfo of no bytes (NOBITS)");

	memcpy(c, img, len);
	shdr(c, section(c, ".gnu.linkonce.this_module"))->sh_type = SHT_NOBITS;
	res = check(c, len);
	is_str(res.reason, "the .gnu.linkonce.this_module section holds no data",
	       "and its sibling, this_module");

	memcpy(c, img, len);
	Elf64_Shdr *data = shdr(c, section(c, ".data"));
	data->sh_size = len;
	res = check(c, len);
	is_int(res.verdict, ELF_CHECK_TRUNCATED, "a section past the end of the image");
	free(c);
}

int main(void)
{
	size_t len = 0;
	unsigned char *img = tap_fixture("alpha.ko", &len);
	if (!ok(img != NULL && len > sizeof(Elf64_Ehdr), "alpha.ko fixture read (top_builddir set)"))
		return tap_done();
	a_good_module_passes_and_its_sections_are_found(img, len);
	header_fields_are_checked(img, len);
	sections_are_checked(img, len);
	free(img);
	return tap_done();
}
