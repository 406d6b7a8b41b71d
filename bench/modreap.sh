#!/usr/bin/env bash
# modreap --all over 10,000 rotting instances of 1,000 names, against a
# loop of rmmod --reclaim per name, and the delete_module calls it makes.
. "$(dirname "$0")/common.sh"
N=${BENCH_NAMES:-1000}
I=${BENCH_INSTANCES:-10000}
names=$(seq -f 'pop%05g' 0 $((N - 1)) | tr '\n' ' ')
k=$BENCH_TMP/reap
# Populate leaves the live modules too: rot is reclaimed by name, live
# modules of the same name are not touched.
fresh="rm -rf $k && $SIM create $k --mode rot && $SIM populate $k --live $N --rotting $I"

echo "# rot kernel, $I rotting instances of $N names"
bench_compare_prepared reap "$fresh" \
	"modrot modreap --all=$build/tools/modreap --all --quiet" \
	"modrot rmmod --reclaim per name=for m in $names; do $build/tools/rmmod --reclaim \$m; done"

sh -c "$fresh"
SIMKERNEL_DIR=$k LD_PRELOAD=$PRELOAD ltrace -c -e delete_module -o "$BENCH_TMP/reap.ltrace" \
	"$build/tools/modreap" --all --quiet >/dev/null 2>&1 || true
echo
echo "modreap --all: $(awk '$NF == "delete_module" { print $4 }' "$BENCH_TMP/reap.ltrace") delete_module calls for $I instances of $N names"
"$SIM" ledger "$k" --check | tail -1
