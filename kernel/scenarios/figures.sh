# Figures from the real kernel (kernel/run.sh --figures): real kernel only.
# Under TCG absolute times say little, so every figure is a ratio of two
# runs made one after the other in this boot.  Prints FIG lines:
#   FIG <tab> KEY <tab> VALUE
# and the rows check only that each measurement ran.
#
# MODDIR/bulk/bulkNNN.ko: BULK_COUNT small modules (no per-CPU data), whose
# init sleeps init_delay_us microseconds (0: returns at once).
BULK=$MODDIR/bulk
REPS=${REPS:-2}

fig() {
	printf 'FIG\t%s\t%s\n' "$1" "$2"
}

# Centiseconds since boot: busybox's date has no %N.
now_cs() {
	awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime
}

bulk_names() {
	for f in "$BULK"/bulk*.ko; do
		n=${f##*/}
		printf '%s ' "${n%.ko}"
	done
}

# Unload every bulk module, so that the next pass loads the same names.
# They rot: reclaiming 200 names takes minutes under TCG (two grace
# periods each), and the rotting list does not slow a load down.
bulk_clear() {
	# shellcheck disable=SC2046 # one name per word
	$RMMOD $(bulk_names) >/dev/null 2>&1
}

# One timed pass: METHOD DELAY_US; sets CS (centiseconds) and LOADED.
bulk_pass() {
	: >/tmp/bulk.list
	for f in "$BULK"/bulk*.ko; do
		echo "$f init_delay_us=$2" >>/tmp/bulk.list
	done
	t0=$(now_cs)
	case $1 in
	busybox)
		while read -r f p; do busybox insmod "$f" "$p" || echo "busybox insmod $f failed"; done </tmp/bulk.list
		;;
	j1) $LOADER --from /tmp/bulk.list -j1 >/dev/null 2>/tmp/bulk.err || echo "insmod -j1 failed" ;;
	j2) $LOADER --from /tmp/bulk.list -j2 >/dev/null 2>/tmp/bulk.err || echo "insmod -j2 failed" ;;
	esac
	t1=$(now_cs)
	LOADED=$(grep -c '^bulk[0-9]' /proc/modules)
	CS=$((t1 - t0))
}

set -- "$BULK"/bulk*.ko
count=$#
note "$count bulk modules, $REPS passes of each method, $(grep -c ^processor /proc/cpuinfo) CPUs"
fig cpus "$(grep -c ^processor /proc/cpuinfo)"
fig modules "$count"

# --- lsmod against busybox lsmod, with the bulk modules live -------------
# First, while nothing rots yet.
for f in "$BULK"/bulk*.ko; do echo "$f"; done >/tmp/bulk.list
$LOADER --from /tmp/bulk.list -j2 >/dev/null 2>&1
N=30
t0=$(now_cs)
i=0
while [ $i -lt $N ]; do $LSMOD >/dev/null; i=$((i + 1)); done
t1=$(now_cs)
i=0
while [ $i -lt $N ]; do busybox lsmod >/dev/null; i=$((i + 1)); done
t2=$(now_cs)
fig lsmod_cs "$((t1 - t0))"
fig busybox_lsmod_cs "$((t2 - t1))"
fig lsmod_runs "$N"
fig lsmod_lines "$(awk 'END { print NR }' /proc/modules)"
bulk_clear

# --- load throughput: busybox insmod loop, insmod --batch -j1, -j2 -------
allloaded=yes
# shellcheck disable=SC2154 # sum_* are set by eval
for delay in 0 2000; do
	for m in busybox j1 j2; do eval "sum_$m=0"; done
	rep=1
	while [ "$rep" -le "$REPS" ]; do
		# Alternate the order, so that no method always runs on a longer
		# rotting list than another.
		order="busybox j1 j2"
		[ $((rep % 2)) -eq 0 ] && order="j2 j1 busybox"
		for m in $order; do
			bulk_pass "$m" "$delay"
			[ "$LOADED" -eq "$count" ] || allloaded="no:$m:$delay:$LOADED"
			eval "sum_$m=\$((sum_$m + CS))"
			note "init ${delay} us, pass $rep, $m: ${CS} cs for $LOADED loads"
			bulk_clear
		done
		rep=$((rep + 1))
	done
	fig "load_cs_busybox_delay$delay" "$sum_busybox"
	fig "load_cs_j1_delay$delay" "$sum_j1"
	fig "load_cs_j2_delay$delay" "$sum_j2"
done
row figures-loads "yes" "$allloaded" "every pass loaded every bulk module"

# --- what one load/unload cycle leaves behind, against SIZE --------------
# vmalloc: bytes of module areas in /proc/vmallocinfo (each area's size
# there includes its guard page); per-CPU: FREE of /proc/module_percpu.
vm_bytes() {
	awk '/module_alloc|load_module|move_module/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo
}
pcpu_free() {
	awk 'NR == 1 { print $4 }' /proc/module_percpu 2>/dev/null || echo 0
}
cycles=0
for m in delta alpha params pcpu512 pcpu1500 failinit; do
	vm0=$(vm_bytes)
	pc0=$(pcpu_free)
	rot0=$(awk '{ s += $2 } END { print s + 0 }' /proc/rotting_modules)
	r=$(load_raw $m)
	size=$(live_field $m 2)
	[ "$r" = ok ] && $RMMOD $m >/dev/null 2>&1
	rot1=$(awk '{ s += $2 } END { print s + 0 }' /proc/rotting_modules)
	[ -n "$size" ] || size=$((rot1 - rot0))
	fig "cycle_$m" "size=$size rot=$((rot1 - rot0)) vmalloc=$(($(vm_bytes) - vm0)) percpu=$((pc0 - $(pcpu_free))) load=$r"
	cycles=$((cycles + 1))
done
row figures-cycles "6" "$cycles" "load/unload cycles measured"
