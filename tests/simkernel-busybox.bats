#!/usr/bin/env bats
# simkernel: Debian's busybox (dynamically linked) runs its insmod, rmmod
# and lsmod unchanged under the preload, in both modes. Its rmmod passes
# O_NONBLOCK|O_EXCL (0x880), -f adds O_TRUNC; its insmod tries
# finit_module and, when that fails for any reason, init_module with the
# (decompressed) image; both test errno rather than the return value.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	command -v busybox > /dev/null || skip "busybox is not installed"
}

both_modes() { # TEST-FUNCTION: run it once per mode, on a fresh kernel
	for mode in rot stock; do
		sim_create "$mode"
		"$1" "$mode"
	done
}

check_load_unload() {
	run sim_run busybox insmod "$(fixture alpha)"
	assert_success
	assert_output ''
	run sim_run busybox insmod "$(fixture params)" count=5 label=x
	assert_success
	run sim_run cat /sys/module/params/parameters/count
	assert_output 5
	run sim_run busybox rmmod params
	assert_success
	assert_output ''
	if [ "$1" = rot ]; then
		run sim_state
		assert_output --regexp '^live alpha [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
rotting params [0-9]+ 0x[0-9a-f]{16}
taint 0$'
	else
		run sim_state
		assert_output --regexp '^live alpha [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
taint 0$'
	fi
	sim_ledger_check
}

@test "busybox insmod loads, busybox rmmod (flags 0x880) unloads: rots or is freed" {
	both_modes check_load_unload
}

check_compressed() {
	# finit_module of the .xz is ENOEXEC; init_module of what busybox unpacked loads
	run sim_run busybox insmod "$(fixture delta xz)"
	assert_success
	assert_output ''
	run sim_state
	assert_output --regexp '^live delta [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
taint 0$'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' load ' <<< "$output")" 1
}

@test "busybox insmod of a .ko.xz loads through its init_module retry" {
	both_modes check_compressed
}

check_refusals() {
	sim_run busybox insmod "$(fixture alpha)"
	sim_run busybox insmod "$(fixture beta)"
	sim_run busybox insmod "$(fixture permanent)"
	before=$(sim_state)
	run sim_run busybox rmmod alpha
	assert_failure 1
	assert_output "rmmod: can't unload module 'alpha': Resource temporarily unavailable"
	run sim_run busybox rmmod permanent
	assert_failure 1
	assert_output "rmmod: can't unload module 'permanent': Device or resource busy"
	run sim_run busybox rmmod nosuch
	assert_failure 1
	assert_output "rmmod: can't unload module 'nosuch': No such file or directory"
	run sim_run busybox insmod "$(fixture alpha)"
	assert_failure
	assert_output "insmod: can't insert '$(fixture alpha)': File exists"
	run sim_state
	assert_output "$before"
}

@test "busybox rmmod refusals (holders, permanent, unknown) and insmod EEXIST change nothing" {
	both_modes check_refusals
}

check_force() {
	sim_run busybox insmod "$(fixture permanent)"
	run sim_run busybox rmmod -f permanent
	assert_success
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 8
	if [ "$1" = rot ]; then
		run sim_run cut -d' ' -f1,5 /proc/rotting_modules
		assert_output 'permanent Rotting'
	fi
	run sim_run cat /proc/modules
	assert_output ''
	# -f on a module with an exit and no holders: a plain unload, no taint
	sim_create "$1"
	sim_run busybox insmod "$(fixture delta)"
	run sim_run busybox rmmod -f delta
	assert_success
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
}

@test "busybox rmmod -f forces a permanent module out (taint R); on delta it is a plain unload" {
	both_modes check_force
}

@test "busybox insmod of a failing init: rot mode keeps two instances (finit, then the init_module retry)" {
	sim_create rot
	run sim_run busybox insmod "$(fixture failinit)"
	assert_failure
	assert_output "insmod: can't insert '$(fixture failinit)': No such device"
	run sim_state
	assert_output --regexp '^rotting failinit [0-9]+ 0x[0-9a-f]{16}
rotting failinit [0-9]+ 0x[0-9a-f]{16}
taint 0$'
	sim_ledger_check
	sim_create stock
	run sim_run busybox insmod "$(fixture failinit)"
	assert_failure
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' free failinit ' <<< "$output")" 2
}

check_lsmod() {
	sim_run busybox insmod "$(fixture alpha)"
	sim_run busybox insmod "$(fixture beta)"
	sim_run busybox insmod "$(fixture delta)"
	sim_run busybox rmmod delta
	local refs=0
	[ "$1" = stock ] && refs=1
	run sim_run busybox lsmod
	assert_success
	assert_output --regexp "^Module +Size +Used by +Not tainted
beta +[0-9]+ +0 *
alpha +[0-9]+ +$refs beta\$"
}

@test "busybox lsmod lists live modules only, holders as Used by" {
	both_modes check_lsmod
}

@test "busybox rmmod of a Loading module is EBUSY, and the load still ends Live" {
	sim_create rot
	# The init runs until the test opens the gate.
	"$SIMKERNEL" set "$K" slowinit init_gate="$BATS_TEST_TMPDIR/go"
	sim_run busybox insmod "$(fixture slowinit)" &
	local loader=$!
	sim_wait_state '^live slowinit .* Loading '
	run sim_run busybox rmmod slowinit
	assert_failure 1
	assert_output "rmmod: can't unload module 'slowinit': Device or resource busy"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$loader"
	run sim_state
	assert_output --regexp '^live slowinit [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
taint 0$'
}
