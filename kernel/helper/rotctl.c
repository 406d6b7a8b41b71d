// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rotctl: one module syscall, made directly, for the rot kernel's
 * scenarios (and, built dynamically, for the same scenarios on the
 * simulated kernel, whose preload answers syscall()).
 *
 *   rotctl load FILE [PARAMS]          finit_module() once, never retried
 *   rotctl init FILE [PARAMS]          init_module() of the file's bytes;
 *                                      .xz and .zst are decompressed first,
 *                                      in userspace, as libkmod does
 *   rotctl delete NAME FLAGS           delete_module(); FLAGS as in C (0x800)
 *   rotctl reclaim NAME [force|FLAGS]  ioctl(ROT_IOC_RECLAIM) on
 *                                      /proc/rotting_modules, with
 *                                      ROT_RECLAIM_FORCE when forced, or
 *                                      the request's FLAGS as in C
 *   rotctl why NAME [force]            the same, and what the reply says
 *                                      of the kept instances:
 *                                      "EBUSY kept=1 why=pin,task pins=1 ..."
 *   rotctl nocap COMMAND ARGS...       the same without CAP_SYS_MODULE
 *   rotctl failnth N COMMAND ARGS...   the same with the Nth slab allocation
 *                                      of the syscall failing (the kernel's
 *                                      /proc/thread-self/fail-nth); says
 *                                      "fault not reached" on stderr when
 *                                      the syscall made fewer allocations
 *   rotctl alarm MS COMMAND ARGS...    the same with a caught SIGALRM
 *                                      MS ms later (sent by a child), so
 *                                      that a syscall still waiting then
 *                                      is interrupted
 *
 * Prints "ok" for 0, "ok=N" for a positive return (reclaim's count of
 * instances freed), or the errno's name (EWOULDBLOCK, not EAGAIN).
 * Exit status: 0 on success, 1 on a syscall error, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

struct image {
	unsigned char *data;
	size_t len;
};

/* From a rot kernel's <linux/module.h> (docs/rot-abi.md, revisions 3 and 4). */
#define ROT_RECLAIM_FORCE 0x1u
struct rot_reclaim {
	char name[64];
	uint32_t flags, freed, kept, why, pins, tasks, callbacks, probes;
	uint64_t bytes, percpu;
};
#define ROT_IOC_RECLAIM _IOWR(0xB8, 0x01, struct rot_reclaim)
struct rot_reclaim4 {
	char name[64];
	uint32_t flags, freed, kept, why, pins, tasks, refs, probes;
	uint64_t bytes, percpu;
	char where[128];
};
#define ROT_IOC_RECLAIM4 _IOWR(0xB8, 0x02, struct rot_reclaim4)
static const char *const kept_words[] = {
	"pin", "task", "timer", "work", "rcu", "kprobe", "running", "object",
	"ref", "user", "unscanned",
};

/* Set by "failnth N": armed just before the module syscall. */
static const char *fail_nth;

static void arm_fail_nth(void)
{
	int fd;

	if (!fail_nth)
		return;
	fd = open("/proc/thread-self/fail-nth", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, fail_nth, strlen(fail_nth)) < 0) {
		perror("rotctl: /proc/thread-self/fail-nth");
		exit(2);
	}
	close(fd);
}

/* After the syscall: fail-nth counts down to 0 when the fault fired. */
static void check_fail_nth(void)
{
	char buf[32] = "";
	ssize_t n;
	int fd;

	if (!fail_nth)
		return;
	fd = open("/proc/thread-self/fail-nth", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && strtol(buf, NULL, 10) != 0)
		fputs("fault not reached\n", stderr);
}

static int report(long ret)
{
	int saved = errno;

	check_fail_nth();
	errno = saved;
	if (ret == 0) {
		puts("ok");
		return 0;
	}
	if (ret > 0) {
		printf("ok=%ld\n", ret);
		return 0;
	}
	const char *name = errno == EWOULDBLOCK ? "EWOULDBLOCK" : strerrorname_np(errno);
	printf("%s\n", name ? name : "E?");
	return 1;
}

