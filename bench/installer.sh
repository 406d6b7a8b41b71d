#!/usr/bin/env bash
# The installer's probe, three ways, on the same simulated machine (some
# hundreds of driver modules, a few dozen present devices), probed round
# after round as an installer does at each of its steps, with the rot and
# the per-CPU module reserve recorded after every probe step:
#   probe-all        load every module, unload those that found nothing
#   probe-all+watch  the same, with modreap --watch keeping rot under a
#                    ceiling (--down-to) and a floor of free per-CPU
#                    reserve (--percpu-floor)
#   match-first      load only the modules a present device needs
# Writes OUTDIR/installer-rot.tsv and OUTDIR/installer-rot.png (gnuplot).
#
#   bench/installer.sh [OUTDIR]        (default: bench/results)
#
# Modules with per-CPU data: the 31 of Debian's 6.1 kernel (4022 modules),
# with their own per-CPU sizes and alignments (bench/debian-percpu.tsv),
# spread evenly over the N modules. So one probe round takes from the
# reserve what probing Debian's whole tree takes; with N=4022 their share
# by count is Debian's too (0.77%); with the default N=300, for speed, it
# is 31 in 300.
. "$(dirname "$0")/common.sh"
"$top/scripts/need-packages.sh" gnuplot-nox
out=${1:-$top/bench/results}
mkdir -p "$out"
N=${INSTALLER_MODULES:-300}
STEP=${INSTALLER_STEP:-30}
ROUNDS=${INSTALLER_ROUNDS:-6}
CEILING=${INSTALLER_CEILING:-256K}
FLOOR=${INSTALLER_PERCPU_FLOOR:-1K}
PERCPU=${INSTALLER_PERCPU:-$top/bench/debian-percpu.tsv}
# What an installer does between probe steps (asking the user, mounting,
# copying): time in which a watching modreap gets to run.
PAUSE=${INSTALLER_PAUSE:-0.1}
drivers=$BENCH_TMP/drivers
MKDRIVERS_PERCPU=$PERCPU "$top/tests/fixtures/mkdrivers.sh" "$N" "$drivers" "$BENCH_TMP/devices" >/dev/null
mapfile -t files < <(ls "$drivers"/*.ko.zst)

tools=$build/tools
machine() {
	rm -rf "$BENCH_TMP/$1"
	"$SIM" create "$BENCH_TMP/$1" --mode rot
	"$SIM" device add "$BENCH_TMP/$1" --from "$BENCH_TMP/devices"
}
on() { local k=$1; shift; "$SIM" run "$BENCH_TMP/$k" -- "$@"; }
rot_bytes() { on "$1" cat /proc/rotting_modules | awk '{ s += $2 } END { print s + 0 }'; }
# The per-CPU reserve: free bytes, and the bytes rotting instances hold.
reserve_free() { on "$1" cat /proc/module_percpu | awk 'NR == 1 { print $4 }'; }
percpu_rot() { on "$1" cat /proc/module_percpu | awk '$3 == "Rotting" { s += $2 } END { print s + 0 }'; }
now_ms() { date +%s%3N; }
# Loads that failed for want of per-CPU reserve (ENOMEM), from insmod -J.
enomem() { jq '[.modules[] | select(.errno == 12)] | length'; }

# One sample: run, ms, rot bytes, free reserve, per-CPU rot, loads failed so far.
sample() {
	local k=$1 t0=$2 failed=$3
	echo "$k $(( $(now_ms) - t0 )) $(rot_bytes "$k") $(reserve_free "$k") $(percpu_rot "$k") $failed" \
		>> "$BENCH_TMP/samples"
}

# One run: ROUNDS probe rounds of all modules, STEP at a time.
run() {
	local k=$1 how=$2 t0 i r failed=0 n
	machine "$k"
	local reaper=
	if [ "$how" = watch ]; then
		(exec "$SIM" run "$BENCH_TMP/$k" -- "$tools/modreap" --watch --down-to "$CEILING" \
			--percpu-floor "$FLOOR" --interval 0.05 -q) &
		reaper=$!
	fi
	t0=$(now_ms)
	sample "$k" "$t0" 0
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#files[@]}; i += STEP)); do
			if [ "$how" = match ]; then
				n=$(on "$k" "$tools/insmod" --match-devices -j2 -J "${files[@]:i:STEP}" 2>/dev/null | enomem)
			else
				n=$(on "$k" "$tools/insmod" --batch -j2 -J "${files[@]:i:STEP}" 2>/dev/null | enomem)
				on "$k" "$tools/rmmod" --unused >/dev/null 2>&1 || true
			fi
			failed=$((failed + n))
			sample "$k" "$t0" "$failed"
			sleep "$PAUSE"
			sample "$k" "$t0" "$failed"
		done
	done
	if [ -n "$reaper" ]; then
		kill -TERM "$reaper"
		wait "$reaper" || true
		sample "$k" "$t0" "$failed"
	fi
	echo "$failed" > "$BENCH_TMP/$k.failed"
}

: > "$BENCH_TMP/samples"
run probe-all plain
run probe-all+watch watch
run match-first match

# Each run as its own data block: ms, rot bytes, free reserve, per-CPU rot,
# failed loads so far.
awk '$1 != last { if (NR > 1) print "\n"; print "# " $1 "\tms\trot\treserve_free\tpercpu_rot\tfailed"; last = $1 }
	{ print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }' "$BENCH_TMP/samples" > "$out/installer-rot.tsv"

# When probe-all first failed a load: the first sample with a failure.
first_failure=$(awk '$1 == "probe-all" && $6 > 0 { print $2; exit }' "$BENCH_TMP/samples")
percpu_modules=$(grep -vc '^#' "$PERCPU")
reserve=$(on probe-all cat /proc/module_percpu | awk 'NR == 1 { print $2 }')

echo "# $N modules, $percpu_modules with per-CPU data; $ROUNDS probe rounds; per-CPU reserve $reserve bytes"
echo "# after the probe: bound devices, rot, per-CPU reserve, loads failed for want of it (ENOMEM)"
printf '%-16s %8s %10s %12s %11s %12s %6s %6s\n' run devices rot-bytes reserve-free percpu-rot enomem-loads taint loaded
for k in probe-all probe-all+watch match-first; do
	bound=$(on "$k" "$tools/lsmod" -n -r -o devices --live | awk '{ s += $1 } END { print s + 0 }')
	live=$(on "$k" "$tools/lsmod" -n -r -o name --live | wc -l)
	printf '%-16s %8s %10s %12s %11s %12s %6s %6s\n' "$k" "$bound" "$(rot_bytes "$k")" \
		"$(reserve_free "$k")" "$(percpu_rot "$k")" "$(cat "$BENCH_TMP/$k.failed")" \
		"$(on "$k" cat /proc/sys/kernel/tainted)" "$live"
done
echo "# probe-all: first load failed for want of per-CPU reserve at ${first_failure:-never} ms"

gnuplot <<PLOT
set terminal pngcairo size 900,960 font ",11"
set output "$out/installer-rot.png"
set multiplot layout 2,1 title "An installer's probe of $N modules ($(wc -l < "$BENCH_TMP/devices") devices present), $ROUNDS rounds"
set key below
set grid
set xlabel "time (ms)"
set ylabel "rotting memory (KiB)"
ceiling = $(numfmt --from=iec "$CEILING") / 1024.0
plot "$out/installer-rot.tsv" index 0 using 1:(\$2/1024) with linespoints title "probe all, unload unused", \
     "" index 1 using 1:(\$2/1024) with linespoints title "probe all, modreap --watch --down-to $CEILING --percpu-floor $FLOOR", \
     "" index 2 using 1:(\$2/1024) with linespoints title "match devices first", \
     ceiling with lines dashtype 2 linecolor rgb "gray40" title "the ceiling"
set ylabel "free per-CPU reserve (bytes of $reserve)"
set yrange [0:$reserve * 1.5]
floor = $(numfmt --from=iec "$FLOOR")
plot "$out/installer-rot.tsv" index 0 using 1:3 with linespoints linecolor 1 title "probe all, unload unused", \
     "" index 0 using 1:(\$5 > 0 ? \$3 : 1/0) with points pointtype 7 pointsize 1.6 linecolor rgb "red" \
        title "probe all: loads failing (ENOMEM)", \
     "" index 1 using 1:3 with linespoints linecolor 2 title "probe all, modreap --watch ... --percpu-floor $FLOOR", \
     "" index 2 using 1:3 with linespoints linecolor 3 title "match devices first", \
     floor with lines dashtype 2 linecolor rgb "gray40" title "the floor"
unset multiplot
PLOT
echo "plot: $out/installer-rot.png"
