#!/usr/bin/env bats
# simkernel, rot mode: delete_module(name, MODULE_RECLAIM) (rot-abi.md "Reclaim").

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

RECLAIM=0x40000000

setup() {
	sim_create rot
}

rot_delta_twice() {
	for _ in 1 2; do
		sim_run "$SYSC" finit "$(fixture delta)"
		sim_run "$SYSC" delete delta 0x800
	done
}

@test "reclaim frees every rotting instance of the name and taints R (8)" {
	rot_delta_twice
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" delete alpha 0
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_success
	assert_output ok
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output alpha
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 8
	run sim_state
	assert_output --regexp '^rotting alpha [0-9]+ 0x[0-9a-f]{16}
taint 8$'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(echo "$output" | grep -c ' reclaim delta ')" 2
	sim_ledger_check
}

@test "reclaim leaves a live module of the same name alone" {
	rot_delta_twice
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_output ok
	run sim_run cut -d' ' -f1,5 /proc/modules
	assert_output 'delta Live'
	run sim_run cat /proc/rotting_modules
	assert_output ''
	sim_ledger_check
}

@test "reclaim of a failed init frees core and init" {
	sim_run "$SYSC" finit "$(fixture failinit)" || true
	loaded=$("$SIMKERNEL" ledger "$K" | awk '$2 == "load" { print $5 }')
	run sim_run "$SYSC" delete failinit $RECLAIM
	assert_output ok
	run "$SIMKERNEL" ledger "$K"
	assert_line --index 2 --regexp "^3 reclaim failinit 0x[0-9a-f]{16} $loaded\$"
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_output "loaded $loaded init_freed 0 freed 0 reclaimed $loaded live 0 rotting 0"
}

@test "reclaim may be combined with O_NONBLOCK" {
	rot_delta_twice
	run sim_run "$SYSC" delete delta 0x40000800
	assert_output ok
}

@test "reclaim combined with O_TRUNC gives EINVAL and frees nothing" {
	rot_delta_twice
	run sim_run "$SYSC" delete delta 0x40000200
	assert_output EINVAL
	run sim_run grep -c delta /proc/rotting_modules
	assert_output 2
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
}

@test "reclaim with unknown flag bits gives EINVAL" {
	rot_delta_twice
	run sim_run "$SYSC" delete delta 0x40000001
	assert_output EINVAL
}

@test "reclaim with nothing rotting under the name gives ENOENT and no taint" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_failure 1
	assert_output ENOENT
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
}

@test "reclaim by a caller without CAP_SYS_MODULE gives EPERM and frees nothing" {
	rot_delta_twice
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" delete delta $RECLAIM
	assert_output EPERM
	run sim_run grep -c delta /proc/rotting_modules
	assert_output 2
}

@test "the ledger balances after loads, failures, unloads and reclaims" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" finit "$(fixture failinit)" || true
	sim_run "$SYSC" delete beta 0
	sim_run "$SYSC" delete beta $RECLAIM
	sim_run "$SYSC" delete failinit $RECLAIM
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	read -r _ loaded _ init_freed _ freed _ reclaimed _ live _ rotting <<< "$output"
	assert_equal "$freed" 0
	assert_equal "$rotting" 0
	assert_equal $((init_freed + reclaimed + live)) "$loaded"
}

@test "ledger --check catches a byte reclaimed that never rotted" {
	sim_run "$SYSC" finit "$(fixture delta)"
	addr=$(sim_state | awk '/^live/ { print $4 }')
	echo "9 reclaim delta $addr 10" >> "$K/ledger"
	run "$SIMKERNEL" ledger "$K" --check
	assert_failure 1
	assert_output --partial 'did not rot'
}