static void print_why(uint32_t why)
{
	const char *sep = "";
	unsigned int i;

	printf(" why=");
	for (i = 0; i < sizeof(kept_words) / sizeof(kept_words[0]); i++) {
		if (why & (1u << i)) {
			printf("%s%s", sep, kept_words[i]);
			sep = ",";
		}
	}
	if (!*sep)
		printf("none");
}

/*
 * The kind of place a revision-4 reply names, without the details that
 * differ between kernel configurations (a cache's name, a task's pid):
 * "slab kmalloc-64 object" is "slab", "rotting user beta" is "user".
 */
static void print_where_kind(const char *where)
{
	char word[32];

	if (!strncmp(where, "rotting ", 8))
		where += 8;
	if (sscanf(where, "%31s", word) != 1)
		snprintf(word, sizeof(word), "none");
	printf(" where=%s", word);
}

/*
 * Reclaim through the revision-4 request, or revision 3's where that is
 * refused; "why" adds the reply's reasons.
 */
static int reclaim(const char *name, unsigned int flags, int why)
{
	struct rot_reclaim4 req4;
	struct rot_reclaim req;
	int fd, saved, rev = 4;
	long r;

	memset(&req4, 0, sizeof(req4));
	snprintf(req4.name, sizeof(req4.name), "%s", name);
	req4.flags = flags;
	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", name);
	req.flags = flags;
	fd = open("/proc/rotting_modules", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report(-1);
	arm_fail_nth();
	r = ioctl(fd, ROT_IOC_RECLAIM4, &req4);
	if (r < 0 && errno == ENOTTY) {
		rev = 3;
		r = ioctl(fd, ROT_IOC_RECLAIM, &req);
	}
	saved = errno;
	close(fd);
	errno = saved;
	if (!why)
		return report(r);
	check_fail_nth();
	if (r > 0)
		printf("ok=%ld", r);
	else
		printf("%s", saved == EWOULDBLOCK ? "EWOULDBLOCK" :
			     strerrorname_np(saved) ? strerrorname_np(saved) : "E?");
	if (rev == 4) {
		printf(" kept=%u", req4.kept);
		print_why(req4.why);
		printf(" pins=%u", req4.pins);
		print_where_kind(req4.where);
		printf("\n");
	} else {
		printf(" kept=%u", req.kept);
		print_why(req.why);
		printf(" pins=%u tasks=%u callbacks=%u probes=%u\n",
		       req.pins, req.tasks, req.callbacks, req.probes);
	}
	return r > 0 ? 0 : 1;
}

static int usage(void)
{
	fputs("usage: rotctl load FILE [PARAMS] | init FILE [PARAMS] | delete NAME FLAGS\n"
	      "       rotctl reclaim NAME [force|FLAGS] | why NAME [force|FLAGS]\n"
	      "       rotctl nocap COMMAND ARGS... | failnth N COMMAND ARGS... | alarm MS COMMAND ARGS...\n"
	      "       rotctl socket DOMAIN TYPE\n", stderr);
	return 2;
}

static int read_file(const char *path, struct image *img)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	img->len = (size_t)st.st_size;
	img->data = malloc(img->len ? img->len : 1);
	if (!img->data || read(fd, img->data, img->len) != (ssize_t)img->len) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int unxz(struct image *img)
{
	uint64_t memlimit = UINT64_MAX;
	size_t in_pos = 0, out_pos = 0, cap = img->len * 8 + 4096;
	unsigned char *out = malloc(cap);

	if (!out)
		return -1;
	for (;;) {
		size_t in_try = in_pos, out_try = out_pos;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, img->data, &in_try,
						       img->len, out, &out_try, cap);
		if (r == LZMA_OK) {
			free(img->data);
			img->data = out;
			img->len = out_try;
			return 0;
		}
		if (r != LZMA_BUF_ERROR) {
			free(out);
			return -1;
		}
		cap *= 2;
		out = realloc(out, cap);
		if (!out)
			return -1;
	}
}

