#!/usr/bin/env bats
# simkernel, stock mode: a Linux 6.1 kernel with real reference counts.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create stock
}

@test "stock: /proc/rotting_modules does not exist" {
	run sim_run cat /proc/rotting_modules
	assert_failure
	assert_output --partial 'No such file or directory'
	run sim_run test -e /proc/rotting_modules
	assert_failure
}

@test "stock: a holder takes a reference, shown in /proc/modules and refcnt" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	run sim_run cut -d' ' -f1,3,4 /proc/modules
	assert_output "beta 0 -
alpha 1 beta,"
	run sim_run cat /sys/module/alpha/refcnt
	assert_output 1
	run sim_state
	assert_line --index 1 --regexp '^live alpha .* refcnt=1 holders=beta permanent=0$'
}

@test "stock: unload frees the memory and nothing rots" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x800
	assert_output ok
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_line --index 2 --regexp '^3 free delta 0x[0-9a-f]{16} [0-9]+$'
	sim_ledger_check
}

@test "stock: unloading the holder drops the reference" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" delete beta 0x800
	run sim_run cat /sys/module/alpha/refcnt
	assert_output 0
	run sim_run "$SYSC" delete alpha 0x800
	assert_output ok
}

@test "stock: a failed init frees everything and returns the error" {
	run sim_run "$SYSC" finit "$(fixture failinit)"
	assert_output ENODEV
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_output --regexp '^loaded ([0-9]+) init_freed 0 freed \1 reclaimed 0 live 0 rotting 0$'
}

@test "stock: holders give EWOULDBLOCK" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	run sim_run "$SYSC" delete alpha 0xa00
	assert_output EWOULDBLOCK
}

@test "stock: extra references give EWOULDBLOCK without O_TRUNC" {
	sim_run "$SYSC" finit "$(fixture delta)"
	"$SIMKERNEL" ref "$K" delta 2
	run sim_run cut -d' ' -f3 /proc/modules
	assert_output 2
	run sim_run cat /sys/module/delta/refcnt
	assert_output 2
	run sim_run "$SYSC" delete delta 0x800
	assert_output EWOULDBLOCK
	run sim_state
	assert_line --index 0 --regexp '^live delta .* refcnt=2 holders=- permanent=0$'
}

@test "stock: O_TRUNC forces a module with references out and taints R" {
	sim_run "$SYSC" finit "$(fixture delta)"
	"$SIMKERNEL" ref "$K" delta 1
	run sim_run "$SYSC" delete delta 0xa00
	assert_output ok
	run sim_state
	assert_output 'taint 8'
}

@test "stock: a permanent module gives EBUSY, O_TRUNC frees it and taints R" {
	sim_run "$SYSC" finit "$(fixture permanent)"
	run sim_run "$SYSC" delete permanent 0x800
	assert_output EBUSY
	run sim_run "$SYSC" delete permanent 0xa00
	assert_output ok
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "stock: unknown flag bits are ignored" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x801
	assert_output ok
	run sim_state
	assert_output 'taint 0'
}

@test "stock: MODULE_RECLAIM is a plain unload" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x40000000
	assert_output ok
	run sim_run "$SYSC" delete delta 0x40000000
	assert_output ENOENT
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
}

@test "stock: a caller without CAP_SYS_MODULE gets EPERM" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" delete delta 0x800
	assert_output EPERM
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" finit "$(fixture alpha)"
	assert_output EPERM
	run sim_run cut -d' ' -f1 /proc/modules
	assert_output delta
}

@test "stock: populate refuses rotting instances" {
	run "$SIMKERNEL" populate "$K" --live 3 --rotting 1
	assert_failure 2
	run "$SIMKERNEL" populate "$K" --live 3 --max-deps 2 --seed 7
	assert_success
	run sim_run wc -l /proc/modules
	assert_output '3 /proc/modules'
}

# The load $1 (a pid) is inside the kernel, waiting (its only sleep),
# and has not answered in $BATS_TEST_TMPDIR/second.out.
second_waits() {
	wait_sleeping "$1"
	kill -0 "$1"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" ''
}

@test "stock: loading a name still Unloading waits for it to go, then loads (Linux 6.1)" {
	sim_run "$SYSC" finit "$(fixture slowexit)"
	# The exit runs until the test opens the gate.
	"$SIMKERNEL" set "$K" slowexit exit_gate="$BATS_TEST_TMPDIR/go"
	sim_run "$SYSC" delete slowexit 0 > "$BATS_TEST_TMPDIR/unload.out" &
	local unloader=$!
	sim_wait_state '^live slowexit .* Unloading '
	"$SIMKERNEL" run "$K" -- "$SYSC" finit "$(fixture slowexit)" > "$BATS_TEST_TMPDIR/second.out" &
	local second=$!
	# It waits for the exit, however long that runs, then loads.
	second_waits "$second"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$second"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" ok
	wait "$unloader"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/unload.out")" ok
	run sim_state
	assert_output --regexp '^live slowexit [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
taint 0$'
	sim_ledger_check
}

@test "stock: MODULE_RECLAIM and unknown bits are ignored: a plain unload" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x40000880
	assert_output ok
	run sim_state
	assert_output 'taint 0'
}

@test "stock: loading a name whose init then fails waits for it, then gives EBUSY; the failed one is freed" {
	"$SIMKERNEL" set "$K" slowinit init_errno=5 init_gate="$BATS_TEST_TMPDIR/go"
	sim_run "$SYSC" finit "$(fixture slowinit)" > "$BATS_TEST_TMPDIR/first.out" &
	local first=$!
	sim_wait_state '^live slowinit .* Loading '
	"$SIMKERNEL" run "$K" -- "$SYSC" finit "$(fixture slowinit)" > "$BATS_TEST_TMPDIR/second.out" &
	local second=$!
	# It waits for the first init, however long that runs.
	second_waits "$second"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$second" || : # the syscall tool exits non-zero with an errno
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" EBUSY
	wait "$first" || :
	assert_equal "$(cat "$BATS_TEST_TMPDIR/first.out")" EIO
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' load slowinit ' <<< "$output")" 1
	sim_ledger_check
}
