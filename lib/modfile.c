// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading a module file and looking inside it with libelf, as the kernel's
 * loader would: headers within the file, a relocatable object, .modinfo
 * and .gnu.linkonce.this_module present, and the symbols it needs and
 * offers. Nothing is loaded here.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dl-elf.h"
#include "internal.h"
#include "modrot.h"

/* Larger than any real module (the biggest in a distribution kernel are
 * tens of MiB), small enough that a hostile file cannot exhaust memory. */
#ifndef MODFILE_LIMIT
#define MODFILE_LIMIT ROT_MODFILE_MAX
#endif

struct rot_modfile {
	char *raw;   /* the file as read */
	void *plain; /* decompressed image, or NULL when raw is plain */
	const unsigned char *image;
	size_t raw_len;
	size_t image_len;
	enum rot_compression compression;
	enum rot_problem problem;
	uint64_t value, expected; /* rot_modfile_problem_value(), _expected() */
	char problem_text[112];
	size_t symtab_index; /* the one symbol table, found by elf_check_image() */
	Elf *elf;
	int elf_class;
	int elf_machine;
	bool has_versions;
	bool has_symtab;
	bool has_percpu;
	uint64_t percpu_size, percpu_align; /* .data..percpu: sh_size, sh_addralign */
	const char *modinfo;                /* the .modinfo section: NUL-separated key=value */
	size_t modinfo_len;
	const char *name;
	char this_module_name[ROT_NAME_MAX + 2];
	const char **undef;
	size_t nundef;
	const char **defined;
	size_t ndefined;
};

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

/* A verdict on the file, not a failure to read it: returns 0. */
static int set_problem(struct rot_modfile *mf, enum rot_problem p, uint64_t value, uint64_t expected)
{
	mf->problem = p;
	mf->value = value;
	mf->expected = expected;
	return 0;
}

/* Also says whether the file, or what it decompresses to, is empty. */
static int decompress(struct rot_modfile *mf)
{
	mf->compression = compression_detect(mf->raw, mf->raw_len);
	mf->image_len = mf->raw_len;
	int err = 0;
	if (mf->compression != ROT_COMP_NONE)
		err = decompress_whole(mf->compression, mf->raw, mf->raw_len, MODFILE_LIMIT,
				       &mf->plain, &mf->image_len);
	mf->image = mf->plain ? mf->plain : mf->raw;
	switch (err) {
	case 0:
		return mf->image_len ? 0 : set_problem(mf, ROT_PROBLEM_EMPTY, 0, 0);
	case -EPROTONOSUPPORT: /* gzip */
		return set_problem(mf, ROT_PROBLEM_UNSUPPORTED_COMPRESSION, 0, 0);
	case -EBADMSG:
		return set_problem(mf, ROT_PROBLEM_CORRUPT_COMPRESSION, 0, 0);
	case -ENODATA:
		return set_problem(mf, ROT_PROBLEM_TRUNCATED_COMPRESSION, 0, 0);
	case -EFBIG:
		return set_problem(mf, ROT_PROBLEM_TOO_BIG, 0, MODFILE_LIMIT);
	default:
		return err;
	}
}

/* libelf trusts offsets and links: the raw structure is checked first.
 * Returns 1 when it passed, 0 when not (the problem says why), or -ENOMEM. */
static int check_structure(struct rot_modfile *mf)
{
	struct elf_check c;
	int err = elf_check_image(mf->image, mf->image_len, &c);
	if (err < 0)
		return err;
	if (c.verdict == ELF_CHECK_TRUNCATED)
		return set_problem(mf, ROT_PROBLEM_TRUNCATED, c.have, c.need);
	if (c.verdict == ELF_CHECK_MALFORMED) {
		set_problem(mf, ROT_PROBLEM_MALFORMED_ELF, 0, 0);
		memcpy(mf->problem_text, c.reason, sizeof(mf->problem_text));
		return 0;
	}
	mf->symtab_index = c.symtab;
	return 1;
}

