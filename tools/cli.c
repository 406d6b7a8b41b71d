// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cli.h"

static const char *progname = "modrot";
static void (*print_help)(void);
static bool use_syslog;
static bool quiet;
static int verbosity;
static bool output_failed;
static const int (*exclusive_groups)[CLI_EXCLUSIVE_MAX];
static size_t exclusive_ngroups;
static int exclusive_seen[8];

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

/*
 * At exit: a failed write to stdout is a failed run (exit 1, one line),
 * whatever the tool was about to return. A failed stderr cannot be told
 * anyone; it turns success into exit 1 and leaves a failure's own status.
 */
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
 * /dev/null in its place keeps the slot and fails every write with EBADF,
 * just as the closed descriptor would. */
static void keep_standard_descriptors(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
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

/* ---- the sanitiser ---- */

size_t cli_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, and past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Length of the printable UTF-8 sequence at s (n bytes left), or 0 for a
 * byte to escape: C0 controls, DEL, the backslash, the C1 controls (U+0080
 * to U+009F, which some terminals obey as escapes) and invalid UTF-8. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 0;
	size_t len = cli_utf8_len(s, n);
	if (len == 2 && c == 0xc2 && s[1] < 0xa0)
		return 0;
	return len;
}

/* Bytes of a word: any below 0x20, at or above 0x7f, or a backslash? The
 * classic bit tricks (haszero, hasless) answer for eight bytes at once;
 * they never miss one. */
static bool word_needs_care(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t below_space = (w - ones * 0x20) & ~w & highs;
	uint64_t del = w ^ (ones * 0x7f), backslash = w ^ (ones * '\\');
	uint64_t is_del = (del - ones) & ~del & highs;
	uint64_t is_backslash = (backslash - ones) & ~backslash & highs;
	return ((w & highs) | below_space | is_del | is_backslash) != 0;
}

