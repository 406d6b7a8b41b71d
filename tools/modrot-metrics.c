// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * modrot-metrics: the kernel's module rot as Prometheus metrics, in the
 * text format node_exporter's textfile collector reads.
 *
 * One snapshot gives the live modules and the rotting instances by name;
 * the taint mask is read once. With -o the file is replaced atomically
 * (a temporary file in the same directory, then rename), so the collector
 * never reads half a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-errors.h"
#include "cli-exit.h"
#include "cli-msg.h"
#include "cli-opts.h"
#include "cli-run.h"
#include "modrot.h"
#include "outbuf.h"
#include "promlabel.h"

/* Linux 6.1 has 19 taint bits (TAINT_FLAGS_COUNT). */
#define TAINT_BITS 19

static void help(void)
{
	printf("Usage: %s [OPTIONS]\n"
	       "Print the kernel's module rot as Prometheus metrics (text format).\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output FILE   write FILE atomically instead of standard output\n"
	       "                      (for node_exporter's textfile collector: *.prom)\n"
	       "  -c, --ceiling SIZE  export SIZE (64M, 512K, 4096) as modrot_ceiling_bytes:\n"
	       "                      the most rot the host is set to keep (MODROT_CEILING)\n"
	       "  -h, --help          show this help\n"
	       "  -V, --version       show the version\n",
	       cli_progname());
}

/* Set when a label could not be written for want of memory: the metrics
 * are then not written at all, rather than written wrong. */
static bool out_of_memory;

static void put_family(FILE *f, const char *name, const char *help_text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help_text, name);
}

/* A family of one sample without labels: NAME VALUE. */
static void put_gauge(FILE *f, const char *name, const char *help_text, uint64_t value)
{
	put_family(f, name, help_text);
	fprintf(f, "%s %" PRIu64 "\n", name, value);
}

/* The start of a sample with one label: METRIC{LABEL="VALUE"} ; the
 * sample's value follows. The value is escaped injectively (promlabel.h):
 * two module names never give the same series, which node_exporter would
 * drop as a duplicate. */
static void put_label(FILE *f, const char *metric, const char *label, const char *value)
{
	struct outbuf o;
	size_t n = strlen(value);
	if (outbuf_init(&o, 5 * n + 1) < 0) {
		out_of_memory = true;
		return;
	}
	prom_label_escape(&o, value, n);
	out_of_memory |= outbuf_failed(&o);
	fprintf(f, "%s{%s=\"%.*s\"} ", metric, label, (int)o.len, o.buf);
	outbuf_release(&o);
}

/* METRIC{name="NAME"} BYTES for each group; returns the bytes' sum. */
static uint64_t put_bytes_by_name(FILE *f, const char *metric, const struct rot_group *g, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		put_label(f, metric, "name", g[i].name);
		fprintf(f, "%" PRIu64 "\n", g[i].bytes);
		sum += g[i].bytes;
	}
	return sum;
}

static void put_rot(FILE *f, const struct rot_group *g, size_t n)
{
	size_t instances = 0;

	put_family(f, "modrot_rotting_bytes",
		   "Bytes held by the rotting instances of a module name.");
	uint64_t bytes = put_bytes_by_name(f, "modrot_rotting_bytes", g, n);
	put_family(f, "modrot_rotting_instances", "Rotting instances of a module name.");
	for (size_t i = 0; i < n; i++) {
		put_label(f, "modrot_rotting_instances", "name", g[i].name);
		fprintf(f, "%zu\n", g[i].instances);
		instances += g[i].instances;
	}
	put_gauge(f, "modrot_rot_bytes", "Bytes held by all rotting module instances.", bytes);
	put_gauge(f, "modrot_rot_instances", "Rotting module instances.", instances);
	put_gauge(f, "modrot_rot_names", "Module names with rotting instances.", n);
}

static void put_taint(FILE *f, unsigned long mask)
{
	put_gauge(f, "modrot_kernel_taint_mask",
		  "The kernel taint mask (/proc/sys/kernel/tainted).", mask);
	put_family(f, "modrot_kernel_taint",
		   "1 when the kernel has this taint bit (R: rot was reclaimed or a module forced out).");
	for (unsigned bit = 0; bit < TAINT_BITS; bit++) {
		char letter[8];
		rot_taint_letters(1UL << bit, letter, sizeof(letter));
		fprintf(f, "modrot_kernel_taint{bit=\"%u\",letter=\"%s\"} %d\n", bit, letter,
			(mask >> bit) & 1 ? 1 : 0);
	}
}

