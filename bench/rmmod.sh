#!/usr/bin/env bash
# rmmod of 1,000 modules in one call against a loop of Debian's kmod rmmod,
# and the kernel-facing calls our rmmod makes per module.
. "$(dirname "$0")/common.sh"
N=${BENCH_MODULES:-1000}
names=$(seq -f 'pop%05g' 0 $((N - 1)) | tr '\n' ' ')
k=$BENCH_TMP/rm
fresh="rm -rf $k && $SIM create $k --mode rot && $SIM populate $k --live $N"

echo "# rot kernel, unload $N live modules"
bench_compare_prepared rm "$fresh" \
	"modrot rmmod, one call=$build/tools/rmmod $names" \
	"kmod rmmod, one call per module=for m in $names; do /sbin/rmmod \$m; done"

sh -c "$fresh"
calls=$(bench_kernel_calls rm "$build/tools/rmmod" $names)
echo
echo "modrot rmmod: $calls kernel-facing calls for $N modules ($(echo "scale=3; $calls / $N" | bc) per module)"
