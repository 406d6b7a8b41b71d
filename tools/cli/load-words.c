// SPDX-License-Identifier: GPL-2.0-or-later
/* The words insmod and modprobe use for what stops a module. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-errors.h"
#include "load-words.h"
#include "sigwords.h"

static const char *compression_name(enum rot_compression c)
{
	static const struct cli_word words[] = {
		{ ROT_COMP_XZ, "xz" },
		{ ROT_COMP_ZSTD, "zstd" },
		{ ROT_COMP_GZIP, "gzip" },
		{ 0, NULL },
	};
	return cli_word_of(words, c, "compressed");
}

static const char *machine_name(int m)
{
	static const struct cli_word words[] = {
		{ EM_386, "i386" },        { EM_X86_64, "x86_64" }, { EM_ARM, "arm" },
		{ EM_AARCH64, "aarch64" }, { EM_RISCV, "riscv" },   { EM_PPC64, "ppc64" },
		{ EM_S390, "s390" },       { EM_MIPS, "mips" },     { 0, NULL },
	};
	return cli_word_of(words, m, NULL);
}

/* Written straight into buf, cut there as any line is: nothing to
 * allocate, so no name is lost to a failed allocation. */
static void list_missing(const struct rot_preflight *pf, char *buf, size_t len)
{
	size_t n = rot_preflight_missing_count(pf);
	snprintf(buf, len, "unknown symbol%s ", n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		cli_appendf(buf, len, "", "%s%s", i ? ", " : "", rot_preflight_missing(pf, i));
	cli_appendf(buf, len, "", " (neither the kernel nor a loaded module offers %s)",
		    n == 1 ? "it" : "them");
}

void words_for_problem(const struct rot_modfile *mf, const struct rot_preflight *pf,
		       const struct rot_kernel_facts *kernel, const char *keyring_path, char *buf,
		       size_t len)
{
	static const struct cli_word fixed[] = {
		{ ROT_PROBLEM_NONE, "no problem" },
		{ ROT_PROBLEM_EMPTY, "the file is empty" },
		{ ROT_PROBLEM_NOT_ELF, "not an ELF file, so not a kernel module" },
		{ ROT_PROBLEM_NO_MODINFO, "not a kernel module (no .modinfo section)" },
		{ ROT_PROBLEM_NO_THIS_MODULE,
		  "not a kernel module (no .gnu.linkonce.this_module section)" },
		{ ROT_PROBLEM_NO_SYMBOLS, "not a kernel module (no symbol table)" },
		{ ROT_PROBLEM_NO_NAME, "the module has no name" },
		{ 0, NULL },
	};
	const char *comp = compression_name(rot_modfile_compression(mf));

	/* A problem a newer libmodrot knows and this tool does not: no words,
	 * rather than whatever buf held. */
	if (len)
		buf[0] = '\0';
	switch (rot_preflight_problem(pf)) {
	case ROT_PROBLEM_NOT_REGULAR:
		snprintf(buf, len, "%s, not a module file",
			 cli_file_kind(rot_modfile_problem_value(mf)));
		break;
	case ROT_PROBLEM_TOO_BIG:
		snprintf(buf, len, "larger than %llu MiB, more than any module",
			 (unsigned long long)(rot_modfile_problem_expected(mf) >> 20));
		break;
	case ROT_PROBLEM_CORRUPT_COMPRESSION:
		snprintf(buf, len, "corrupt %s data", comp);
		break;
	case ROT_PROBLEM_TRUNCATED_COMPRESSION:
		snprintf(buf, len, "truncated %s data (the stream ends early)", comp);
		break;
	case ROT_PROBLEM_UNSUPPORTED_COMPRESSION:
		if (keyring_path)
			snprintf(buf, len,
				 "%s-compressed, which insmod cannot decompress to verify", comp);
		else
			snprintf(buf, len,
				 "%s-compressed, and this system's libkmod cannot decompress %s",
				 comp, comp);
		break;
	case ROT_PROBLEM_TRUNCATED:
		snprintf(buf, len,
			 "truncated ELF file: its headers need %llu bytes, the file has %llu",
			 (unsigned long long)rot_modfile_problem_expected(mf),
			 (unsigned long long)rot_modfile_problem_value(mf));
		break;
	case ROT_PROBLEM_MALFORMED_ELF:
		snprintf(buf, len, "malformed ELF file: %s", rot_modfile_problem_text(mf));
		break;
	case ROT_PROBLEM_WRONG_CLASS:
		snprintf(buf, len, "a %s-bit module, and this kernel is %s-bit",
			 rot_modfile_elf_class(mf) == ELFCLASS32 ? "32" : "64",
			 rot_kernel_facts_elf_class(kernel) == ELFCLASS32 ? "32" : "64");
		break;
	case ROT_PROBLEM_WRONG_MACHINE: {
		const char *m = machine_name(rot_modfile_elf_machine(mf));
		const char *k = machine_name(rot_kernel_facts_elf_machine(kernel));
		char num[32];
		snprintf(num, sizeof(num), "machine %d", rot_modfile_elf_machine(mf));
		snprintf(buf, len, "built for %s, and this kernel runs on %s", m ? m : num,
			 k ? k : "another machine");
		break;
	}
	case ROT_PROBLEM_WRONG_BYTE_ORDER:
		snprintf(buf, len, "a %s ELF file, and this kernel is %s",
			 rot_modfile_problem_value(mf) == ELFDATA2MSB ? "big-endian"
								      : "little-endian",
			 rot_modfile_problem_expected(mf) == ELFDATA2MSB ? "big-endian"
									 : "little-endian");
		break;
	case ROT_PROBLEM_NOT_RELOCATABLE:
		snprintf(buf, len, "not a kernel module (ELF type %llu, not a relocatable object)",
			 (unsigned long long)rot_modfile_problem_value(mf));
		break;
	case ROT_PROBLEM_NAME_TOO_LONG:
		snprintf(buf, len, "its name is %llu bytes long; the kernel allows %llu",
			 (unsigned long long)rot_modfile_problem_value(mf),
			 (unsigned long long)rot_modfile_problem_expected(mf));
		break;
	case ROT_PROBLEM_VERMAGIC:
		snprintf(buf, len,
			 "built for kernel %s, and this kernel is %s (--force-vermagic loads it anyway)",
			 rot_preflight_module_text(pf), rot_preflight_kernel_text(pf));
		break;
	case ROT_PROBLEM_VERMAGIC_FLAGS:
		snprintf(buf, len,
			 "its vermagic \"%s\" is not this kernel's \"%s\" "
			 "(--force-vermagic loads it anyway)",
			 rot_preflight_module_text(pf), rot_preflight_kernel_text(pf));
		break;
	case ROT_PROBLEM_ALREADY_LOADED:
		snprintf(buf, len, "Module already loaded (%s is live)", rot_modfile_name(mf));
		break;
	case ROT_PROBLEM_UNDEFINED_SYMBOLS:
		list_missing(pf, buf, len);
		break;
	case ROT_PROBLEM_UNSIGNED:
		snprintf(buf, len,
			 keyring_path
				 ? "the module is not signed"
				 : "the module is not signed, and this kernel enforces signatures");
		break;
	case ROT_PROBLEM_BAD_SIGNATURE:
		sig_describe_failure(rot_preflight_sig(pf), keyring_path, buf, len);
		break;
	/* Named, not default: a new problem without words fails the build. */
	case ROT_PROBLEM_NONE:
	case ROT_PROBLEM_EMPTY:
	case ROT_PROBLEM_NOT_ELF:
	case ROT_PROBLEM_NO_MODINFO:
	case ROT_PROBLEM_NO_THIS_MODULE:
	case ROT_PROBLEM_NO_SYMBOLS:
	case ROT_PROBLEM_NO_NAME:
		snprintf(buf, len, "%s", cli_word_of(fixed, rot_preflight_problem(pf), ""));
		break;
	}
}

const char *words_for_kernel_error(int err)
{
	/* kmod's words for the errors whose strerror() misleads. */
	static const struct cli_word words[] = {
		{ ENOEXEC, "Invalid module format" },
		{ ENOENT, "Unknown symbol in module" },
		{ ESRCH, "Module has wrong symbol version" },
		{ EINVAL, "Invalid parameters" },
		{ EEXIST, "Module already loaded" },
		{ 0, NULL },
	};
	return cli_word_of(words, -err, cli_strerror(err));
}

char *params_join(char *const *args, size_t n)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(args[i]) + 3;
	char *out = malloc(len), *p = out;
	if (!out)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(args[i], '=');
		bool quote = eq && eq[1] != '"' && strchr(eq + 1, ' ');
		if (i)
			*p++ = ' ';
		if (quote)
			p += sprintf(p, "%.*s\"%s\"", (int)(eq + 1 - args[i]), args[i], eq + 1);
		else
			p += sprintf(p, "%s", args[i]);
	}
	return out;
}
