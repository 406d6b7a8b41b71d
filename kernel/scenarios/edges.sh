# Real kernel only: the ABI edges a script cannot reach on the simulator.
# Sourced after lib.sh.

D=/sys/kernel/debug
mount -t debugfs debugfs $D 2>/dev/null
# Let the fault injection fail GFP_KERNEL allocations too, quietly.
echo N >$D/failslab/ignore-gfp-wait
echo 0 >$D/failslab/verbose

# Any failure before init runs frees everything: fail the 1st, 2nd, ...
# slab allocation of finit_module in turn, until the syscall makes fewer
# allocations than that.  Each attempt that fails must leave delta neither
# live nor rotting; one that succeeds despite its failed allocation (one
# the kernel tolerates) must leave it live and not rotting.  The last
# allocation before init is the one for freeing init memory later.
n=1
fails=0
tolerated=0
bad=0
while [ $n -le 600 ]; do
	r=$($ROTCTL failnth $n load "$MODDIR/delta.ko" 2>/tmp/failnth)
	if grep -q 'fault not reached' /tmp/failnth; then
		break
	fi
	if [ "$r" = ok ]; then
		tolerated=$((tolerated + 1))
		[ "$(live_state delta)" = Live ] && [ "$(rotting_count delta)" = 0 ] || bad=$((bad + 1))
		$ROTCTL delete delta 0 >/dev/null
		$ROTCTL reclaim delta >/dev/null
	else
		fails=$((fails + 1))
		if [ "$(live_state delta)" != none ] || [ "$(rotting_count delta)" != 0 ]; then
			bad=$((bad + 1))
			note "allocation $n failed the load with $r and left delta $(live_state delta), rot=$(rotting_count delta)"
		fi
	fi
	n=$((n + 1))
done
last=$r
note "finit_module of delta: $((n - 1)) slab allocations, $fails failures failed the load, $tolerated were tolerated"
row no-rot-before-init "failed>0,left-something=0,ok,Live,rot=0" \
	"failed>$( [ $fails -gt 0 ] && echo 0 || echo none),left-something=$bad,$last,$(live_state delta),rot=$(rotting_count delta)" \
	"a load failing in any slab allocation before init leaves no rot and nothing live"
$ROTCTL delete delta 0 >/dev/null

# Reclaim out of memory before anything is freed: ENOMEM, nothing freed.
# The first slab allocation that fails the request: the first on 6.1; on
# 6.12 the request makes one before reclaim's own that it survives
# failing, and then frees.  Each try that frees leaves a new instance.
n=1
while :; do
	r1=$($ROTCTL failnth $n reclaim delta)
	[ "$r1" = ENOMEM ] || [ $n -ge 4 ] && break
	$ROTCTL load "$MODDIR/delta.ko" >/dev/null
	$ROTCTL delete delta 0 >/dev/null
	n=$((n + 1))
done
note "reclaim's first failing slab allocation: number $n"
r2=$(rotting_count delta)
r3=$($ROTCTL reclaim delta)
row reclaim-enomem "ENOMEM,rot=1,ok=1,rot=0" "$r1,rot=$r2,$r3,rot=$(rotting_count delta)" \
	"reclaim failing to allocate: ENOMEM and nothing freed; then it frees"

# Reclaim refuses only the busy instances of a name and frees the others.
# A timer, an hrtimer and a work item that an exit forgot are references
# like any other (rot-abi.md R12): a forced reclaim refuses them too.
for k in none timer none hrtimer work; do
	$ROTCTL load "$MODDIR/strayobj.ko" "kind=$k" >/dev/null
	$ROTCTL delete strayobj 0 >/dev/null
done
before=$(rotting_count strayobj)
r1=$($ROTCTL reclaim strayobj)
mid=$(rotting_count strayobj)
r2=$($ROTCTL reclaim strayobj)
w=$($ROTCTL why strayobj)
logged=$(dmesg | grep -c 'strayobj: a rotting instance is still referenced')
r3=$($ROTCTL reclaim strayobj force)
sleep 0.3
row reclaim-partial "rot=5,ok=2,rot=3,EBUSY,EBUSY,rot=3" "rot=$before,$r1,rot=$mid,$r2,$r3,rot=$(rotting_count strayobj)" \
	"reclaim frees the idle instances and refuses a timer, an hrtimer and a work item, forced or not"
