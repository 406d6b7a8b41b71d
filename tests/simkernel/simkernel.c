// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * simkernel: create a simulated kernel, run a command under it, show and
 * change its state. See README.md beside this file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernfs-hash.h"
#include "sim.h"

static const char usage_text[] =
	"usage: simkernel create DIR [--mode rot|stock] [--kernel 6.1|6.12] [--release R] [--builtin a,b]\n"
	"                            [--sig-enforce] [--modules-disabled] [--devices FILE]\n"
	"                            [--reclaim-checks y|n] [--abi 1|2|3|4] [--percpu-reserve SIZE]\n"
	"                            [--reclaim-wait MS]\n"
	"       simkernel run DIR [--nocap] -- COMMAND [ARG...]\n"
	"       simkernel state DIR\n"
	"       simkernel ledger DIR [--check]\n"
	"       simkernel populate DIR --live N [--rotting M] [--seed S] [--max-deps D]\n"
	"       simkernel set DIR NAME KEY=VALUE...\n"
	"       simkernel ref DIR NAME N\n"
	"       simkernel pin DIR NAME [N]      /  simkernel unpin DIR NAME [N]\n"
	"       simkernel hold DIR NAME task|timer|work|rcu|kprobe|running [N]\n"
	"       simkernel hold DIR NAME ref WHERE [N]\n"
	"       simkernel release DIR NAME task|timer|work|rcu|kprobe|running|ref [N]\n"
	"       simkernel device add DIR BUS ID MODALIAS\n"
	"       simkernel device add DIR --from FILE     (lines \"BUS ID MODALIAS\"; - is stdin)\n"
	"       simkernel device list DIR\n"
	"       simkernel mount DIR [--ns NAME] TYPE [SOURCE TARGET]\n"
	"       simkernel umount DIR [--ns NAME] TARGET\n"
	"       simkernel process DIR PID [--ns NAME] [--exiting link|mounts|empty]\n"
	"       simkernel process DIR PID --exit\n"
	"       simkernel dmesg DIR              (the kernel log: reclaim's lines and audit records)\n"
	"       simkernel kernfs-hash [--release R] NAME...   (\"HASH NAME\" lines, as R's kernel hashes)\n";

#define DEFAULT_RELEASE "6.1.0-sim"
#define DEFAULT_RELEASE_612 "6.12.0-sim" /* create --kernel 6.12 */

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "simkernel: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	if (!sim_path(path, sizeof(path), dir, rel))
		return -ENAMETOOLONG;
	char *slash = strrchr(path, '/');
	*slash = '\0';
	int err = mkdirs(path);
	*slash = '/';
	return err ? err : sim_write_file(-100 /* AT_FDCWD */, path, text, strlen(text));
}

/*
 * Devices from FILE ("-": stdin), one "BUS ID MODALIAS" a line, blank lines
 * and #-comments skipped: every line is checked first, then all are added
 * under one lock, so a bad line adds nothing.
 */
static int add_devices_from(const char *dir, const char *file)
{
	char *text = sim_read_file(strcmp(file, "-") ? file : "/dev/stdin", NULL);
	if (!text)
		return die(file, errno);
	size_t cap = 16, n = 0;
	char *(*lines)[3] = malloc(cap * sizeof(*lines));
	struct sim s;
	struct sim_devtab t = { 0 };
	int err = lines ? sim_open(&s, dir, 1) : -ENOMEM, ret = 1;
	if (err) {
		free(lines);
		free(text);
		return die(dir, err);
	}
	err = sim_devices_read(&s, &t);
	if (err) {
		die("devices", err);
		goto out;
	}
	unsigned lineno = 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		char *f[4], *fs = NULL;
		int nf = 0;
		for (char *w = strtok_r(line, " \t\r", &fs); w && nf < 4; w = strtok_r(NULL, " \t\r", &fs))
			f[nf++] = w;
		if (nf == 0 || f[0][0] == '#')
			continue;
		if (nf != 3) {
			fprintf(stderr, "simkernel: %s: line %u: expected BUS ID MODALIAS\n", file, lineno);
			goto out;
		}
		err = sim_device_check(&t, f[0], f[1], f[2]);
		for (size_t i = 0; i < n && !err; i++)
			if (!strcmp(lines[i][0], f[0]) && !strcmp(lines[i][1], f[1]))
				err = -EEXIST;
		if (err) {
			fprintf(stderr, "simkernel: %s: line %u: device %s %s: %s\n", file, lineno, f[0], f[1],
				err == -EEXIST ? "already present" : "bad bus, id or modalias");
			goto out;
		}
		if (n == cap) {
			char *(*nl)[3] = realloc(lines, cap * 2 * sizeof(*lines));
			if (!nl) {
				die(file, ENOMEM);
				goto out;
			}
			lines = nl;
			cap *= 2;
		}
		memcpy(lines[n++], f, sizeof(lines[0]));
	}
	for (size_t i = 0; i < n && !err; i++)
		err = sim_device_add(&s, &t, lines[i][0], lines[i][1], lines[i][2]);
	int werr = n ? sim_devices_write(&s, &t) : 0;
	if (err || werr)
		die("device add", err ? err : werr);
	else
		ret = 0;
