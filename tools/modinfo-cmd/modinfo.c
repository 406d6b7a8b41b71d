// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modinfo: show what a module is, as kmod's modinfo does (the same
 * options, the same output byte for byte), and on a rot kernel what the
 * running kernel holds of its name: live or not, and its rotting
 * instances. --verify checks the signature as insmod --verify does; -J
 * writes JSON.
 */
#include <errno.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "json-keys.h"
#include "jsonwrt.h"
#include "kmodlog.h"
#include "modinfo.h"
#include "sigwords.h"

static void help(void)
{
	printf("Usage: %s [OPTIONS] MODULE|FILE|ALIAS...\n"
	       "Show the information a kernel module carries, and on a rot kernel what\n"
	       "the running kernel holds of its name (state, rotting, rotting_bytes,\n"
	       "rotting_percpu).\n"
	       "\n"
	       "Options:\n"
	       "  -a, --author             print only 'author'\n"
	       "  -d, --description        print only 'description'\n"
	       "  -l, --license            print only 'license'\n"
	       "  -p, --parameters         print only 'parm'\n"
	       "  -n, --filename           print only 'filename'\n"
	       "  -F, --field FIELD        print only FIELD\n"
	       "  -0, --null               end each value with a NUL byte, not a newline\n"
	       "  -m, --modname            take each argument as a module name, never an\n"
	       "                           alias or a file\n"
	       "  -k, --set-version VER    use the modules of kernel release VER, not the\n"
	       "                           running kernel's\n"
	       "  -b, --basedir DIR        use DIR as the root of /lib/modules\n"
	       "      --verify KEYRING     check each module's signature against the\n"
	       "                           certificates in KEYRING (a PEM or DER file, or\n"
	       "                           a directory); exit 1 unless all are valid\n"
	       "  -J, --json               one JSON document\n"
	       "  -h, --help               show this help\n"
	       "  -V, --version            show the version\n",
	       cli_progname());
}

struct modinfo_run {
	struct modinfo_opts opts;
	bool by_name;           /* -m */
	const char *root;       /* -b */
	const char *kversion;   /* -k */
	char dirname[PATH_MAX]; /* ROOT/lib/modules/VERSION */
	bool explicit_dir;      /* -b or -k: dirname goes to libkmod */
	struct kmod_ctx *ctx;
	struct rot_snapshot *snap; /* NULL: the running kernel's state is not shown */
	struct rot_group *groups;
	size_t ngroups;
	struct rot_percpu *percpu;       /* NULL: the kernel lists no per-CPU areas */
	struct rot_group *percpu_groups; /* names point into percpu */
	size_t npercpu_groups;
	struct rot_keyring *keyring;
	struct json_writer json;
	/* Failures after the start: each is exit status 1, as in kmod's
	 * modinfo, whatever the errno (an unreadable module file too). */
	unsigned failures;
};

