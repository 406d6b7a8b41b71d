// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysc: issue one module syscall through plain libc calls (so that the
 * preload answers it) and print the result as "ok" or the errno's name.
 *
 *   sysc init FILE [PARAMS]            init_module() of the file's bytes
 *   sysc finit FILE [PARAMS] [FLAGS]   syscall(SYS_finit_module, ...)
 *   sysc delete NAME FLAGS             delete_module(); FLAGS as in C (0x800)
 *   sysc reclaim [-r] [-w] [-s] [-f PATH] [-n CMD] NAME [FLAGS]
 *                                      ioctl(ROT_IOC_RECLAIM) on /proc/rotting_modules,
 *                                      FLAGS as in C (0x1: ROT_RECLAIM_FORCE); -r
 *                                      prints the reply's fields on a second line, -w
 *                                      opens the file write-only (EBADF), -f PATH
 *                                      another file, -n CMD another request number, -s
 *                                      catches SIGUSR1 (no SA_RESTART: a waiting
 *                                      reclaim is interrupted, EINTR);
 *                                      a NAME of 64 bytes or more is sent unterminated
 *
 * Prints "ok", "ok=N" for a positive return (reclaim: the number freed), or
 * the errno's name.
 * Exit status: 0 on success, 1 on a syscall error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int init_module(void *image, unsigned long len, const char *params);
int delete_module(const char *name, unsigned int flags);

static int report(int ret)
{
	if (ret == 0) {
		puts("ok");
		return 0;
	}
	if (ret > 0) { /* reclaim: the number of instances freed */
		printf("ok=%d\n", ret);
		return 0;
	}
	/* EWOULDBLOCK is EAGAIN; the kernel and rot-abi.md call it EWOULDBLOCK */
	const char *name = errno == EWOULDBLOCK ? "EWOULDBLOCK" : strerrorname_np(errno);
	printf("%s\n", name ? name : "E?");
	return 1;
}

static int usage(void);

/* rot-abi.md "Reclaim", as the kernel's uapi has it */
struct rot_reclaim {
	char name[64];
	unsigned flags, freed, kept, why, pins, tasks, callbacks, probes;
	unsigned long long bytes, percpu;
};
#define ROT_IOC_RECLAIM _IOWR(0xB8, 0x01, struct rot_reclaim)
_Static_assert(ROT_IOC_RECLAIM == 0xc070b801u, "ROT_IOC_RECLAIM");

/* revision 4's (R11) */
struct rot_reclaim4 {
	char name[64];
	unsigned flags, freed, kept, why, pins, tasks, refs, probes;
	unsigned long long bytes, percpu;
	char where[128];
};
#define ROT_IOC_RECLAIM4 _IOWR(0xB8, 0x02, struct rot_reclaim4)
_Static_assert(ROT_IOC_RECLAIM4 == 0xc0f0b802u, "ROT_IOC_RECLAIM4");

static void print_why(unsigned why)
{
	static const char *const words[] = { "pin", "task", "timer", "work", "rcu", "kprobe", "running", "object",
					      "ref", "user", "unscanned" };
	int any = 0;
	for (unsigned b = 0; b < 11; b++)
		if (why & (1u << b))
			printf("%s%s", any++ ? "," : "", words[b]);
	if (!any)
		putchar('-');
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int reclaim(int argc, char **argv)
{
	int reply = 0, wronly = 0, four = 0, i = 2;
	const char *path = "/proc/rotting_modules";
	unsigned long cmd = ROT_IOC_RECLAIM;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r"))
			reply = 1;
		else if (!strcmp(argv[i], "-4"))
			four = 1;
		else if (!strcmp(argv[i], "-w"))
			wronly = 1;
		else if (!strcmp(argv[i], "-s")) {
			struct sigaction sa = { .sa_handler = on_usr1 }; /* no SA_RESTART */
			sigaction(SIGUSR1, &sa, NULL);
		}
		else if (!strcmp(argv[i], "-f") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			cmd = strtoul(argv[++i], NULL, 0);
		else
			return usage();
	}
	if (i >= argc || argc - i > 2)
		return usage();
	if (four && cmd == ROT_IOC_RECLAIM)
		cmd = ROT_IOC_RECLAIM4;
	struct rot_reclaim4 req; /* the first 112 bytes are struct rot_reclaim's */
	_Static_assert(offsetof(struct rot_reclaim4, bytes) == offsetof(struct rot_reclaim, bytes), "layout");
	memset(&req, 0xa5, sizeof(req)); /* out fields the kernel did not write show */
	size_t len = strlen(argv[i]);
	memcpy(req.name, argv[i], len < sizeof(req.name) ? len + 1 : sizeof(req.name));
	req.flags = argc - i == 2 ? (unsigned)strtoul(argv[i + 1], NULL, 0) : 0;
	int fd = open(path, wronly ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	int ret = ioctl(fd, cmd, &req);
	int err = errno;
	close(fd);
	errno = err;
	int status = report(ret);
	if (reply && (ret > 0 || err == EBUSY)) {
		printf("freed=%u kept=%u why=", req.freed, req.kept);
		print_why(req.why);
		if (four)
			printf(" pins=%u tasks=%u refs=%u probes=%u bytes=%llu percpu=%llu where=%.*s\n", req.pins,
			       req.tasks, req.refs, req.probes, req.bytes, req.percpu, (int)sizeof(req.where),
			       req.where);
		else
			printf(" pins=%u tasks=%u callbacks=%u probes=%u bytes=%llu percpu=%llu\n", req.pins,
			       req.tasks, req.refs, req.probes, req.bytes, req.percpu);
	}
	return status;
}

static int usage(void)
{
	fputs("usage: sysc init FILE [PARAMS] | finit FILE [PARAMS] [FLAGS] | delete NAME FLAGS\n"
	      "       | reclaim [-4] [-r] [-w] [-s] [-f PATH] [-n CMD] NAME [FLAGS]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	if (!strcmp(argv[1], "init")) {
		int fd = open(argv[2], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			perror(argv[2]);
			return 2;
		}
		char *buf = malloc((size_t)st.st_size + 1);
		if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size) {
			perror(argv[2]);
			return 2;
		}
		close(fd);
		return report(init_module(buf, (unsigned long)st.st_size, argc > 3 ? argv[3] : ""));
	}
	if (!strcmp(argv[1], "finit")) {
		int fd = strcmp(argv[2], "-") ? open(argv[2], O_RDONLY) : 999;
		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		long flags = argc > 4 ? strtol(argv[4], NULL, 0) : 0;
		return report((int)syscall(SYS_finit_module, fd, argc > 3 ? argv[3] : "", (int)flags));
	}
	if (!strcmp(argv[1], "reclaim"))
		return reclaim(argc, argv);
	if (!strcmp(argv[1], "delete") && argc == 4)
		return report(delete_module(argv[2], (unsigned)strtoul(argv[3], NULL, 0)));
	return usage();
}
