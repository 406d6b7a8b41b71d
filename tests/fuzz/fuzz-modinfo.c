// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's .modinfo as modinfo reads it: the input is the section's
 * bytes, wrapped in a minimal ELF64 relocatable file; libkmod parses it
 * (kmod_module_get_info), modinfo gathers the parameters
 * (modinfo_params_collect) and prints the record as text and as JSON.
 * When the input holds 0xfe 0xfe, what follows is appended to the file as
 * it would be a signature trailer, for the signature fields libkmod adds.
 * Beyond "no crash, no leak": every parameter is a piece of one parm or
 * parmtype value, names are unique, at most one per entry; the JSON is
 * UTF-8 with no raw control byte but its line breaks.
 */
#include <elf.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli-escape.h"
#include "jsonwrt.h"
#include "modinfo.h"
#include "outbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct kmod_ctx *ctx;
static int fd = -1, null_fd = -1;
static char path[64];

static void quiet(void *d, int p, const char *file, int line, const char *fn, const char *format,
		  va_list args)
{
	(void)d, (void)p, (void)file, (void)line, (void)fn, (void)format, (void)args;
}

static void set_up(void)
{
	static const char *const no_config[] = { NULL };
	ctx = kmod_new("/nonexistent", no_config);
	fd = memfd_create("modinfo-fuzz", 0);
	if (!ctx || fd < 0)
		abort();
	kmod_set_log_fn(ctx, quiet, NULL);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0)
		abort();
}

/*
 * ELF header, the section's bytes, .shstrtab, then three section headers,
 * built in one buffer and written with one pwrite; the memfd is then cut
 * to the image's length. (Emptying it first and writing piece by piece
 * freed and zeroed its pages for every input.)
 */
static void write_module(const uint8_t *info, size_t n, const uint8_t *tail, size_t tn)
{
	static const char shstrtab[] = "\0.modinfo\0.shstrtab";
	static uint8_t *img;
	static size_t cap;
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT },
			  .e_type = ET_REL,
			  .e_machine = EM_X86_64,
			  .e_version = EV_CURRENT,
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_shentsize = sizeof(Elf64_Shdr),
			  .e_shnum = 3,
			  .e_shstrndx = 2 };
	size_t info_off = sizeof(eh), str_off = info_off + n, sh_off = str_off + sizeof(shstrtab);
	sh_off = (sh_off + 7) & ~(size_t)7;
	eh.e_shoff = sh_off;
	Elf64_Shdr sh[3] = { { 0 },
			     { .sh_name = 1,
			       .sh_type = SHT_PROGBITS,
			       .sh_flags = SHF_ALLOC,
			       .sh_offset = info_off,
			       .sh_size = n,
			       .sh_addralign = 1 },
			     { .sh_name = 10,
			       .sh_type = SHT_STRTAB,
			       .sh_offset = str_off,
			       .sh_size = sizeof(shstrtab),
			       .sh_addralign = 1 } };
	size_t total = sh_off + sizeof(sh) + tn;
	if (total > cap) {
		free(img);
		cap = total * 2;
		img = malloc(cap);
		if (!img)
			abort();
	}
	memcpy(img, &eh, sizeof(eh));
	if (n)
		memcpy(img + info_off, info, n);
	memcpy(img + str_off, shstrtab, sizeof(shstrtab));
	memset(img + str_off + sizeof(shstrtab), 0, sh_off - str_off - sizeof(shstrtab));
	memcpy(img + sh_off, sh, sizeof(sh));
	if (tn)
		memcpy(img + sh_off + sizeof(sh), tail, tn);
	if (pwrite(fd, img, total, 0) != (ssize_t)total || ftruncate(fd, (off_t)total) < 0)
		abort();
}

/* Every parameter lies inside one parm/parmtype value of the list. */
static void check_params(const struct modinfo_record *r, const struct modinfo_param *p, size_t n)
{
	size_t entries = 0;
	const struct kmod_list *l;
	kmod_list_foreach(l, r->info)
	{
		const char *key = kmod_module_info_get_key(l);
		if (!strcmp(key, "parm") || !strcmp(key, "parmtype"))
			entries++;
	}
	if (n > entries)
		abort();
	for (size_t i = 0; i < n; i++) {
		bool inside = false;
		kmod_list_foreach(l, r->info)
		{
			const char *v = kmod_module_info_get_value(l);
			size_t vlen = strlen(v);
			if (p[i].name == v && (size_t)p[i].namelen < vlen && v[p[i].namelen] == ':')
				inside = true;
		}
		if (!inside || (p[i].text && p[i].text[p[i].textlen] != '\0') ||
		    (p[i].type && p[i].type[p[i].typelen] != '\0'))
			abort();
		/* Unique names (quadratic only over small inputs' lists). */
		for (size_t j = i + 1; j < n && n < 2000; j++)
			if (p[i].namelen == p[j].namelen &&
			    !memcmp(p[i].name, p[j].name, p[i].namelen))
				abort();
	}
}

static void check_json(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		size_t len = cli_utf8_len((const unsigned char *)s + i, n - i);
		if (!len)
			abort();
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ctx)
		set_up();
	size_t n = size;
	const uint8_t *tail = NULL;
	for (size_t i = 0; i + 1 < size; i++) {
		if (data[i] == 0xfe && data[i + 1] == 0xfe) {
			n = i;
			tail = data + i + 2;
			break;
		}
	}
	write_module(data, n, tail, tail ? size - n - 2 : 0);

	struct kmod_module *mod;
	if (kmod_module_new_from_path(ctx, path, &mod) < 0)
		abort();
	struct kmod_list *info = NULL;
	if (kmod_module_get_info(mod, &info) >= 0) {
		struct modinfo_record r = { .argument = path,
					    .name = kmod_module_get_name(mod),
					    .filename = path,
					    .info = info };
		struct modinfo_param *params = NULL;
		size_t np = 0;
		/* modinfo's text, and its warning for an entry without ':', go
		 * nowhere: not among libFuzzer's (or the driver's TAP) lines. */
		fflush(stdout);
		int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
		dup2(null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		int err = modinfo_params_collect(&r, &params, &np);
		if (err < 0)
			abort();
		check_params(&r, params, np);
		free(params);

		struct modinfo_opts text = { .separator = '\n' }, nul = { .separator = '\0' },
				    field = { .field = "parm", .separator = '\n' };
		modinfo_text_print(&r, &text);
		modinfo_text_print(&r, &nul);
		modinfo_text_print(&r, &field);

		struct outbuf out;
		struct json_writer w;
		if (outbuf_init(&out, 4096) < 0)
			abort();
		w = (struct json_writer){ .out = &out };
		json_open_object(&w, NULL);
		json_open_array(&w, "modules");
		modinfo_json_print(&w, &r);
		json_close_array(&w);
		json_close_object(&w);
		fflush(stdout);
		dup2(saved_out, STDOUT_FILENO);
		dup2(saved_err, STDERR_FILENO);
		close(saved_out);
		close(saved_err);
		if (!outbuf_failed(&out))
			check_json(out.buf, out.len);
		outbuf_release(&out);
		kmod_module_info_free_list(info);
	}
	kmod_module_unref(mod);
	return 0;
}