out:
	sim_devices_free(&t);
	sim_close(&s);
	free(lines);
	free(text);
	return ret;
}

/* --percpu-reserve: bytes per CPU, or KiB with a K; whole 4-byte units, at most 1 GiB */
static int parse_reserve(const char *arg, uint32_t *out)
{
	char *end;
	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || v > (1ull << 30))
		return -EINVAL;
	if (*end == 'K' || *end == 'k') {
		v <<= 10;
		end++;
	}
	if (*end || v > (1ull << 30) || v % 4)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { "release", required_argument, NULL, 'r' },
		{ "builtin", required_argument, NULL, 'b' }, { "sig-enforce", no_argument, NULL, 's' },
		{ "modules-disabled", no_argument, NULL, 'd' }, { "devices", required_argument, NULL, 'D' },
		{ "reclaim-checks", required_argument, NULL, 'c' }, { "abi", required_argument, NULL, 'a' },
		{ "percpu-reserve", required_argument, NULL, 'p' }, { "reclaim-wait", required_argument, NULL, 'w' },
		{ "kernel", required_argument, NULL, 'k' }, { NULL, 0, NULL, 0 },
	};
	enum sim_mode mode = SIM_MODE_ROT;
	const char *release = NULL, *builtin = "", *devices = NULL;
	uint32_t flags = 0, reserve = SIM_PERCPU_RESERVE_DEFAULT, wait_ms = SIM_RECLAIM_WAIT_DEFAULT;
	int c, checks_given = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "rot"))
				mode = SIM_MODE_ROT;
			else if (!strcmp(optarg, "stock"))
				mode = SIM_MODE_STOCK;
			else
				return usage();
			break;
		case 'r': release = optarg; break;
		case 'k':
			/* which kernel's module loader: what SIZE is (README.md "Kernels") */
			if (!strcmp(optarg, "6.12"))
				flags |= SIM_CFG_LINUX_612;
			else if (!strcmp(optarg, "6.1"))
				flags &= ~SIM_CFG_LINUX_612;
			else
				return usage();
			break;
		case 'b': builtin = optarg; break;
		case 's': flags |= SIM_CFG_SIG_ENFORCE; break;
		case 'd': flags |= SIM_CFG_MODULES_DISABLED; break;
		case 'D': devices = optarg; break;
		case 'p':
			if (parse_reserve(optarg, &reserve))
				return usage();
			break;
		case 'w': {
			/* R5's bounded wait, in ms: tests need not spend the kernel's 5 s */
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || v > 600000)
				return usage();
			wait_ms = (uint32_t)v;
			checks_given = 1;
			break;
		}
		case 'a':
			checks_given = 1;
			flags &= ~(SIM_CFG_ABI_REV1 | SIM_CFG_ABI_REV2 | SIM_CFG_ABI_REV3);
			if (!strcmp(optarg, "1"))
				flags |= SIM_CFG_ABI_REV1;
			else if (!strcmp(optarg, "2"))
				flags |= SIM_CFG_ABI_REV2;
			else if (!strcmp(optarg, "3"))
				flags |= SIM_CFG_ABI_REV3;
			else if (strcmp(optarg, "4"))
				return usage();
			break;
		case 'c':
			checks_given = 1;
			if (!strcmp(optarg, "n"))
				flags |= SIM_CFG_NO_RECLAIM_CHECKS;
			else if (strcmp(optarg, "y"))
				return usage();
			break;
		default: return usage();
		}
	}
	if (optind + 1 != argc || (checks_given && mode != SIM_MODE_ROT))
		return usage(); /* a stock kernel has no reclaim to check */
	/* rot-abi.md D2 on revision 4: the scan is always built, so it reads Y */
	if ((flags & SIM_CFG_NO_RECLAIM_CHECKS) && sim_abi(flags) == 4)
		return usage();
	if (!release)
		release = (flags & SIM_CFG_LINUX_612) ? DEFAULT_RELEASE_612 : DEFAULT_RELEASE;
	const char *dir = argv[optind];
	char path[PATH_MAX], text[8192];
	int err = mkdirs(dir);
	if (err)
		return die(dir, err);
	static const char *const wipe[] = { "root", "state", "ledger", "behaviour",
					    "syms", "config", "lock", "devices",
					    "mounts", "mntns", "fstypes", "percpu", "kmsg", "reclaim.lock", "idem", "where" };
	for (size_t i = 0; i < sizeof(wipe) / sizeof(wipe[0]); i++) {
		sim_path(path, sizeof(path), dir, wipe[i]);
		sim_rm_rf_at(-100, path);
	}
	static const char *const dirs[] = { "root/proc/sys/kernel", "root/sys/module", "root/sys/bus",
					    "root/.staging", "root/.nocap/proc", "behaviour", "syms" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !err; i++) {
		sim_path(path, sizeof(path), dir, dirs[i]);
		err = mkdirs(path);
	}
	/* 6.12's same-file finit_module() calls meet there (kernel.c,
	 * sim_idem_begin()); its absence is what makes a kernel 6.1's. */
	if (!err && (flags & SIM_CFG_LINUX_612)) {
		sim_path(path, sizeof(path), dir, "idem");
		err = mkdirs(path);
	}
	if (!err)
		err = sim_create_state(dir, mode, release, flags, wait_ms);
	if (!err)
		err = sim_percpu_create(dir, reserve);
	if (!err) {
		snprintf(text, sizeof(text),
			 "mode=%s\nrelease=%s\nvermagic=%s SMP preempt mod_unload modversions \nbuiltin=%s\n"
			 "sig_enforce=%d\nmodules_disabled=%d\nreclaim_checks=%d\nabi=%d\npercpu_reserve=%" PRIu32 "\n"
			 "reclaim_wait_ms=%" PRIu32 "\nkernel=%s\n",
			 mode == SIM_MODE_ROT ? "rot" : "stock", release, release, builtin,
			 !!(flags & SIM_CFG_SIG_ENFORCE), !!(flags & SIM_CFG_MODULES_DISABLED),
			 mode == SIM_MODE_ROT && !(flags & (SIM_CFG_NO_RECLAIM_CHECKS | SIM_CFG_ABI_REV1)),
			 mode == SIM_MODE_ROT ? sim_abi(flags) : 0, reserve, wait_ms,
			 (flags & SIM_CFG_LINUX_612) ? "6.12" : "6.1");
		err = put(dir, "config", text);
	}
	if (!err) {
		snprintf(text, sizeof(text), "BOOT_IMAGE=/boot/vmlinuz-%s root=/dev/vda ro%s\n", release,
			 (flags & SIM_CFG_SIG_ENFORCE) ? " module.sig_enforce=1" : "");
		err = put(dir, "root/proc/cmdline", text);
	}
	if (!err)
		err = put(dir, "root/proc/sys/kernel/tainted", "0\n");
	if (!err)
		err = sim_mounts_init(dir);
	if (!err)
		err = put(dir, "ledger", "");
	if (!err)
		err = put(dir, "kmsg", "");
	if (!err)
		err = put(dir, "root/sys/module/module/parameters/sig_enforce",
			  (flags & SIM_CFG_SIG_ENFORCE) ? "Y\n" : "N\n");
	/* rot-abi.md D2 (revisions 2 and 3): whether reclaim sees what is still inside */
	if (!err && mode == SIM_MODE_ROT && !(flags & SIM_CFG_ABI_REV1))
		err = put(dir, "root/sys/module/module/parameters/rot_reclaim_checks",
			  (flags & SIM_CFG_NO_RECLAIM_CHECKS) ? "N\n" : "Y\n");
	/* builtin modules: a sysfs directory with parameters/ only, and modules.builtin */
	char list[8192] = "";
	size_t ll = 0;
	char *copy = strdup(builtin), *save = NULL;
	for (char *b = strtok_r(copy, ",", &save); b && !err; b = strtok_r(NULL, ",", &save)) {
		for (char *p = b; *p; p++)
			if (*p == '-')
				*p = '_';
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), "root/sys/module/%s/parameters", b);
		sim_path(path, sizeof(path), dir, rel);
		err = mkdirs(path);
		size_t room = sizeof(list) - ll;
		int w = snprintf(list + ll, room, "kernel/builtin/%s.ko\n", b);
		if (w < 0 || (size_t)w >= room)
			err = -ENAMETOOLONG;
		else
			ll += (size_t)w;
	}
	free(copy);
	if (!err) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), "root/lib/modules/%s/modules.builtin", release);
		err = put(dir, rel, list);
	}
	if (!err) {
		struct sim s;
		err = sim_open(&s, dir, 1);
		if (!err) {
			err = sim_render_lazy(&s, SIM_LAZY_PROC);
			if (!err)
				err = sim_render_lazy(&s, SIM_LAZY_KALLSYMS);
			if (!err)
				err = sim_render_lazy(&s, SIM_LAZY_PERCPU);
			sim_close(&s);
		}
	}
	if (err)
		return die(dir, err);
	return devices ? add_devices_from(dir, devices) : 0;
}

