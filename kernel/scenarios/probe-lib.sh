# The installer's probe on a small machine (run.sh --config installer):
# the guest has 64 MB, a few emulated devices and the drivers of an
# installer image as modules in /drivers (listed in /drivers/list, in the
# order they are probed: one step per line).  Sourced after lib.sh by probe-all.sh,
# probe-ceiling.sh and probe-match.sh, which set PROBE:
#   all      load every module, a step at a time, and unload those that
#            found nothing (rmmod --unused): each unload rots, nothing
#            reclaims
#   ceiling  the same, with modreap --watch --down-to CEILING reclaiming
#            in the background, as an installer's ceiling on rot
#   match    load only the modules whose aliases match a present device
#            (insmod --match-devices), the baseline
# Each step prints one SAMPLE line: ms since the start, MemAvailable (KiB),
# rotting bytes, modules loaded, devices bound, loads failed so far,
# reclaims so far.  The probe runs in a child the OOM killer prefers, so
# that running out of memory ends the probe, not the guest.
DRV=/drivers
CEILING=${CEILING:-1M}
# One load at a time: a batch's loads share insmod's memory, and on this
# machine every megabyte of it is one the probe cannot rot.
JOBS=${JOBS:-1}

uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
mem_avail() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }
rot_bytes() { awk '{ s += $2 } END { print s + 0 }' /proc/rotting_modules; }
loaded() { awk 'END { print NR }' /proc/modules; }
# Devices with a driver, as BUS:DEVICE=DRIVER, one per line.
bound_list() {
	for d in /sys/bus/*/devices/*; do
		[ -e "$d/driver" ] || continue
		b=${d#/sys/bus/}
		echo "${b%%/*}:${d##*/}=$(basename "$(readlink "$d/driver")")"
	done | sort
}
reclaims() { dmesg | grep -c 'reclaimed [0-9]* rotting instance'; }
kept() { dmesg | grep -c 'is still referenced'; }

t0=$(uptime_ms)
sample() { # FAILED
	printf 'SAMPLE\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(( $(uptime_ms) - t0 ))" "$(mem_avail)" \
		"$(rot_bytes)" "$(loaded)" "$(bound_list | wc -l)" "$1" "$(reclaims)"
}

note "probe $PROBE: $(wc -w <$DRV/list) modules in $(wc -l <$DRV/list) steps; $(mem_avail) KiB available at the start"
note "devices bound before the probe: $(bound_list | tr '\n' ' ')"

# Reclaim's pause: each scan leaves its length in rot_scan_last_us; a
# watcher records each new value (a scan that ends within one look of the
# next one is missed; the count of reclaims in the log says how many).
P=/sys/module/module/parameters/rot_scan_last_us
(
	last=$(cat $P)
	while :; do
		v=$(cat $P)
		[ "$v" != "$last" ] && echo "$v" >>/tmp/pauses
		last=$v
		sleep 0.05
	done
) &
watcher=$!

reaper=
if [ "$PROBE" = ceiling ]; then
	$MODREAP --watch --down-to "$CEILING" --interval 0.2 -q >/tmp/modreap.out 2>&1 &
	reaper=$!
fi

# The probe itself, in a child the OOM killer takes first.
(
	echo 1000 >/proc/self/oom_score_adj
	failed=0
	k=0
	sample 0
	while read -r step; do
		k=$((k + 1))
		batch=
		for f in $step; do batch="$batch $DRV/$f"; done
		if [ "$PROBE" = match ]; then
			$LOADER --match-devices -j$JOBS -J $batch >/tmp/step.json 2>/dev/null
		else
			$LOADER --batch -j$JOBS -J $batch >/tmp/step.json 2>/dev/null
			$RMMOD --unused >/dev/null 2>>/tmp/rmmod.err
		fi
		n=$(grep -c '"errno": *12[,}]' /tmp/step.json)
		grep '"message": "[^"]' /tmp/step.json >>/tmp/probe.messages
		failed=$((failed + n))
		sample "$failed"
		# Out of memory, an installer stops probing: each step more would
		# rot more, until the kernel has nothing left to kill but init
		# and panics ("System is deadlocked on memory").
		if [ "$PROBE" = all ] && { [ "$n" -gt 0 ] || dmesg | grep -q 'invoked oom-killer'; }; then
			note "probe all: out of memory at step $k of $(wc -l <$DRV/list); the probe stops there"
			break
		fi
	done <$DRV/list
	echo "$failed" >/tmp/probe.failed
) >/tmp/probe.out 2>&1
probe_rc=$?
# Without a ceiling, the machine is out of memory now: reclaim it all, so
# that what follows (and an installer's next step) can run.
if [ "$PROBE" = all ]; then
	peak_avail=$(mem_avail)
	$MODREAP -a -q >/dev/null 2>&1
	note "modreap -a after the probe: MemAvailable $peak_avail -> $(mem_avail) KiB"
