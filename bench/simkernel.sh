#!/usr/bin/env bash
# The instrument's own costs, so that the other benchmarks can be read: a
# tool compared on the simulated kernel pays these on every call.
. "$(dirname "$0")/common.sh"
k=$BENCH_TMP/sim
SIMTHREADS=$build/tests/simkernel/simthreads

echo "# populate 5,000 live + 5,000 rotting (one transaction)"
BENCH_PREPARED_RUNS=5 bench_compare_prepared sim "rm -rf $k" \
	"populate=$SIM create $k --mode rot && $SIM populate $k --live 5000 --rotting 5000 --max-deps 3"

sh -c "rm -rf $k && $SIM create $k --mode rot && $SIM populate $k --live 5000 --rotting 5000 --max-deps 3"
echo
echo "# 200 loads + 200 unloads in one process, 10,000 instances present"
bench_compare sim \
	"simthreads 1 200=$SIMTHREADS 1 200 $build/tests/fixtures/out/delta.ko" \
	"a process that does nothing=/bin/true"
echo "(per call: (first - second) / 400)"

echo
echo "# open of an unchanged /proc/modules: cat under the preload and without it"
cp "$k/root/proc/modules" "$BENCH_TMP/plain"
bench_compare sim \
	"cat /proc/modules (served)=/bin/cat /proc/modules" \
	"cat of a plain copy=/bin/cat $BENCH_TMP/plain"
