# Real kernel only: instrumentation armed in a module's text does not stay
# armed when the module rots.  rotcall registers rotcall_fn with rothook
# and never unregisters it; rothook's parameters call it, show its first
# 16 bytes, and flip the static key and static call it uses.  Sourced
# after lib.sh.

T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
P=/sys/module/rothook/parameters
# Kernel taint flags other than O (out-of-tree modules): W, D ... would
# mean a warning or an oops.
bad_taint() {
	echo $(( $(cat /proc/sys/kernel/tainted) & ~4096 ))
}
call() { # N -> result of rotcall_fn(N) through rothook, or the error
	if echo "$1" >$P/call 2>/dev/null; then cat $P/call; else echo call-failed; fi
}
byte_at() { # HEX OFFSET -> the byte at OFFSET
	echo "$1" | cut -c$(($2 * 2 + 1))-$(($2 * 2 + 2))
}

load rothook >/dev/null
t0=$(bad_taint)

# Where rotcall_fn's 5-byte ftrace site is: at its first byte, or after an
# ENDBR64 (f3 0f 1e fa) on a kernel with indirect branch tracking
# (X86_KERNEL_IBT: the 6.12 configuration has it, the 6.1 one not).
load rotcall >/dev/null
b0=$(cat $P/bytes)
site=0
[ "$(echo "$b0" | cut -c1-8)" = f30f1efa ] && site=4
probe=$((site + 5))

# 1. An optimised kprobe inside rotcall_fn (after its ftrace site).
echo "p:rotprobe rotcall:rotcall_fn+$probe" >>$T/kprobe_events
echo 1 >$T/events/kprobes/rotprobe/enable
# The optimiser rewrites the probe into a jump a few jiffies later.
optimized="rotcall_fn+0x$(printf %x $probe).*\\[OPTIMIZED\\]"
i=0
while ! grep -q "$optimized" /sys/kernel/debug/kprobes/list 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.05
	i=$((i + 1))
done
b1=$(cat $P/bytes)
opt=$(grep -c "$optimized" /sys/kernel/debug/kprobes/list 2>/dev/null)
r1=$(call 3)
hits=$(awk '$1 == "rotprobe" { print $2 }' $T/kprobe_profile)
note "rotcall_fn: $b0 at rest, $b1 probed (byte $probe: $(byte_at "$b1" $probe))"
r2=$(rc $RMMOD rotcall)
b2=$(cat $P/bytes)
r3=$(call 4)
row kprobe-armed "optimized=1,hit=1,1010" "optimized=$opt,hit=$hits,$r1" \
	"a kprobe in rotcall_fn is optimised (a jump) and fires"
row kprobe-rot "rc=0,restored,1013,taint=$t0" \
	"$r2,$( [ "$b2" = "$b0" ] && echo restored || echo "text:$b2"),$r3,taint=$(bad_taint)" \
	"unloaded, the original instructions are back; calling the rotting text is safe"
echo 0 >$T/events/kprobes/rotprobe/enable
echo '-:rotprobe' >>$T/kprobe_events

# 2. The function tracer on rotcall_fn, then tracing off (which frees
#    the trampoline an armed call site would still call).
load rotcall >/dev/null
b0=$(cat $P/bytes)
echo rotcall_fn >$T/set_ftrace_filter
echo function >$T/current_tracer
b1=$(cat $P/bytes)
r1=$(call 5)
traced=$(grep -c 'rotcall_fn' $T/trace)
r2=$(rc $RMMOD rotcall)
b2=$(cat $P/bytes)
echo nop >$T/current_tracer
echo >$T/set_ftrace_filter
sleep 0.2
r3=$(call 6)
note "rotcall_fn: $b0 at rest, $b1 traced, $b2 rotting"
row ftrace-armed "call,1016,traced" "$( [ "$(byte_at "$b1" $site)" = e8 ] && echo call || echo "site-byte:$(byte_at "$b1" $site)"),$r1,$( [ "$traced" -ge 1 ] && echo traced || echo untraced)" \
	"the function tracer patches rotcall_fn's call site and sees it run"
row ftrace-rot "rc=0,at-rest,1019,taint=$t0" \
	"$r2,$( [ "$b2" = "$b0" ] && echo at-rest || echo "text:$b2"),$r3,taint=$(bad_taint)" \
	"unloaded, its call site is back at rest; with tracing off, calling it is safe"

# 3. A jump label and a static call site: after the module rots, flipping
#    the key or retargeting the call patches live users only.
load rotcall >/dev/null
echo 1 >$P/key
r1=$(call 7)
echo 0 >$P/key
r2=$(call 7)
r3=$(rc $RMMOD rotcall)
b0=$(cat $P/bytes)
echo 1 >$P/key
echo 2 >$P/target
b1=$(cat $P/bytes)
r4=$(call 7)
echo 0 >$P/key
echo 1 >$P/target
row jump-label-static-call "1122,1022,rc=0,1022,taint=$t0" "$r1,$r2,$r3,$r4,taint=$(bad_taint)" \
	"a rotting module's jump label and static call site are no longer patched"
note "rotcall_fn while key and target flip: $b0 -> $b1"
note "kprobes list: $(cat /sys/kernel/debug/kprobes/list 2>/dev/null | tr '\n' ';')"
