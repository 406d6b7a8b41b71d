#!/usr/bin/env bats
# simkernel at bulk sizes: what populate, many operations in one process
# and an unchanged open do. Their timings are measured in bench/simkernel.sh,
# not asserted here. The state lives on tmpfs when there is one: on a disk
# file system each file the simulator creates costs a tenth of a millisecond.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

SIMTHREADS="$top_builddir/tests/simkernel/simthreads"

setup() {
	if [ -d /dev/shm ] && [ -w /dev/shm ]; then
		K=$(mktemp -d /dev/shm/simkernel-perf.XXXXXX)
	else
		K=$(mktemp -d "$BATS_TEST_TMPDIR/kernel.XXXXXX")
	fi
	export K
	"$SIMKERNEL" create "$K"
}

teardown() {
	case "$K" in /dev/shm/simkernel-perf.*) rm -rf "$K" ;; esac
}

@test "populate of 5,000 live and 5,000 rotting instances lists them all" {
	"$SIMKERNEL" populate "$K" --live 5000 --rotting 5000 --max-deps 3
	run sim_run wc -l /proc/modules /proc/rotting_modules
	assert_line --index 0 --regexp '^ *5000 /proc/modules$'
	assert_line --index 1 --regexp '^ *5000 /proc/rotting_modules$'
}

@test "200 loads and unloads in one process with 10,000 instances present all succeed" {
	"$SIMKERNEL" populate "$K" --live 5000 --rotting 5000 --max-deps 3
	run sim_run "$SIMTHREADS" 1 200 "$(fixture delta)"
	assert_output 'loads 200 unloads 200 failures 0'
	sim_ledger_check
}

@test "100 reclaims with 10,000 instances present free exactly those names" {
	"$SIMKERNEL" populate "$K" --live 5000 --rotting 5000
	names=$(sim_run awk '{ print $1 }' /proc/rotting_modules | sort -u | head -100)
	sim_env_loop "$names"
	run sim_run grep -c . /proc/rotting_modules
	assert_output $((5000 - 100))
	sim_ledger_check
}

sim_env_loop() {
	local n
	for n in $1; do
		SIMKERNEL_DIR=$K LD_PRELOAD=$SIMKERNEL_LIB "$SYSC" reclaim "$n" > /dev/null || true
	done
}

@test "opening /proc/modules when nothing changed costs one open, no rendering" {
	"$SIMKERNEL" populate "$K" --live 5000 --rotting 5000
	sim_run cat /proc/modules > /dev/null
	run sim_run strace -e trace=openat,open,flock,rename,mmap cat /proc/modules
	refute_output --partial flock
	refute_output --partial rename
	assert_equal "$(echo "$output" | grep -c "$K/root/proc/modules")" 1
	assert_equal "$(echo "$output" | grep -c "$K/state")" 1
}
