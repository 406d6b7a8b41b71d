// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Everything the kernel would refuse that can be known beforehand. The
 * order follows what a reader wants to hear first: a file that is not a
 * module at all, then whether it may be loaded (signature), whether it
 * fits this kernel (class, machine, vermagic), whether it is already
 * there, and what it would need that nobody offers.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "modrot.h"

static const struct {
	const char *uname;
	int elf_class;
	int elf_machine;
} machines[] = {
	{ "x86_64", ELFCLASS64, EM_X86_64 },
	{ "i686", ELFCLASS32, EM_386 },
	{ "i586", ELFCLASS32, EM_386 },
	{ "i386", ELFCLASS32, EM_386 },
	{ "aarch64", ELFCLASS64, EM_AARCH64 },
	{ "armv7l", ELFCLASS32, EM_ARM },
	{ "riscv64", ELFCLASS64, EM_RISCV },
	{ "ppc64le", ELFCLASS64, EM_PPC64 },
	{ "ppc64", ELFCLASS64, EM_PPC64 },
	{ "s390x", ELFCLASS64, EM_S390 },
	{ "loongarch64", ELFCLASS64, 258 /* EM_LOONGARCH */ },
	{ "mips64", ELFCLASS64, EM_MIPS },
};

/* The vermagic of the first module modules.dep lists, if it can be read. */
static void kernel_vermagic(struct rot_kernel_facts *facts)
{
	char dir[sizeof("/lib/modules/") + sizeof(facts->release)];
	snprintf(dir, sizeof(dir), "/lib/modules/%s", facts->release);
	char dep[sizeof(dir) + sizeof("/modules.dep")];
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	/* A FIFO or device in its place is not waited on, nor read. */
	struct stat st;
	int fd = file_open_regular(dep, &st);
	if (fd < 0)
		return;
	char line[4096];
	ssize_t n = file_read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return;
	line[n] = '\0';
	size_t rel = strcspn(line, ":\n");
	if (rel == 0 || line[rel] != ':' || line[0] == '/')
		return;
	line[rel] = '\0';
	char *path;
	if (asprintf(&path, "%s/%s", dir, line) < 0)
		return;
	struct rot_modfile *mf;
	if (rot_modfile_read(path, &mf) == 0) {
		const char *v = rot_modfile_problem(mf) == ROT_PROBLEM_NONE ? modfile_vermagic(mf)
									    : NULL;
		if (v && strlen(v) < sizeof(facts->vermagic))
			memcpy(facts->vermagic, v, strlen(v) + 1);
		rot_modfile_free(mf);
	}
	free(path);
}

int rot_kernel_facts_read(struct rot_kernel_facts **out)
{
	struct utsname u;
	*out = NULL;
	if (uname(&u) < 0)
		return -errno;
	struct rot_kernel_facts *facts = calloc(1, sizeof(*facts));
	if (!facts)
		return -ENOMEM;
	snprintf(facts->release, sizeof(facts->release), "%s", u.release);
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		if (strcmp(u.machine, machines[i].uname) == 0) {
			facts->elf_class = machines[i].elf_class;
			facts->elf_machine = machines[i].elf_machine;
		}
	}
	kernel_vermagic(facts);
	static const char sig_file[] = "/sys/module/module/parameters/sig_enforce";
	char *v;
	size_t len;
	parse_error_clear();
	/* Absent on kernels without module signing: then nothing is enforced.
	 * Unreadable is not absent: guessing "not enforced" would pass what
	 * the kernel refuses. */
	int err = proc_read_whole(sig_file, &v, &len);
	if (err == 0) {
		/* A bool parameter reads "Y\n" or "N\n": anything else leaves it
		 * unknown whether unsigned modules would load. */
		bool y = len >= 1 && v[0] == 'Y', n = len >= 1 && v[0] == 'N';
		bool whole = len == 1 || (len == 2 && v[1] == '\n');
		free(v);
		if (!(y || n) || !whole)
			err = parse_failed(-EPROTO, sig_file, 1, "not Y or N");
		facts->sig_support = true;
		facts->sig_enforce = y;
	}
	if (err < 0 && err != -ENOENT) {
		free(facts);
		return err;
	}
	*out = facts;
	return 0;
}

