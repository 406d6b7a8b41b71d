#!/usr/bin/env bats
# simkernel: concurrent writers, across processes and across the threads of
# one process. Whatever the interleaving, the ledger must balance and what
# readers see must match the state.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

SIMTHREADS="$top_builddir/tests/simkernel/simthreads"

setup() {
	sim_create rot
}

# Every live module has a sysfs directory and a /proc/modules line, and
# nothing else has one; no staging leftovers remain.
assert_consistent() {
	local live procs sysfs
	live=$(sim_state | awk '$1 == "live" { print $2 }' | sort)
	procs=$(sim_run cut -d' ' -f1 /proc/modules | sort)
	sysfs=$(sim_run ls /sys/module | grep -vx module | sort)
	assert_equal "$procs" "$live"
	assert_equal "$sysfs" "$live"
	assert_equal "$(sim_state | grep -c '^rotting')" "$(sim_run cat /proc/rotting_modules | wc -l)"
	assert_equal "$(ls -A "$K/root/.staging")" ""
}

worker() {
	local mod=$1 rounds=$2 i
	for ((i = 0; i < rounds; i++)); do
		"$SYSC" finit "$(fixture "$mod")" > /dev/null || true
		"$SYSC" delete "$mod" 0x800 > /dev/null || true
		if ((i % 5 == 4)); then
			"$SYSC" reclaim "$mod" > /dev/null || true
		fi
	done
}

@test "processes loading, unloading and reclaiming at once keep the ledger balanced" {
	sim_env
	for mod in delta delta oot oot failinit params; do
		worker "$mod" 25 &
	done
	wait
	sim_unenv
	sim_ledger_check
	assert_consistent
}

@test "processes working on dependent modules never leave a holder without its dependency" {
	sim_env
	worker alpha 30 &
	worker beta 30 &
	worker gamma 30 &
	wait
	sim_unenv
	sim_ledger_check
	assert_consistent
	# a live beta needs a live alpha holding it
	if sim_state | grep -q '^live beta '; then
		run sim_state
		assert_line --regexp '^live alpha .* holders=beta'
	fi
}

@test "threads of one process loading and unloading at once" {
	run sim_run "$SIMTHREADS" 8 40 "$(fixture delta)" "$(fixture oot)" "$(fixture params)" "$(fixture snd-dummy)"
	assert_success
	assert_output --regexp '^loads [0-9]+ unloads [0-9]+ failures 0$'
	read -r _ loads _ unloads _ <<< "$output"
	assert_equal "$loads" "$unloads"
	assert_equal "$(sim_run cat /proc/rotting_modules | wc -l)" "$unloads"
	sim_ledger_check
	assert_consistent
}

@test "threads in stock mode free what they unload" {
	sim_create stock
	run sim_run "$SIMTHREADS" 6 30 "$(fixture delta)" "$(fixture alpha)"
	assert_success
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_output --regexp 'live 0 rotting 0$'
}

# kernel/scenarios' handshake: a load that waits for a name still Loading
# is seen waiting by its /proc/PID/wchan (load_module, as on the kernel),
# not by a delay; the file is gone once the wait ends.
@test "a load waiting for a name still Loading reads load_module in /proc/PID/wchan, and only while it waits" {
	mkdir -p "$K/behaviour"
	echo "init_gate=$BATS_TEST_TMPDIR/open" > "$K/behaviour/slowinit"
	sim_run "$SYSC" finit "$(fixture slowinit)" > "$BATS_TEST_TMPDIR/first" &
	local first=$! second i
	for ((i = 0; i < 600; i++)); do
		[ "$(sim_run awk '$1 == "slowinit" { print $5 }' /proc/modules)" = Loading ] && break
		sleep 0.05
	done
	# the first load runs init, it does not wait for a name
	run sim_run cat "/proc/$first/wchan"
	assert_failure
	# the loading process's own pid, as a guest shell's $! would be
	sim_run sh -c 'echo $$ > "$1"; exec "$2" finit "$3"' sh "$BATS_TEST_TMPDIR/pid" \
		"$SYSC" "$(fixture slowinit)" > "$BATS_TEST_TMPDIR/second" &
	local job=$!
	for ((i = 0; i < 600; i++)); do
		[ -s "$BATS_TEST_TMPDIR/pid" ] && break
		sleep 0.05
	done
	second=$(cat "$BATS_TEST_TMPDIR/pid")
	for ((i = 0; i < 600; i++)); do
		[ "$(sim_run cat "/proc/$second/wchan" 2> /dev/null)" = load_module ] && break
		sleep 0.05
	done
	run sim_run cat "/proc/$second/wchan"
	assert_success
	assert_output load_module
	touch "$BATS_TEST_TMPDIR/open"
	wait "$first"
	wait "$job" || true # sysc exits non-zero on an errno; its output says which
	assert_equal "$(cat "$BATS_TEST_TMPDIR/first")" ok
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second")" EEXIST
	run sim_run cat "/proc/$second/wchan"
	assert_failure
	assert_equal "$(ls -A "$K/root/proc" | grep -c '^[0-9]')" 0
	assert_equal "$(sim_state | awk '$1 == "live" && $2 == "slowinit"' | wc -l)" 1
}
