#!/usr/bin/env bash
# The installer's probe, three ways, on the same simulated machine (some
# hundreds of driver modules, a few dozen present devices), with the rot
# recorded after every probe step:
#   probe-all        load every module, unload those that found nothing
#   probe-all+watch  the same, with modreap --watch --down-to keeping rot
#                    under a ceiling
#   match-first      load only the modules a present device needs
# Writes OUTDIR/installer-rot.tsv and OUTDIR/installer-rot.png (gnuplot).
#
#   bench/installer.sh [OUTDIR]        (default: bench/results)
. "$(dirname "$0")/common.sh"
out=${1:-$top/bench/results}
mkdir -p "$out"
N=${INSTALLER_MODULES:-300}
STEP=${INSTALLER_STEP:-30}
CEILING=${INSTALLER_CEILING:-256K}
# What an installer does between probe rounds (asking the user, mounting,
# copying): time in which a watching modreap gets to run.
PAUSE=${INSTALLER_PAUSE:-0.1}
drivers=$BENCH_TMP/drivers
"$top/tests/fixtures/mkdrivers.sh" "$N" "$drivers" "$BENCH_TMP/devices" >/dev/null
mapfile -t files < <(ls "$drivers"/*.ko.zst)

tools=$build/tools
machine() {
	rm -rf "$BENCH_TMP/$1"
	"$SIM" create "$BENCH_TMP/$1" --mode rot
	"$SIM" device add "$BENCH_TMP/$1" --from "$BENCH_TMP/devices"
}
on() { local k=$1; shift; "$SIM" run "$BENCH_TMP/$k" -- "$@"; }
rot_bytes() { on "$1" cat /proc/rotting_modules | awk '{ s += $2 } END { print s + 0 }'; }
now_ms() { date +%s%3N; }

# One run: probe the modules STEP at a time, record rot after each step.
run() {
	local k=$1 how=$2 t0 i
	machine "$k"
	local reaper=
	if [ "$how" = watch ]; then
		(exec "$SIM" run "$BENCH_TMP/$k" -- "$tools/modreap" --watch --down-to "$CEILING" \
			--interval 0.05 -q) &
		reaper=$!
	fi
	t0=$(now_ms)
	echo "$k 0 0" >> "$BENCH_TMP/samples"
	for ((i = 0; i < ${#files[@]}; i += STEP)); do
		if [ "$how" = match ]; then
			on "$k" "$tools/insmod" --match-devices -j2 "${files[@]:i:STEP}" >/dev/null 2>&1 || true
		else
			on "$k" "$tools/insmod" --batch -j2 "${files[@]:i:STEP}" >/dev/null 2>&1 || true
			on "$k" "$tools/rmmod" --unused >/dev/null 2>&1 || true
		fi
		echo "$k $(( $(now_ms) - t0 )) $(rot_bytes "$k")" >> "$BENCH_TMP/samples"
		sleep "$PAUSE"
		echo "$k $(( $(now_ms) - t0 )) $(rot_bytes "$k")" >> "$BENCH_TMP/samples"
	done
	if [ -n "$reaper" ]; then
		kill -TERM "$reaper"
		wait "$reaper" || true
		echo "$k $(( $(now_ms) - t0 )) $(rot_bytes "$k")" >> "$BENCH_TMP/samples"
	fi
}

: > "$BENCH_TMP/samples"
run probe-all plain
run probe-all+watch watch
run match-first match

# Each run as its own data block: run, ms, rot bytes.
awk '$1 != last { if (NR > 1) print "\n"; print "# " $1; last = $1 } { print $2 "\t" $3 }' \
	"$BENCH_TMP/samples" > "$out/installer-rot.tsv"

echo "# after the probe: bound devices, rot and taint, per run"
printf '%-16s %8s %10s %6s %6s\n' run devices rot-bytes taint loaded
for k in probe-all probe-all+watch match-first; do
	bound=$(on "$k" "$tools/lsmod" -n -r -o devices --live | awk '{ s += $1 } END { print s + 0 }')
	live=$(on "$k" "$tools/lsmod" -n -r -o name --live | wc -l)
	printf '%-16s %8s %10s %6s %6s\n' "$k" "$bound" "$(rot_bytes "$k")" \
		"$(on "$k" cat /proc/sys/kernel/tainted)" "$live"
done

gnuplot <<PLOT
set terminal pngcairo size 900,500 font ",11"
set output "$out/installer-rot.png"
set title "Rot during an installer's probe of $N modules ($(wc -l < "$BENCH_TMP/devices") devices present)"
set xlabel "time (ms)"
set ylabel "rotting memory (KiB)"
set key top left
set grid
ceiling = $(numfmt --from=iec "$CEILING") / 1024.0
plot "$out/installer-rot.tsv" index 0 using 1:(\$2/1024) with linespoints title "probe all, unload unused", \
     "" index 1 using 1:(\$2/1024) with linespoints title "probe all, modreap --watch --down-to $CEILING", \
     "" index 2 using 1:(\$2/1024) with linespoints title "match devices first", \
     ceiling with lines dashtype 2 linecolor rgb "gray40" title "the ceiling"
PLOT
echo "plot: $out/installer-rot.png"