void rot_kernel_facts_free(struct rot_kernel_facts *kf)
{
	free(kf);
}

int rot_kernel_facts_elf_class(const struct rot_kernel_facts *kf)
{
	return kf->elf_class;
}

int rot_kernel_facts_elf_machine(const struct rot_kernel_facts *kf)
{
	return kf->elf_machine;
}

/* What the checks are given (set once), and the verdict of the last check. */
struct rot_preflight {
	/* in */
	const struct rot_kernel_facts *kernel;
	const struct rot_snapshot *snap;
	const struct rot_symbols *kernel_symbols;
	const struct rot_symbols *batch_symbols;
	const struct rot_keyring *keyring;
	bool force_vermagic;
	/* out */
	enum rot_problem problem;
	char module_text[128];
	char kernel_text[128];
	const char **missing; /* point into the modfile checked */
	size_t nmissing;
	struct rot_sig_info *sig;
};

/* *err: a signature that could not be checked (no memory) is no verdict:
 * with --verify, passing it would load what nobody verified. */
static enum rot_problem check_signature(const struct rot_modfile *mf, struct rot_preflight *pf,
					int *err_out)
{
	if (!pf->keyring && !pf->kernel->sig_support)
		return ROT_PROBLEM_NONE;
	size_t len;
	const void *image = rot_modfile_image(mf, &len);
	int err = pf->keyring ? rot_modsig_verify(pf->keyring, image, len, &pf->sig)
			      : modsig_inspect(image, len, &pf->sig);
	if (err < 0) {
		*err_out = err;
		return ROT_PROBLEM_NONE;
	}
	/* What a kernel with module signing refuses (module_sig_check in 6.1):
	 * anything but a valid signature when it enforces, and a signature it
	 * cannot even parse whether it enforces or not. */
	bool strict = pf->keyring || pf->kernel->sig_enforce;
	switch (pf->sig->status) {
	case ROT_SIG_VALID:
		return ROT_PROBLEM_NONE;
	case ROT_SIG_UNSIGNED:
		return strict ? ROT_PROBLEM_UNSIGNED : ROT_PROBLEM_NONE;
	case ROT_SIG_MALFORMED:
		return ROT_PROBLEM_BAD_SIGNATURE;
	default:
		return strict ? ROT_PROBLEM_BAD_SIGNATURE : ROT_PROBLEM_NONE;
	}
}

/* Copies s into a text field, without the trailing blanks vermagic ends in. */
static void set_text(char *dst, size_t size, const char *s, size_t len)
{
	while (len && s[len - 1] == ' ')
		len--;
	if (len > size - 1)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/*
 * What Linux 6.1's same_magic() compares: the whole string, or, when the
 * module carries symbol versions (CONFIG_MODVERSIONS), what follows the
 * release (the CRCs then stand for the release). The release is the first
 * word ("6.1.0-sim SMP preempt mod_unload modversions "). Without the
 * kernel's own vermagic only the release can be compared.
 */
static enum rot_problem check_vermagic(const struct rot_modfile *mf, struct rot_preflight *pf)
{
	const char *vermagic = modfile_vermagic(mf);
	const char *kernel = pf->kernel->vermagic;
	if (pf->force_vermagic || !vermagic)
		return ROT_PROBLEM_NONE;
	size_t rl = strcspn(vermagic, " ");
	bool versions = modfile_has_versions(mf);
	if (!versions &&
	    (rl != strlen(pf->kernel->release) || strncmp(vermagic, pf->kernel->release, rl))) {
		set_text(pf->module_text, sizeof(pf->module_text), vermagic, rl);
		snprintf(pf->kernel_text, sizeof(pf->kernel_text), "%s", pf->kernel->release);
		return ROT_PROBLEM_VERMAGIC;
	}
	/* with symbol versions, what follows each release; else the whole strings */
	const char *flags = versions ? vermagic + rl : vermagic;
	if (!kernel[0] || strcmp(flags, versions ? kernel + strcspn(kernel, " ") : kernel) == 0)
		return ROT_PROBLEM_NONE;
	set_text(pf->module_text, sizeof(pf->module_text), vermagic, strlen(vermagic));
	set_text(pf->kernel_text, sizeof(pf->kernel_text), kernel, strlen(kernel));
	return ROT_PROBLEM_VERMAGIC_FLAGS;
}

static int check_symbols(const struct rot_modfile *mf, struct rot_preflight *pf)
{
	size_t n = rot_modfile_undefined_count(mf);
	if (!pf->kernel_symbols || n == 0)
		return 0;
	pf->missing = calloc(n, sizeof(*pf->missing));
	if (!pf->missing)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *sym = rot_modfile_undefined(mf, i);
		if (!rot_symbols_has(pf->kernel_symbols, sym) &&
		    !(pf->batch_symbols && rot_symbols_has(pf->batch_symbols, sym)))
			pf->missing[pf->nmissing++] = sym;
	}
	if (pf->nmissing)
		pf->problem = ROT_PROBLEM_UNDEFINED_SYMBOLS;
	return 0;
}