static int cmd_run(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	const char *dir = argv[1];
	int i = 2, nocap = 0;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--nocap"))
			nocap = 1;
		else if (!strcmp(argv[i], "--"))
			break;
		else
			return usage();
	}
	if (i + 1 >= argc)
		return usage();
	char absdir[PATH_MAX], self[PATH_MAX], lib[PATH_MAX + 32];
	if (!realpath(dir, absdir))
		return die(dir, errno);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return die("/proc/self/exe", errno);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(lib, sizeof(lib), "%s/libsimkernel.so", self);
	if (access(lib, R_OK) < 0)
		return die(lib, errno);
	const char *old = getenv("LD_PRELOAD");
	char *preload = malloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
	if (!preload)
		return die("LD_PRELOAD", ENOMEM);
	sprintf(preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	setenv("SIMKERNEL_DIR", absdir, 1);
	if (nocap)
		setenv("SIMKERNEL_NOCAP", "1", 1);
	else
		unsetenv("SIMKERNEL_NOCAP");
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "simkernel: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}

static int cmd_state(int argc, char **argv)
{
	if (argc != 2)
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 0);
	if (err)
		return die(argv[1], err);
	fflush(stdout);
	err = sim_state_print(&s, STDOUT_FILENO);
	sim_close(&s);
	return err ? die("state", err) : 0;
}

