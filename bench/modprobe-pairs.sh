#!/usr/bin/env bash
# modprobe -a of 500 aliased modules (bench/modprobe.sh's tree), an
# installed build (make install) against Debian's kmod, interleaved: each
# round runs both in a shuffled order, each on a fresh simulated kernel
# made untimed before it (bench/pairs.py --prepare), and the ratio is the
# median of per-round ratios; then the system calls per module of one run
# of each (strace -f -c, the simulated kernel's own work included).
#
#   BENCH_MODULES=N  modules (default 500)
#   BENCH_ROUNDS=N   rounds per kernel mode (default 20)
. "$(dirname "$0")/common.sh"
: "${BENCH_MODULES:=500}" "${BENCH_ROUNDS:=20}"

bench_aliased_spec "$BENCH_MODULES" >"$BENCH_TMP/aliased.spec"
"$top/tests/helpers/modtree.sh" --spec "$BENCH_TMP/aliased.spec" --conf /dev/null \
	"$BENCH_TMP/aliased" >/dev/null 2>&1
dest=$BENCH_TMP/install
make -s -C "$build" install DESTDIR="$dest" >/dev/null
tree=$(dirname "$(dirname "$(find "$dest" -path '*/sbin/modprobe' -type f | head -n 1)")")
: >"$BENCH_TMP/empty.conf"
args="-C $BENCH_TMP/empty.conf -d $BENCH_TMP/aliased -a $(seq -f 'benchalias-%05g' 0 $((BENCH_MODULES - 1)) | tr '\n' ' ')"
# Both as installed: libmodrot through the loader's cache (bench/as-installed.sh).
kmod="/sbin/modprobe"
ours="$tree/sbin/modprobe"
installed="$top/bench/as-installed.sh $tree/lib"
k=$BENCH_TMP/kernel
export MODROT_INDEX_CACHE=$BENCH_TMP/index-cache

for mode in rot stock; do
	fresh="rm -rf $k && $SIM create $k --mode $mode"
	echo "## $mode kernel: modprobe -a of $BENCH_MODULES aliases, $BENCH_ROUNDS rounds"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	# shellcheck disable=SC2086 # the script and its directory
	SIMKERNEL_DIR=$k LD_PRELOAD=$PRELOAD $installed "$top/bench/pairs.py" --prepare "$fresh" "$BENCH_ROUNDS" \
		"kmod modprobe -a=$kmod $args" "modrot modprobe -a=$ours $args"
	echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	for who in kmod ours; do
		sh -c "$fresh"
		# shellcheck disable=SC2086 # the words are the command's
		SIMKERNEL_DIR=$k LD_PRELOAD=$PRELOAD $installed strace -f -c -o "$BENCH_TMP/strace.out" \
			${!who} $args >/dev/null 2>&1 || true
		awk -v who="${who/ours/modrot}" -v n="$BENCH_MODULES" '$NF == "total" { printf "syscalls per module, %s: %.1f\n", who, $4 / n }' \
			"$BENCH_TMP/strace.out"
	done
	echo
done
