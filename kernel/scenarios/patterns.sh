# SPDX-License-Identifier: GPL-2.0
# Real kernel only: ordinary driver code that leaves something behind
# (modules/rotpat.h, one rp_KIND module each).  Each is loaded, left
# running a moment, unloaded (nothing pins it, so it rots) and reclaimed:
# reclaim must refuse (EBUSY, why=ref, or task for a task still running
# in it), and the guest must live and keep calling into what rots.  The
# scan knows none of these kinds by name.  Sourced after lib.sh.
#
# Each row: load,unload,reclaim's answer reduced to "EBUSY why=ref" (the
# reasons the scan gives, ref always among them).  The full answer, with
# the kind of place the first reference was in, and the pause the scan
# took, go to the notes.

scan_us() {
	cat /sys/module/module/parameters/rot_scan_last_us
}

# EBUSY with why=...ref... reduced to "EBUSY why=ref"; anything else as is.
refused_for_ref() { # ROTCTL-WHY-OUTPUT
	case $1 in
	EBUSY*" why="*ref*) echo "EBUSY why=ref" ;;
	*) echo "$1" ;;
	esac
}

pattern() { # KIND WHAT [PARAMS]
	r1=$($ROTCTL load "$MODDIR/rp_$1.ko" ${3:+"$3"})
	sleep 1
	r2=$($ROTCTL delete "rp_$1" 0)
	sleep 1
	r3=$($ROTCTL why "rp_$1")
	note "rp_$1: $r3 (scan paused every CPU for $(scan_us) us)"
	row "$1" "ok,ok,EBUSY why=ref,rot=1" "$r1,$r2,$(refused_for_ref "$r3"),rot=$(rotting_count "rp_$1")" "$2"
}

pattern timer "a timer in kmalloc'd memory that re-arms itself"
pattern dwork "delayed work that queues itself again"
pattern kwork "a kthread_worker's delayed work that queues itself again"
pattern rcuwork "an rcu_work item that queues itself again"
pattern irqwork "a lazy irq_work re-queued from the tick"
pattern kprobe "a struct kprobe in the module's data, left registered"
pattern deep "a kthread asleep 80 frames deep in the module"
pattern notifier "a module notifier left on the chain (runs at every later load)"
pattern shrinker "a shrinker left registered"
pattern proc "a /proc entry left behind, its show() in the module"
pattern ftrace "ftrace ops on kernel_clone left registered"
pattern tracepoint "a probe on sched_process_fork left registered"
pattern irq "an interrupt handler left on a shared line (IRQ 7, no device)"
pattern tasklet "a tasklet and an irq_work that schedule each other every tick"
# Async work: with async_probe=1 init returns while the work still runs
# (3 s asleep in the module), but delete_module() waits for all async
# work after exit, as stock does: nothing is left, and reclaim frees.
r1=$($ROTCTL load "$MODDIR/rp_async.ko" async_probe=1)
r2=$($ROTCTL delete rp_async 0)
done_=$(dmesg | grep -c 'rp_async: async work done')
r3=$($ROTCTL why rp_async)
note "rp_async: $r3 (pause $(scan_us) us)"
row async "ok,ok,done=1,ok=1,rot=0" "$r1,$r2,done=$done_,${r3%% *},rot=$(rotting_count rp_async)" \
	"async work running at unload: the unload waits for it, then nothing is left and reclaim frees"
# task_work on a user task asleep in the kernel: it runs when the task
# next returns to user space, which the row then makes happen.  The task
# must be asleep in nanosleep first (at most 600 looks): queued while it
# still forks or execs, the work would run at once and leave nothing.
sleep 600 &
sleeper_pid=$!
i=0
while [ $i -lt 600 ]; do
	case $(cat "/proc/$sleeper_pid/wchan" 2>/dev/null) in
	*nanosleep*) break ;;
	esac
	sleep 0.05
	i=$((i + 1))
done
pattern taskwork "task_work queued on a sleeping user task" "target_pid=$sleeper_pid"

# What was left behind keeps running into rotting code: forks (ftrace,
# the tracepoint, the kprobe), loads (the notifier), a read of the proc
# entry, the sleeping task woken to user space (its task_work).
kill "$sleeper_pid"
wait "$sleeper_pid" 2>/dev/null
proc=$(cat /proc/rp_proc 2>/dev/null | grep -c '^[0-9]')
row late-calls "proc=1,alive" "proc=$proc,alive" \
	"the rotting proc entry's show() runs; forks, a load and the task_work ran into rotting code"

# A forced reclaim waits (R5) and still refuses: the timer re-arms.
r=$($ROTCTL why rp_timer force)
note "rp_timer forced: $r (pause $(scan_us) us)"
row timer-forced "EBUSY why=ref" "$(refused_for_ref "$r")" \
	"a forced reclaim of the self-re-arming timer still refuses: the scan finds it"

# Something nothing reaches, after all that, is still freed.
r1=$($ROTCTL load "$MODDIR/alpha.ko")
r2=$($ROTCTL delete alpha 0)
r3=$($ROTCTL why alpha)
note "alpha: $r3 (pause $(scan_us) us)"
row unreferenced-after "ok,ok,ok=1,rot=0" "$r1,$r2,${r3%% *},rot=$(rotting_count alpha)" \
	"an instance nothing reaches is freed among all the kept ones"
sleep 2
row alive "alive,rotting=15" "alive,rotting=$(awk '$1 ~ /^rp_/ { c++ } END { print c + 0 }' /proc/rotting_modules)" \
	"the guest lives on with every pattern rotting"
