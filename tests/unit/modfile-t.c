// SPDX-License-Identifier: GPL-2.0-or-later
/* Module files: ELF structure checks, decompression limits, vermagic. */
#include <elf.h>
#include <errno.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "internal.h"
#include "modrot.h"
#include "tap.h"

static Elf64_Shdr *shdr(unsigned char *img, unsigned i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	return (Elf64_Shdr *)(img + eh->e_shoff) + i;
}

static unsigned section(unsigned char *img, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	const char *names = (const char *)img + shdr(img, eh->e_shstrndx)->sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + shdr(img, i)->sh_name, name) == 0)
			return i;
	return 0;
}

static enum rot_problem problem_of(const unsigned char *img, size_t len, char *text, size_t tl)
{
	struct rot_modfile *mf;
	if (modfile_parse("t.ko", img, len, &mf) < 0)
		return (enum rot_problem)-1;
	enum rot_problem p = rot_modfile_problem(mf);
	snprintf(text, tl, "%s", rot_modfile_problem_text(mf));
	rot_modfile_free(mf);
	return p;
}

static void elf_structure_is_checked(void)
{
	size_t len;
	unsigned char *img = tap_fixture("alpha.ko", &len), *copy = malloc(len);
	char why[128];
	if (!ok(img != NULL, "alpha.ko fixture read (top_builddir set)"))
		return;
	is_int(problem_of(img, len, why, sizeof(why)), ROT_PROBLEM_NONE, "alpha.ko is a good module");

	/* The heap overflow: two symbol tables, each collected into arrays sized for one. */
	memcpy(copy, img, len);
	*shdr(copy, section(copy, ".comment")) = *shdr(copy, section(copy, ".symtab"));
	is_int(problem_of(copy, len, why, sizeof(why)), ROT_PROBLEM_MALFORMED_ELF, "two SHT_SYMTAB");
	is_str(why, "2 symbol tables; the kernel takes exactly one", "named");

	memcpy(copy, img, len);
	shdr(copy, section(copy, ".symtab"))->sh_entsize = 16;
	problem_of(copy, len, why, sizeof(why));
	is_str(why, "the symbol table's entries are 16 bytes, not 24", "symtab sh_entsize 16");

	memcpy(copy, img, len);
	shdr(copy, section(copy, ".strtab"))->sh_size = 0;
	problem_of(copy, len, why, sizeof(why));
	is_str(why, "the symbol table's string table is empty", "empty .strtab");

	memcpy(copy, img, len);
	shdr(copy, section(copy, ".symtab"))->sh_link = 0;
	problem_of(copy, len, why, sizeof(why));
	is_str(why, "the symbol table's string table (sh_link 0) is not a section", "sh_link 0");

	memcpy(copy, img, len);
	shdr(copy, section(copy, ".data"))->sh_offset = ~(Elf64_Off)0 - 16;
	struct rot_modfile *mf;
	modfile_parse("t.ko", copy, len, &mf);
	is_int(rot_modfile_problem(mf), ROT_PROBLEM_TRUNCATED, "an offset that wraps is past the end");
	ok(rot_modfile_problem_expected(mf) == UINT64_MAX, "and needs more than 64 bits can say");
	rot_modfile_free(mf);

	memcpy(copy, img, len);
	Elf64_Shdr *data = shdr(copy, section(copy, ".data"));
	data->sh_offset = shdr(copy, section(copy, ".text"))->sh_offset;
	problem_of(copy, len, why, sizeof(why));
	ok(strstr(why, "overlap") != NULL, "overlapping sections: %s", why);

	memcpy(copy, img, len);
	Elf64_Shdr *mi = shdr(copy, section(copy, ".modinfo"));
	copy[mi->sh_offset + mi->sh_size - 1] = 'x';
	problem_of(copy, len, why, sizeof(why));
	is_str(why, "the .modinfo section does not end in a NUL byte", "unterminated .modinfo");

	/* Every prefix of a good module is refused, never read past. */
	int all = 1;
	for (size_t cut = 0; cut < len; cut += 7)
		all &= problem_of(img, cut, why, sizeof(why)) != ROT_PROBLEM_NONE;
	ok(all, "every truncation of alpha.ko is refused");
	free(copy);
	free(img);
}

