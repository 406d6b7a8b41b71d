// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modprobe: load or unload modules by name or alias, with what they need,
 * as configured in modprobe.d and indexed by depmod. Every option of
 * kmod's modprobe, with its semantics and output; on a rot kernel -r
 * leaves alone what is in use (lib's rule, not the refcount) and says what
 * each unload leaves rotting, --reclaim frees it, and a failed init says
 * what it left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "load.h"
#include "kmodlog.h"
#include "modprobe.h"
#include "reclaim-lock.h"
#include "reclaim-report.h"
#include "stopsignal.h"
#include "sizewords.h"

static void help(void)
{
	printf("Usage:\n"
	       "  %1$s [OPTIONS] [-i] [-b] MODULE [PARAM=VALUE...]\n"
	       "  %1$s [OPTIONS] -a [-i] [-b] MODULE...\n"
	       "  %1$s [OPTIONS] -r [-i] MODULE...\n"
	       "  %1$s [OPTIONS] -c\n"
	       "  %1$s [OPTIONS] --dump-modversions FILE\n"
	       "Load modules by name or alias with what they need (modprobe.d, and the\n"
	       "indexes depmod builds), or unload them with what they leave unused.\n"
	       "\n"
	       "Management options:\n"
	       "  -a, --all                every argument is a module to load (or, -r, unload)\n"
	       "  -r, --remove             unload instead of load\n"
	       "      --remove-holders     also unload the modules that depend on it (with -r)\n"
	       "      --remove-dependencies  the same (deprecated name)\n"
	       "  -w, --wait MSEC          with -r, wait up to MSEC for the module to be unused\n"
	       "      --first-time         fail if the module is already loaded (or unloaded)\n"
	       "  -i, --ignore-install     ignore install commands\n"
	       "  -i, --ignore-remove      ignore remove commands\n"
	       "  -b, --use-blacklist      apply the blacklist to the resolved module too\n"
	       "  -f, --force              --force-vermagic and --force-modversion; with -r,\n"
	       "                           unload a permanent (stock: still used) module\n"
	       "      --force-modversion   ignore symbol versions\n"
	       "      --force-vermagic     ignore the version magic\n"
	       "      --reclaim            with -r, on a rot kernel: free what each unload\n"
	       "                           leaves rotting (taints the kernel R)\n"
	       "\n"
	       "Query options:\n"
	       "  -R, --resolve-alias      print the modules a name resolves to\n"
	       "  -D, --show-depends       print the loads a name needs, load nothing\n"
	       "  -c, --showconfig         print the configuration and the indexes\n"
	       "      --show-config        the same\n"
	       "      --show-modversions   print a module file's symbol versions\n"
	       "      --dump-modversions   the same\n"
	       "      --show-exports       print a module file's exported symbols\n"
	       "\n"
	       "General options:\n"
	       "  -n, --dry-run            do nothing, print what would be done (with -v)\n"
	       "      --show               the same\n"
	       "  -C, --config FILE        read FILE (or directory) instead of modprobe.d\n"
	       "  -d, --dirname DIR        modules under DIR/lib/modules\n"
	       "  -S, --set-version REL    modules of kernel release REL\n"
	       "  -s, --syslog             report to syslog instead of stderr\n"
	       "  -q, --quiet              report nothing\n"
	       "  -v, --verbose            print what is done, and what rots\n"
	       "      --bytes              sizes of what rots in bytes, not as 4.9K, 1.2M\n"
	       "  -h, --help               show this help\n"
	       "  -V, --version            show the version\n",
	       cli_progname());
}

/*
 * MODPROBE_OPTIONS come before the command line's, split at blanks; a
 * quoted word keeps its blanks. Returns a new argv (malloc'd) or argv.
 */
static char **options_from_env(int *argc, char **argv, char **store, int *nenv)
{
	const char *env = getenv("MODPROBE_OPTIONS");
	*store = NULL;
	*nenv = 0;
	if (!env || !*env)
		return argv;
	size_t len = strlen(env);
	char *s = malloc(len + 1), **nv = malloc(((size_t)*argc + len + 2) * sizeof(*nv));
	if (!s || !nv) {
		free(s);
		free(nv);
		cli_error("out of memory");
		exit(CLI_EXIT_PARTIAL);
	}
	int n = 0;
	nv[n++] = argv[0];
	char *o = s;
	for (const char *p = env; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		nv[n++] = o;
		char quote = 0;
		for (; *p && (quote || *p != ' '); p++) {
			if (!quote && (*p == '"' || *p == '\''))
				quote = *p;
			else if (quote && *p == quote)
				quote = 0;
			else
				*o++ = *p;
		}
		*o++ = '\0';
	}
	*nenv = n - 1;
	for (int i = 1; i < *argc; i++)
		nv[n++] = argv[i];
	nv[n] = NULL;
	*argc = n;
	*store = s;
	return nv;
}

/*
 * What children (install commands calling modprobe) inherit: the options
 * of this command line, after those it inherited itself (which are in
 * MODPROBE_OPTIONS already: appended again, they doubled at every level).
 */
static void env_append(const char *word)
{
	const char *old = getenv("MODPROBE_OPTIONS");
	char *v;
	if (asprintf(&v, "%s%s%s", old ? old : "", old ? " " : "", word) < 0)
		return;
	setenv("MODPROBE_OPTIONS", v, 1);
	free(v);
}

/*
 * A -C path as one MODPROBE_OPTIONS word that kmod's parser and ours both
 * read back whole: in single quotes, or in double quotes when it holds a
 * single one. A path with both (or a newline, which ends the variable for
 * a shell) cannot be passed on, and is refused.
 */
static void env_append_path(const char *path)
{
	char quote = strchr(path, '\'') ? '"' : '\'';
	if (strchr(path, quote) || strchr(path, '\n'))
		cli_usage_fail("-C %s: a path with both kinds of quote, or a newline, cannot be "
			       "passed on to install commands in MODPROBE_OPTIONS",
			       path);
	char *word;
	if (asprintf(&word, "%c%s%c", quote, path, quote) < 0) {
		cli_error("out of memory");
		exit(CLI_EXIT_PARTIAL);
	}
	env_append(word);
	free(word);
}

/* Whether the option getopt just returned came from MODPROBE_OPTIONS (its
 * words are argv[1..nenv]; getopt moves only non-options behind them). */
static bool option_inherited(char **argv, int before, int nenv)
{
	int element = optind == before ? before : optind - 1;
	if (optarg && optind >= 2 && optarg == argv[optind - 1] && optind != before)
		element = optind - 2; /* "-C PATH": the option is the word before */
	return element <= nenv;
}

/* "--verbose", or a bundle of short options with a v before any that
 * takes an argument ("-qv", not "-Cv") */
static bool word_sets_verbose(const char *w)
{
	if (!strcmp(w, "--verbose"))
		return true;
	if (w[0] != '-' || w[1] == '-')
		return false;
	for (const char *p = w + 1; *p && !strchr("wCdS", *p); p++)
		if (*p == 'v')
			return true;
	return false;
}

static void parse_options(int argc, char *argv[], int nenv, struct modprobe_opts *o)
{
	enum {
		OPT_FORCE_VERMAGIC = 256,
		OPT_FORCE_MODVERSION,
		OPT_FIRST_TIME,
		OPT_MODVERSIONS,
		OPT_REMOVE_HOLDERS,
		OPT_EXPORTS,
		OPT_RECLAIM,
		OPT_BYTES
	};
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "remove", no_argument, NULL, 'r' },
		{ "remove-dependencies", no_argument, NULL, OPT_REMOVE_HOLDERS },
		{ "remove-holders", no_argument, NULL, OPT_REMOVE_HOLDERS },
		{ "wait", required_argument, NULL, 'w' },
		{ "resolve-alias", no_argument, NULL, 'R' },
		{ "first-time", no_argument, NULL, OPT_FIRST_TIME },
		{ "ignore-install", no_argument, NULL, 'i' },
		{ "ignore-remove", no_argument, NULL, 'i' },
		{ "use-blacklist", no_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'f' },
		{ "force-modversion", no_argument, NULL, OPT_FORCE_MODVERSION },
		{ "force-vermagic", no_argument, NULL, OPT_FORCE_VERMAGIC },
		{ "show-depends", no_argument, NULL, 'D' },
		{ "showconfig", no_argument, NULL, 'c' },
		{ "show-config", no_argument, NULL, 'c' },
		{ "show-modversions", no_argument, NULL, OPT_MODVERSIONS },
		{ "dump-modversions", no_argument, NULL, OPT_MODVERSIONS },
		{ "show-exports", no_argument, NULL, OPT_EXPORTS },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "show", no_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'C' },
		{ "dirname", required_argument, NULL, 'd' },
		{ "set-version", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "bytes", no_argument, NULL, OPT_BYTES },
		CLI_OPTIONS_SYSLOG_VERBOSE,
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_store stores[] = {
		{ 'a', .flag = &o->all },
		{ 'r', .flag = &o->remove },
		{ OPT_REMOVE_HOLDERS, .flag = &o->remove_holders },
		{ 'R', .flag = &o->lookup_only },
		{ OPT_FIRST_TIME, .flag = &o->first_time },
		{ 'i', .flag = &o->ignore_commands },
		{ 'b', .flag = &o->use_blacklist },
		{ 'f', .flag = &o->force },
		{ OPT_FORCE_MODVERSION, .flag = &o->force_modversion },
		{ OPT_FORCE_VERMAGIC, .flag = &o->force_vermagic },
		{ 'D', .flag = &o->show_depends },
		{ 'c', .flag = &o->show_config },
		{ OPT_MODVERSIONS, .flag = &o->show_modversions },
		{ OPT_EXPORTS, .flag = &o->show_exports },
		{ 'n', .flag = &o->dry_run },
		{ OPT_RECLAIM, .flag = &o->reclaim },
		{ 'd', .arg = &o->root },
		{ 'S', .arg = &o->kversion },
		{ OPT_BYTES, .set = size_words_set_bytes },
		{ 0 },
	};
	int c, verbosity_at_quiet = 0;

	while ((c = cli_next_option(argc, argv, "arw:RibfDcnC:d:S:sqvVh", longopts, stores)) != -1) {
		bool inherited = option_inherited(argv, cli_option_optind(), nenv);
		switch (c) {
		case 'w': {
			char *end;
			errno = 0;
			o->wait_msec = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end || optarg[0] == '-')
				cli_usage_fail("unexpected wait value '%s'", optarg);
			break;
		}
		case 'C': {
			if (mp_config_path_check(optarg) < 0)
				exit(CLI_EXIT_USAGE);
			const char **v = realloc(o->config_paths, (o->nconfig + 2) * sizeof(*v));
			if (!v) {
				cli_error("out of memory");
				exit(CLI_EXIT_PARTIAL);
			}
			v[o->nconfig++] = optarg;
			v[o->nconfig] = NULL;
			o->config_paths = v;
			if (!inherited) {
				env_append("-C");
				env_append_path(optarg);
			}
			break;
		}
		case 'q':
			o->quiet = true;
			verbosity_at_quiet = cli_verbosity();
			if (!inherited)
				env_append("-q");
			break;
		}
	}
	/* kmod's -q takes its verbosity from the default (warnings) down to
	 * nothing at all, and each -v after it raises it one step: it takes
	 * five to be louder than the default, and so verbose, again. Until
	 * then -q silences -v too: -n -v -q prints no action. */
	if (o->quiet && cli_verbosity() - verbosity_at_quiet >= 5)
		o->quiet = false;
	/* -v is counted by the CLI helper, never returned: an inherited one
	 * shows in the words MODPROBE_OPTIONS gave */
	bool inherited_verbose = false;
	for (int i = 1; i <= nenv; i++)
		inherited_verbose |= word_sets_verbose(argv[i]);
	if (cli_verbosity() > 0 && !inherited_verbose)
		env_append("-v");
	if (o->reclaim && !o->remove)
		cli_usage_fail("--reclaim frees what unloading leaves: it needs -r");
}