/*
 * The per-CPU module reserve (/proc/module_percpu), which runs out before
 * rot does, and what the rotting instances of each name keep of it, all
 * per CPU. A kernel without the file (a stock kernel, or an older rot
 * kernel) has none of these series.
 */
static int put_percpu(FILE *f)
{
	struct rot_percpu *pc;
	int err = rot_percpu_read(&pc);
	if (err == -ENOENT)
		return 0;
	if (err < 0)
		return err;
	struct rot_group *g;
	size_t n;
	err = rot_percpu_rotting_groups(pc, &g, &n);
	if (err < 0) {
		rot_percpu_free(pc);
		return err;
	}
	put_gauge(f, "modrot_percpu_reserve_bytes",
		  "Size of the per-CPU module reserve, per CPU (/proc/module_percpu).",
		  rot_percpu_reserve(pc));
	put_gauge(f, "modrot_percpu_reserve_free_bytes",
		  "Free bytes of the per-CPU module reserve, per CPU.", rot_percpu_free_bytes(pc));
	put_gauge(f, "modrot_percpu_reserve_largest_free_bytes",
		  "Largest free extent of the per-CPU module reserve, per CPU: the most "
		  "per-CPU data a module can load with.",
		  rot_percpu_largest(pc));
	put_family(f, "modrot_rotting_percpu_bytes",
		   "Per-CPU reserve bytes, per CPU, kept by the rotting instances of a module name.");
	uint64_t total = put_bytes_by_name(f, "modrot_rotting_percpu_bytes", g, n);
	put_gauge(f, "modrot_rot_percpu_bytes",
		  "Per-CPU reserve bytes, per CPU, kept by all rotting module instances.", total);
	free(g);
	rot_percpu_free(pc);
	return 0;
}

/* The host's ceiling, when one was given: alerts compare the rot with
 * each host's own rather than with one figure written into the rule. */
static bool have_ceiling;
static uint64_t ceiling_bytes;

/* Writes every metric into f. Returns 0, or a negative errno when the
 * kernel's module list could not be read (nothing useful was written).
 * The reserve and the taint are left out, with their error in *percpu_err
 * and *taint_err, when they cannot be read. */
static int put_metrics(FILE *f, int *percpu_err, int *taint_err)
{
	struct rot_snapshot *snap;
	int err = rot_snapshot_read(&snap);
	if (err < 0)
		return err;

	put_family(f, "modrot_build_info",
		   "Always 1; the version label is the modrot that wrote these metrics, "
		   "whose home page is " PACKAGE_URL ".");
	put_label(f, "modrot_build_info", "version", PACKAGE_VERSION);
	fputs("1\n", f);
	if (have_ceiling)
		put_gauge(f, "modrot_ceiling_bytes",
			  "The most rotting module memory this host is set to keep (MODROT_CEILING).",
			  ceiling_bytes);

	bool rot = rot_snapshot_has_rot(snap);
	put_gauge(f, "modrot_kernel_rot_supported",
		  "1 when the kernel has module rot support (/proc/rotting_modules exists).",
		  rot ? 1 : 0);

	size_t live = rot_snapshot_live_count(snap);
	uint64_t live_bytes = 0;
	for (size_t i = 0; i < live; i++)
		live_bytes += rot_module_size(rot_snapshot_module(snap, i));
	put_gauge(f, "modrot_live_modules", "Live (and loading or unloading) modules.", live);
	put_gauge(f, "modrot_live_bytes", "Bytes held by live modules.", live_bytes);

	/* A stock kernel has no rot: its absence, not a zero, says so. */
	if (rot) {
		struct rot_group *g;
		size_t n;
		err = rot_snapshot_rotting_groups(snap, &g, &n);
		if (err < 0) {
			rot_snapshot_free(snap);
			return err;
		}
		put_rot(f, g, n);
		free(g);
	}
	rot_snapshot_free(snap);

	*percpu_err = put_percpu(f);

	unsigned long mask;
	*taint_err = rot_taint_read(&mask);
	if (*taint_err == 0)
		put_taint(f, mask);
	return 0;
}

/* What is at path may be replaced: a regular file (or a link to one), or
 * nothing. A FIFO, device or directory there (or a link to one) is someone
 * else's, and renaming over it would take it away: -EINVAL. */