/* buf holds one stream of len bytes and room for a second: the same
 * stream twice decompresses whole, to want bytes. */
static void twice_is_whole(enum rot_compression c, unsigned char *buf, size_t len, size_t want,
			   const char *what)
{
	void *out = NULL;
	size_t out_len = 0;
	memcpy(buf + len, buf, len);
	char says[128];
	int err = decompress_whole(c, buf, 2 * len, 8 << 20, &out, &out_len);
	snprintf(says, sizeof(says), "%s decompress", what);
	is_int(err, 0, says);
	snprintf(says, sizeof(says), "%s, whole", what);
	is_int(err == 0 ? out_len : 0, want, says);
	if (err == 0)
		free(out);
}

static void decompression_is_bounded(void)
{
	size_t n = 4 << 20;
	unsigned char *zeros = calloc(1, n), *packed = malloc(n);
	void *out;
	size_t out_len, plen = 0;

	lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, zeros, n, packed, &plen, n);
	is_int(decompress_whole(ROT_COMP_XZ, packed, plen, 1 << 20, &out, &out_len), -EFBIG,
	       "xz: 4 MiB of zeros against a 1 MiB limit");
	/* Its index lies (says 0x1f0 bytes) once its CRC32 is fixed: the limit
	 * still stops the decoding. */
	unsigned char *liar = malloc(plen);
	memcpy(liar, packed, plen);
	lzma_stream_flags fl;
	lzma_index *idx = lzma_index_init(NULL);
	size_t ipos = 0;
	unsigned char ibuf[64];
	bool built = lzma_stream_footer_decode(&fl, liar + plen - 12) == LZMA_OK && idx &&
		     lzma_index_append(idx, NULL, 0x100, 0x1f0) == LZMA_OK &&
		     lzma_index_buffer_encode(idx, ibuf, &ipos, sizeof(ibuf)) == LZMA_OK;
	lzma_index_end(idx, NULL);
	size_t ix = built ? plen - 12 - (size_t)fl.backward_size : 0;
	int lie_err = -1;
	if (built && ipos == fl.backward_size) {
		memcpy(liar + ix, ibuf, ipos);
		lie_err = decompress_whole(ROT_COMP_XZ, liar, plen, 1 << 20, &out, &out_len);
	}
	ok(lie_err == -EFBIG || lie_err == -EBADMSG,
	   "xz: an index that understates the size does not get past the limit (%d)", lie_err);
	free(liar);
	is_int(decompress_whole(ROT_COMP_XZ, packed, plen / 2, 8 << 20, &out, &out_len), -ENODATA,
	       "xz: a stream cut in half is truncated");
	is_int(decompress_whole(ROT_COMP_XZ, packed, plen, 8 << 20, &out, &out_len), 0,
	       "xz: within the limit it decompresses");
	is_int(out_len, n, "whole");
	free(out);

	/* Two streams (two frames): each says only its own size, so the
	 * decoding held to what the last says falls back to counting. */
	unsigned char *two = malloc(2 * n);
	size_t one = 0;
	lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, zeros, n / 4, two, &one, n);
	twice_is_whole(ROT_COMP_XZ, two, one, n / 2, "xz: two concatenated streams");
	one = ZSTD_compress(two, n, zeros, n / 4, 1);
	twice_is_whole(ROT_COMP_ZSTD, two, one, n / 2, "zstd: two frames");
	free(two);

	plen = ZSTD_compress(packed, n, zeros, n, 1);
	is_int(decompress_whole(ROT_COMP_ZSTD, packed, plen, 1 << 20, &out, &out_len), -EFBIG,
	       "zstd: a frame declaring 4 MiB against a 1 MiB limit, refused unread");
	is_int(decompress_whole(ROT_COMP_ZSTD, packed, plen - 3, 8 << 20, &out, &out_len), -ENODATA,
	       "zstd: a cut frame is truncated");
	memset(packed + plen / 2, 0xee, 4);
	int err = decompress_whole(ROT_COMP_ZSTD, packed, plen, 8 << 20, &out, &out_len);
	ok(err == -EBADMSG || err == -ENODATA, "zstd: corrupt data is refused (%d)", err);
	if (err == 0)
		free(out);

	/* A frame header claiming 1 TiB of content, and nothing else. */
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setPledgedSrcSize(c, 1ull << 40);
	ZSTD_outBuffer ob = { packed, n, 0 };
	ZSTD_inBuffer ib = { zeros, 16, 0 };
	ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_flush);
	ZSTD_freeCCtx(c);
	struct rot_modfile *mf;
	modfile_parse("bomb.ko.zst", packed, ob.pos, &mf);
	is_int(rot_modfile_problem(mf), ROT_PROBLEM_TOO_BIG, "a frame claiming 1 TiB is too big");
	rot_modfile_free(mf);
	free(zeros);
	free(packed);
}

