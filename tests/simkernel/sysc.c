// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysc: issue one module syscall through plain libc calls (so that the
 * preload answers it) and print the result as "ok" or the errno's name.
 *
 *   sysc init FILE [PARAMS]            init_module() of the file's bytes
 *   sysc finit FILE [PARAMS] [FLAGS]   syscall(SYS_finit_module, ...)
 *   sysc delete NAME FLAGS             delete_module(); FLAGS as in C (0x800)
 *
 * Prints "ok", "ok=N" for a positive return (reclaim: the number freed), or
 * the errno's name.
 * Exit status: 0 on success, 1 on a syscall error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int usage(void)
{
	fputs("usage: sysc init FILE [PARAMS] | finit FILE [PARAMS] [FLAGS] | delete NAME FLAGS\n", stderr);
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
	if (!strcmp(argv[1], "delete") && argc == 4)
		return report(delete_module(argv[2], (unsigned)strtoul(argv[3], NULL, 0)));
	return usage();
}