/* The kmod context for the modules directory and modprobe.d asked for. */
static int context_new(struct modprobe_run *r)
{
	const struct modprobe_opts *o = r->opts;
	const char *dirname = NULL;
	char buf[sizeof(r->moddir)];

	if (o->root || o->kversion) {
		struct utsname u;
		if (!o->kversion && uname(&u) < 0) {
			cli_error("could not tell the kernel release: %s", strerror(errno));
			return -errno;
		}
		snprintf(buf, sizeof(buf), "%s/lib/modules/%s", o->root ? o->root : "",
			 o->kversion ? o->kversion : u.release);
		dirname = buf;
	}
	if (mp_config_dirs_check(o->config_paths) < 0)
		return -EINVAL;
	/* libkmod's own lines (a bad modprobe.d line, say) go through the
	 * tools' one log function: sanitised, and none with -q. */
	cli_set_quiet(o->quiet);
	r->ctx = cli_kmod_new(dirname, o->config_paths);
	/* No directory name: kmod_new() ran out of memory, and every lookup
	 * would find nothing. Unmapped indexes libkmod reads at each lookup
	 * with a reader that dereferences a failed allocation: out of memory
	 * stops here too. A run given module files maps no index (one could be
	 * a FIFO); the others' are checked first (-c dumps two). An absent or
	 * unreadable index stays libkmod's own case. */
	const char *moddir = r->ctx ? kmod_get_dirname(r->ctx) : NULL;
	bool files = o->show_exports || o->show_modversions;
	if (moddir && !files && cli_moddir_check(moddir) < 0)
		return -EINVAL;
	int err = !moddir ? -ENOMEM : files ? 0 : kmod_load_resources(r->ctx);
	if (err == -ENOMEM) {
		cli_error("could not set up libkmod for %s: out of memory",
			  dirname ? dirname : "the running kernel");
		return err;
	}
	snprintf(r->moddir, sizeof(r->moddir), "%s", moddir);
	return 0;
}

