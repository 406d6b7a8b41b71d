#!/usr/bin/env bats
# simkernel: the seccomp guard. The host kernel has no module support and
# answers the module syscalls with ENOSYS; EPERM therefore proves a filter.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

GUARD="$top_builddir/tests/simkernel/simkernel-guard"
RAWSYS="$top_builddir/tests/simkernel/rawsys"

@test "simkernel-guard adds a seccomp filter under which raw module syscalls get EPERM" {
	before=$("$RAWSYS" --filters)
	run "$GUARD" "$RAWSYS" --filters
	assert_output $((before + 1))
	run "$GUARD" "$RAWSYS"
	assert_success
	assert_output "init_module EPERM
finit_module EPERM
delete_module EPERM
ioctl_reclaim EPERM
ioctl_reclaim4 EPERM"
}

@test "the preload's constructor alone installs the guard" {
	before=$("$RAWSYS" --filters)
	run env LD_PRELOAD="$SIMKERNEL_LIB" "$RAWSYS" --filters
	assert_output $((before + 1))
	run env LD_PRELOAD="$SIMKERNEL_LIB" "$RAWSYS"
	assert_output "init_module EPERM
finit_module EPERM
delete_module EPERM
ioctl_reclaim EPERM
ioctl_reclaim4 EPERM"
}

@test "the guard stops only the reclaim request among ioctls: a tty ioctl still passes" {
	# ROT_IOC_RECLAIM (0xc070b801) and ROT_IOC_RECLAIM4 (0xc0f0b802) on fd
	# -1 would be EBADF from a kernel; under the guard neither gets there.
	# TCGETS on a non-tty still does.
	run "$GUARD" "$RAWSYS"
	assert_line "ioctl_reclaim EPERM"
	assert_line "ioctl_reclaim4 EPERM"
	run "$GUARD" sh -c 'stty < /dev/null 2>&1'
	assert_failure
	assert_output --partial "Inappropriate ioctl"
}

@test "the guard is inherited by static programs started from a guarded process" {
	run "$GUARD" sh -c '"$1" --filters' sh "$RAWSYS"
	assert_output $(($("$RAWSYS" --filters) + 1))
	run "$GUARD" busybox sh -c "true"
	assert_success
}

@test "without any guard the host kernel answers ENOSYS" {
	[ "$("$RAWSYS" --filters)" = 0 ] || skip "this process is already guarded (make check runs bats under simkernel-guard)"
	run "$RAWSYS"
	assert_output "init_module ENOSYS
finit_module ENOSYS
delete_module ENOSYS
ioctl_reclaim EBADF
ioctl_reclaim4 EBADF"
}

@test "simkernel-guard without a command is a usage error" {
	run "$GUARD"
	assert_failure 2
	assert_output --partial usage
}
