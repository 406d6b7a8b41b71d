// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cli.h"

static const char *progname = "modrot";
static void (*print_help)(void);
static bool use_syslog;
static int verbosity;

void cli_init(const char *name, void (*help)(void))
{
	progname = name;
	print_help = help;
}

const char *cli_progname(void)
{
	return progname;
}

void cli_set_syslog(bool on)
{
	if (on && !use_syslog)
		openlog(progname, LOG_CONS, LOG_DAEMON);
	use_syslog = on;
}

void cli_more_verbose(void)
{
	verbosity++;
}

bool cli_is_verbose(void)
{
	return verbosity > 0;
}

static void vlog(int priority, const char *prefix, const char *fmt, va_list ap)
{
	if (use_syslog) {
		vsyslog(priority, fmt, ap);
		return;
	}
	/* One fprintf of the whole line keeps concurrent writers' lines whole. */
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (prefix)
		fprintf(stderr, "%s: %s: %s\n", progname, prefix, msg);
	else
		fprintf(stderr, "%s: %s\n", progname, msg);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_ERR, "ERROR", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_WARNING, "WARNING", fmt, ap);
	va_end(ap);
}

void cli_notice(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_NOTICE, NULL, fmt, ap);
	va_end(ap);
}

void cli_info(const char *fmt, ...)
{
	if (!verbosity)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

noreturn void cli_usage_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Usage errors always go to the terminal: nobody reads syslog for a typo. */
	fprintf(stderr, "%s: ERROR: %s (see '%s --help')\n", progname, msg, progname);
	exit(CLI_EXIT_USAGE);
}

int cli_next_option(int argc, char *const argv[], const char *shortopts,
		    const struct option *longopts)
{
	/* A leading ':' makes getopt report a missing argument as ':'. */
	char spec[128];
	snprintf(spec, sizeof(spec), ":%s", shortopts);
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, spec, longopts, NULL);
		switch (c) {
		case '?':
		case ':': {
			const char *what = c == '?' ? "unknown option" : "missing argument for option";
			if (optopt)
				cli_usage_fail("%s '-%c'", what, optopt);
			cli_usage_fail("%s '%s'", what, argv[optind - 1]);
		}
		case 'h':
			if (print_help)
				print_help();
			exit(CLI_EXIT_OK);
		case 'V':
			cli_print_version();
			exit(CLI_EXIT_OK);
		case 's':
			cli_set_syslog(true);
			continue;
		case 'v':
			cli_more_verbose();
			continue;
		default:
			return c;
		}
	}
}

void cli_print_version(void)
{
	printf("%s (%s) %s\n", progname, PACKAGE_NAME, PACKAGE_VERSION);
}

char (*cli_module_names(char *const *typed, size_t n))[ROT_NAME_MAX + 1]
{
	char (*names)[ROT_NAME_MAX + 1] = calloc(n + 1, sizeof(*names));
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
			cli_usage_fail("'%s' is not a module name", typed[i]);
	}
	return names;
}

enum cli_exit cli_snapshot_error(int err)
{
	if (err == -ENOENT) {
		cli_error("this kernel has no module support (/proc/modules is missing)");
		return CLI_EXIT_UNSUPPORTED;
	}
	char why[256];
	cli_error("could not read the module list: %s", cli_read_error(err, why, sizeof(why)));
	return cli_exit_for_errno(err);
}

const char *cli_read_error(int err, char *buf, size_t len)
{
	const struct rot_parse_error *pe = err == -EPROTO ? rot_last_parse_error() : NULL;
	if (!pe)
		return strerror(-err);
	snprintf(buf, len, "%s line %zu: %s", pe->file, pe->line, pe->reason);
	return buf;
}

enum cli_exit cli_exit_for_errno(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return CLI_EXIT_PERM;
	case ENOSYS:
		return CLI_EXIT_UNSUPPORTED;
	default:
		return CLI_EXIT_PARTIAL;
	}
}

const char *cli_errno_hint(int err)
{
	if (err == -EPERM)
		return " (this needs CAP_SYS_MODULE, and module loading must not be disabled)";
	return "";
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
	if (*p && strcmp(p, "B") != 0 && strcmp(p, "b") != 0) {
		const char *u = strchr(units, *p >= 'a' ? *p - 32 : *p);
		if (!u)
			return -EINVAL;
		unsigned shift = 10 * (unsigned)(u - units + 1);
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
		p++;
		if (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0 || strcmp(p, "b") == 0)
			p += strlen(p);
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
