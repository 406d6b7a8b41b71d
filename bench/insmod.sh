#!/usr/bin/env bash
# Batch insmod of 500 .ko.zst modules with -j1 and -j2, against a loop of
# Debian's kmod insmod, on the same simulated kernel, from a fresh kernel
# each run.
. "$(dirname "$0")/common.sh"
N=${BENCH_MODULES:-500}
mods=$BENCH_TMP/mods
echo "(building $N fixture modules)" >&2
"$top/tests/fixtures/mkmany.sh" "$N" "$mods" >/dev/null
files=$(ls "$mods"/*.ko.zst | tr '\n' ' ')
k=$BENCH_TMP/ins
fresh="rm -rf $k && $SIM create $k --mode rot"

echo "# rot kernel, load $N .ko.zst modules"
bench_compare_prepared ins "$fresh" \
	"modrot insmod --batch -j2=$build/tools/insmod --batch -j2 $files" \
	"modrot insmod --batch -j1=$build/tools/insmod --batch -j1 $files" \
	"kmod insmod, one call per module=for f in $files; do /sbin/insmod \$f; done"