static int cmd_ledger(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[2], "--check")) {
		char report[1024];
		int ret = sim_ledger_check(argv[1], report, sizeof(report));
		printf("%s\n", report);
		return ret;
	}
	if (argc != 2)
		return usage();
	char path[PATH_MAX];
	sim_path(path, sizeof(path), argv[1], "ledger");
	size_t len;
	char *text = sim_read_file(path, &len);
	if (!text)
		return die(path, errno);
	fwrite(text, 1, len, stdout);
	free(text);
	return 0;
}

static uint64_t rng_next(uint64_t *st)
{
	/* splitmix64: small, seedable, and the same on every host */
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int cmd_populate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "live", required_argument, NULL, 'l' }, { "rotting", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' }, { "max-deps", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long live = 0, rotting = 0, maxdeps = 0;
	uint64_t seed = 1;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': live = strtoul(optarg, NULL, 10); break;
		case 'r': rotting = strtoul(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'd': maxdeps = strtoul(optarg, NULL, 10); break;
		default: return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	if (maxdeps > SIM_MAX_DEPS) {
		fprintf(stderr, "simkernel: --max-deps is at most %d\n", SIM_MAX_DEPS);
		return 2;
	}
	const char *dir = argv[optind];
	struct sim s;
	int err = sim_open(&s, dir, 1);
	if (err)
		return die(dir, err);
	if (rotting && s.hdr->mode != SIM_MODE_ROT) {
		sim_close(&s);
		fprintf(stderr, "simkernel: --rotting needs a rot-mode kernel\n");
		return 2;
	}
	s.bulk = 1;
	/* continue numbering after any popNNNNN already present */
	unsigned long base = 0;
	for (uint32_t i = 0; i < s.hdr->count; i++) {
		unsigned long k;
		if (s.recs[i].kind != SIM_FREE && sscanf(s.recs[i].name, "pop%lu", &k) == 1 && k + 1 > base)
			base = k + 1;
	}
	uint64_t st = seed;
	char name[SIM_NAME_LEN];
	/* rotting first, under the names the live ones will take: reloaded modules */
	for (unsigned long j = 0; j < rotting && !err; j++) {
		snprintf(name, sizeof(name), "pop%05lu", base + (live ? j % live : j));
		uint32_t core = 8192 + (uint32_t)(rng_next(&st) % 57344);
		int id = sim_add_synthetic(&s, name, core, 0, NULL, 0);
		err = id < 0 ? id : sim_rot_synthetic(&s, (uint32_t)id);
	}
	uint32_t *ids = calloc(live + 1, sizeof(uint32_t));
	if (!ids)
		err = -ENOMEM;
	for (unsigned long i = 0; i < live && !err; i++) {
		uint32_t deps[SIM_MAX_DEPS];
		unsigned nd = 0;
		if (maxdeps && i > 0) {
			unsigned want = (unsigned)(rng_next(&st) % (maxdeps + 1));
			for (unsigned t = 0; t < want; t++) {
				uint32_t d = ids[rng_next(&st) % i];
				int dup = 0;
				for (unsigned q = 0; q < nd; q++)
					dup |= deps[q] == d;
				if (!dup)
					deps[nd++] = d;
			}
		}
		snprintf(name, sizeof(name), "pop%05lu", base + i);
		uint32_t core = 8192 + (uint32_t)(rng_next(&st) % 57344);
		uint32_t init = (rng_next(&st) % 4) ? 512 + (uint32_t)(rng_next(&st) % 4096) : 0;
		int id = sim_add_synthetic(&s, name, core, init, deps, nd);
		if (id < 0)
			err = id;
		else
			ids[i] = (uint32_t)id;
	}
	/* one pass of rendering at the end, in load order */
	for (uint32_t i = 0; i < s.hdr->count && !err; i++) {
		const struct sim_rec *r = &s.recs[i];
		if (r->kind == SIM_LIVE && r->id >= (live ? ids[0] : UINT32_MAX))
			err = sim_sysfs_add(&s, r, NULL);
	}
	free(ids);
	int ferr = sim_ledger_flush(&s);
	if (!err)
		err = ferr;
	if (!err)
		err = sim_render_lazy(&s, SIM_LAZY_PROC);
	sim_close(&s);
	return err ? die("populate", err) : 0;
}

static int cmd_set(int argc, char **argv)
{
	if (argc < 4)
		return usage();
	char path[PATH_MAX], rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "behaviour/%s", argv[2]);
	if (!sim_path(path, sizeof(path), argv[1], rel))
		return die(rel, ENAMETOOLONG);
	char *old = sim_read_file(path, NULL);
	size_t cap = (old ? strlen(old) : 0) + 64;
	for (int i = 3; i < argc; i++)
		cap += strlen(argv[i]) + 2;
	char *out = calloc(1, cap);
	size_t n = 0;
	/* keep the old lines whose key is not being set again; device= accumulates */
	for (char *line = old ? strtok(old, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		size_t kl = eq ? (size_t)(eq - line) : strlen(line);
		int replaced = 0;
		for (int i = 3; i < argc; i++)
			if (!strncmp(argv[i], line, kl) && argv[i][kl] == '=' && strncmp(line, "device=", 7))
				replaced = 1;
		if (!replaced)
			n += (size_t)snprintf(out + n, cap - n, "%s\n", line);
	}
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			free(out);
			free(old);
			return usage();
		}
		if (eq[1]) /* KEY= removes the override */
			n += (size_t)snprintf(out + n, cap - n, "%s\n", argv[i]);
	}
	int err = sim_write_atomic(path, out, n);
	free(out);
	free(old);
	return err ? die(path, err) : 0;
}