/* Called once, for the one symbol table elf_check_image() vouched for:
 * its entries, its string table and every name in it are in range. */
static int collect_symbols(struct rot_modfile *mf, Elf_Scn *symtab, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(symtab, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	if (mf->undef || mf->defined)
		return -EINVAL; /* a second table would overflow the first one's arrays */
	if (!data || n == 0)
		return 0;
	mf->undef = calloc(n, sizeof(*mf->undef));
	mf->defined = calloc(n, sizeof(*mf->defined));
	if (!mf->undef || !mf->defined)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_BIND(sym.st_info) != STB_GLOBAL)
			continue;
		const char *name = elf_strptr(mf->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (sym.st_shndx == SHN_UNDEF)
			mf->undef[mf->nundef++] = name;
		else
			mf->defined[mf->ndefined++] = name;
	}
	return 0;
}

/* struct module begins with its state (an int) and a list_head, then the name. */
static void name_from_this_module(struct rot_modfile *mf, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = mf->elf_class == ELFCLASS64 ? 24 : 12;
	if (!data || !data->d_buf || data->d_size <= off)
		return;
	size_t max = data->d_size - off < sizeof(mf->this_module_name) - 1
			     ? data->d_size - off
			     : sizeof(mf->this_module_name) - 1;
	memcpy(mf->this_module_name, (const char *)data->d_buf + off, max);
	mf->this_module_name[max] = '\0';
}

static int inspect_elf(struct rot_modfile *mf)
{
	int err = dl_elf();
	if (err < 0)
		return err;
	pthread_once(&libelf_once, libelf_init);
	(void)elf_errno();
	/* elf_memory() takes any bytes: it fails only for want of memory. */
	mf->elf = elf_memory((char *)mf->image, mf->image_len);
	if (!mf->elf)
		return -ENOMEM;
	if (elf_kind(mf->elf) != ELF_K_ELF)
		return set_problem(mf, ROT_PROBLEM_NOT_ELF, 0, 0);
	/* The kernel reads headers in its own byte order: another one is not its module. */
	const char *ident = elf_getident(mf->elf, NULL);
	const unsigned char host = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB
									     : ELFDATA2MSB;
	if (ident && (unsigned char)ident[EI_DATA] != host)
		return set_problem(mf, ROT_PROBLEM_WRONG_BYTE_ORDER, (unsigned char)ident[EI_DATA],
				   host);
	err = check_structure(mf);
	if (err <= 0)
		return err;
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(mf->elf, &eh) || elf_getshdrstrndx(mf->elf, &shstrndx) < 0) {
		/* Checked above: libelf disagreeing is a malformed file all the same. */
		set_problem(mf, ROT_PROBLEM_MALFORMED_ELF, 0, 0);
		snprintf(mf->problem_text, sizeof(mf->problem_text), "%s", elf_errmsg(-1));
		return 0;
	}
	mf->elf_class = gelf_getclass(mf->elf);
	mf->elf_machine = eh.e_machine;
	if (eh.e_type != ET_REL)
		return set_problem(mf, ROT_PROBLEM_NOT_RELOCATABLE, eh.e_type, 0);

	Elf_Scn *this_module = NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(mf->elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(mf->elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB && elf_ndxscn(scn) == mf->symtab_index) {
			mf->has_symtab = true;
			err = collect_symbols(mf, scn, &sh);
			if (err < 0)
				return err;
		}
		if (!name)
			continue;
		if (strcmp(name, ".modinfo") == 0) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && d->d_buf) {
				mf->modinfo = d->d_buf;
				mf->modinfo_len = d->d_size;
			}
		} else if (strcmp(name, ".gnu.linkonce.this_module") == 0) {
			this_module = scn;
		} else if (strcmp(name, "__versions") == 0) {
			mf->has_versions = true;
		} else if (!mf->has_percpu && (sh.sh_flags & SHF_ALLOC) &&
			   strcmp(name, ".data..percpu") == 0) {
			/* find_pcpusec(): the first allocated section of that name */
			mf->has_percpu = true;
			mf->percpu_size = sh.sh_size;
			mf->percpu_align = sh.sh_addralign;
		}
	}
	if (!mf->modinfo)
		return set_problem(mf, ROT_PROBLEM_NO_MODINFO, 0, 0);
	if (!this_module)
		return set_problem(mf, ROT_PROBLEM_NO_THIS_MODULE, 0, 0);
	if (!mf->has_symtab)
		return set_problem(mf, ROT_PROBLEM_NO_SYMBOLS, 0, 0);
	name_from_this_module(mf, this_module);

	const char *cursor = NULL;
	mf->name = rot_modfile_modinfo_next(mf, "name", &cursor);
	if (!mf->name && mf->this_module_name[0])
		mf->name = mf->this_module_name;
	if (!mf->name || !*mf->name)
		return set_problem(mf, ROT_PROBLEM_NO_NAME, 0, 0);
	if (strlen(mf->name) > ROT_NAME_MAX)
		return set_problem(mf, ROT_PROBLEM_NAME_TOO_LONG, strlen(mf->name), ROT_NAME_MAX);
	return 0;
}

