#!/usr/bin/env bats
# simkernel, rot mode, revision 2 (`--abi 2`): delete_module(name, MODULE_RECLAIM)
# (rot-abi.md "Reclaim", R8); revision 3's ioctl is in simkernel-ioctl.bats.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

RECLAIM=0x40000000

setup() {
	sim_create rot --abi 2
}

rot_delta_twice() {
	for _ in 1 2; do
		sim_run "$SYSC" finit "$(fixture delta)"
		sim_run "$SYSC" delete delta 0x800
	done
}

@test "reclaim frees every rotting instance of the name, returns the count and taints R (8)" {
	rot_delta_twice
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" delete alpha 0
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_success
	assert_output ok=2
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
	assert_output ok=2
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
	assert_output ok=1
	run "$SIMKERNEL" ledger "$K"
	assert_line --index 2 --regexp "^3 reclaim failinit 0x[0-9a-f]{16} $loaded\$"
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_output "loaded $loaded init_freed 0 freed 0 reclaimed $loaded live 0 rotting 0"
}

@test "reclaim may be combined with O_NONBLOCK" {
	rot_delta_twice
	run sim_run "$SYSC" delete delta 0x40000800
	assert_output ok=2
	run sim_run cat /proc/rotting_modules
	assert_output ''
}

@test "reclaim ignores unknown flag bits (busybox's O_EXCL, the top bit)" {
	rot_delta_twice
	run sim_run "$SYSC" delete delta 0x40000881
	assert_output ok=2
	run sim_state
	assert_output 'taint 8'
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete delta 0
	run sim_run "$SYSC" delete delta 0xc0000000
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
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

# Reclaim safety (rot-abi.md revision 2): straytimer's exit leaves a timer
# armed in its memory.

rot_straytimer() {
	sim_run "$SYSC" finit "$(fixture straytimer)"
	sim_run "$SYSC" delete straytimer 0
}

@test "rot_reclaim_checks reads Y by default, N with --reclaim-checks n, absent on stock" {
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_output Y
	sim_create rot --abi 2 --reclaim-checks n
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_output N
	sim_create stock
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_failure
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k2" --mode stock --reclaim-checks y
	assert_failure 2
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k3" --reclaim-checks maybe
	assert_failure 2
}

@test "a rotting instance with a stray timer is refused: EBUSY, it stays, no taint" {
	rot_straytimer
	run sim_state
	assert_output --regexp '^rotting straytimer [0-9]+ 0x[0-9a-f]{16} timer=1
taint 0$'
	before=$output
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_failure 1
	assert_output EBUSY
	run sim_state
	assert_output "$before"
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
	run "$SIMKERNEL" ledger "$K"
	refute_output --partial reclaim
	sim_ledger_check
}

@test "instances still in use are refused while the others of the name are freed" {
	rot_straytimer
	"$SIMKERNEL" set "$K" straytimer stray=none
	sim_run "$SYSC" finit "$(fixture straytimer)"
	sim_run "$SYSC" delete straytimer 0
	sim_run "$SYSC" finit "$(fixture straytimer)"
	sim_run "$SYSC" delete straytimer 0
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_output ok=2
	run sim_state
	assert_output --regexp '^rotting straytimer [0-9]+ 0x[0-9a-f]{16} timer=1
taint 8$'
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_output EBUSY
	run sim_run grep -c '^straytimer ' /proc/rotting_modules
	assert_output 1
	sim_ledger_check
}

@test "MODULE_RECLAIM|O_TRUNC frees instances still in use, taints R and returns the count" {
	rot_straytimer
	rot_straytimer
	run sim_run "$SYSC" delete straytimer 0x40000200
	assert_output ok=2
	run sim_state
	assert_output 'taint 8'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' reclaim straytimer ' <<< "$output")" 2
	run sim_run "$SYSC" delete straytimer 0x40000200
	assert_output ENOENT
	sim_ledger_check
}

@test "every kind of stray (timer, work, rcu, kprobe) is refused; an unknown one is not" {
	for kind in timer work rcu kprobe; do
		"$SIMKERNEL" set "$K" delta stray=$kind
		sim_run "$SYSC" finit "$(fixture delta)"
		sim_run "$SYSC" delete delta 0
	done
	run sim_state
	assert_output --regexp '^rotting delta [0-9]+ 0x[0-9a-f]{16} kprobe=1
rotting delta [0-9]+ 0x[0-9a-f]{16} rcu=1
rotting delta [0-9]+ 0x[0-9a-f]{16} work=1
rotting delta [0-9]+ 0x[0-9a-f]{16} timer=1
taint 0$'
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_output EBUSY
	"$SIMKERNEL" set "$K" delta stray=ghost
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete delta 0
	run sim_run "$SYSC" delete delta $RECLAIM
	assert_output ok=1
	run sim_run grep -c '^delta ' /proc/rotting_modules
	assert_output 4
}

@test "a kernel that does not check (rot_reclaim_checks N) frees strays too" {
	sim_create rot --abi 2 --reclaim-checks n
	rot_straytimer
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "a live instance of a stray module is not touched by reclaim" {
	sim_run "$SYSC" finit "$(fixture straytimer)"
	run sim_run "$SYSC" delete straytimer 0x40000200
	assert_output ENOENT
	run sim_state
	assert_output --regexp '^live straytimer .* Live refcnt=0 holders=- permanent=0
taint 0$'
}

@test "a stray module whose init failed rots with its stray and is refused too" {
	"$SIMKERNEL" set "$K" straytimer init_errno=12
	run sim_run "$SYSC" finit "$(fixture straytimer)"
	assert_output ENOMEM
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_output EBUSY
	run sim_run "$SYSC" delete straytimer 0x40000200
	assert_output ok=1
	sim_ledger_check
}

@test "--abi 1: revision 1's delete_module (EINVAL for other bits, reclaim returns 0, no checks)" {
	sim_create rot --abi 1
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_failure
	rot_straytimer
	rot_straytimer
	run sim_run "$SYSC" delete straytimer 0x40000200
	assert_output EINVAL
	run sim_run "$SYSC" delete straytimer 0x40000001
	assert_output EINVAL
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" delete delta 0x880
	assert_output EINVAL
	run sim_run "$SYSC" delete straytimer $RECLAIM
	assert_output ok
	run sim_state
	assert_output --regexp '^live delta .* Live refcnt=0 holders=- permanent=0
taint 8$'
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k4" --mode stock --abi 1
	assert_failure 2
	sim_ledger_check
}
