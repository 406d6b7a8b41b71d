# Real kernel only: a reclaimed instance keeps its addresses, reserved and
# unmapped, and a reference reclaim could not see faults there with a
# message that names the module, instead of running whatever the next load
# would map there (rot-abi.md R14).  rothook keeps rotcall_fn's address
# encoded (hide), as a device or an encoded pointer would: no scan can
# recognise it, so a plain reclaim frees rotcall.  The same for per-CPU
# data (R15): pcpulate's area, kept encoded by rothook, is poisoned and
# held after reclaim, and a late write there is named when a load needs
# the area.  Sourced after lib.sh.
#
# The last call oopses its shell on purpose.  run.sh allows this
# scenario's console that one oops and no other report.

P=/sys/module/rothook/parameters
G=/sys/module/module/parameters/rot_guarded_bytes
# Real addresses in vmallocinfo (%pK) for root, which has CAP_SYSLOG.
echo 1 >/proc/sys/kernel/kptr_restrict

in_range() { # ADDR START END -> in or out (hexadecimal, 0x...), or unknown
	[ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] || { echo unknown; return; }
	awk -v a="$1" -v s="$2" -v e="$3" 'BEGIN {
		a = tolower(a); s = tolower(s); e = tolower(e)
		# Same-length hexadecimal strings compare as numbers.
		print (a >= s && a < e) ? "in" : "out" }'
}

r1=$(load rothook)
r2=$(load rotcall)
r3=$(echo 2 >$P/call && cat $P/call)
echo 1 >$P/hide
r4=$(rc $RMMOD rotcall)
base=$(awk '$1 == "rotcall" { print $6 }' /proc/rotting_modules)
g0=$(cat $G)
# Should anything keep it, the kernel log says where.
echo 4 >/sys/module/module/parameters/rot_scan_debug
r5=$($ROTCTL reclaim rotcall)
g1=$(cat $G)
# /proc/vmallocinfo: 0xSTART-0xEND SIZE CALLER ...: the range is still there.
range=$(awk -v b="$base" 'index($1, b "-") == 1 { print $1 }' /proc/vmallocinfo)
end=${range#*-}
row reclaim-hidden "ok,ok,rc=0,ok=1,rot=0" "$r1,$r2,$r4,$r5,rot=$(rotting_count rotcall)" \
	"a reference kept encoded is invisible to the scan: a plain reclaim frees the instance"
row range-reserved "kept,grew" \
	"$([ -n "$range" ] && echo kept || echo "gone:$base"),$([ "$g1" -gt "$g0" ] && echo grew || echo "same:$g0")" \
	"the reclaimed range stays in vmallocinfo, counted in module.rot_guarded_bytes"
note "rotcall was at $base, range $range; guarded bytes $g0 -> $g1; call before: $r3"

# Per-CPU data is always mapped, so it cannot fault: a reclaimed
# instance's per-CPU area is poisoned and held back instead (R15).
# Before the late call below: its oops kills a task inside a rothook
# parameter write, which leaves rothook's parameter lock held.
# pcpulate gives rothook its area at init, encoded: a plain reclaim frees
# it, and rothook's pcpu_byte still reaches it.
pcpu_free() { awk 'NR == 1 { print $4 }' /proc/module_percpu; }
f0=$(pcpu_free)
r1=$(load pcpulate)
a1=$(cat $P/pcpu)
r2=$(rc $RMMOD pcpulate)
r3=$($ROTCTL reclaim pcpulate)
row percpu-hidden "ok,rc=0,ok=1,rot=0,free=8192" "$r1,$r2,$r3,rot=$(rotting_count pcpulate),free=$(pcpu_free)" \
	"a per-CPU area whose only reference is encoded: reclaim frees the instance and counts its area free"
row percpu-poisoned "d5" "$(cat $P/pcpu_byte)" \
	"the reclaimed per-CPU area reads as poison"
# A late write, where reclaim saw no reference.
echo 0x5a >$P/pcpu_byte
# With room elsewhere, the next load does not take the held area.
r4=$(load pcpulate)
a2=$(cat $P/pcpu)
$RMMOD pcpulate >/dev/null 2>&1
row percpu-not-reused "ok,other" "$r4,$([ "$a2" != "$a1" ] && echo other || echo "same:$a1")" \
	"while the reserve has room elsewhere, a load does not get a reclaimed per-CPU area back"
note "pcpulate's per-CPU area: $a1, then $a2"
# Fill the reserve (1500-byte instances rot) until a load needs the held
# area: it is checked for its poison first, and the write is reported
# under the module's name; that area is never handed out again.
n=0 fail=none
while [ $n -lt 8 ]; do
	n=$((n + 1))
	r=$(load_raw pcpu1500)
	[ "$r" = ok ] || { fail=$r; break; }
	$RMMOD pcpu1500 >/dev/null 2>&1
done
named=$(dmesg | grep -c "pcpulate: per-CPU data written after reclaim (cpu 0, +0x0 of 0x40, ")
# 64 bytes of pcpulate rot, 5 x 1500 of pcpu1500; the written 64 are
# neither free nor anyone's.
row percpu-late-write-named "named=1,taint-B=1,fail=ENOMEM,free=$((f0 - 7628))" \
	"named=$named,taint-B=$(( ($(cat /proc/sys/kernel/tainted) >> 5) & 1 )),fail=$fail,free=$(pcpu_free)" \
	"a load that needs the held area finds the late write and names the module; the area stays out of use"
note "the fill stopped at load $n ($fail); $(head -n 1 /proc/module_percpu)"

# The late call: rothook calls the reclaimed rotcall_fn.  Its shell is
# killed by the oops; the kernel lives on.
(echo 3 >$P/call) 2>/dev/null
r6=$?
named=$(dmesg | grep -c "is in the reclaimed module rotcall (+")
row late-call-faults "killed,named=1" "$([ $r6 -ge 128 ] && echo killed || echo "rc=$r6"),named=$named" \
	"a call into the reclaimed range faults, and the oops names the module"

# A new load never gets those addresses back.
r7=$(load rotcall)
new=$(awk '$1 == "rotcall" { print $6 }' /proc/modules)
row range-not-reused "ok,out" "$r7,$(in_range "$new" "$base" "$end")" \
	"a module loaded after the reclaim lands outside the reclaimed range"
note "rotcall loaded again at $new"