/* Forgets the last verdict. */
static void verdict_clear(struct rot_preflight *pf)
{
	free(pf->missing);
	rot_sig_info_free(pf->sig);
	pf->problem = ROT_PROBLEM_NONE;
	pf->module_text[0] = pf->kernel_text[0] = '\0';
	pf->missing = NULL;
	pf->nmissing = 0;
	pf->sig = NULL;
}

int rot_preflight_new(const struct rot_kernel_facts *kernel, struct rot_preflight **out)
{
	*out = NULL;
	if (!kernel)
		return -EINVAL;
	struct rot_preflight *pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->kernel = kernel;
	*out = pf;
	return 0;
}

void rot_preflight_free(struct rot_preflight *pf)
{
	if (!pf)
		return;
	verdict_clear(pf);
	free(pf);
}

void rot_preflight_set_snapshot(struct rot_preflight *pf, const struct rot_snapshot *snap)
{
	pf->snap = snap;
}

void rot_preflight_set_kernel_symbols(struct rot_preflight *pf, const struct rot_symbols *set)
{
	pf->kernel_symbols = set;
}

void rot_preflight_set_batch_symbols(struct rot_preflight *pf, const struct rot_symbols *set)
{
	pf->batch_symbols = set;
}

void rot_preflight_set_keyring(struct rot_preflight *pf, const struct rot_keyring *kr)
{
	pf->keyring = kr;
}

void rot_preflight_set_force_vermagic(struct rot_preflight *pf, bool force)
{
	pf->force_vermagic = force;
}

int rot_preflight_check(struct rot_preflight *pf, const struct rot_modfile *mf)
{
	verdict_clear(pf);
	const struct rot_kernel_facts *k = pf->kernel;
	int err = 0;
	/* The first problem found, in the order above, is the verdict. */
	if ((pf->problem = rot_modfile_problem(mf)) != ROT_PROBLEM_NONE ||
	    (pf->problem = check_signature(mf, pf, &err)) != ROT_PROBLEM_NONE || err < 0)
		return err;
	if (k->elf_class && rot_modfile_elf_class(mf) != k->elf_class)
		pf->problem = ROT_PROBLEM_WRONG_CLASS;
	else if (k->elf_machine && rot_modfile_elf_machine(mf) != k->elf_machine)
		pf->problem = ROT_PROBLEM_WRONG_MACHINE;
	else if ((pf->problem = check_vermagic(mf, pf)) == ROT_PROBLEM_NONE && pf->snap &&
		 rot_snapshot_find_live(pf->snap, rot_modfile_name(mf)))
		pf->problem = ROT_PROBLEM_ALREADY_LOADED;
	return pf->problem == ROT_PROBLEM_NONE ? check_symbols(mf, pf) : 0;
}

enum rot_problem rot_preflight_problem(const struct rot_preflight *pf)
{
	return pf->problem;
}

const char *rot_preflight_module_text(const struct rot_preflight *pf)
{
	return pf->module_text;
}

const char *rot_preflight_kernel_text(const struct rot_preflight *pf)
{
	return pf->kernel_text;
}

size_t rot_preflight_missing_count(const struct rot_preflight *pf)
{
	return pf->nmissing;
}

const char *rot_preflight_missing(const struct rot_preflight *pf, size_t i)
{
	return i < pf->nmissing ? pf->missing[i] : NULL;
}

const struct rot_sig_info *rot_preflight_sig(const struct rot_preflight *pf)
{
	return pf->sig;
}
