// SPDX-License-Identifier: GPL-2.0-or-later
/* The run (cli-run.h), messages (cli-msg.h) and options (cli-opts.h),
 * which share the tool's name, -s and -v. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cli-escape.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"

static const char *progname = "modrot";
static void (*print_help)(void);
static bool use_syslog;
static bool quiet;
static int verbosity;
static bool output_failed;
static const int (*exclusive_groups)[CLI_EXCLUSIVE_MAX];
static size_t exclusive_ngroups;
static int exclusive_seen[8];
static int option_optind;

void cli_output_failed(int err)
{
	if (output_failed)
		return;
	output_failed = true;
	if (use_syslog) {
		syslog(LOG_ERR, "could not write to standard output: %s", strerror(-err));
		return;
	}
	/* Straight to the descriptor: stderr's own state may be the failed one. */
	char line[256];
	int n = snprintf(line, sizeof(line), "%s: ERROR: could not write to standard output: %s\n",
			 progname, strerror(-err));
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* The errno of the first failed flush of stdout: stdio keeps only a flag. */
static int stdout_errno;

int cli_flush_stdout(void)
{
	if (fflush(stdout) == 0)
		return 0;
	if (!stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return -stdout_errno;
}

/* Closes a stream and says whether what was written to it got out. A
 * stream closed before the tool started (EBADF) is no failure as long as
 * nothing was written to it. */
static int close_stream(FILE *f, int earlier_errno)
{
	bool pending = __fpending(f) != 0;
	bool failed_before = ferror(f) != 0;
	errno = 0;
	bool close_failed = fclose(f) != 0;
	int err = close_failed ? errno : 0;
	if (failed_before || (close_failed && (pending || err != EBADF)))
		return -(err ? err : earlier_errno ? earlier_errno : EIO);
	return 0;
}

/* At exit, as cli-run.h says. A failed stderr cannot be told anyone, so
 * it changes only a success. */
static void close_standard_streams(int status, void *unused)
{
	(void)unused;
	int err = close_stream(stdout, stdout_errno);
	if (err < 0)
		cli_output_failed(err);
	bool stderr_failed = close_stream(stderr, 0) < 0;
	if (output_failed || (stderr_failed && status == 0))
		_exit(CLI_EXIT_PARTIAL);
}

/* A closed standard descriptor would be taken by the next file opened,
 * and output meant for the terminal would land in it. A read-only
 * /dev/null in its place fails every write with EBADF, as the closed one
 * would. */
static void keep_standard_descriptors(void)
{
	/* A closed one answers poll(2) POLLNVAL; should poll fail, each is
	 * asked alone. */
	struct pollfd std[] = { { .fd = STDIN_FILENO },
				{ .fd = STDOUT_FILENO },
				{ .fd = STDERR_FILENO } };
	bool polled = poll(std, 3, 0) >= 0;
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		bool closed = polled ? (std[fd].revents & POLLNVAL) != 0
				     : fcntl(fd, F_GETFD) < 0 && errno == EBADF;
		if (!closed)
			continue;
		int nul = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (nul >= 0 && nul != fd) {
			dup2(nul, fd);
			close(nul);
		}
	}
}

void cli_init(const char *name, void (*help)(void))
{
	progname = name;
	print_help = help;
	keep_standard_descriptors();
	on_exit(close_standard_streams, NULL);
}

const char *cli_progname(void)
{
	return progname;
}

void cli_set_quiet(bool on)
{
	quiet = on;
}

bool cli_is_quiet(void)
{
	return quiet;
}

int cli_verbosity(void)
{
	return verbosity;
}

static void vlog(int priority, const char *prefix, const char *fmt, va_list ap)
{
	/* Messages carry names from argv, module files and kernel files: the
	 * whole line is sanitised, so no caller can forget a part. */
	char raw[1024], msg[2048];
	if (priority == LOG_INFO && (!verbosity || quiet))
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	cli_safe(raw, msg, sizeof(msg));
	if (use_syslog) {
		syslog(priority, "%s", msg);
		return;
	}
	/* One fprintf of the whole line keeps concurrent writers' lines whole. */
	if (prefix)
		fprintf(stderr, "%s: %s: %s\n", progname, prefix, msg);
	else
		fprintf(stderr, "%s: %s\n", progname, msg);
}