static int cmd_ref(int argc, char **argv)
{
	if (argc != 4)
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	if (s.hdr->mode != SIM_MODE_STOCK) {
		sim_close(&s);
		fprintf(stderr, "simkernel: ref: a rot-mode kernel has no reference counts\n");
		return 2;
	}
	struct sim_rec *r = sim_find_live(&s, argv[2]);
	if (!r) {
		sim_close(&s);
		return die(argv[2], ENOENT);
	}
	r->refs = atoi(argv[3]);
	err = sim_sysfs_refcnt(&s, r);
	__atomic_add_fetch(&s.hdr->gen, 1, __ATOMIC_RELEASE);
	sim_close(&s);
	return err ? die("ref", err) : 0;
}

/* N of `pin DIR NAME [N]` and the like: 1 by default, at most 65535 */
static int count_arg(const char *arg, unsigned *n)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);
	if (!*arg || *end || v == 0 || v > 65535)
		return -1;
	*n = (unsigned)v;
	return 0;
}

/* the newest instance of name with pins (hold < 0) or with that hold, live first */
static struct sim_rec *newest_with(struct sim *s, const char *name, int hold)
{
	struct sim_rec *r = sim_find_live(s, name);
	if (r && (hold < 0 ? r->pins : r->hold[hold]))
		return r;
	for (uint32_t i = s->hdr->count; i-- > 0;) {
		r = &s->recs[i];
		if (r->kind == SIM_ROT && !strcmp(r->name, name) && (hold < 0 ? r->pins : r->hold[hold]))
			return r;
	}
	return NULL;
}