bool cli_text_is_safe(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	/* Plain ASCII, the common case, is checked a word at a time. */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		if (word_needs_care(w))
			break;
	}
	/* The last few bytes as one word too, padded with a safe letter:
	 * most names end in one (lsmod checks ten thousand a listing). */
	if (i < n && n - i < 8) {
		uint64_t w = 0x6161616161616161u;
		memcpy(&w, p + i, n - i);
		if (!word_needs_care(w))
			return true;
	}
	while (i < n) {
		size_t len = printable_utf8(p + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

static void put_escaped(struct outbuf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len = printable_utf8(p + i, n - i);
		if (len) {
			outbuf_put(o, s + i, len);
			i += len;
			continue;
		}
		char esc[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };
		outbuf_put(o, esc, 4);
		i++;
	}
}

void cli_put_safe(struct outbuf *o, const char *s)
{
	size_t n = strlen(s);
	if (cli_text_is_safe(s, n))
		outbuf_put(o, s, n);
	else
		put_escaped(o, s, n);
}

char *cli_safe_dup(const char *s)
{
	size_t n = strlen(s);
	if (cli_text_is_safe(s, n))
		return strdup(s);
	struct outbuf o;
	if (outbuf_init(&o, n * 4 + 1) < 0)
		return NULL;
	put_escaped(&o, s, n);
	outbuf_putc(&o, '\0');
	if (outbuf_failed(&o)) {
		outbuf_release(&o);
		return NULL;
	}
	return o.buf;
}

const char *cli_safe(const char *s, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used = 0;
	for (size_t i = 0; i < n;) {
		size_t len = printable_utf8(p + i, n - i);
		if (len ? used + len >= cap : used + 4 >= cap)
			break;
		if (len) {
			memcpy(buf + used, s + i, len);
			used += len;
			i += len;
			continue;
		}
		buf[used++] = '\\';
		buf[used++] = 'x';
		buf[used++] = hex[p[i] >> 4];
		buf[used++] = hex[p[i] & 15];
		i++;
	}
	buf[used] = '\0';
	return buf;
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

void cli_set_quiet(bool on)
{
	quiet = on;
}

bool cli_is_quiet(void)
{
	return quiet;
}

void cli_more_verbose(void)
{
	verbosity++;
}

bool cli_is_verbose(void)
{
	return verbosity > 0;
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

void cli_fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_CRIT, "FATAL", fmt, ap);
	va_end(ap);
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
	if (!verbosity || quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_INFO, NULL, fmt, ap);
	va_end(ap);
}

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

static bool is_prefix(const struct option *o, const char *name, size_t len)
{
	return strncmp(o->name, name, len) == 0;
}

/*
 * What getopt_long refused in the long option word ("--name" or
 * "--name=value"; c is '?' or ':'), told as getopt's own messages tell it
 * (opterr is off so that each is one line here): a prefix of options that
 * differ is ambiguous, with every option it may mean listed; an option
 * given a value it takes none of, or missing its argument, is named in
 * full. Never returns.
 */
static noreturn void long_option_fail(const char *word, int c, const struct option *longopts)
{
	const char *name = word + 2;
	size_t len = strcspn(name, "=");
	const struct option *found = NULL;
	bool ambiguous = false;

	for (const struct option *o = longopts; o && o->name; o++) {
		if (!is_prefix(o, name, len))
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
		/* Every possibility, as getopt lists them: the first match and
		 * each that differs from it, in table order. An entry that does
		 * not fit whole is left out. */
		char list[768] = "", item[128];
		size_t used = 0;
		for (const struct option *o = longopts; o->name; o++) {
			if (!is_prefix(o, name, len) || (o != found && same_option(found, o)))
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

int cli_next_option(int argc, char *const argv[], const char *shortopts,
		    const struct option *longopts)
{
	/* A leading ':' makes getopt report a missing argument as ':'. */
	char spec[128];
	snprintf(spec, sizeof(spec), ":%s", shortopts);
	opterr = 0;
	for (;;) {
		int before = optind;
		int c = getopt_long(argc, argv, spec, longopts, NULL);
		switch (c) {
		case '?':
		case ':': {
			/*
			 * getopt steps past a long option it refuses, and past a
			 * cluster of short ones only when the refused letter ends
			 * it: a word behind optind that starts with "--" is the
			 * long option refused now. optopt alone cannot tell (for a
			 * long option it is 0 or the option's value).
			 */
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
			cli_print_version();
			exit(CLI_EXIT_OK);
		case 's':
			cli_set_syslog(true);
			continue;
		case 'v':
			cli_more_verbose();
			continue;
		default:
			if (c != -1)
				check_exclusive(c, longopts);
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

const char *cli_strerror(int err)
{
	const char *lib = err == -ELIBACC ? rot_library_error() : NULL;
	return lib ? lib : strerror(-err);
}

const char *cli_read_error(int err, char *buf, size_t len)
{
	const struct rot_parse_error *pe = err == -EPROTO ? rot_parse_error_last() : NULL;
	if (!pe)
		return cli_strerror(err);
	snprintf(buf, len, "%s line %zu: %s", pe->file, pe->line, pe->reason);
	return buf;
}

const char *cli_input_error(int err)
{
	switch (err) {
	case -EINVAL:
		return "not a regular file";
	case -EBADMSG:
		return "malformed (empty, a NUL byte, or a line without a type)";
	case -ESTALE:
		return "not what its binary index holds (run depmod)";
	default:
		return cli_strerror(err);
	}
}

const char *cli_file_kind(uint64_t mode)
{
	switch (mode) {
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a fifo";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

const char *cli_file_error(int err, const char *path, uint64_t limit, char *buf, size_t len)
{
	struct stat st;
	if (err == -EINVAL && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(buf, len, "%s, not a regular file", cli_file_kind(st.st_mode & S_IFMT));
		return buf;
	}
	if (err == -EINVAL)
		return "not a regular file";
	if (err == -EFBIG) {
		snprintf(buf, len, "too large: more than %llu MiB",
			 (unsigned long long)(limit >> 20));
		return buf;
	}
	return cli_strerror(err);
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

void cli_outcome_failed(struct cli_outcome *o, int err)
{
	o->failures++;
	if (err == -EPERM || err == -EACCES)
		o->perm++;
}

void cli_outcome_cascaded(struct cli_outcome *o)
{
	o->failures++;
	o->cascaded++;
}

enum cli_exit cli_outcome_exit(const struct cli_outcome *o)
{
	if (o->failures == 0)
		return CLI_EXIT_OK;
	if (o->perm > 0 && o->perm + o->cascaded == o->failures)
		return CLI_EXIT_PERM;
	return CLI_EXIT_PARTIAL;
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
