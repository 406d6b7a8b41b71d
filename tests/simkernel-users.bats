#!/usr/bin/env bats
# The simulator's side of kernel/scenarios/users.sh, run as kernel/run.sh
# runs it (dash, inside `simkernel run`, with rotctl built dynamically):
# every row it prints shows what rot-abi.md expects, and its rows are the
# real kernel's rows, by name and expected value, except the ones
# kernel/run.sh keeps real only. The real kernel's side cannot run here.

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load helpers/scenario

setup_file() {
	scenario_setup_file
}

# run_users [CREATE-OPTION...]: the scenario on a fresh kernel, its output in $BATS_TEST_TMPDIR/users.sim
run_users() {
	run_scenario users "$@"
}

# the real kernel's rows, "ID<tab>EXPECTED": the `row ID "EXPECTED"` lines
# after the simulator's side, less the placeholders of a missing module
real_rows() {
	sed -n '/^fi # the simulator.s side ends here/,$p' "$SCEN/users.sh" |
		sed -n 's/^[[:space:]]*row \([a-z0-9-]*\) "\([^"]*\)".*/\1\t\2/p' | grep -v "	present$"
}

real_only() {
	sed -n 's/^real_only=" \(.*\) "$/\1/p' "$top_srcdir/kernel/run.sh" | tr ' ' '\n' | sed -n 's#^users/##p'
}

@test "users on the simulator: every row shows what rot-abi.md expects, and the scenario ends with status 0" {
	run_users --reclaim-wait 200
	run grep -c '^ROW' "$BATS_TEST_TMPDIR/users.sim"
	assert_output 12
	run awk -F'\t' '$1 == "ROW" && $3 != $4 { print $2 ": expected " $3 ", got " $4 }' "$BATS_TEST_TMPDIR/users.sim"
	assert_output ''
	run tail -1 "$BATS_TEST_TMPDIR/users.sim"
	assert_output 'STATUS	0'
	# what is left: kprobeinit's instance, kept by its probe, and lostimer's
	# three, kept by their timers (a forced reclaim no longer stops what an
	# exit forgot: rot-abi.md R12); the books balance
	run sim_state
	assert_output --regexp '^rotting lostimer [0-9]+ 0x[0-9a-f]{16} timer=1 percpu=64@[0-9]+
rotting kprobeinit [0-9]+ 0x[0-9a-f]{16} kprobe=1
rotting lostimer [0-9]+ 0x[0-9a-f]{16} ref=1 percpu=64@[0-9]+
rotting lostimer [0-9]+ 0x[0-9a-f]{16} timer=1 percpu=64@[0-9]+
taint 8$'
	sim_ledger_check
}

@test "users on the simulator: its rows are the real kernel's, by name and expected value, but the real-only ones" {
	run_users --reclaim-wait 0
	real_rows > "$BATS_TEST_TMPDIR/real"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/real")" -ge 13 ] || fail "could not read the real side's rows"
	real_only > "$BATS_TEST_TMPDIR/realonly"
	run cat "$BATS_TEST_TMPDIR/realonly"
	assert_output "srcu-static
fs-in-use
chardev-in-use
proto-in-use"
	awk -F'\t' 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' "$BATS_TEST_TMPDIR/realonly" "$BATS_TEST_TMPDIR/real" > "$BATS_TEST_TMPDIR/want"
	awk -F'\t' -v OFS='\t' '$1 == "ROW" { print $2, $3 }' "$BATS_TEST_TMPDIR/users.sim" > "$BATS_TEST_TMPDIR/got"
	run diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	assert_success
	# the real-only rows are real rows, and the simulator does not print them
	run grep -c -F -f "$BATS_TEST_TMPDIR/realonly" "$BATS_TEST_TMPDIR/real"
	assert_output 4
	run grep -F -f "$BATS_TEST_TMPDIR/realonly" "$BATS_TEST_TMPDIR/got"
	assert_failure
}

@test "users on the simulator: what the forced rows kept after their wait, where, and the reclaims, are in the kernel log" {
	run_users --reclaim-wait 300
	run "$SIMKERNEL" dmesg "$K"
	# a forced reclaim that runs out of time answers as a plain one (R13)
	assert_line "sleeper: a rotting instance is still referenced (pins 1, tasks 1, refs 1) from slab filp object: not reclaimed"
	assert_line "stuckwork: a rotting instance is still referenced (pins 0, tasks 1, refs 2) from slab kmalloc-192 object: not reclaimed"
	assert_line "cbc: reclaimed 1 rotting instance, $(awk '$2 == "reclaim" && $3 == "cbc" { print $5 }' "$K/ledger") bytes"
	assert_line 'audit: type=1330 op=reclaim name="nosuchmodule" freed=0 kept=0 res=0'
}
