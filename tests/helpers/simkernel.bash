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
#   sim_wait_state ERE
#                   wait (bounded, helpers/wait.bash) until `simkernel state`
#                   has a line matching ERE
#   and the bounded waits of helpers/wait.bash (wait_until, wait_syscall,
#   wait_sleeping), and untraced (helpers/untraced.bash)

: "${top_builddir:=$PWD}"
: "${top_srcdir:=$top_builddir/..}"

# shellcheck source=tests/helpers/wait.bash
. "${BASH_SOURCE[0]%/*}/wait.bash"
# shellcheck source=tests/helpers/untraced.bash
. "${BASH_SOURCE[0]%/*}/untraced.bash"

# The reclaim lock (lib's rot_reclaim_lock) in the test's own directory:
# /run/modrot/reclaim.lock is the machine's, shared by every suite.
export MODROT_RECLAIM_LOCK=${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:?}}/modrot/reclaim.lock

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

# The names in the order a /sys directory of the simulated kernel lists
# them: by kernfs_name_hash() (simkernel kernfs-hash, the definition the
# simulator and libmodrot share, checked against the kernel's own values by
# tests/unit/snapshot.t and simkernel-render.bats), then by name.
sim_kernfs_order() {
	"$SIMKERNEL" kernfs-hash "$@" | LC_ALL=C sort -k1,1n -k2,2 | cut -d' ' -f2
}

sim_state_has() {
	sim_state | grep -Eq "$1"
}

sim_wait_state() {
	wait_until sim_state_has "$1" || {
		sim_state >&2
		return 1
	}
}