/* Everything after reading (err: what reading answered): decompress, then look inside. */
static int examine(struct rot_modfile *mf, int err, struct rot_modfile **out)
{
	if (err == 0 && mf->problem == ROT_PROBLEM_NONE)
		err = decompress(mf);
	if (err == 0 && mf->problem == ROT_PROBLEM_NONE) {
		err = inspect_elf(mf);
		/* A section libelf could not load for want of memory looked
		 * missing: that is no verdict on the file. libelf keeps the last
		 * error, per thread. */
		int e = err == 0 ? elf_errno() : 0;
		if (e && strcmp(elf_errmsg(e), "out of memory") == 0)
			err = -ENOMEM;
	}
	if (err < 0) {
		rot_modfile_free(mf);
		return err;
	}
	*out = mf;
	return 0;
}

int rot_modfile_read(const char *path, struct rot_modfile **out)
{
	struct rot_modfile *mf = calloc(1, sizeof(*mf));
	struct stat st = { 0 };
	if (!mf)
		return -ENOMEM;
	int fd = file_open_regular(path, &st);
	if (fd == -EINVAL)
		return examine(mf, set_problem(mf, ROT_PROBLEM_NOT_REGULAR, st.st_mode & S_IFMT, 0),
			       out);
	if (fd < 0)
		return examine(mf, fd, out);
	int err = file_read_whole(fd, &st, MODFILE_LIMIT, &mf->raw, &mf->raw_len);
	if (err == -EFBIG)
		err = set_problem(mf, ROT_PROBLEM_TOO_BIG, 0, MODFILE_LIMIT);
	return examine(mf, err, out);
}

int rot_modfile_check(const char *path, void **image, size_t *image_len)
{
	struct stat st;
	if (image)
		*image = NULL;
	int fd = file_open_regular(path, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > ROT_MODFILE_MAX) {
		close(fd);
		return -EFBIG;
	}
	/* A file stored plain is as large as fstat says, and that is checked:
	 * only a compressed one, whose size says nothing of what it becomes,
	 * is read and decoded. Its first bytes say which it is. (pread: the
	 * whole read, when needed, starts at 0 on the same descriptor.) */
	unsigned char magic[8];
	ssize_t got = pread(fd, magic, sizeof(magic), 0);
	int err = got < 0 && errno != EAGAIN ? -errno : 0; /* EAGAIN: file_read() knows what to do */
	enum rot_compression c = got >= 0 ? compression_detect(magic, (size_t)got) : ROT_COMP_XZ;
	if (err < 0 || (c != ROT_COMP_XZ && c != ROT_COMP_ZSTD)) {
		close(fd);
		return err;
	}
	char *buf;
	size_t len;
	err = file_read_whole(fd, &st, ROT_MODFILE_MAX, &buf, &len);
	if (err < 0)
		return err;
	c = compression_detect(buf, len);
	if (c == ROT_COMP_XZ || c == ROT_COMP_ZSTD) /* with image: decoded once, kept to hand on */
		err = image ? decompress_whole(c, buf, len, ROT_MODFILE_MAX, image, image_len)
			    : decompressed_size_check(c, buf, len, ROT_MODFILE_MAX);
	free(buf);
	return err;
}

