// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guard: a seccomp filter under which the real init_module,
 * finit_module and delete_module, and ioctl(ROT_IOC_RECLAIM) and
 * ioctl(ROT_IOC_RECLAIM4), fail with EPERM. The simulator answers
 * those calls itself and must never let one through to the host kernel,
 * even from a static binary or a library calling the syscall instruction
 * directly; the filter is inherited across fork and exec.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "sim.h"

int sim_guard_install(void)
{
	/* ioctl: only rot-abi.md's reclaim requests (revision 3's and 4's), whatever the fd
	 * (its low 32 bits: the kernel takes cmd as an unsigned int) */
	const uint32_t cmd_lo = offsetof(struct seccomp_data, args[1]);
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 12),
		/* x86_64, and x32 (the same numbers with bit 30 set; its ioctl is 514) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~0x40000000u),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 175 /* init_module */, 8, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 313 /* finit_module */, 7, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 176 /* delete_module */, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 16 /* ioctl */, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 514 /* x32 ioctl */, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, cmd_lo),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIM_ROT_IOC_RECLAIM, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIM_ROT_IOC_RECLAIM4, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		/* i386 through int 0x80 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 8),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 128 /* init_module */, 7, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 350 /* finit_module */, 6, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 129 /* delete_module */, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 54 /* ioctl */, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, cmd_lo),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIM_ROT_IOC_RECLAIM, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIM_ROT_IOC_RECLAIM4, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
	};
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };

	/* without no_new_privs an unprivileged process may not install a filter */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) < 0)
		return -errno;
	return 0;
}