static void parse_options(int argc, char *argv[], struct modinfo_run *run)
{
	enum { OPT_VERIFY = 256 };
	static const struct option longopts[] = {
		{ "author", no_argument, NULL, 'a' },
		{ "description", no_argument, NULL, 'd' },
		{ "license", no_argument, NULL, 'l' },
		{ "parameters", no_argument, NULL, 'p' },
		{ "filename", no_argument, NULL, 'n' },
		{ "null", no_argument, NULL, '0' },
		{ "modname", no_argument, NULL, 'm' },
		{ "field", required_argument, NULL, 'F' },
		{ "set-version", required_argument, NULL, 'k' },
		{ "basedir", required_argument, NULL, 'b' },
		{ "verify", required_argument, NULL, OPT_VERIFY },
		{ "json", no_argument, NULL, 'J' },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	struct modinfo_opts *o = &run->opts;
	const struct cli_store stores[] = {
		{ 'm', .flag = &run->by_name }, { 'k', .arg = &run->kversion },
		{ 'b', .arg = &run->root },     { OPT_VERIFY, .arg = &o->keyring_path },
		{ 'J', .flag = &o->json },      { 0 },
	};
	/* What the other options return: a field's option, -F or -0. */
	static const char *const fields[] = {
		['a'] = "author", ['d'] = "description", ['l'] = "license",
		['p'] = "parm",   ['n'] = "filename",
	};
	bool field_option = false;
	int c;

	o->separator = '\n';
	/* As in kmod's modinfo, a later field option replaces an earlier one. */
	while ((c = cli_next_option(argc, argv, "adlpn0mF:k:b:JhV", longopts, stores)) != -1) {
		if (c == '0') {
			o->separator = '\0';
		} else {
			o->field = c == 'F' ? optarg : fields[c];
			field_option = true;
		}
	}
	if (o->json && (field_option || o->separator == '\0'))
		cli_usage_fail("-J excludes -F, -a, -d, -l, -p, -n and -0: JSON holds every field");
	if (optind >= argc)
		cli_usage_fail("missing module or filename");
	for (int i = optind; i < argc; i++)
		if (!argv[i][0])
			cli_usage_fail("an empty module name");
}

/*
 * The module directory as kmod's modinfo builds it: ROOT/lib/modules/VER
 * when -b or -k is given, else libkmod's default. Also decides whether the
 * modules are the running kernel's, so that its state belongs beside them.
 */
static bool module_directory(struct modinfo_run *run)
{
	struct utsname u;
	if (uname(&u) < 0)
		cli_usage_fail("uname() failed: %s", strerror(errno));
	const char *root = run->root ? run->root : "",
		   *rel = run->kversion ? run->kversion : u.release;
	int n = snprintf(run->dirname, sizeof(run->dirname), "%s/lib/modules/%s", root, rel);
	if (n < 0 || (size_t)n >= sizeof(run->dirname))
		cli_usage_fail("the module directory %s/lib/modules/%s is longer than %d bytes",
			       root, rel, PATH_MAX - 1);
	/* libkmod's default is the same directory; given explicitly only
	 * when asked, as kmod's modinfo does. */
	run->explicit_dir = run->root || run->kversion;
	return !strcmp(rel, u.release);
}

/* The per-CPU areas rotting instances keep, where the kernel lists them
 * (a rot kernel before the per-CPU interface does not). */
static void read_percpu(struct modinfo_run *run)
{
	int err = rot_percpu_read(&run->percpu);
	if (err == -ENOENT)
		return;
	if (err == 0)
		err = rot_percpu_rotting_groups(run->percpu, &run->percpu_groups,
						&run->npercpu_groups);
	if (err < 0) {
		cli_read_failed("the per-CPU module areas", err);
		run->failures++;
		rot_percpu_free(run->percpu);
		run->percpu = NULL;
	}
}

/* The running kernel's modules, once: a missing /proc/modules means a
 * kernel without modules, whose state there is nothing to show of. */
static void read_kernel_state(struct modinfo_run *run)
{
	int err = rot_snapshot_read(&run->snap);
	if (err == -ENOENT)
		return;
	if (err < 0) {
		cli_read_failed("the running kernel's modules", err);
		run->failures++;
		run->snap = NULL;
		return;
	}
	if (rot_snapshot_has_rot(run->snap)) {
		err = rot_snapshot_rotting_groups(run->snap, &run->groups, &run->ngroups);
		if (err < 0) {
			cli_error("could not count rotting modules: %s", cli_strerror(err));
			exit(CLI_EXIT_PARTIAL);
		}
		read_percpu(run);
	}
}

static void kernel_state_of(const struct modinfo_run *run, const char *name, bool builtin,
			    struct modinfo_kernel *k)
{
	if (!run->snap)
		return;
	k->known = true;
	k->rot = rot_snapshot_has_rot(run->snap);
	const struct rot_module *m = rot_snapshot_find_live(run->snap, name);
	k->state = m ? rot_state_name(rot_module_state(m)) : builtin ? "builtin" : "not loaded";
	for (size_t i = 0; i < run->ngroups; i++)
		if (!strcmp(run->groups[i].name, name)) {
			k->rotting = run->groups[i].instances;
			k->rotting_bytes = run->groups[i].bytes;
		}
	k->percpu_known = run->percpu != NULL;
	for (size_t i = 0; i < run->npercpu_groups; i++)
		if (!strcmp(run->percpu_groups[i].name, name))
			k->rotting_percpu = run->percpu_groups[i].bytes;
}

/* Checks the signature of the very bytes the kernel would get, as insmod
 * --verify does. */
static void verify_of(const struct modinfo_run *run, const char *filename, struct modinfo_verify *v)
{
	v->asked = true;
	if (!filename) {
		snprintf(v->why, sizeof(v->why), "built into the kernel: no module file to verify");
		return;
	}
	struct rot_modfile *mf;
	int err = rot_modfile_read(filename, &mf);
	if (err < 0) {
		snprintf(v->why, sizeof(v->why), "could not read %s to verify it: %s", filename,
			 cli_strerror(err));
		return;
	}
	size_t len;
	const void *image = rot_modfile_image(mf, &len);
	if (!image || !len) {
		snprintf(v->why, sizeof(v->why), "%s could not be decompressed to verify it",
			 filename);
	} else if (rot_modsig_verify(run->keyring, image, len, &v->sig) < 0) {
		snprintf(v->why, sizeof(v->why), "out of memory while verifying");
	} else {
		v->checked = true;
		if (rot_sig_info_status(v->sig) != ROT_SIG_VALID)
			sig_describe_failure(v->sig, run->opts.keyring_path, v->why, sizeof(v->why));
	}
	rot_modfile_free(mf);
}

static void show_module(struct modinfo_run *run, const char *argument, struct kmod_module *mod)
{
	struct modinfo_record r = { .argument = argument,
				    .name = kmod_module_get_name(mod),
				    .filename = kmod_module_get_path(mod) };
	const char *field = run->opts.field;
	struct kmod_list *info = NULL;
	const char *what = NULL; /* why the file was refused before libkmod read it */
	char why[128];
	int err = 0;

	/* -n needs nothing but the path: kmod's modinfo prints it even for a
	 * file it could not read. */
	if (!field || strcmp(field, "filename")) {
		/* Only a regular file of a module's size gets to libkmod, which
		 * would wait on a FIFO or decompress a bomb (docs/architecture.md,
		 * "libkmod and the optional libraries"). What libkmod can say
		 * itself (corrupt data, no library to decompress) it says. */
		void *image = NULL;
		size_t image_len = 0;
		err = r.filename ? rot_modfile_check(r.filename, &image, &image_len) : 0;
		if (err == -EBADMSG || err == -ENODATA || err == -ELIBACC)
			err = 0;
		if (err < 0) {
			what = err == -EFBIG && rot_file_check(r.filename, ROT_MODFILE_MAX) == 0
				       ? "it decompresses to more than 512 MiB, more than any module"
				       : cli_file_error(err, r.filename, ROT_MODFILE_MAX, why,
							sizeof(why));
		} else {
			kmod_trace_start();
			err = cli_kmod_get_info(run->ctx, mod, image, image_len, &info);
			free(image);
			/* liblzma's or libzstd's failed allocation reaches us as EINVAL */
			int lost = kmod_lost();
			if (lost < 0) {
				kmod_module_info_free_list(info);
				info = NULL;
				err = lost;
			}
		}
	}
	/* A builtin module without modules.builtin.modinfo (an old kernel) has
	 * nothing more to say; kmod's modinfo prints its name alone. */
	if (err < 0 && !(r.filename == NULL && err == -ENOENT)) {
		r.unreadable = true;
		if (!run->opts.json)
			(void)modinfo_text_print(&r, &run->opts);
		cli_error("%s: could not read the module's information from %s: %s", r.name,
			  r.filename ? r.filename : "modules.builtin.modinfo",
			  what ? what : cli_strerror(err));
		run->failures++;
		return;
	}
	r.info = info;
	kernel_state_of(run, r.name, r.filename == NULL, &r.kernel);
	if (run->opts.keyring_path)
		verify_of(run, r.filename, &r.verify);

	err = run->opts.json ? modinfo_json_print(&run->json, &r)
			     : modinfo_text_print(&r, &run->opts);
	if (err < 0) {
		cli_error("%s: out of memory: what was printed of it is incomplete", r.name);
		run->failures++;
	}

	if (r.verify.asked &&
	    (!r.verify.checked || rot_sig_info_status(r.verify.sig) != ROT_SIG_VALID)) {
		cli_error("%s: %s", r.filename ? r.filename : r.name, r.verify.why);
		run->failures++;
	}
	rot_sig_info_free(r.verify.sig);
	kmod_module_info_free_list(info);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);
	return n > t && !strcmp(s + n - t, tail);
}