int modfile_parse(const char *path, const void *buf, size_t len, struct rot_modfile **out)
{
	struct rot_modfile *mf = calloc(1, sizeof(*mf));
	int err = 0;
	if (!mf)
		return -ENOMEM;
	if (len > MODFILE_LIMIT) {
		set_problem(mf, ROT_PROBLEM_TOO_BIG, 0, MODFILE_LIMIT);
	} else if (!(mf->raw = malloc(len + 1))) {
		err = -ENOMEM;
	} else {
		memcpy(mf->raw, buf, len);
		mf->raw_len = len;
	}
	return examine(mf, err, out);
}

void rot_modfile_free(struct rot_modfile *mf)
{
	if (!mf)
		return;
	if (mf->elf)
		elf_end(mf->elf);
	free(mf->undef);
	free(mf->defined);
	free(mf->plain);
	free(mf->raw);
	free(mf);
}

const char *rot_modfile_modinfo_next(const struct rot_modfile *mf, const char *key,
				     const char **cursor)
{
	if (!mf->modinfo)
		return NULL;
	const char *end = mf->modinfo + mf->modinfo_len;
	const char *p = *cursor ? *cursor : mf->modinfo;
	size_t kl = strlen(key);

	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		const char *next = nul ? nul + 1 : end;
		/* An entry running off the section's end is not trusted. */
		if (nul && (size_t)(nul - p) > kl && memcmp(p, key, kl) == 0 && p[kl] == '=') {
			*cursor = next;
			return p + kl + 1;
		}
		p = next;
	}
	*cursor = end;
	return NULL;
}

enum rot_problem rot_modfile_problem(const struct rot_modfile *mf)
{
	return mf->problem;
}
uint64_t rot_modfile_problem_value(const struct rot_modfile *mf)
{
	return mf->value;
}
uint64_t rot_modfile_problem_expected(const struct rot_modfile *mf)
{
	return mf->expected;
}
const char *rot_modfile_problem_text(const struct rot_modfile *mf)
{
	return mf->problem_text;
}
enum rot_compression rot_modfile_compression(const struct rot_modfile *mf)
{
	return mf->compression;
}
const char *rot_modfile_name(const struct rot_modfile *mf)
{
	return mf->name;
}
size_t rot_modfile_undefined_count(const struct rot_modfile *mf)
{
	return mf->nundef;
}
size_t rot_modfile_defined_count(const struct rot_modfile *mf)
{
	return mf->ndefined;
}
int rot_modfile_elf_class(const struct rot_modfile *mf)
{
	return mf->elf_class;
}
bool modfile_has_versions(const struct rot_modfile *mf)
{
	return mf->has_versions;
}
int rot_modfile_elf_machine(const struct rot_modfile *mf)
{
	return mf->elf_machine;
}

uint64_t rot_modfile_percpu(const struct rot_modfile *mf, uint64_t *align)
{
	if (align)
		*align = mf->percpu_align;
	return mf->percpu_size;
}

const void *rot_modfile_image(const struct rot_modfile *mf, size_t *len)
{
	*len = mf->image_len;
	return mf->image;
}

const char *modfile_vermagic(const struct rot_modfile *mf)
{
	const char *cursor = NULL;
	return rot_modfile_modinfo_next(mf, "vermagic", &cursor);
}

const char *rot_modfile_undefined(const struct rot_modfile *mf, size_t i)
{
	return i < mf->nundef ? mf->undef[i] : NULL;
}

const char *rot_modfile_defined(const struct rot_modfile *mf, size_t i)
{
	return i < mf->ndefined ? mf->defined[i] : NULL;
}