/* the newest rotting instance of name */
static struct sim_rec *newest_rotting(struct sim *s, const char *name)
{
	for (uint32_t i = s->hdr->count; i-- > 0;)
		if (s->recs[i].kind == SIM_ROT && !strcmp(s->recs[i].name, name))
			return &s->recs[i];
	return NULL;
}

/*
 * pin / unpin DIR NAME [N]: try_module_get() and module_put() (rot-abi.md
 * C3). A pin is taken on the live module and follows it into rot; unpin
 * drops pins from the newest instance that has any, live or rotting. On a
 * stock kernel a pin is a reference (refcnt), as `ref` sets.
 */
static int cmd_pin(int argc, char **argv, int add)
{
	unsigned n = 1;
	if ((argc != 3 && argc != 4) || (argc == 4 && count_arg(argv[3], &n)))
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	const char *what = add ? "pin" : "unpin";
	int stock = s.hdr->mode == SIM_MODE_STOCK;
	struct sim_rec *r = add || stock ? sim_find_live(&s, argv[2]) : newest_with(&s, argv[2], -1);
	if (!r || (!add && (stock ? r->refs : (int32_t)r->pins) < (int32_t)n)) {
		sim_close(&s);
		fprintf(stderr, "simkernel: %s: %s: %s\n", what, argv[2],
			r ? "fewer pins than that" : add ? "no live module of that name" : "nothing of that name is pinned");
		return 1;
	}
	if (stock) {
		r->refs += add ? (int32_t)n : -(int32_t)n;
		err = sim_sysfs_refcnt(&s, r);
	} else {
		r->pins = add ? r->pins + n : r->pins - n;
	}
	__atomic_add_fetch(&s.hdr->gen, 1, __ATOMIC_RELEASE);
	sim_close(&s);
	return err ? die(what, err) : 0;
}

/* "task PID (COMM) stack" for the process that asked for the hold's parent:
 * the task a test stands for (rot-abi.md R11's form) */
static void task_where(char *buf, size_t len)
{
	char path[64], comm[32] = "sh";
	pid_t pid = getppid();
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, len, "task %ld (%s) stack", (long)pid, comm);
}

/* rot-abi.md R11: printable ASCII, shorter than the reply's 128 bytes */
static int where_ok(const char *w)
{
	size_t n = strlen(w);
	if (!n || n >= SIM_WHERE_LEN)
		return 0;
	for (; *w; w++)
		if (*w < 0x20 || *w > 0x7e)
			return 0;
	return 1;
}

/*
 * hold / release DIR NAME KIND [N]: what reclaim finds inside an instance
 * besides pins (rot-abi.md R4, R5; revision 4: R10). hold puts it in the
 * live module (it follows the module into rot) or, with none live, in the
 * newest rotting instance; release takes it from the newest instance that
 * has it. `hold DIR NAME ref WHERE [N]` (revision 4 only) is a reference
 * the scan finds at WHERE; on revision 4 a task hold is found on the stack
 * of the task that asked for it (its parent: the test's shell).
 */
static int cmd_hold(int argc, char **argv, int add)
{
	unsigned n = 1;
	const char *where = NULL;
	if (argc < 4)
		return usage();
	int h = sim_hold_parse(argv[3]);
	if (h < 0)
		return usage();
	int first_n = 4;
	if (h == SIM_HOLD_REF && add) {
		if (argc < 5 || !where_ok(argv[4]))
			return usage();
		where = argv[4];
		first_n = 5;
	}
	if ((argc != first_n && argc != first_n + 1) || (argc == first_n + 1 && count_arg(argv[first_n], &n)))
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	const char *what = add ? "hold" : "release";
	if (s.hdr->mode != SIM_MODE_ROT) {
		sim_close(&s);
		fprintf(stderr, "simkernel: %s: a stock kernel has no reclaim to keep anything from\n", what);
		return 2;
	}
	int rev4 = sim_abi(s.hdr->cfgflags) == 4;
	if (h == SIM_HOLD_REF && !rev4) {
		sim_close(&s);
		fprintf(stderr, "simkernel: %s: ref: only a revision-4 kernel scans for references\n", what);
		return 2;
	}
	struct sim_rec *r;
	if (add) {
		r = sim_find_live(&s, argv[2]);
		if (!r)
			r = newest_rotting(&s, argv[2]);
	} else {
		r = newest_with(&s, argv[2], h);
	}
	if (!r || (add && r->hold[h] + n > 65535) || (!add && r->hold[h] < n)) {
		sim_close(&s);
		fprintf(stderr, "simkernel: %s: %s: %s\n", what, argv[2],
			!r ? (add ? "no module of that name" : "nothing of that name holds that") : "count out of range");
		return 1;
	}
	r->hold[h] = (uint16_t)(add ? r->hold[h] + n : r->hold[h] - n);
	if (rev4 && (h == SIM_HOLD_REF || h == SIM_HOLD_TASK)) {
		char tw[SIM_WHERE_LEN];
		if (add && h == SIM_HOLD_TASK) {
			task_where(tw, sizeof(tw));
			where = tw;
		}
		if (add || !r->hold[h])
			err = sim_where_set(s.dir, r->id, sim_hold_name((unsigned)h), add ? where : NULL);
	}
	__atomic_add_fetch(&s.hdr->gen, 1, __ATOMIC_RELEASE);
	sim_close(&s);
	return err ? die(what, err) : 0;
}

