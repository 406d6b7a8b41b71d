#!/usr/bin/env bash
# modprobe against Debian's kmod modprobe on the same simulated kernel:
#   - modprobe -a of 500 modules by alias (every tenth needs the one
#     before it), from a fresh kernel each run;
#   - modprobe -r -a of the leaves of a 50-module dependency tree (base <-
#     7 middle modules <- 42 leaves) and its base: each leaf goes with the
#     middle module it leaves unused, the base last, all 50 in one call
#     (kmod's --remove-holders removes one level of holders only);
# on a rot and a stock kernel, with the syscalls each makes per module
# (strace -f -c: the tool's own and the simulated kernel's work in the
# same process, which is the same for both tools).
. "$(dirname "$0")/common.sh"
N=${BENCH_MODULES:-500}
trees=$BENCH_TMP/trees

# tree 1: N aliased modules
bench_aliased_spec "$N" >"$BENCH_TMP/aliased.spec"
# tree 2: 50 modules
{
	echo "kernel/tree/dbase.ko | ko | 2000 | +exports=dbase_fn"
	for ((j = 0; j < 7; j++)); do
		echo "kernel/tree/dmid$j.ko | xz | $((900 + j)) | +uses=dbase_fn | depends=dbase | +exports=dmid${j}_fn"
	done
	for ((j = 0; j < 42; j++)); do
		echo "kernel/tree/dleaf$j.ko | zst | $((700 + j)) | +uses=dmid$((j % 7))_fn | depends=dmid$((j % 7))"
	done
} > "$BENCH_TMP/tree.spec"
echo "# building the trees ($N + 50 modules)..." >&2
"$top/tests/helpers/modtree.sh" --spec "$BENCH_TMP/aliased.spec" --conf /dev/null "$trees/aliased" >/dev/null 2>&1
"$top/tests/helpers/modtree.sh" --spec "$BENCH_TMP/tree.spec" --conf /dev/null "$trees/tree" >/dev/null 2>&1

aliases=$(seq -f 'benchalias-%05g' 0 $((N - 1)) | tr '\n' ' ')
leaves=$(seq -f 'dleaf%g' 0 41 | tr '\n' ' ')
MP=$build/tools/modprobe
KMP=/sbin/modprobe
# -C an empty file: no modprobe.d of this machine's (modrot's modprobe
# refuses /dev/null, a device, as a configuration); -d: the tree
: >"$BENCH_TMP/empty.conf"
A="-C $BENCH_TMP/empty.conf -d $trees/aliased"
T="-C $BENCH_TMP/empty.conf -d $trees/tree"

syscalls() { # KERNEL-DIR PER COMMAND...: syscalls per module of one run
	local k=$1 per=$2
	shift 2
	SIMKERNEL_DIR=$k LD_PRELOAD=$PRELOAD strace -f -c -o "$BENCH_TMP/strace.out" "$@" >/dev/null 2>&1 || true
	awk -v per="$per" '$NF == "total" { printf "%.1f", $4 / per }' "$BENCH_TMP/strace.out"
}

for mode in rot stock; do
	k=$BENCH_TMP/mp-$mode
	fresh="rm -rf $k && $SIM create $k --mode $mode"
	loaded="$fresh && $SIM run $k -- $KMP $T -a $leaves"

	echo "# $mode kernel: modprobe -a of $N aliased modules"
	bench_compare_prepared "mp-$mode" "$fresh" \
		"modrot modprobe -a=$MP $A -a $aliases" \
		"kmod modprobe -a=$KMP $A -a $aliases"
	sh -c "$fresh"
	ours=$(syscalls "$k" "$N" "$MP" $A -a $aliases)
	sh -c "$fresh"
	theirs=$(syscalls "$k" "$N" "$KMP" $A -a $aliases)
	echo "syscalls per module: modrot $ours, kmod $theirs"
	echo

	echo "# $mode kernel: modprobe -r of a 50-module dependency tree"
	bench_compare_prepared "mp-$mode" "$loaded" \
		"modrot modprobe -r=$MP $T -r -a $leaves dbase" \
		"kmod modprobe -r=$KMP $T -r -a $leaves dbase"
	sh -c "$loaded"
	ours=$(syscalls "$k" 50 "$MP" $T -r -a $leaves dbase)
	left_ours=$("$SIM" state "$k" | grep -c '^live' || true)
	sh -c "$loaded"
	theirs=$(syscalls "$k" 50 "$KMP" $T -r -a $leaves dbase)
	left_theirs=$("$SIM" state "$k" | grep -c '^live' || true)
	echo "syscalls per module: modrot $ours, kmod $theirs (modules left live: modrot $left_ours, kmod $left_theirs)"
	echo
done
