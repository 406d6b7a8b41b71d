# shellcheck shell=bash
# tests/helpers/rot3.bash: the set-up the simulated kernel's revision-3
# suites share (simkernel-ioctl.bats, simkernel-rot3.bats). Loads
# bats-support, bats-assert and helpers/simkernel itself:
#   load helpers/rot3
#
#   ADDR            ERE of an address as /proc and `simkernel state` print it
#   load_fx NAME    load fixture NAME (sysc finit); fails unless it loads
#   load_delta      load_fx delta, and set DELTA_SIZE to its size
#   rot_delta [N [FLAGS]]
#                   load delta and unload it (delete_module FLAGS, default
#                   0x800), N times (default 1): N rotting instances
#   refused_deletes NAME ERRNO FLAGS...
#                   delete_module of NAME fails with ERRNO for each FLAGS,
#                   and the kernel's state is what it was

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

# shellcheck disable=SC2034 # used by the suites
ADDR='0x[0-9a-f]{16}'

load_fx() {
	sim_run "$SYSC" finit "$(fixture "$1")"
}

load_delta() {
	load_fx delta
	# shellcheck disable=SC2016,SC2034 # awk's own $1; DELTA_SIZE is the suites'
	DELTA_SIZE=$(sim_run awk '$1 == "delta" { print $2 }' /proc/modules)
}

rot_delta() {
	local flags=${2:-0x800}
	for _ in $(seq "${1:-1}"); do
		load_delta
		sim_run "$SYSC" delete delta "$flags"
	done
}

refused_deletes() {
	local name=$1 errno=$2 before flags
	shift 2
	before=$(sim_state)
	for flags in "$@"; do
		run sim_run "$SYSC" delete "$name" "$flags"
		assert_failure 1
		assert_output "$errno"
	done
	assert_equal "$(sim_state)" "$before"
}