/* The message functions of cli-msg.h: one each, the same but for level and prefix. */
#define CLI_MESSAGE_FUNCTION(name, priority, prefix) \
	void name(const char *fmt, ...)              \
	{                                            \
		va_list ap;                          \
		va_start(ap, fmt);                   \
		vlog(priority, prefix, fmt, ap);     \
		va_end(ap);                          \
	}
CLI_MESSAGE_FUNCTION(cli_fatal, LOG_CRIT, "FATAL")
CLI_MESSAGE_FUNCTION(cli_error, LOG_ERR, "ERROR")
CLI_MESSAGE_FUNCTION(cli_warn, LOG_WARNING, "WARNING")
CLI_MESSAGE_FUNCTION(cli_notice, LOG_NOTICE, NULL)
CLI_MESSAGE_FUNCTION(cli_info, LOG_INFO, NULL) /* vlog() passes it over without -v, or with -q */

noreturn void cli_usage_fail(const char *fmt, ...)
{
	char raw[1024], msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	cli_safe(raw, msg, sizeof(msg));
	/* Usage errors always go to the terminal: nobody reads syslog for a typo. */
	fprintf(stderr, "%s: ERROR: %s (see '%s --help')\n", progname, msg, progname);
	exit(CLI_EXIT_USAGE);
}

void cli_exclusive_options(const int (*groups)[CLI_EXCLUSIVE_MAX], size_t ngroups)
{
	exclusive_groups = groups;
	exclusive_ngroups = ngroups < 8 ? ngroups : 8;
	memset(exclusive_seen, 0, sizeof(exclusive_seen));
}

static void option_name(int c, const struct option *longopts, char *buf, size_t cap)
{
	for (const struct option *o = longopts; o && o->name; o++) {
		if (!o->flag && o->val == c) {
			snprintf(buf, cap, "--%s", o->name);
			return;
		}
	}
	snprintf(buf, cap, "-%c", c);
}

static void check_exclusive(int c, const struct option *longopts)
{
	for (size_t g = 0; g < exclusive_ngroups; g++) {
		const int *group = exclusive_groups[g];
		for (size_t i = 0; i < CLI_EXCLUSIVE_MAX && group[i]; i++) {
			if (group[i] != c)
				continue;
			if (exclusive_seen[g] && exclusive_seen[g] != c) {
				char first[64], second[64];
				option_name(exclusive_seen[g], longopts, first, sizeof(first));
				option_name(c, longopts, second, sizeof(second));
				cli_usage_fail("%s and %s exclude each other", first, second);
			}
			exclusive_seen[g] = c;
		}
	}
}

/* Two table entries a prefix may stand for without being ambiguous: getopt
 * takes either, as they mean the same (an alias). */
static bool same_option(const struct option *a, const struct option *b)
{
	return a->has_arg == b->has_arg && a->flag == b->flag && a->val == b->val;
}

/* What getopt_long refused (c is '?' or ':') in the long option word
 * ("--name" or "--name=value"), told in getopt's own words but on one
 * line (opterr is off). */
static noreturn void long_option_fail(const char *word, int c, const struct option *longopts)
{
	const char *name = word + 2;
	size_t len = strcspn(name, "=");
	const struct option *found = NULL;
	bool ambiguous = false;

	for (const struct option *o = longopts; o && o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len) { /* an exact match is never ambiguous */
			found = o;
			ambiguous = false;
			break;
		}
		if (!found)
			found = o;
		else if (!same_option(found, o))
			ambiguous = true;
	}
	if (ambiguous) {
		/* As getopt lists them: the first match and each that differs
		 * from it. An entry that does not fit whole is left out. */
		char list[768] = "", item[128];
		size_t used = 0;
		for (const struct option *o = longopts; o->name; o++) {
			if (strncmp(o->name, name, len) != 0 ||
			    (o != found && same_option(found, o)))
				continue;
			int n = snprintf(item, sizeof(item), " '--%s'", o->name);
			if (n > 0 && (size_t)n < sizeof(item) && used + (size_t)n < sizeof(list)) {
				memcpy(list + used, item, (size_t)n + 1);
				used += (size_t)n;
			}
		}
		cli_usage_fail("option '%s' is ambiguous; possibilities:%s", word, list);
	}
	if (found && c == ':')
		cli_usage_fail("missing argument for option '--%s'", found->name);
	if (found && name[len] == '=' && found->has_arg == no_argument)
		cli_usage_fail("option '--%s' doesn't allow an argument", found->name);
	cli_usage_fail("unknown option '%s'", word);
}