static int cmd_device_add(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[2], "--from"))
		return add_devices_from(argv[1], argv[3]);
	if (argc != 5 || argv[2][0] == '-')
		return usage();
	struct sim s;
	struct sim_devtab t;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	err = sim_devices_read(&s, &t);
	if (!err)
		err = sim_device_add(&s, &t, argv[2], argv[3], argv[4]);
	if (!err)
		err = sim_devices_write(&s, &t);
	sim_devices_free(&t);
	sim_close(&s);
	if (err == -EEXIST) {
		fprintf(stderr, "simkernel: device %s %s: already present\n", argv[2], argv[3]);
		return 1;
	}
	if (err == -EINVAL) {
		fprintf(stderr, "simkernel: device %s %s: bad bus, id or modalias\n", argv[2], argv[3]);
		return 1;
	}
	return err ? die("device add", err) : 0;
}

/* BUS ID MODALIAS DRIVER-or-- a line, in the order the devices appeared */
static int cmd_device_list(int argc, char **argv)
{
	if (argc != 2)
		return usage();
	struct sim s;
	struct sim_devtab t;
	int err = sim_open(&s, argv[1], 0);
	if (err)
		return die(argv[1], err);
	err = sim_devices_read(&s, &t);
	sim_close(&s);
	if (err)
		return die("devices", err);
	for (uint32_t i = 0; i < t.n; i++)
		printf("%s %s %s %s\n", t.v[i].bus, t.v[i].id, t.v[i].modalias, t.v[i].bound ? t.v[i].driver : "-");
	sim_devices_free(&t);
	return fflush(stdout) ? die("stdout", errno) : 0;
}

/* Each name's kernfs_name_hash() as the kernel of a release (default: the
 * simulated one's) computes it, from the definition the simulator and
 * libmodrot share: for tests that predict a /sys listing's order. */
static int cmd_kernfs_hash(int argc, char **argv)
{
	const char *release = DEFAULT_RELEASE;
	int first = 1;
	if (argc >= 3 && !strcmp(argv[1], "--release")) {
		release = argv[2];
		first = 3;
	}
	bool char_signed = kernfs_char_signed(release);
	for (int i = first; i < argc; i++)
		printf("%" PRIu32 " %s\n", kernfs_name_hash(argv[i], char_signed), argv[i]);
	return fflush(stdout) ? die("stdout", errno) : 0;
}

static int cmd_device(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "add"))
		return cmd_device_add(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "list"))
		return cmd_device_list(argc - 1, argv + 1);
	return usage();
}

/* "--ns NAME" right after DIR (argv[2]): NAME, NULL for the initial
 * namespace ("init" names it too); argv and argc lose the two words. */
static int ns_option(int *argc, char **argv, const char **ns)
{
	*ns = NULL;
	if (*argc < 3 || strcmp(argv[2], "--ns"))
		return 0;
	if (*argc < 4)
		return -1;
	*ns = strcmp(argv[3], "init") ? argv[3] : NULL;
	memmove(argv + 2, argv + 4, (size_t)(*argc - 4 + 1) * sizeof(*argv));
	*argc -= 2;
	return 0;
}

