#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh WORKDIR: builds the libFuzzer harnesses (build.sh) into WORKDIR
# and fuzzes each in turn, one at a time, starting from its committed
# seeds. Each harness's growing corpus stays in WORKDIR/corpus/NAME;
# crashes, leaks and timeouts go to WORKDIR/artifacts/NAME/.
#
#   FUZZ_SECONDS=N     seconds per harness (default 60)
#   FUZZ_RUNS=N        executions per harness instead (libFuzzer -runs=)
#   FUZZ_HARNESSES     which ones (default: all, as in tests/fuzz/fuzz-*.c)
#
# Prints "NAME executions N crashes N" per harness; exits 1 if any harness
# found something (copy the artifact into tests/fuzz/regress/NAME/ once
# fixed, so that it runs in make check from then on).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: run.sh WORKDIR}
mkdir -p "$work"
work=$(cd "$work" && pwd)
"$top/tests/fuzz/build.sh" "$work/bin" >/dev/null || exit 2

harnesses=${FUZZ_HARNESSES:-$(cd "$top/tests/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')}
limit="-max_total_time=${FUZZ_SECONDS:-60}"
[ -n "${FUZZ_RUNS:-}" ] && limit="-runs=$FUZZ_RUNS"
status=0
for h in $harnesses; do
	mkdir -p "$work/corpus/$h" "$work/artifacts/$h"
	log=$work/$h.log
	"$work/bin/fuzz-$h" $limit -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/artifacts/$h/" \
		"$work/corpus/$h" "$top/tests/fuzz/corpus/$h" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	found=$(find "$work/artifacts/$h" -type f | wc -l)
	echo "$h executions ${runs:-?} crashes $found (exit $rc, log $log)"
	[ "$rc" -eq 0 ] && [ "$found" -eq 0 ] || status=1
done
exit $status
