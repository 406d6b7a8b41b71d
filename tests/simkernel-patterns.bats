#!/usr/bin/env bats
# The simulator's side of kernel/scenarios/patterns.sh, run as kernel/run.sh
# runs it (dash, inside `simkernel run`, with rotctl built dynamically):
# each way of leaving something behind is a plain fixture with a reference
# held where the real kernel's scan finds it. Every row shows what
# rot-abi.md expects, its rows are the real kernel's but the real-only
# ones, and the kernel log and the simulator's state say what was kept.
# The real kernel's side cannot run here.

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load helpers/scenario

setup_file() {
	scenario_setup_file
}

# run_patterns: the scenario on a fresh kernel whose forced reclaim waits
# 200 ms, its output in $BATS_TEST_TMPDIR/patterns.sim
run_patterns() {
	run_scenario patterns --reclaim-wait 200
}

@test "patterns on the simulator: every row shows what rot-abi.md expects, and the scenario ends with status 0" {
	run_patterns
	run grep -c '^ROW' "$BATS_TEST_TMPDIR/patterns.sim"
	assert_output 19
	run awk -F'\t' '$1 == "ROW" && $3 != $4 { print $2 ": expected " $3 ", got " $4 }' "$BATS_TEST_TMPDIR/patterns.sim"
	assert_output ''
	run tail -1 "$BATS_TEST_TMPDIR/patterns.sim"
	assert_output 'STATUS	0'
	# fifteen instances kept, each by its reference (the deep sleeper by
	# its task too); alpha, which nothing reached, was freed; the books
	# balance
	sim_state > "$BATS_TEST_TMPDIR/state"
	run grep -c '^rotting rp_[a-z]* [0-9]* 0x[0-9a-f]* ref=1$' "$BATS_TEST_TMPDIR/state"
	assert_output 14
	run grep -c '^rotting rp_deep [0-9]* 0x[0-9a-f]* task=1 ref=1$' "$BATS_TEST_TMPDIR/state"
	assert_output 1
	run grep -c 'alpha' "$BATS_TEST_TMPDIR/state"
	assert_output 0
	sim_ledger_check
}

@test "patterns on the simulator: its rows are the real kernel's, by name and expected value, but the real-only ones" {
	run_patterns
	sed -n 's/^[[:space:]]*row \([a-z0-9-]*\) "\([^"]*\)".*/\1\t\2/p' "$SCEN/patterns.sh" > "$BATS_TEST_TMPDIR/rows"
	# pattern() prints one row per call, named by its first word
	sed -n 's/^pattern \([a-z]*\) .*/\1\tok,ok,EBUSY why=ref,rot=1/p' "$SCEN/patterns.sh" > "$BATS_TEST_TMPDIR/calls"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/calls")" -eq 15 ] || fail "could not read the pattern calls"
	sed -n 's/^real_only=" \(.*\) "$/\1/p' "$top_srcdir/kernel/run.sh" | tr ' ' '\n' |
		sed -n 's#^patterns/##p' > "$BATS_TEST_TMPDIR/realonly"
	run cat "$BATS_TEST_TMPDIR/realonly"
	assert_output "async
late-calls"
	sort "$BATS_TEST_TMPDIR/rows" "$BATS_TEST_TMPDIR/calls" |
		awk -F'\t' 'NR == FNR { skip[$1] = 1; next } !($1 in skip)' "$BATS_TEST_TMPDIR/realonly" - > "$BATS_TEST_TMPDIR/want"
	awk -F'\t' -v OFS='\t' '$1 == "ROW" { print $2, $3 }' "$BATS_TEST_TMPDIR/patterns.sim" | sort > "$BATS_TEST_TMPDIR/got"
	run diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	assert_success
	run grep -c -E '^(async|late-calls)	' "$BATS_TEST_TMPDIR/rows"
	assert_output 2
}

@test "patterns on the simulator: the kernel log names where each kept instance is referenced" {
	run_patterns
	run "$SIMKERNEL" dmesg "$K"
	assert_line "rp_kprobe: a rotting instance is still referenced (pins 0, tasks 0, refs 1) from kernel data kprobe_table: not reclaimed"
	assert_line "rp_deep: a rotting instance is still referenced (pins 0, tasks 1, refs 1) from slab kmalloc-256 object: not reclaimed"
	assert_line "rp_proc: a rotting instance is still referenced (pins 0, tasks 0, refs 1) from slab proc_dir_entry object: not reclaimed"
}