/* mount DIR [--ns NAME] TYPE [SOURCE TARGET]: SOURCE defaults to TYPE, TARGET to /mnt/TYPE */
static int cmd_mount(int argc, char **argv)
{
	const char *ns;
	if (ns_option(&argc, argv, &ns) < 0)
		return usage();
	if (argc != 3 && argc != 5)
		return usage();
	char target[PATH_MAX];
	const char *type = argv[2], *source = argc == 5 ? argv[3] : type;
	snprintf(target, sizeof(target), "%s%s", argc == 5 ? "" : "/mnt/", argc == 5 ? argv[4] : type);
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	err = sim_mount(&s, ns, type, source, target);
	sim_close(&s);
	if (err == -ENODEV) {
		fprintf(stderr, "simkernel: mount: unknown filesystem type '%s'\n", type);
		return 1;
	}
	if (err == -EBUSY) {
		fprintf(stderr, "simkernel: mount: %s is already a mount point\n", target);
		return 1;
	}
	return err ? die("mount", err) : 0;
}

static int cmd_umount(int argc, char **argv)
{
	const char *ns;
	if (ns_option(&argc, argv, &ns) < 0)
		return usage();
	if (argc != 3)
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	err = sim_umount(&s, ns, argv[2]);
	sim_close(&s);
	if (err == -EINVAL) {
		fprintf(stderr, "simkernel: umount: %s: not mounted\n", argv[2]);
		return 1;
	}
	return err ? die("umount", err) : 0;
}

/* process DIR PID [--ns NAME] [--exiting link|mounts|empty] | --exit */
static int cmd_process(int argc, char **argv)
{
	const char *ns = NULL, *stage = NULL;
	char *end;
	if (argc < 3)
		return usage();
	long pid = strtol(argv[2], &end, 10);
	if (*end || pid <= 0)
		return usage();
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--ns") && i + 1 < argc)
			ns = strcmp(argv[++i], "init") ? argv[i] : NULL;
		else if (!strcmp(argv[i], "--exiting") && i + 1 < argc)
			stage = argv[++i];
		else if (!strcmp(argv[i], "--exit") && !stage)
			stage = "exit";
		else
			return usage();
	}
	if (stage && (!strcmp(stage, "exit") ? ns != NULL || argc != 4
					     : strcmp(stage, "link") && strcmp(stage, "mounts") &&
						       strcmp(stage, "empty")))
		return usage();
	struct sim s;
	int err = sim_open(&s, argv[1], 1);
	if (err)
		return die(argv[1], err);
	err = sim_process(&s, pid, ns, stage);
	sim_close(&s);
	if (err == -ESRCH) {
		fprintf(stderr, "simkernel: process: %ld: no such process\n", pid);
		return 1;
	}
	return err ? die("process", err) : 0;
}

/* dmesg DIR: the simulated kernel log, as it was appended */
static int cmd_dmesg(int argc, char **argv)
{
	if (argc != 2)
		return usage();
	char path[PATH_MAX];
	if (!sim_path(path, sizeof(path), argv[1], "kmsg"))
		return die(argv[1], -ENAMETOOLONG);
	size_t len = 0;
	char *text = sim_read_file(path, &len);
	if (!text)
		return die(path, errno ? -errno : -ENOMEM);
	int err = fwrite(text, 1, len, stdout) == len ? 0 : -EIO;
	free(text);
	return err ? die("dmesg", err) : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *cmd = argv[1];
	argc--;
	argv++;
	if (!strcmp(cmd, "create"))
		return cmd_create(argc, argv);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc, argv);
	if (!strcmp(cmd, "state"))
		return cmd_state(argc, argv);
	if (!strcmp(cmd, "ledger"))
		return cmd_ledger(argc, argv);
	if (!strcmp(cmd, "populate"))
		return cmd_populate(argc, argv);
	if (!strcmp(cmd, "set"))
		return cmd_set(argc, argv);
	if (!strcmp(cmd, "ref"))
		return cmd_ref(argc, argv);
	if (!strcmp(cmd, "pin") || !strcmp(cmd, "unpin"))
		return cmd_pin(argc, argv, cmd[0] == 'p');
	if (!strcmp(cmd, "hold") || !strcmp(cmd, "release"))
		return cmd_hold(argc, argv, cmd[0] == 'h');
	if (!strcmp(cmd, "device"))
		return cmd_device(argc, argv);
	if (!strcmp(cmd, "mount"))
		return cmd_mount(argc, argv);
	if (!strcmp(cmd, "umount"))
		return cmd_umount(argc, argv);
	if (!strcmp(cmd, "process"))
		return cmd_process(argc, argv);
	if (!strcmp(cmd, "dmesg"))
		return cmd_dmesg(argc, argv);
	if (!strcmp(cmd, "kernfs-hash"))
		return cmd_kernfs_hash(argc, argv);
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	return usage();
}
