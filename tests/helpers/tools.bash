# Shared set-up for the tools' bats suites.
#
#   load helpers/tools
#   kernel_new rot|stock [simkernel create options]   # fresh kernel in $K
#   run on_kernel "$LSMOD" -J                         # a command on it
#   kmod_load NAME...                                 # Debian's insmod of fixtures
#
# Tools are called by absolute path ($LSMOD, $KMOD_LSMOD, ...) so that a
# test never picks up the wrong lsmod from PATH.
# bats-support, bats-assert and bats-file, without a process per file.
# shellcheck source=tests/helpers/bats-libs.bash
. "${BASH_SOURCE[0]%/*}/bats-libs.bash"

: "${top_builddir:?run the suites through make check}"

# Bounded waits: wait_until, wait_syscall, wait_sleeping.
# shellcheck source=tests/helpers/wait.bash
. "${BASH_SOURCE[0]%/*}/wait.bash"
# untraced FUNCTION...: a loop of many commands without bats' trace.
# shellcheck source=tests/helpers/untraced.bash
. "${BASH_SOURCE[0]%/*}/untraced.bash"

# No test waits for ever: one that outlives this (seconds) fails, its
# processes killed. Far above the slowest test under ASan at load 20; a
# suite may set its own before loading this file. bats runs its watchdog
# as a background job of the test: wait for a pid, never a bare `wait`.
: "${BATS_TEST_TIMEOUT:=1200}"
# The index check's kept verdicts (lib/indexcache.c) stay in the test's
# own directory: root's default, /run/modrot, is the machine's.
export MODROT_INDEX_CACHE=${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:?}}/index-cache
# The reclaim lock (lib's rot_reclaim_lock) too: /run/modrot/reclaim.lock is
# the machine's, and the tests plant what a hostile user would at its place.
export MODROT_RECLAIM_LOCK=${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:?}}/modrot/reclaim.lock
SIM=$top_builddir/tests/simkernel/simkernel
FIXTURES=$top_builddir/tests/fixtures/out
LSMOD=$top_builddir/tools/lsmod
KMOD_LSMOD=/sbin/lsmod
KMOD_INSMOD=/sbin/insmod
KMOD_RMMOD=/sbin/rmmod

kernel_new() {
	local mode=$1
	shift
	K=$BATS_TEST_TMPDIR/kernel
	"$SIM" create "$K" --mode "$mode" "$@"
}

on_kernel() {
	"$SIM" run "$K" -- "$@"
}

# on_kernel_traced STRACE-ARGS...: on_kernel strace STRACE-ARGS. Every
# test that traces a tool goes through here: LeakSanitizer cannot run under
# ptrace and would fail the traced run of a sanitized build, whose leaks
# every other test checks.
on_kernel_traced() {
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 on_kernel strace "$@"
}

# As a process without CAP_SYS_MODULE.
on_kernel_nocap() {
	"$SIM" run "$K" --nocap -- "$@"
}

kmod_load() {
	local m
	for m in "$@"; do
		on_kernel "$KMOD_INSMOD" "$FIXTURES/$m.ko" || return
	done
}

kmod_unload() {
	on_kernel "$KMOD_RMMOD" "$@"
}

# Rot by kmod's own tools: delta three times, alpha once.
rot_delta3_alpha1() {
	local i
	for i in 1 2 3; do
		kmod_load delta && kmod_unload delta || return
	done
	kmod_load alpha && kmod_unload alpha
}

# The simulated kernel's own view, to check that a call changed what it
# should and nothing else.
kernel_state() {
	"$SIM" state "$K"
}

# Waits (bounded, helpers/wait.bash) until the kernel's state has a line
# matching the ERE, e.g. '^live delta .* Loading ' while a gate holds its init.
state_has() { kernel_state | grep -Eq "$1"; }
wait_state() {
	wait_until state_has "$1" || {
		kernel_state >&2
		return 1
	}
}

RMMOD=$top_builddir/tools/rmmod
MODREAP=$top_builddir/tools/modreap

# Bytes of one live (or, with "rotting", every rotting) instance of NAME.
live_size() { kernel_state | awk -v n="$1" '$1 == "live" && $2 == n { print $3 }'; }
rotting_bytes() { kernel_state | awk -v n="${1:-}" '$1 == "rotting" && (n == "" || $2 == n) { s += $3 } END { print s + 0 }'; }
rotting_count() { kernel_state | awk -v n="${1:-}" '$1 == "rotting" && (n == "" || $2 == n) { c++ } END { print c + 0 }'; }
# A size as util-linux's lsblk prints it, the tools' text form (the
# oracle, written apart from tools/cli/sizewords.c): the largest power of 1024
# not above it, the tenths rounded half up from the thousandths, no ".0".
human_size() {
	awk -v b="$1" 'BEGIN {
		s = 0
		while (s < 6 && b >= 1024 ^ (s + 1)) s++
		w = int(b / 1024 ^ s); r = b - w * 1024 ^ s
		t = int((int(r * 1000 / 1024 ^ s) + 50) / 100)
		if (t == 10) { w++; t = 0 }
		printf "%s%s\n", (t ? w "." t : w), substr("BKMGTPE", s + 1, 1)
	}'
}
is_live() { kernel_state | awk -v n="$1" '$1 == "live" && $2 == n { f = 1 } END { exit !f }'; }
taint() { kernel_state | awk '$1 == "taint" { print $2 }'; }

# Runs a tool under valgrind on the kernel; fails on any memory error or
# leak (the simulated kernel's own allocations are suppressed). Not for
# ASan builds, which check themselves.
valgrind_clean() {
	run on_kernel valgrind -q --error-exitcode=99 --leak-check=full \
		--show-leak-kinds=all --errors-for-leak-kinds=all \
		--suppressions="$top_srcdir/tests/valgrind.supp" "$@"
	if [ "$status" -eq 99 ]; then
		echo "valgrind found errors in: $*"
		echo "$output"
		return 1
	fi
}

skip_if_sanitized() {
	[ "$MODROT_SANITIZED" = no ] || skip "valgrind cannot run ASan builds; ASan checks this build"
}

# make_var DIR VAR: a variable of the Makefile in DIR, expanded (make run
# on its own, not as a sub-make of the make check that runs the tests).
make_var() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$1" \
		-f Makefile -f - "print-$2" <<'EOF'
print-%: ; @printf '%s\n' '$($*)'
EOF
}
