# shellcheck shell=bash
# tests/helpers/simkernel.bash: bats helpers for the simulated kernel
# (tests/simkernel/README.md). Load with `load helpers/simkernel`.
#
# Needs top_builddir and top_srcdir (make check exports both, absolute);
# run by hand from a build directory they default to "." and "..":
#   top_builddir=$PWD top_srcdir=$PWD/.. bats ../tests/simkernel-load.bats
#
# Variables set on load:
#   SIMKERNEL       the driver:     $SIMKERNEL state "$K"
#   SIMKERNEL_LIB   the preload library (absolute)
#   SYSC            raw syscall helper: $SYSC init|finit FILE [PARAMS] [FLAGS],
#                   $SYSC delete NAME FLAGS; prints "ok" or an errno name
#   FIXTURES        the directory of generated fixture modules
#   MKDRIVERS       tests/fixtures/mkdrivers.sh: MKDRIVERS N OUTDIR DEVICES-FILE
#                   builds driver modules drvNNNNN and a list of devices
#
# Functions:
#   sim_create [rot|stock] [CREATE-OPTION...]
#                   a fresh kernel in a new directory under $BATS_TEST_TMPDIR;
#                   sets and exports K to it (default mode: rot)
#   sim_env         export SIMKERNEL_DIR=$K and prepend the preload to LD_PRELOAD
#                   (commands run after it see the simulated kernel)
#   sim_unenv       undo sim_env
#   sim_run CMD...  run one command under $K (simkernel run "$K" -- CMD...)
#   sim_state       print `simkernel state $K`
#   sim_ledger_check
#                   fail the test unless `simkernel ledger $K --check` passes
#   fixture NAME [xz|zst]
#                   print the path of fixture NAME (.ko, .ko.xz or .ko.zst)
#   sim_devices     print `simkernel device list $K` (BUS ID MODALIAS DRIVER|-)
#   sim_kernfs_order NAME...
#                   print the names, one a line, in the order a kernfs
#                   directory lists them (kernfs_name_hash, then name)

: "${top_builddir:=$PWD}"
: "${top_srcdir:=$top_builddir/..}"

SIMKERNEL="$top_builddir/tests/simkernel/simkernel"
SIMKERNEL_LIB="$top_builddir/tests/simkernel/libsimkernel.so"
SYSC="$top_builddir/tests/simkernel/sysc"
FIXTURES="$top_builddir/tests/fixtures/out"
MKDRIVERS="$top_srcdir/tests/fixtures/mkdrivers.sh"

sim_create() {
	local mode=rot
	case "${1:-}" in
	rot | stock)
		mode=$1
		shift
		;;
	esac
	K=$(mktemp -d "$BATS_TEST_TMPDIR/kernel.XXXXXX")
	export K
	"$SIMKERNEL" create "$K" --mode "$mode" "$@"
}

sim_env() {
	export SIMKERNEL_DIR="$K"
	export LD_PRELOAD="$SIMKERNEL_LIB${LD_PRELOAD:+:$LD_PRELOAD}"
}

sim_unenv() {
	unset SIMKERNEL_DIR SIMKERNEL_NOCAP
	LD_PRELOAD=${LD_PRELOAD#"$SIMKERNEL_LIB"}
	LD_PRELOAD=${LD_PRELOAD#:}
	[ -n "$LD_PRELOAD" ] || unset LD_PRELOAD
}

sim_run() {
	"$SIMKERNEL" run "$K" -- "$@"
}

sim_state() {
	"$SIMKERNEL" state "$K"
}

sim_ledger_check() {
	local out
	if ! out=$("$SIMKERNEL" ledger "$K" --check 2>&1); then
		echo "ledger check failed: $out" >&2
		return 1
	fi
}

fixture() {
	local name=$1 ext=${2:-}
	echo "$FIXTURES/$name.ko${ext:+.$ext}"
}

sim_devices() {
	"$SIMKERNEL" device list "$K"
}

# kernfs_name_hash() of Linux 6.1 in bash, independent of the simulator's C
sim_kernfs_order() {
	local name hash i c
	for name in "$@"; do
		hash=0
		for ((i = 0; i < ${#name}; i++)); do
			printf -v c '%d' "'${name:i:1}"
			hash=$(((hash + (c << 4) + (c >> 4)) * 11))
		done
		hash=$((((hash & 0xffffffff) * 0x61C88647) & 0x7fffffff))
		((hash < 2)) && hash=$((hash + 2))
		((hash >= 0x7fffffff)) && hash=$((0x7fffffff - 1))
		echo "$hash $name"
	done | LC_ALL=C sort -k1,1n -k2,2 | cut -d' ' -f2
}