static int check_target(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

/* Replaces path with the text, through a temporary file beside it. Sets
 * *no_create when the directory refused the temporary file: then it is
 * the directory, not the file, that needs write access. */
static int write_atomically(const char *path, const char *text, size_t len, bool *no_create)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char *tmp;

	const char *base = slash ? slash + 1 : path;
	/* A leading dot and no .prom suffix: the collector skips it. The
	 * name is cut so that ".", it and ".XXXXXX" fit in NAME_MAX: any name
	 * that can be written can be written through its temporary file. */
	int keep = (int)strnlen(base, NAME_MAX - 8);
	if (asprintf(&tmp, "%.*s.%.*s.XXXXXX", dirlen, path, keep, base) < 0)
		return -ENOMEM;
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int err = -errno;
		*no_create = true;
		free(tmp);
		return err;
	}
	int err = 0;
	for (size_t done = 0; done < len && err == 0;) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno != EINTR)
			err = -errno;
		else if (w > 0)
			done += (size_t)w;
	}
	/* Readable by the collector, which need not run as root. */
	if (err == 0 && fchmod(fd, 0644) < 0)
		err = -errno;
	if (err == 0 && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && err == 0)
		err = -errno;
	if (err == 0 && rename(tmp, path) < 0)
		err = -errno;
	if (err < 0)
		unlink(tmp);
	free(tmp);
	return err;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "ceiling", required_argument, NULL, 'c' },
		CLI_OPTIONS_HELP_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	const struct cli_store stores[] = {
		{ 'c', .size = &ceiling_bytes, .flag = &have_ceiling, .examples = "64M, 512K, 4096" },
		{ 0 },
	};
	const char *output = NULL;

	cli_init("modrot-metrics", help);
	/* Only -o is left to read here. */
	while (cli_next_option(argc, argv, "o:c:hV", longopts, stores) != -1) {
		if (!*optarg)
			cli_usage_fail("the output file name is empty");
		output = optarg;
	}
	if (optind < argc)
		cli_usage_fail("unexpected argument '%s'", argv[optind]);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		cli_error("could not build the metrics: %s", strerror(errno));
		return CLI_EXIT_PARTIAL;
	}
	int percpu_err = 0, taint_err = 0;
	int err = put_metrics(f, &percpu_err, &taint_err);
	/* A memory stream fails only to grow, and fclose does not say so: a
	 * write failed, a label could not be escaped, or the text is gone
	 * (glibc's last realloc failed). */
	bool lost = ferror(f) || out_of_memory;
	int closed = fclose(f);
	lost = lost || !text;
	if ((closed != 0 || lost) && err == 0) {
		cli_error("could not build the metrics: %s", strerror(lost ? ENOMEM : errno));
		free(text);
		return CLI_EXIT_PARTIAL;
	}
	if (err < 0) {
		free(text);
		return cli_snapshot_error(err);
	}

	char why[256];
	if (percpu_err < 0)
		cli_warn("could not read the per-CPU module reserve: %s; its metrics are left out",
			 cli_read_error(percpu_err, why, sizeof(why)));
	if (taint_err < 0)
		cli_warn("could not read the kernel taint: %s; its metrics are left out",
			 cli_read_error(taint_err, why, sizeof(why)));
	if (output) {
		bool no_create = false;
		err = check_target(output);
		if (err == 0)
			err = write_atomically(output, text, len, &no_create);
		if (err < 0 && no_create) {
			/* the directory: "." for a bare name, "/" for one in / */
			const char *slash = strrchr(output, '/');
			int dirlen = slash && slash != output ? (int)(slash - output) : 1;
			cli_error("could not write %s: cannot create a file in %.*s: %s", output,
				  dirlen, slash ? output : ".", cli_strerror(err));
		} else if (err < 0) {
			cli_error("could not write %s: %s", output,
				  cli_file_error(err, output, 0, why, sizeof(why)));
		}
	} else {
		/* One line, with the errno of the write that failed: the exit hook
		 * says nothing more. */
		errno = 0;
		err = fwrite(text, 1, len, stdout) == len ? 0 : -(errno ? errno : EIO);
		int flushed = cli_flush_stdout();
		if (err == 0)
			err = flushed;
		if (err < 0)
			cli_output_failed(err);
	}
	free(text);
	return err < 0 || percpu_err < 0 || taint_err < 0 ? CLI_EXIT_PARTIAL : CLI_EXIT_OK;
}