/* kmod's rule: a regular file with a module file's extension is a file;
 * anything else is a name or an alias (a FIFO or directory of that name
 * too: it is looked up, never opened). gzip is not among the extensions,
 * since this system's libkmod cannot read it. */
static bool is_module_file(const char *arg)
{
	struct stat st;
	return (ends_with(arg, ".ko") || ends_with(arg, ".ko.xz") || ends_with(arg, ".ko.zst")) &&
	       stat(arg, &st) == 0 && S_ISREG(st.st_mode);
}

static void not_found(struct modinfo_run *run, const char *arg, const char *what)
{
	struct stat st;
	if (ends_with(arg, ".ko.gz") && stat(arg, &st) == 0 && S_ISREG(st.st_mode))
		cli_error("%s: gzip-compressed, and this system's libkmod cannot read gzip", arg);
	else
		cli_error("%s '%s' not found in %s", what, arg, run->dirname);
	run->failures++;
}

/* libkmod lost an allocation or a read while it looked: its "not found",
 * or its shorter list, would be a lie. */
static void lookup_failed(struct modinfo_run *run, const char *arg, int err)
{
	cli_error("could not look up '%s': %s", arg, cli_strerror(err));
	run->failures++;
}

static void show_argument(struct modinfo_run *run, const char *arg)
{
	struct kmod_module *mod = NULL;
	int err;

	/* libkmod 30 overflows a stack buffer normalising what is longer */
	if (!is_module_file(arg) && rot_alias_check(arg) < 0) {
		cli_error("'%.40s...' is no module name or alias: %zu bytes, and an alias has "
			  "at most %d",
			  arg, strlen(arg), ROT_ALIAS_MAX);
		run->failures++;
		return;
	}
	if (run->by_name) {
		kmod_trace_start();
		err = cli_kmod_new_from_name_lookup(run->ctx, arg, &mod);
		int lost = kmod_lost();
		if (lost < 0) {
			kmod_module_unref(mod);
			return lookup_failed(run, arg, lost);
		}
		if (err < 0 || !mod)
			return not_found(run, arg, "module name");
	} else if (is_module_file(arg)) {
		err = kmod_module_new_from_path(run->ctx, arg, &mod);
		if (err < 0) {
			cli_error("%s: %s", arg, cli_strerror(err));
			run->failures++;
			return;
		}
	} else {
		struct kmod_list *list = NULL, *l;
		kmod_trace_start();
		err = kmod_module_new_from_lookup(run->ctx, arg, &list);
		int lost = kmod_lost();
		if (lost < 0) {
			kmod_module_unref_list(list);
			return lookup_failed(run, arg, lost);
		}
		if (err < 0 || !list)
			return not_found(run, arg, "module or alias");
		kmod_list_foreach(l, list)
		{
			struct kmod_module *m = kmod_module_get_module(l);
			show_module(run, arg, m);
			kmod_module_unref(m);
		}
		kmod_module_unref_list(list);
		return;
	}
	show_module(run, arg, mod);
	kmod_module_unref(mod);
}

