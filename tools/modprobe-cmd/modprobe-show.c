// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe's queries: -c (the configuration libkmod read, then the alias
 * and symbol indexes), --show-modversions and --show-exports. Their output
 * is kmod's, byte for byte: scripts parse it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-run.h"
#include "kmodlog.h"
#include "modprobe.h"

/* Copies fd from its start to stdout; a failed write shows at the flush
 * (*write_failed), a failed read of fd is returned for the caller to say. */
static int copy_to_stdout(int fd, bool *write_failed)
{
	char buf[65536];
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno; /* the caller says it: not a write error */
		if (n == 0)
			return 0;
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			*write_failed = true;
			return cli_flush_stdout();
		}
	}
}

/* One line of the dump as kmod_dump_index() writes it; stdout is locked. */
static int put_alias(void *out, const char *key, const char *value)
{
	fputs_unlocked("alias ", out);
	fputs_unlocked(key, out);
	putc_unlocked(' ', out);
	fputs_unlocked(value, out);
	putc_unlocked('\n', out);
	return 0;
}

/*
 * libkmod writes each piece of the dump with its own write(2), and ignores
 * a failed one (ENOSPC, EPIPE, a file size limit): the output ended
 * mid-line with exit 0. lib walks the indexes instead, through stdout's
 * buffer; an index lib refuses is left to libkmod, which writes to a
 * memory file first, copied from there through stdout, whose errors the
 * tool sees.
 */
static int dump_indexes(struct modprobe_run *r)
{
	int err = cli_flush_stdout();
	if (err < 0)
		return err; /* said at exit, once */
	char alias[sizeof(r->moddir) + 32], symbols[sizeof(r->moddir) + 32];
	snprintf(alias, sizeof(alias), "%s/modules.alias.bin", r->moddir);
	snprintf(symbols, sizeof(symbols), "%s/modules.symbols.bin", r->moddir);
	const char *const paths[] = { alias, symbols };
	flockfile(stdout);
	err = rot_index_foreach(paths, 2, put_alias, stdout);
	funlockfile(stdout);
	if (err == 0)
		return cli_flush_stdout();
	int fd = memfd_create("modprobe-indexes", MFD_CLOEXEC);
	bool write_failed = false;
	err = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		/* A node libkmod could not allocate is left out of the dump, unsaid. */
		kmod_trace_start();
		err = kmod_dump_index(r->ctx, KMOD_INDEX_MODULES_ALIAS, fd);
		if (err >= 0)
			err = kmod_dump_index(r->ctx, KMOD_INDEX_MODULES_SYMBOL, fd);
		if (err >= 0)
			err = kmod_lost();
		if (err >= 0)
			err = copy_to_stdout(fd, &write_failed);
		close(fd);
	}
	if (err < 0 && !write_failed) /* a write error is said at exit, once */
		mp_fail(r, err, MP_ERROR, "could not dump the module indexes of %s: %s", r->moddir,
			strerror(-err));
	return err < 0 ? err : cli_flush_stdout();
}

int mp_show_config(struct modprobe_run *r)
{
	static const struct {
		const char *word;
		struct kmod_config_iter *(*iter)(const struct kmod_ctx *ctx);
	} kinds[] = {
		{ "blacklist", kmod_config_get_blacklists },
		{ "install", kmod_config_get_install_commands },
		{ "remove", kmod_config_get_remove_commands },
		{ "alias", kmod_config_get_aliases },
		{ "options", kmod_config_get_options },
		{ "softdep", kmod_config_get_softdeps },
	};

	/* An iterator, or a softdep's value, that libkmod could not allocate
	 * comes back NULL, as an empty kind or a line without a value would:
	 * errno alone tells them apart. */
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		kmod_trace_start();
		struct kmod_config_iter *it = kinds[i].iter(r->ctx);
		int err = kmod_lost();
		while (it && err == 0 && kmod_config_iter_next(it)) {
			kmod_trace_start(); /* stdio's own allocations are not libkmod's */
			const char *value = kmod_config_iter_get_value(it);
			err = kmod_lost();
			if (err < 0)
				break;
			printf("%s ", kinds[i].word);
			mp_put_text(kmod_config_iter_get_key(it));
			if (value) {
				putchar(' ');
				mp_put_text(value);
			}
			putchar('\n');
		}
		if (it) /* libkmod's free does not take NULL */
			kmod_config_iter_free_iter(it);
		if (err < 0) {
			mp_fail(r, err, MP_ERROR, "could not show the configuration: %s",
				strerror(-err));
			return err;
		}
	}
	puts("\n# End of configuration files. Dumping indexes now:\n");
	return dump_indexes(r);
}

int mp_show_crcs(struct modprobe_run *r, const char *path, bool exports)
{
	struct kmod_module *mod;
	struct kmod_list *list = NULL, *l;
	struct stat st;

	/* libkmod opens what is there and reads it: a FIFO would hold the
	 * run for ever (kmod's modprobe waits on one), so only a regular
	 * file is opened. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		char why[128];
		mp_fail(r, -EINVAL, MP_FATAL, "Module %s not found: %s", path,
			cli_file_error(-EINVAL, path, 0, why, sizeof(why)));
		return -EINVAL;
	}
	int err = kmod_module_new_from_path(r->ctx, path, &mod);

	if (err < 0) {
		mp_fail(r, err, MP_FATAL, "Module %s not found.", path);
		return err;
	}
	err = exports ? kmod_module_get_symbols(mod, &list) : kmod_module_get_versions(mod, &list);
	if (err < 0) {
		mp_fail(r, err, MP_FATAL, "could not get %s of %s: %s",
			exports ? "symbols" : "modversions", path, strerror(-err));
		kmod_module_unref(mod);
		return err;
	}
	kmod_list_foreach(l, list)
	{
		const char *sym = exports ? kmod_module_symbol_get_symbol(l)
					  : kmod_module_version_get_symbol(l);
		uint64_t crc = exports ? kmod_module_symbol_get_crc(l)
				       : kmod_module_version_get_crc(l);
		printf("0x%08" PRIx64 "\t", crc);
		mp_put_text(sym);
		putchar('\n');
	}
	if (exports)
		kmod_module_symbols_free_list(list);
	else
		kmod_module_versions_free_list(list);
	kmod_module_unref(mod);
	return 0;
}