fi
cat /tmp/probe.out
if [ -n "$reaper" ]; then
	kill -TERM "$reaper" 2>/dev/null
	wait "$reaper"
	note "modreap --watch: $(tr '\n' ' ' </tmp/modreap.out)"
fi

kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
[ -s /tmp/pauses ] && note "reclaim pauses: $(sort -n /tmp/pauses | awk '{ v[NR] = $1; s += $1 } END {
	printf "%d scans seen, median %d ms, max %d ms, total %d ms", NR, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000, s / 1000 }')"
note "reclaims kept, by where: $(dmesg | sed -n 's/.*is still referenced.* from \(.*\): not reclaimed/\1/p' |
	sed 's/ 0x[0-9a-f]*$//' | sort | uniq -c | sort -rn | head -n 8 | tr -s ' ' | tr '\n' ';')"
oom=$(dmesg | grep -c 'invoked oom-killer')
allocfail=$(dmesg | grep -c 'page allocation failure\|vmalloc error')
failed=$(cat /tmp/probe.failed 2>/dev/null || echo killed)
note "probe $PROBE: exit $probe_rc, loads failed for want of memory $failed, oom-killer $oom, allocation failures $allocfail, reclaims $(reclaims), kept $(kept), peak rot $(awk -F'\t' '$1 == "SAMPLE" && $4 > m { m = $4 } END { print m + 0 }' /tmp/probe.out) bytes"
note "what the kernel said: $(dmesg | grep -m3 'oom-killer\|Out of memory\|page allocation failure\|vmalloc error' | tr '\n' '|')"
bound_list >/tmp/bound
# Why loads did not happen: the commonest messages, with their counts.
sed 's/^ *"message": "//; s/",$//' /tmp/probe.messages 2>/dev/null | sort | uniq -c | sort -rn | head -n 20 | while read -r count msg; do note "load messages: $count x $msg"; done
# (Without "rmmod: WARNING:": the console's splat check reads every line.)
sed 's/^rmmod: [A-Z]*: //' /tmp/rmmod.err 2>/dev/null | sort | uniq -c | sort -rn | head -n 10 |
	while read -r count msg; do note "rmmod --unused: $count x $msg"; done
note "loaded after the probe: $(awk '{ print $1 }' /proc/modules | tr '\n' ' ')"
note "devices bound after the probe: $(tr '\n' ' ' </tmp/bound)"
echo "BOUND	$(tr '\n' ' ' </tmp/bound)"

nbound=$(wc -l </tmp/bound)
case $PROBE in
all)
	# Rot only grows while nothing reclaims (the OOM killer aside, which
	# frees a process's memory, not a module's).
	grows=$(awk -F'\t' '$1 == "SAMPLE" { if ($4 < last) bad = 1; last = $4 }
		END { print (last > 0 && !bad) ? "yes" : "no:" last }' /tmp/probe.out)
	row rot-only-grows yes "$grows" "each unload of a driver that found nothing rots, and nothing reclaims"
	if [ "$(cat $DRV/mode)" = full ]; then
		short=no
		[ "$failed" = killed ] || [ "$failed" -gt 0 ] || [ "$oom" -gt 0 ] || [ "$allocfail" -gt 0 ] && short=yes
		row out-of-memory yes "$short" \
			"probing every driver with nothing reclaimed runs the 64 MB machine out of memory (loads fail or the OOM killer runs)"
	fi
	;;
ceiling)
	row lives "rc=0,enomem=0,oom=0,bound>0" \
		"rc=$probe_rc,enomem=$failed,oom=$oom,bound$([ "$nbound" -gt 0 ] && echo ">0" || echo "=0")" \
		"under modreap --watch --down-to $CEILING the probe of every driver completes: no load fails for want of memory"
	;;
match)
	row lives "rc=0,enomem=0,oom=0,bound>0" \
		"rc=$probe_rc,enomem=$failed,oom=$oom,bound$([ "$nbound" -gt 0 ] && echo ">0" || echo "=0")" \
		"loading only the drivers a present device matches completes, and binds the devices"
	;;
esac
