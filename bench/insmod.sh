#!/usr/bin/env bash
# Batch insmod of 500 .ko.zst modules with -j1 and -j2, against a loop of
# Debian's kmod insmod, on the same simulated kernel, from a fresh kernel
# each run. Twice: with inits that return at once, where the simulated
# kernel's own serialised bookkeeping is most of the cost, and with inits
# that take 2 ms, as probing hardware does; a kernel runs inits outside
# its module mutex, and so does the simulated one.
. "$(dirname "$0")/common.sh"
N=${BENCH_MODULES:-500}
k=$BENCH_TMP/ins
fresh="rm -rf $k && $SIM create $k --mode rot"

for delay in 0 2; do
	mods=$BENCH_TMP/mods-$delay
	echo "(building $N fixture modules)" >&2
	extra=
	[ "$delay" = 0 ] || extra="simkernel.init_delay_ms=$delay"
	"$top/tests/fixtures/mkmany.sh" "$N" "$mods" gcc "$extra" >/dev/null
	files=$(ls "$mods"/*.ko.zst | tr '\n' ' ')
	echo "# rot kernel, load $N .ko.zst modules, init takes ${delay} ms"
	bench_compare_prepared ins "$fresh" \
		"modrot insmod --batch -j2=$build/tools/insmod --batch -j2 $files" \
		"modrot insmod --batch -j1=$build/tools/insmod --batch -j1 $files" \
		"kmod insmod, one call per module=for f in $files; do /sbin/insmod \$f; done"
	echo
done
