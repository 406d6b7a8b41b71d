# Real kernel only: both CPUs up, and the module syscalls racing each
# other from both.  Sourced after lib.sh.

ncpu=$(grep -c ^processor /proc/cpuinfo)
row cpus "2" "$ncpu" "the guest runs on 2 CPUs (/proc/cpuinfo)"

# on_cpu N CMD...: run CMD pinned to CPU N (busybox taskset).
on_cpu() {
	c=$1
	shift
	taskset -c "$c" "$@"
}

# Two unloads of one module, one from each CPU, 40 times: exactly one
# unloads it (the other finds it gone or going), one instance rots per
# round, nothing is left live.
rounds=40
i=0
outcomes=
while [ $i -lt $rounds ]; do
	load_raw delta >/dev/null
	on_cpu 0 $ROTCTL delete delta 0 >/tmp/u0 &
	on_cpu 1 $ROTCTL delete delta 0 >/tmp/u1
	wait
	outcomes="$outcomes $(cat /tmp/u0 /tmp/u1 | sort | tr '\n' '+')"
	i=$((i + 1))
done
ok1=$(echo "$outcomes" | tr ' ' '\n' | grep -c -E '^(EBUSY|ENOENT)\+ok\+$')
note "two unloads: $(echo "$outcomes" | tr ' ' '\n' | sort | uniq -c | tr '\n' ' ')"
row race-two-unloads "one-ok=$rounds,rot=$rounds,none" "one-ok=$ok1,rot=$(rotting_count delta),$(live_state delta)" \
	"two unloads of one module on two CPUs: one unloads, one instance rots each time"
$ROTCTL reclaim delta force >/dev/null

# Reclaim racing load and unload of the same name: CPU 0 loads and
# unloads 60 times, CPU 1 reclaims all the while.  Every instance is
# freed exactly once: what reclaim reported freed plus what is left
# rotting is what was unloaded.
n=60
(
	j=0
	while [ $j -lt $n ]; do
		on_cpu 0 $ROTCTL load "$MODDIR/delta.ko" >/dev/null
		on_cpu 0 $ROTCTL delete delta 0 >/dev/null
		j=$((j + 1))
	done
	touch /tmp/churn-done
) &
freed=0
rm -f /tmp/churn-done
while [ ! -e /tmp/churn-done ]; do
	r=$(on_cpu 1 $ROTCTL reclaim delta)
	case $r in ok=*) freed=$((freed + ${r#ok=})) ;; esac
done
wait
left=$(rotting_count delta)
row race-reclaim-churn "total=$n,none" "total=$((freed + left)),$(live_state delta)" \
	"reclaim against load and unload of one name: each unloaded instance freed once or still rotting"
note "reclaim freed $freed while the name churned, $left left rotting"
$ROTCTL reclaim delta force >/dev/null

# modreap against a batch of loads: CPU 0 loads and unloads every test
# module 10 times with the suite's tools, CPU 1 runs modreap -a in a
# loop.  At the end nothing is live, and one last modreap -a leaves
# nothing rotting.
(
	j=0
	while [ $j -lt 10 ]; do
		for m in alpha beta delta params; do on_cpu 0 sh -c ". /scenarios/lib.sh; load $m" >/dev/null; done
		on_cpu 0 $RMMOD beta alpha delta params >/dev/null 2>&1
		j=$((j + 1))
	done
	touch /tmp/batch-done
) &
rm -f /tmp/batch-done
reaps=0
while [ ! -e /tmp/batch-done ]; do
	on_cpu 1 $MODREAP -a >/dev/null 2>&1
	reaps=$((reaps + 1))
done
wait
r=$(rc $MODREAP -a)
live=$(awk '$1 ~ /^(alpha|beta|delta|params)$/' /proc/modules | wc -l)
row race-modreap-batch "live=0,rc=0,rot=0" "live=$live,$r,rot=$(rotting_total)" \
	"modreap -a against a batch of loads and unloads: consistent, all reclaimed"
note "modreap ran $reaps times during the batch"
