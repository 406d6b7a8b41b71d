# Real kernel only: rotting memory is really kept, reclaim really frees
# its pages (keeping its addresses reserved, R14), and code that outlives its module's exit still runs, resolves in
# kallsyms and can WARN.  Sourced after lib.sh.

# vmallocinfo line of the area starting at ADDRESS, "gone" if none
# (a freed area may linger as "unpurged vm_area": that counts as gone).
vmalloc_area() { # ADDRESS
	l=$(grep "^$1-" /proc/vmallocinfo | grep -v unpurged | head -n 1)
	if [ -n "$l" ]; then echo "$l" | awk '{ print $1, $2 }'; else echo gone; fi
}

# The pages of the area starting at ADDRESS: "pages=N", "no-pages" for an
# area kept without any (a reclaimed range, R14), "gone" if none.
vmalloc_pages() { # ADDRESS
	l=$(grep "^$1-" /proc/vmallocinfo | grep -v unpurged | head -n 1)
	case $l in
	"") echo gone ;;
	*" pages="*) echo "$l" | sed 's/.* \(pages=[0-9]*\).*/\1/' ;;
	*) echo no-pages ;;
	esac
}

# vmallocinfo prints %pK: hashed unless kptr_restrict is 1 (then real
# addresses for a reader with CAP_SYSLOG, which root has).
echo 1 >/proc/sys/kernel/kptr_restrict

r=$($ROTCTL load "$MODDIR/rottimer.ko")
addr=$(live_field rottimer 6)
note "rottimer loaded ($r) at $addr"
live_area=$(vmalloc_area "$addr")
note "vmallocinfo while live:    $live_area"
r=$(rc $RMMOD rottimer)
rot_addr=$(awk '$1 == "rottimer" { print $6; exit }' /proc/rotting_modules)
rot_area=$(vmalloc_area "$addr")
note "vmallocinfo while rotting: $rot_area"
wait_log "rottimer: done, timer stopped"
ticks=$(dmesg | grep -c 'rottimer: tick [0-9]* after exit')
# Every tick resolves; the first may come while rmmod still runs (the
# module is Unloading, not yet rotting, on the other CPU), the last is
# marked rotting.
resolved=$(dmesg | grep -c 'running in rottimer_tick+0x0/0x[0-9a-f]* \[rottimer\( rotting\)\{0,1\}\]')
marked=$(dmesg | grep 'tick 5 after exit' | grep -c 'running in rottimer_tick+0x0/0x[0-9a-f]* \[rottimer rotting\]')
warned=$(dmesg | grep -c 'WARNING: .*rottimer')
done_=$(dmesg | grep -c 'rottimer: done, timer stopped')
row rot-keeps-memory "rc=0,same-address,area-kept" \
	"$r,$( [ "$rot_addr" = "$addr" ] && echo same-address || echo "moved:$rot_addr"),$( [ "$rot_area" = "$live_area" ] && [ "$rot_area" != gone ] && echo area-kept || echo "area:$rot_area")" \
	"unloaded module's vmalloc area stays mapped while it rots"
row rotted-timer "ticks=5,resolved=5,rotting=1,warn=1,done=1" "ticks=$ticks,resolved=$resolved,rotting=$marked,warn=$warned,done=$done_" \
	"a timer left by exit fires 5 times into rotting code, %pS resolves it as rotting, WARN works; kernel alive"
r=$(rc $MODREAP rottimer)
sleep 0.2
row reclaim-frees-memory "rc=0,rot=0,no-pages,R=1" "$r,rot=$(rotting_count rottimer),$(vmalloc_pages "$addr"),R=$(taint_r)" \
	"modreap frees the area's pages; its addresses stay reserved in /proc/vmallocinfo (R14)"
dmesg | grep -E 'rottimer|reclaimed' | sed 's/^/NOTE\tdmesg: /'