/* Does what each entry of stores for option c says: false when there is none. */
static bool store_option(int c, const struct cli_store *stores)
{
	bool found = false;
	for (const struct cli_store *s = stores; s && s->val; s++) {
		if (s->val != c)
			continue;
		if (s->size && cli_parse_size(optarg, s->size) < 0)
			cli_usage_fail("'%s' is not a size (%s)", optarg, s->examples);
		if (s->flag)
			*s->flag = true;
		if (s->arg)
			*s->arg = optarg;
		if (s->bits)
			*s->bits |= s->mask;
		if (s->set)
			s->set(true);
		found = true;
	}
	return found;
}

int cli_next_option(int argc, char *const argv[], const char *shortopts,
		    const struct option *longopts, const struct cli_store *stores)
{
	/* A leading ':' makes getopt report a missing argument as ':'. */
	char spec[128];
	snprintf(spec, sizeof(spec), ":%s", shortopts);
	opterr = 0;
	for (;;) {
		int before = option_optind = optind;
		int c = getopt_long(argc, argv, spec, longopts, NULL);
		switch (c) {
		case '?':
		case ':': {
			/* getopt steps past a refused long option, and past a
			 * cluster of short ones only when the refused letter ends
			 * it: a word behind optind that starts with "--" is the
			 * long option refused (optopt cannot tell). */
			const char *word = optind > before ? argv[optind - 1] : NULL;
			if (word && word[0] == '-' && word[1] == '-' && word[2])
				long_option_fail(word, c, longopts);
			const char *what = c == '?' ? "unknown option"
						    : "missing argument for option";
			if (optopt)
				cli_usage_fail("%s '-%c'", what, optopt);
			cli_usage_fail("%s '%s'", what, argv[optind - 1]);
		}
		case 'h':
			if (print_help)
				print_help();
			exit(CLI_EXIT_OK);
		case 'V':
			printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
			exit(CLI_EXIT_OK);
		case 's':
			if (!use_syslog)
				openlog(progname, LOG_CONS, LOG_DAEMON);
			use_syslog = true;
			continue;
		case 'v':
			verbosity++;
			continue;
		default:
			if (c != -1)
				check_exclusive(c, longopts);
			if (c != -1 && store_option(c, stores))
				continue;
			return c;
		}
	}
}

int cli_option_optind(void)
{
	return option_optind;
}

char (*cli_module_names(char *const *typed, size_t n))[ROT_NAME_MAX + 1]
{
	char(*names)[ROT_NAME_MAX + 1] = calloc(n + 1, sizeof(*names));
	if (!names) {
		cli_error("out of memory");
		exit(CLI_EXIT_PARTIAL);
	}
	for (size_t i = 0; i < n; i++) {
		int err = rot_name_normalise(typed[i], names[i]);
		if (err == -ENAMETOOLONG)
			cli_usage_fail("'%s' is not a module name: longer than %d bytes", typed[i],
				       ROT_NAME_MAX);
		if (err < 0)
			cli_usage_fail("'%s' is not a module name: a name is printable ASCII without "
				       "blanks, not '.' or '..', and holds a '/' only as a module "
				       "file's path",
				       typed[i]);
	}
	return names;
}

int cli_parse_size(const char *text, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *p = text;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	const char *u = *p ? strchr(units, *p >= 'a' ? *p - 32 : *p) : NULL;
	if (u) {
		unsigned shift = 10 * (unsigned)(u - units + 1);
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
		p += strcmp(p + 1, "iB") == 0 ? 3 : 1; /* a B or b after the letter is left */
	}
	if (*p && strcmp(p, "B") != 0 && strcmp(p, "b") != 0)
		return -EINVAL;
	*bytes = v;
	return 0;
}

int cli_parse_interval(const char *text, double *seconds)
{
	/* Plain decimal only: strtod would also take blanks, signs, exponents,
	 * hex, "inf" and "nan". */
	size_t digits = strspn(text, "0123456789");
	const char *p = text + digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, "0123456789");
		digits += frac;
		p += 1 + frac;
	}
	if (digits == 0 || *p)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno == ERANGE || !(v > 0) || v > 86400)
		return -ERANGE;
	*seconds = v;
	return 0;
}
