# The per-CPU module reserve (rot-abi.md "Per-CPU memory") as insmod and
# lsmod meet it: insmod-percpu.bats, lsmod-percpu.bats.
#
# shellcheck shell=bash

INSMOD=$top_builddir/tools/insmod

# reload NAME N: load and unload NAME N times with modrot's tools
reload() {
	local i
	for i in $(seq "$2"); do
		on_kernel "$INSMOD" "$FIXTURES/$1.ko" || return
		on_kernel "$RMMOD" "$1" || return
	done
}

reserve_line() { on_kernel head -n1 /proc/module_percpu; }