/* The texts of a verdict, kept after its preflight is freed. */
struct verdict_texts {
	char text[128];
	char text2[128];
};

static enum rot_problem vermagic_verdict(const char *fixture, const char *kernel_vermagic,
					 struct verdict_texts *res)
{
	size_t len;
	unsigned char *img = tap_fixture(fixture, &len);
	struct rot_modfile *mf;
	modfile_parse(fixture, img, len, &mf);
	free(img);
	/* By hand (internal.h), as no running kernel is this one. */
	struct rot_kernel_facts k = { .release = "6.1.0-sim", .elf_class = ELFCLASS64,
				      .elf_machine = EM_X86_64 };
	snprintf(k.vermagic, sizeof(k.vermagic), "%s", kernel_vermagic);
	struct rot_preflight *pf = NULL;
	enum rot_problem p = ROT_PROBLEM_NONE;
	if (rot_preflight_new(&k, &pf) == 0 && rot_preflight_check(pf, mf) == 0) {
		p = rot_preflight_problem(pf);
		snprintf(res->text, sizeof(res->text), "%s", rot_preflight_module_text(pf));
		snprintf(res->text2, sizeof(res->text2), "%s", rot_preflight_kernel_text(pf));
	} else {
		ok(0, "the preflight of %s ran", fixture);
	}
	rot_preflight_free(pf);
	rot_modfile_free(mf);
	return p;
}

static void vermagic_is_compared_as_same_magic(void)
{
	struct verdict_texts r;
	const char *sim = "6.1.0-sim SMP preempt mod_unload modversions ";
	is_int(vermagic_verdict("alpha.ko", sim, &r), ROT_PROBLEM_NONE, "the same vermagic loads");
	is_int(vermagic_verdict("alpha.ko", "6.1.0-sim SMP mod_unload modversions ", &r),
	       ROT_PROBLEM_VERMAGIC_FLAGS, "another preempt flag is refused");
	is_str(r.text, "6.1.0-sim SMP preempt mod_unload modversions", "the module's vermagic named");
	is_str(r.text2, "6.1.0-sim SMP mod_unload modversions", "and the kernel's");
	is_int(vermagic_verdict("alpha.ko", "", &r), ROT_PROBLEM_NONE,
	       "without the kernel's vermagic, the release alone decides");
	is_int(vermagic_verdict("badmagic.ko", sim, &r), ROT_PROBLEM_VERMAGIC,
	       "another release is refused as such");
	is_int(vermagic_verdict("versioned.ko", sim, &r), ROT_PROBLEM_NONE,
	       "with symbol versions the release is not compared");
	is_int(vermagic_verdict("versioned.ko", "6.1.0-sim SMP preempt mod_unload ", &r),
	       ROT_PROBLEM_VERMAGIC_FLAGS, "but the flags after it are");
}

/* rot_modfile_insert() refuses what cannot be loaded before any syscall
 * (simkernel-guard would kill a real one). */
static void the_load_entry_point_refuses_before_the_kernel(void)
{
	is_int(rot_modfile_insert(NULL, NULL), -EINVAL, "no image");
	struct rot_modfile *bad = NULL;
	ok(modfile_parse("bad.ko", "not an ELF file", 15, &bad) == 0 && bad,
	   "a file that is not ELF parses, with a problem");
	is_int(rot_modfile_insert(bad, NULL), -ENOEXEC,
	       "a modfile with a problem is never given to the kernel");
	rot_modfile_free(bad);
}

int main(void)
{
	the_load_entry_point_refuses_before_the_kernel();
	elf_structure_is_checked();
	decompression_is_bounded();
	vermagic_is_compared_as_same_magic();
	return tap_done();
}