static int unzstd(struct image *img)
{
	unsigned long long size = ZSTD_getFrameContentSize(img->data, img->len);
	unsigned char *out;
	size_t n;

	if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
		return -1;
	out = malloc(size ? size : 1);
	if (!out)
		return -1;
	n = ZSTD_decompress(out, size, img->data, img->len);
	if (ZSTD_isError(n)) {
		free(out);
		return -1;
	}
	free(img->data);
	img->data = out;
	img->len = n;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int drop_cap_sys_module(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -1;
	data[CAP_TO_INDEX(CAP_SYS_MODULE)].effective &= ~CAP_TO_MASK(CAP_SYS_MODULE);
	return (int)syscall(SYS_capset, &hdr, data);
}

/* Caught, not fatal: the interrupted syscall returns and rotctl reports it. */
static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A child process sends the SIGALRM: the rot kernel's configuration has no
 * POSIX timers (no alarm(), no setitimer()), but it can sleep.
 */
static int arm_alarm(const char *ms)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	long n = strtol(ms, NULL, 10);
	pid_t parent = getpid(), pid;

	if (n <= 0 || sigaction(SIGALRM, &sa, NULL) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		usleep((useconds_t)n * 1000);
		kill(parent, SIGALRM);
		_exit(0);
	}
	return 0;
}

/*
 * Hold a socket of DOMAIN and TYPE open until killed, as any program using
 * a protocol family does: the socket pins the family's module.  Prints
 * "ready" once it is open.
 */
static int hold_socket(const char *domain, const char *type)
{
	int s = socket(atoi(domain), atoi(type), 0);

	if (s < 0) {
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
		return 1;
	}
	puts("ready");
	fflush(stdout);
	for (;;)
		pause();
}

static int run(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[0], "alarm")) {
		if (arm_alarm(argv[1]) < 0) {
			fprintf(stderr, "rotctl: alarm %s: cannot arm\n", argv[1]);
			return 2;
		}
		return run(argc - 2, argv + 2);
	}
	if (argc >= 2 && !strcmp(argv[0], "nocap")) {
		if (drop_cap_sys_module() < 0) {
			perror("rotctl: capset");
			return 2;
		}
		return run(argc - 1, argv + 1);
	}
	if (argc >= 3 && !strcmp(argv[0], "failnth")) {
		fail_nth = argv[1];
		return run(argc - 2, argv + 2);
	}
	if (argc == 3 && !strcmp(argv[0], "socket"))
		return hold_socket(argv[1], argv[2]);
	if ((argc == 2 || argc == 3) && !strcmp(argv[0], "load")) {
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[1]);
			return 2;
		}
		arm_fail_nth();
		return report(syscall(SYS_finit_module, fd, argc > 2 ? argv[2] : "", 0));
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[0], "init")) {
		struct image img;

		if (read_file(argv[1], &img) < 0) {
			perror(argv[1]);
			return 2;
		}
		if ((ends_with(argv[1], ".xz") && unxz(&img) < 0) ||
		    (ends_with(argv[1], ".zst") && unzstd(&img) < 0)) {
			fprintf(stderr, "rotctl: %s: cannot decompress\n", argv[1]);
			return 2;
		}
		arm_fail_nth();
		return report(syscall(SYS_init_module, img.data, img.len, argc > 2 ? argv[2] : ""));
	}
	if (argc == 3 && !strcmp(argv[0], "delete")) {
		unsigned int flags = (unsigned int)strtoul(argv[2], NULL, 0);

		arm_fail_nth();
		return report(syscall(SYS_delete_module, argv[1], flags));
	}
	if ((argc == 2 || argc == 3) &&
	    (!strcmp(argv[0], "reclaim") || !strcmp(argv[0], "why"))) {
		unsigned int flags = 0;

		if (argc == 3)
			flags = !strcmp(argv[2], "force") ? ROT_RECLAIM_FORCE :
							    (unsigned int)strtoul(argv[2], NULL, 0);
		return reclaim(argv[1], flags, !strcmp(argv[0], "why"));
	}
	return usage();
}

int main(int argc, char **argv)
{
	return run(argc - 1, argv + 1);
}
