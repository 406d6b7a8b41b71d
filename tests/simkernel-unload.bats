#!/usr/bin/env bats
# simkernel, rot mode: delete_module without MODULE_RECLAIM
# (rot-abi.md "Unloading"), one row of its tables per test.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create rot
}

@test "unloading a module moves it to the top of /proc/rotting_modules with the same size" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete alpha 0x800
	line=$(sim_run grep '^delta ' /proc/modules)
	size=${line#delta }
	size=${size%% *}
	addr=$(echo "$line" | awk '{ print $6 }')
	run sim_run "$SYSC" delete delta 0x800
	assert_success
	assert_output ok
	run sim_run cat /proc/rotting_modules
	assert_line --index 0 "delta $size 0 [rotting], Rotting $addr"
	assert_line --index 1 --regexp '^alpha [0-9]+ 0 \[rotting\], Rotting '
	run sim_run cat /proc/modules
	assert_output ''
	run sim_run test -e /sys/module/delta
	assert_failure
	run sim_state
	assert_output "rotting delta $size $addr
rotting alpha $(sim_state | awk '/^rotting alpha/ { print $3 " " $4 }')
taint 0"
	run "$SIMKERNEL" ledger "$K"
	assert_line --regexp "^[0-9]+ rot delta $addr $size\$"
	sim_ledger_check
}

@test "the name is free at once after rot: the same module loads again at a new address" {
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete delta 0
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ok
	live=$(sim_run awk '{ print $6 }' /proc/modules)
	rotting=$(sim_run awk '{ print $6 }' /proc/rotting_modules)
	assert [ "$live" != "$rotting" ]
	run sim_run ls /sys/module
	assert_output "delta
module"
	sim_ledger_check
}

@test "every unload leaves one more rotting instance of the name" {
	for _ in 1 2 3; do
		sim_run "$SYSC" finit "$(fixture delta)"
		sim_run "$SYSC" delete delta 0x800
	done
	run sim_run grep -c '^delta ' /proc/rotting_modules
	assert_output 3
	run sim_run sh -c "awk '{ print \$6 }' /proc/rotting_modules | sort -u | wc -l"
	assert_output 3
}

@test "a module with holders gives EWOULDBLOCK and stays live" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	run sim_run "$SYSC" delete alpha 0x800
	assert_failure 1
	assert_output EWOULDBLOCK
	run sim_run cut -d' ' -f1,4,5 /proc/modules
	assert_output "beta - Live
alpha beta, Live"
	run sim_run cat /proc/rotting_modules
	assert_output ''
}

@test "a rotting instance holds no references: its dependency unloads" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" delete beta 0x800
	run sim_run ls /sys/module/alpha/holders
	assert_output ''
	run sim_run "$SYSC" delete alpha 0x800
	assert_output ok
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output "alpha
beta"
}

@test "a permanent module gives EBUSY without O_TRUNC" {
	sim_run "$SYSC" finit "$(fixture permanent)"
	run sim_run cat /proc/modules
	assert_output --regexp '^permanent [0-9]+ 0 \[permanent\], Live '
	run sim_run "$SYSC" delete permanent 0x800
	assert_output EBUSY
	run sim_state
	assert_line --index 0 --regexp '^live permanent .* permanent=1$'
	assert_line --index 1 'taint 0'
}

@test "O_TRUNC forces a permanent module out, it rots, and the kernel is tainted R" {
	sim_run "$SYSC" finit "$(fixture permanent)"
	run sim_run "$SYSC" delete permanent 0xa00
	assert_output ok
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output permanent
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 8
	run sim_state
	assert_line --index 1 'taint 8'
}

@test "unknown flag bits are ignored: busybox's 0x880 is a plain unload" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x880
	assert_output ok
	run sim_state
	assert_output --regexp '^rotting delta [0-9]+ 0x[0-9a-f]{16}
taint 0$'
	for flags in 0x1 0x80000000 0x10000000 0xbffff5ff; do
		sim_run "$SYSC" finit "$(fixture delta)"
		run sim_run "$SYSC" delete delta "$flags"
		assert_output ok
		run sim_run cat /proc/modules
		assert_output ''
	done
	run sim_run grep -c '^delta ' /proc/rotting_modules
	assert_output 5
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
	sim_ledger_check
}

@test "unknown flag bits do not get past holders or a permanent module" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" finit "$(fixture permanent)"
	run sim_run "$SYSC" delete alpha 0x880
	assert_output EWOULDBLOCK
	run sim_run "$SYSC" delete permanent 0x880
	assert_output EBUSY
	run sim_state
	assert_output --regexp '^live permanent .* Live refcnt=0 holders=- permanent=1
live beta .* Live refcnt=0 holders=- permanent=0
live alpha .* Live refcnt=0 holders=beta permanent=0
taint 0$'
}

@test "O_TRUNC on a module with an exit and no holders is a plain unload, no taint" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x200
	assert_output ok
	run sim_state
	assert_output --regexp '^rotting delta [0-9]+ 0x[0-9a-f]{16}
taint 0$'
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0xa00
	assert_output ok
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
	sim_ledger_check
}

@test "O_TRUNC does not override holders" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	run sim_run "$SYSC" delete alpha 0x200
	assert_output EWOULDBLOCK
	run sim_state
	assert_line --index 1 --regexp '^live alpha .* Live refcnt=0 holders=beta permanent=0$'
	assert_line --index 2 'taint 0'
}

@test "no live module of that name gives ENOENT" {
	run sim_run "$SYSC" delete delta 0x800
	assert_output ENOENT
	sim_run "$SYSC" finit "$(fixture failinit)" || true
	run sim_run "$SYSC" delete failinit 0x800
	assert_output ENOENT
}

@test "a caller without CAP_SYS_MODULE gets EPERM and the module stays" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" delete delta 0x800
	assert_output EPERM
	run sim_run cut -d' ' -f1,5 /proc/modules
	assert_output 'delta Live'
}

@test "names are cut to 55 bytes, as the kernel copies them" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete "delta$(printf '%060d' 0)" 0x800
	assert_output ENOENT
}

@test "a module whose exit sleeps is Unloading meanwhile" {
	# The exit runs until the test opens the gate.
	"$SIMKERNEL" set "$K" delta exit_gate="$BATS_TEST_TMPDIR/go"
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete delta 0x800 > "$BATS_TEST_TMPDIR/out" &
	local unloader=$!
	sim_wait_state '^live delta .* Unloading '
	run sim_run cut -d' ' -f1,5 /proc/modules
	assert_output 'delta Unloading'
	run sim_run cat /sys/module/delta/initstate
	assert_output going
	run sim_run "$SYSC" delete delta 0x800
	assert_output EBUSY
	# rot-abi.md: loading a name that is still Unloading is EBUSY at once:
	# it answers while the exit is held
	run timeout 60 "$SIMKERNEL" run "$K" -- "$SYSC" finit "$(fixture delta)"
	assert_output EBUSY
	run sim_run cut -d' ' -f1,5 /proc/modules
	assert_output 'delta Unloading'
	touch "$BATS_TEST_TMPDIR/go"
	wait "$unloader"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" ok
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output delta
	sim_ledger_check
}

@test "refcnt reads 0 for every live module, holders or not" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" finit "$(fixture gamma)"
	run sim_run cat /sys/module/alpha/refcnt /sys/module/beta/refcnt /sys/module/gamma/refcnt
	assert_output "0
0
0"
	run sim_run cut -d' ' -f3 /proc/modules
	assert_output "0
0
0"
}
