#!/usr/bin/env bash
# lsmod on 5,000 live modules (and 5,000 rotting instances) against
# Debian's kmod lsmod, busybox lsmod and cat of the same files, all on the
# same simulated kernel, in one run.
. "$(dirname "$0")/common.sh"

echo "# stock kernel, 5000 live modules"
bench_kernel stock stock --live 5000 --seed 1 --max-deps 3
bench_compare stock \
	"modrot lsmod=$build/tools/lsmod" \
	"cat /proc/modules=/bin/cat /proc/modules" \
	"busybox lsmod=/bin/busybox lsmod" \
	"kmod lsmod=/sbin/lsmod"

echo
echo "# rot kernel, 5000 live + 5000 rotting"
bench_kernel rot rot --live 5000 --rotting 5000 --seed 1 --max-deps 3
bench_compare rot \
	"modrot lsmod=$build/tools/lsmod" \
	"cat both files=/bin/cat /proc/modules /proc/rotting_modules" \
	"modrot lsmod -J=$build/tools/lsmod -J" \
	"modrot lsmod --rotting=$build/tools/lsmod --rotting" \
	"kmod lsmod (live only)=/sbin/lsmod"

echo
echo "# one module with 65,535 holders (the holder sort: quadratic would show here)"
bench_kernel hub rot
"$SIM" run "$BENCH_TMP/hub" -- cat /proc/modules >/dev/null
{
	printf 'hub 1 0 '
	seq -f 'h%.0f,' 65535 | tr -d '\n'
	printf ' Live 0x1000\n'
} >"$BENCH_TMP/hub/root/proc/modules.planted"
mv "$BENCH_TMP/hub/root/proc/modules.planted" "$BENCH_TMP/hub/root/proc/modules"
bench_compare hub \
	"modrot lsmod -o name,holders -r=$build/tools/lsmod -o name,holders -r -n" \
	"cat /proc/modules=/bin/cat /proc/modules" \
	"modrot lsmod=$build/tools/lsmod"
