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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "internal.h"
#include "modfile.h"
#include "modsig.h"

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

int rot_kernel_facts_read(struct rot_kernel_facts *facts)
{
	struct utsname u;
	memset(facts, 0, sizeof(*facts));
	if (uname(&u) < 0)
		return -errno;
	snprintf(facts->release, sizeof(facts->release), "%s", u.release);
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		if (strcmp(u.machine, machines[i].uname) == 0) {
			facts->elf_class = machines[i].elf_class;
			facts->elf_machine = machines[i].elf_machine;
		}
	}
	char *v;
	size_t len;
	/* Absent on kernels without module signing: then nothing is enforced.
	 * Unreadable is not absent: guessing "not enforced" would pass what
	 * the kernel refuses. */
	int err = proc_read_whole("/sys/module/module/parameters/sig_enforce", &v, &len);
	if (err == 0) {
		facts->sig_support = true;
		facts->sig_enforce = v[0] == 'Y' || v[0] == '1';
		free(v);
	}
	return err == -ENOENT ? 0 : err;
}

/* *err: a signature that could not be checked (no memory) is no verdict:
 * with --verify, passing it would load what nobody verified. */
static enum rot_problem check_signature(const struct rot_modfile *mf,
					const struct rot_preflight_input *in,
					struct rot_preflight *res, int *err_out)
{
	if (!in->keyring && !in->kernel->sig_support)
		return ROT_PROBLEM_NONE;
	res->sig = calloc(1, sizeof(*res->sig));
	if (!res->sig) {
		*err_out = -ENOMEM;
		return ROT_PROBLEM_NONE;
	}
	size_t len;
	const void *image = rot_modfile_image(mf, &len);
	int err = in->keyring ? rot_modsig_verify(in->keyring, image, len, res->sig)
			      : rot_modsig_inspect(image, len, res->sig);
	if (err < 0) {
		*err_out = err;
		return ROT_PROBLEM_NONE;
	}
	/* What a kernel with module signing refuses (module_sig_check in 6.1):
	 * anything but a valid signature when it enforces, and a signature it
	 * cannot even parse whether it enforces or not. */
	bool strict = in->keyring || in->kernel->sig_enforce;
	switch (res->sig->status) {
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

/* The release is the first word of vermagic ("6.1.0-sim SMP preempt ..."). */
static enum rot_problem check_vermagic(const struct rot_modfile *mf,
				       const struct rot_preflight_input *in,
				       struct rot_preflight *res)
{
	const char *vermagic = rot_modfile_vermagic(mf);
	/* With symbol versions the kernel compares what follows the release and
	 * checks CRCs, neither of which userspace can see. */
	if (in->force_vermagic || !vermagic || rot_modfile_has_versions(mf))
		return ROT_PROBLEM_NONE;
	size_t rl = strcspn(vermagic, " ");
	if (rl == strlen(in->kernel->release) && strncmp(vermagic, in->kernel->release, rl) == 0)
		return ROT_PROBLEM_NONE;
	size_t copy = rl < sizeof(res->text) - 1 ? rl : sizeof(res->text) - 1;
	memcpy(res->text, vermagic, copy);
	res->text[copy] = '\0';
	snprintf(res->text2, sizeof(res->text2), "%s", in->kernel->release);
	return ROT_PROBLEM_VERMAGIC;
}

static int check_symbols(const struct rot_modfile *mf, const struct rot_preflight_input *in,
			 struct rot_preflight *res)
{
	size_t n = rot_modfile_undefined_count(mf);
	if (!in->kernel_symbols || n == 0)
		return 0;
	res->missing = calloc(n, sizeof(*res->missing));
	if (!res->missing)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *sym = rot_modfile_undefined(mf, i);
		if (rot_symbols_has(in->kernel_symbols, sym) ||
		    (in->batch_symbols && rot_symbols_has(in->batch_symbols, sym)))
			continue;
		res->missing[res->nmissing++] = sym;
	}
	if (res->nmissing)
		res->problem = ROT_PROBLEM_UNDEFINED_SYMBOLS;
	return 0;
}

int rot_preflight(const struct rot_modfile *mf, const struct rot_preflight_input *in,
		  struct rot_preflight *res)
{
	memset(res, 0, sizeof(*res));
	res->problem = rot_modfile_problem(mf);
	if (res->problem != ROT_PROBLEM_NONE)
		return 0;

	const struct rot_kernel_facts *k = in->kernel;
	int err = 0;
	if ((res->problem = check_signature(mf, in, res, &err)) != ROT_PROBLEM_NONE || err < 0)
		return err;
	if (k->elf_class && rot_modfile_elf_class(mf) != k->elf_class) {
		res->problem = ROT_PROBLEM_WRONG_CLASS;
		return 0;
	}
	if (k->elf_machine && rot_modfile_elf_machine(mf) != k->elf_machine) {
		res->problem = ROT_PROBLEM_WRONG_MACHINE;
		return 0;
	}
	if ((res->problem = check_vermagic(mf, in, res)) != ROT_PROBLEM_NONE)
		return 0;
	if (in->snap && rot_snapshot_find_live(in->snap, rot_modfile_name(mf))) {
		res->problem = ROT_PROBLEM_ALREADY_LOADED;
		return 0;
	}
	return check_symbols(mf, in, res);
}

void rot_preflight_release(struct rot_preflight *res)
{
	free(res->missing);
	free(res->sig);
	res->missing = NULL;
	res->sig = NULL;
}
