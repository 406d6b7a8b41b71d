// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rawsys: issue init_module, finit_module, delete_module and the
 * ROT_IOC_RECLAIM and ROT_IOC_RECLAIM4 ioctls with the
 * syscall instruction itself, bypassing libc and any preload, and print
 * each errno name. Arguments are harmless (a NULL image, a bad fd, a name
 * no module has) in case the call ever reached a kernel. With --filters,
 * print the number of seccomp filters on this process instead.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

static long raw3(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
}

static void show(const char *what, long ret)
{
	printf("%s %s\n", what, ret == 0 ? "ok" : strerrorname_np((int)-ret));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--filters")) {
		FILE *f = fopen("/proc/self/status", "r");
		char line[256];
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "Seccomp_filters:", 16))
				printf("%s", line + 17);
		return 0;
	}
	show("init_module", raw3(SYS_init_module, 0, 0, (long)""));
	show("finit_module", raw3(SYS_finit_module, -1, (long)"", 0));
	show("delete_module", raw3(SYS_delete_module, (long)"simkernel_no_such_module", 04000, 0));
	/* rot-abi.md revision 3's reclaim; fd -1, so a kernel would say EBADF */
	show("ioctl_reclaim", raw3(SYS_ioctl, -1, (long)0xc070b801u, 0));
	/* revision 4's (ROT_IOC_RECLAIM4) */
	show("ioctl_reclaim4", raw3(SYS_ioctl, -1, (long)0xc0f0b802u, 0));
	return 0;
}
