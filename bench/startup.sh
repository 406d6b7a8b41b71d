#!/usr/bin/env bash
# Start-up (-V) of every tool, and lsmod's plain path on 5,000 live modules
# and 5,000 rotting instances, of an installed build (make install, not the
# build tree's run path) against Debian's kmod and cat, in one run: wall
# time interleaved (bench/pairs.py: median of per-round ratios), with the
# instructions (valgrind --tool=callgrind) and the system calls (strace -f
# -c) of one run of each, which a loaded machine does not change.
#
# lsmod's table is taken twice: under the simulated kernel, and under an
# independent preload (bench/procshim.c, built here) that only serves the
# same files from the simulator's tree, the simulator's seccomp guard
# (simkernel-guard) around the timer. Its "x lsmod" column is each
# command's ratio to modrot's lsmod, per round (kmod's: how many times
# slower).
#
#   BENCH_BEFORE=DIR   also time the installed tree under DIR (the DESTDIR
#                      of an earlier build's make install): before and after
#   BENCH_ROUNDS=N     rounds of pairs.py (default 200)
#   BENCH_LSMOD_ONLY=1 lsmod's two tables only, not the -V one
. "$(dirname "$0")/common.sh"
: "${BENCH_ROUNDS:=200}"

# An installed tree: DEST/<prefix>/{bin,sbin,lib}. Its programs carry no
# run path, so each command gets its own LD_LIBRARY_PATH (kmod and cat get
# one too, to an empty directory, so every command pays the same lookup).
dest=$BENCH_TMP/install
make -s -C "$build" install DESTDIR="$dest" >/dev/null
tree_dir() { dirname "$(dirname "$(find "$1" -path '*/bin/lsmod' -type f | head -n 1)")"; }
after=$(tree_dir "$dest")
before=
[ -z "${BENCH_BEFORE:-}" ] || before=$(tree_dir "$BENCH_BEFORE")
mkdir "$BENCH_TMP/nolib"

# label=command lines for pairs.py, with each tree's library path.
in_tree() { # TREE TOOL ARGS...
	local tree=$1 tool=$2
	shift 2
	local path=$tree/bin/$tool
	[ -x "$path" ] || path=$tree/sbin/$tool
	echo "LD_LIBRARY_PATH=$tree/lib $path $*"
}
plain() { echo "LD_LIBRARY_PATH=$BENCH_TMP/nolib $*"; }

# instructions and system calls of one run: "Ir syscalls"
costs() {
	local -a env=() argv
	read -r -a argv <<<"$1"
	while [[ ${argv[0]} == *=* ]]; do
		env+=("${argv[0]}")
		argv=("${argv[@]:1}")
	done
	local ir calls
	ir=$(env "${env[@]}" "${guard_bin[@]}" valgrind --tool=callgrind --callgrind-out-file=/dev/null "${argv[@]}" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
	env "${env[@]}" "${guard_bin[@]}" strace -f -c -o "$BENCH_TMP/strace.out" "${argv[@]}" >/dev/null 2>&1
	calls=$(awk '$NF == "total" { print $(NF - 2) }' "$BENCH_TMP/strace.out")
	echo "$ir $calls"
}

# The independent preload: it redirects /proc and /sys paths, nothing else.
shim=$BENCH_TMP/procshim.so
cc -O2 -shared -fPIC -o "$shim" "$top/bench/procshim.c" -ldl

# table KERNEL-OR-EMPTY "label=command"...: pairs.py's wall times, then the
# costs. KERNEL as shim:NAME: that kernel's files through the independent
# preload instead of the simulator. PAIRS_VS=LABEL adds pairs.py's --vs.
table() {
	local kernel=$1
	shift
	local -a env=() guard=() guard_bin=() vs=()
	case $kernel in
	'') ;;
	shim:*)
		env=(PROCSHIM_ROOT="$BENCH_TMP/${kernel#shim:}/root" LD_PRELOAD="$shim")
		guard_bin=("$build/tests/simkernel/simkernel-guard")
		guard=("${guard_bin[@]}" "$(command -v python3)")
		;;
	*) env=(SIMKERNEL_DIR="$BENCH_TMP/$kernel" LD_PRELOAD="$PRELOAD") ;;
	esac
	[ -z "${PAIRS_VS:-}" ] || vs=(--vs "$PAIRS_VS")
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	env "${env[@]}" "${guard[@]}" "$top/bench/pairs.py" "${vs[@]}" "$BENCH_ROUNDS" "$@" >"$BENCH_TMP/pairs.out"
	echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-36s %10s %8s' command "median ms" "x first"
	[ -z "${PAIRS_VS:-}" ] || printf ' %12s' "x lsmod"
	printf ' %12s %9s\n' instructions syscalls
	local i=0 spec
	for spec in "$@"; do
		i=$((i + 1))
		local row c
		row=$(sed -n "$((i + 1))p" "$BENCH_TMP/pairs.out")
		c=$(
			[ ${#env[@]} -eq 0 ] || export "${env[@]}"
			costs "${spec#*=}"
		)
		printf '%s %12s %9s\n' "$row" ${c}
	done
}

# kmod's tools are one program (/bin/kmod, libkmod linked in): one row
# stands for each (its lsmod takes no -V).
if [ -z "${BENCH_LSMOD_ONLY:-}" ]; then
	rows=("kmod -V=$(plain /bin/kmod -V)" "cat /dev/null=$(plain /bin/cat /dev/null)")
	for t in lsmod rmmod insmod modinfo modprobe modreap modrot-metrics; do
		rows+=("modrot $t -V=$(in_tree "$after" "$t" -V)")
		[ -z "$before" ] || rows+=("before: modrot $t -V=$(in_tree "$before" "$t" -V)")
	done
	echo "# start-up: -V of each tool (no kernel needed), against kmod 30 as Debian ships it"
	table "" "${rows[@]}"
	echo
fi

echo "# lsmod, rot kernel, 5000 live + 5000 rotting (the simulated kernel preloaded into every command)"
bench_kernel rot rot --live 5000 --rotting 5000 --seed 1 --max-deps 3
rows=("cat both files=$(plain /bin/cat /proc/modules /proc/rotting_modules)"
	"modrot lsmod=$(in_tree "$after" lsmod)")
[ -z "$before" ] || rows+=("before: modrot lsmod=$(in_tree "$before" lsmod)")
rows+=("kmod lsmod (live only)=$(plain /sbin/lsmod)")
PAIRS_VS="modrot lsmod" table rot "${rows[@]}"

echo
echo "# the same, the files served by bench/procshim.c (not the simulator), under simkernel-guard"
# The simulator renders its files on first use: once, before the shim reads them.
SIMKERNEL_DIR=$BENCH_TMP/rot LD_PRELOAD=$PRELOAD cat /proc/modules /proc/rotting_modules >/dev/null
PAIRS_VS="modrot lsmod" table shim:rot "${rows[@]}"