static void run(struct modprobe_run *r, char **args, int nargs)
{
	const struct modprobe_opts *o = r->opts;

	if (o->show_config) {
		mp_show_config(r);
	} else if (o->show_modversions || o->show_exports) {
		mp_show_crcs(r, args[0], !o->show_modversions);
	} else if (o->remove) {
		for (int i = 0; i < nargs && !r->stopped; i++)
			mp_remove(r, args[i]);
	} else if (o->all) {
		for (int i = 0; i < nargs && !r->stopped; i++)
			mp_insert(r, args[i], NULL);
	} else {
		char *params = params_join(args + 1, (size_t)nargs - 1);
		if (!params && nargs > 1) {
			mp_fail(r, -ENOMEM, MP_ERROR,
				"could not gather module options: out of memory");
			return;
		}
		mp_insert(r, args[0], params);
		free(params);
	}
}

/* On a rot kernel, after -r: what rots now (or would), and the taint. */
static void summarise(struct modprobe_run *r, struct run_taint *taint)
{
	const struct modprobe_opts *o = r->opts;
	if (!o->remove || !r->rot)
		return;
	if (o->reclaim && r->reclaimed_any) {
		int err = run_taint_after(taint, o->dry_run, ROT_TAINT_FORCED_RMMOD, &r->outcome);
		if (err == 0 && taint->before_known && taint->after_known)
			report_taint_change(taint->before, taint->after, o->dry_run);
		return;
	}
	char size[SIZE_WORDS_MAX];
	if (r->rotted && r->talk && !o->reclaim)
		cli_notice("%zu %s %s: %s", r->rotted, r->rotted == 1 ? "module" : "modules",
			   o->dry_run       ? "would rot"
			   : r->rotted == 1 ? "now rots"
					    : "now rot",
			   size_words(r->rotted_bytes, "bytes", size));
}