int main(int argc, char *argv[])
{
	static const char *const no_config[] = { NULL };
	struct modinfo_run run = { 0 };
	enum cli_exit status = CLI_EXIT_PARTIAL;

	cli_init("modinfo", help);
	parse_options(argc, argv, &run);
	if (run.opts.keyring_path) {
		enum cli_exit kr =
			sig_keyring_load(run.opts.keyring_path, &run.keyring, CLI_EXIT_USAGE);
		if (kr != CLI_EXIT_OK)
			exit(kr);
	}
	if (module_directory(&run))
		read_kernel_state(&run);

	run.ctx = cli_kmod_new(run.explicit_dir ? run.dirname : NULL, no_config);
	if (!run.ctx) {
		cli_error("out of memory");
		goto out;
	}
	/* The indexes mapped once, as modprobe has them: unmapped, libkmod
	 * reads them at every lookup with a reader that dereferences a failed
	 * allocation or the garbage of a failed read. No directory name means
	 * kmod_new() ran out of memory. A run given only module files maps no
	 * index (one could be a FIFO); the others' are checked first. */
	const char *moddir = kmod_get_dirname(run.ctx);
	bool by_name = run.by_name;
	for (int i = optind; i < argc && !by_name; i++)
		by_name = !is_module_file(argv[i]);
	if (moddir && by_name && cli_moddir_check(moddir) < 0)
		goto out;
	int err = !moddir ? -ENOMEM : by_name ? kmod_load_resources(run.ctx) : 0;
	if (err == -ENOMEM) {
		cli_error("could not read the module indexes in %s: %s", run.dirname,
			  cli_strerror(err));
		goto out;
	}

	if (run.opts.json) {
		if (json_start_stdout(&run.json, false) < 0) {
			cli_error("out of memory");
			goto out;
		}
		/* Unknown (null) when the modules are another kernel's. */
		if (run.snap)
			json_bool(&run.json, JK_ROT, rot_snapshot_has_rot(run.snap));
		else
			json_null(&run.json, JK_ROT);
		json_open_array(&run.json, JK_MODULES);
	}
	for (int i = optind; i < argc; i++)
		show_argument(&run, argv[i]);
	if (run.opts.json) {
		json_close_array(&run.json);
		err = json_finish(&run.json);
		if (err < 0)
			cli_output_failed(err);
	}
	status = run.failures ? CLI_EXIT_PARTIAL : CLI_EXIT_OK;
out:
	if (run.ctx)
		kmod_unref(run.ctx);
	free(run.groups);
	free(run.percpu_groups);
	rot_percpu_free(run.percpu);
	rot_snapshot_free(run.snap);
	rot_keyring_free(run.keyring);
	return status;
}