# The reply says why: a word that points into each kept instance (the
# armed timers' and the work's list links; a worker running the work is
# a task as well, when the look meets it running), and the log names
# where, once per kept instance and look.
kept=$(echo "$w" | sed -n 's/.* kept=\([0-9]*\) .*/\1/p')
case $w in *why=*ref*) ref=ref ;; *) ref=no-ref ;; esac
row reclaim-reason "EBUSY,kept=3,ref,logged" \
	"${w%% *},kept=$kept,$ref,$( [ "$logged" -ge 3 ] && echo logged || echo "logged=$logged")" \
	"the reply and the kernel log say what keeps each refused instance"
note "reclaim reply: $w"

# print_modules() and %pS name rotting instances as rotting: rottimer's
# WARN from rotting code prints both.
r=$($ROTCTL load "$MODDIR/rottimer.ko")
$ROTCTL delete rottimer 0 >/dev/null
wait_log "rottimer: done, timer stopped"
listed=$(dmesg | grep -c 'Modules linked in:.*\[rotting:.* rottimer')
marked=$(dmesg | grep -c 'running in rottimer_tick+0x0/0x[0-9a-f]* \[rottimer rotting\]')
row oops-names-rotting "ok,listed,marked" "$r,$( [ "$listed" -ge 1 ] && echo listed || echo unlisted),$( [ "$marked" -ge 1 ] && echo marked || echo unmarked)" \
	"a WARN in rotting code: print_modules() lists it as rotting, %pS says [rottimer rotting]"

# Addresses read as zero for a reader who may not see kernel pointers
# (kptr_restrict=2 hides them even from root).
$ROTCTL load "$MODDIR/delta.ko" >/dev/null
$ROTCTL delete delta 0 >/dev/null
old=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 >/proc/sys/kernel/kptr_restrict
hidden=$(awk '$6 != "0x0000000000000000" { n++ } END { print n + 0 }' /proc/rotting_modules)
echo 0 >/proc/sys/kernel/kptr_restrict
shown=$(awk '$6 == "0x0000000000000000" { n++ } END { print n + 0 }' /proc/rotting_modules)
echo "$old" >/proc/sys/kernel/kptr_restrict
row rotting-kptr "nonzero-hidden=0,zero-shown=0" "nonzero-hidden=$hidden,zero-shown=$shown" \
	"/proc/rotting_modules addresses read as zero unless the reader may see kernel pointers"

# EINTR: a reclaim interrupted while it waits.  A forced reclaim of an
# instance a reader sleeps in holds the reclaim lock through its bounded
# wait (5 s, asleep between looks); a second reclaim waits for that lock,
# and a caught SIGALRM interrupts it: EINTR, nothing freed (nosuchmodule
# has nothing rotting: ENOENT had it not waited).  Each step waits for the
# one before, not for a time: the reader asleep in read(), then the forced
# reclaim asleep in its wait.  (A reclaim held in its stop_machine() look,
# as revision 2's test held it across a grace period, stops the other CPU
# too, and the shell with it.)
state_of() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
until_state() { # PID STATE: at most about 10 s
	i=0
	while [ "$(state_of "$1")" != "$2" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
r0=$($ROTCTL load "$MODDIR/failinit.ko")
load_raw sleeper >/dev/null
cat /dev/rotsleep >/dev/null 2>&1 &
reader=$!
until_state "$reader" S
$ROTCTL delete sleeper 0 >/dev/null
$ROTCTL reclaim sleeper force >/tmp/reclaim-first &
first=$!
until_state "$first" S
r=$($ROTCTL alarm 500 reclaim nosuchmodule)
wait "$first"
r1=$(cat /tmp/reclaim-first)
kill "$reader"
wait "$reader" 2>/dev/null
r2=$($ROTCTL reclaim sleeper)
r3=$($ROTCTL reclaim failinit)
row reclaim-eintr "ENODEV,EINTR,EBUSY,ok=1,ok=1,rot=0" "$r0,$r,$r1,$r2,$r3,rot=$(rotting_count failinit)" \
	"a reclaim waiting behind another reclaim is interrupted by a signal: EINTR; the first one ends after its bounded wait"
