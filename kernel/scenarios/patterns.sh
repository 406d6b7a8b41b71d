# SPDX-License-Identifier: GPL-2.0
# Ordinary driver code that leaves something behind (modules/rotpat.h,
# one rp_KIND module each).  Each is loaded, left running a moment,
# unloaded (nothing pins it, so it rots) and reclaimed: reclaim must
# refuse (EBUSY, why=ref, or task for a task still running in it), and the
# guest must live and keep calling into what rots.  The scan knows none of
# these kinds by name.  Sourced after lib.sh.
#
# Each row: load,unload,reclaim's answer reduced to "EBUSY why=ref" (the
# reasons the scan gives, ref always among them).  The full answer, with
# the kind of place the first reference was in, and the pause the scan
# took, go to the notes.
#
# On the simulated kernel (SIDE=sim) each rp_KIND is a plain fixture, and
# what the real module leaves behind is a reference held where the real
# kernel's scan finds it (`simkernel hold rp_KIND ref WHERE`, WHERE as 6.1's
# log names it; the deep sleeper also a task): the rows check the tools'
# and the ABI's side of each refusal, not the scan.  Async work and the
# late calls are real only (kernel/run.sh names them): the simulator runs
# no module code.

scan_us() { # the simulator has no scan to time
	cat /sys/module/module/parameters/rot_scan_last_us 2>/dev/null || echo -
}

# EBUSY with why=...ref... reduced to "EBUSY why=ref"; anything else as is.
refused_for_ref() { # ROTCTL-WHY-OUTPUT
	case $1 in
	EBUSY*" why="*ref*) echo "EBUSY why=ref" ;;
	*) echo "$1" ;;
	esac
}

# a moment for the module's leftovers to run (the simulator runs none)
moment() {
	[ "$SIDE" = sim ] || sleep "$1"
}

pattern() { # KIND WHAT WHERE [PARAMS]
	r1=$($ROTCTL load "$MODDIR/rp_$1.ko" ${4:+"$4"})
	moment 1
	r2=$($ROTCTL delete "rp_$1" 0)
	if [ "$SIDE" = sim ]; then
		sk hold "rp_$1" ref "$3"
		[ "$1" != deep ] || sk hold rp_deep task
	fi
	moment 1
	r3=$($ROTCTL why "rp_$1")
	note "rp_$1: $r3 (scan paused every CPU for $(scan_us) us)"
	row "$1" "ok,ok,EBUSY why=ref,rot=1" "$r1,$r2,$(refused_for_ref "$r3"),rot=$(rotting_count "rp_$1")" "$2"
}

pattern timer "a timer in kmalloc'd memory that re-arms itself" "slab kmalloc-512 object"
pattern dwork "delayed work that queues itself again" "slab kmalloc-512 object"
pattern kwork "a kthread_worker's delayed work that queues itself again" "slab kmalloc-512 object"
pattern rcuwork "an rcu_work item that queues itself again" "slab kmalloc-512 object"
pattern irqwork "a lazy irq_work re-queued from the tick" "slab kmalloc-512 object"
pattern kprobe "a struct kprobe in the module's data, left registered" "kernel data kprobe_table"
pattern deep "a kthread asleep 80 frames deep in the module" "slab kmalloc-256 object"
pattern notifier "a module notifier left on the chain (runs at every later load)" "kernel data srcu_module_nb"
pattern shrinker "a shrinker left registered" "kernel data shrinker_list"
pattern proc "a /proc entry left behind, its show() in the module" "slab proc_dir_entry object"
pattern ftrace "ftrace ops on kernel_clone left registered" "kernel data ftrace_ops_trampoline_list"
pattern tracepoint "a probe on sched_process_fork left registered" "kernel data __SCK__tp_func_sched_process_fork"
pattern irq "an interrupt handler left on a shared line (IRQ 7, no device)" "slab kmalloc-128 object"
pattern tasklet "a tasklet and an irq_work that schedule each other every tick" "slab kmalloc-512 object"
# The tools' words for a refusal name the reason and where the reference
# is (R11): the kprobe's, the same place on every kernel and configuration.
w=$($RMMOD --reclaim rp_kprobe 2>&1)
row tools-words "rc=1,rmmod: ERROR: could not reclaim rp_kprobe: 1 rotting instance kept: 1 reference into it from outside; the first reference is from kernel data kprobe_table,rot=1" \
	"rc=$?,$w,rot=$(rotting_count rp_kprobe)" \
	"rmmod --reclaim says why it refuses and where the kernel found the reference, and frees nothing"
if [ "$SIDE" = real ]; then
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
fi
# task_work on a user task asleep in the kernel: it runs when the task
# next returns to user space, which the row then makes happen.  The task
# must be asleep in nanosleep first (at most 600 looks): queued while it
# still forks or execs, the work would run at once and leave nothing.
sleep 600 &
sleeper_pid=$!
i=0
while [ "$SIDE" = real ] && [ $i -lt 600 ]; do
	case $(cat "/proc/$sleeper_pid/wchan" 2>/dev/null) in
	*nanosleep*) break ;;
	esac
	sleep 0.05
	i=$((i + 1))
done
pattern taskwork "task_work queued on a sleeping user task" "slab kmalloc-512 object" "target_pid=$sleeper_pid"

# What was left behind keeps running into rotting code: forks (ftrace,
# the tracepoint, the kprobe), loads (the notifier), a read of the proc
# entry, the sleeping task woken to user space (its task_work).
kill "$sleeper_pid"
wait "$sleeper_pid" 2>/dev/null
if [ "$SIDE" = real ]; then
	proc=$(cat /proc/rp_proc 2>/dev/null | grep -c '^[0-9]')
	row late-calls "proc=1,alive" "proc=$proc,alive" \
		"the rotting proc entry's show() runs; forks, a load and the task_work ran into rotting code"
fi

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
moment 2
row alive "alive,rotting=15" "alive,rotting=$(awk '$1 ~ /^rp_/ { c++ } END { print c + 0 }' /proc/rotting_modules)" \
	"the guest lives on with every pattern rotting"