/*
 * An install or remove command may run modprobe, and one that runs it on
 * its own module without -i runs itself again, until exec fails. Each
 * modprobe tells its commands how deep they are; past MP_NESTING_MAX
 * levels it refuses. kmod has no bound.
 */
#define MP_NESTING_ENV "MODROT_MODPROBE_NESTING"
#define MP_NESTING_MAX 8

static int nesting_enter(bool quiet)
{
	const char *env = getenv(MP_NESTING_ENV);
	char *end, buf[16];
	long depth = env ? strtol(env, &end, 10) : 0;
	if (!env || *end || depth < 0)
		depth = 0;
	if (depth >= MP_NESTING_MAX) {
		if (!quiet)
			cli_error("install and remove commands run modprobe %d levels deep (one that runs "
				  "modprobe on its own module needs -i): not going deeper",
				  MP_NESTING_MAX);
		return -ELOOP;
	}
	snprintf(buf, sizeof(buf), "%ld", depth + 1);
	setenv(MP_NESTING_ENV, buf, 1);
	return 0;
}

int main(int argc, char *argv[])
{
	struct modprobe_opts o = { 0 };
	struct modprobe_run r = { .opts = &o };
	struct run_taint taint = { 0 };
	char *env_store;
	int nenv, lock = -1;

	cli_init("modprobe", help);
	char **args_all = options_from_env(&argc, argv, &env_store, &nenv);
	parse_options(argc, args_all, nenv, &o);
	if (nesting_enter(o.quiet) < 0)
		return CLI_EXIT_PARTIAL;
	char **args = args_all + optind;
	int nargs = argc - optind;
	if (!o.show_config && nargs == 0)
		cli_usage_fail("missing module name");

	enum cli_exit code = CLI_EXIT_OK;
	if (context_new(&r) < 0) {
		code = CLI_EXIT_PARTIAL;
		goto out;
	}
	r.show = o.show_depends || (cli_verbosity() > 0 && !o.quiet);
	/* Only an unload makes something rot to talk about: no other run
	 * asks whether stderr is a terminal. */
	r.talk = !o.quiet && (cli_verbosity() > 0 || (o.remove && isatty(STDERR_FILENO)));
	/* A run that only shows (-c, --show-*, -R, -D) reads no kernel state
	 * and changes nothing. */
	if (!o.show_config && !o.show_modversions && !o.show_exports && !o.lookup_only &&
	    !o.show_depends) {
		/* Counts of what rots and what a reclaim frees start from this
		 * snapshot: other reclaiming runs wait until this one is done. */
		if (o.reclaim && (lock = reclaim_lock_take(&code)) < 0) {
			if (stop_signal())
				code = stop_exit_code();
			goto out;
		}
		if (!mp_snapshot(&r) && o.remove) {
			/* the error of the one read: a second could succeed */
			code = cli_snapshot_error(r.snap_err);
			goto out;
		}
		if (o.reclaim && !r.rot) {
			cli_error("this kernel has no module rot support: nothing to reclaim");
			code = CLI_EXIT_UNSUPPORTED;
			goto out;
		}
		if (o.reclaim && run_taint_before(&taint, NULL) < 0)
			cli_outcome_failed(&r.outcome, -EIO);
	}
	run(&r, args, nargs);
	summarise(&r, &taint);
	code = cli_outcome_exit(&r.outcome);
out:
	rot_reclaim_unlock(lock);
	rot_usage_ctx_free(r.usage);
	rot_snapshot_free(r.snap);
	rot_kernel_facts_free(r.facts);
	gone_marks_free(&r.gone);
	free(r.tally);
	mp_forget_loaded_symbols(&r);
	if (r.ctx)
		kmod_unref(r.ctx);
	free((void *)o.config_paths);
	if (args_all != argv)
		free(args_all);
	free(env_store);
	return code;
}
