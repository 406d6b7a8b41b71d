# SPDX-License-Identifier: GPL-2.0
# By hand: the rp_*.ko beside the other test modules in the guest, as a
# scenario of kernel/scenarios (sourced after lib.sh).  Prints PAT lines,
# each with how long that line's last reclaim stopped every CPU.
scan_us() {
	cat /sys/module/module/parameters/rot_scan_last_us
}
for k in timer dwork kwork rcuwork irqwork kprobe deep; do
	r1=$($ROTCTL load "$MODDIR/rp_$k.ko")
	sleep 1
	r2=$($ROTCTL delete rp_$k 0)
	sleep 1
	r3=$($ROTCTL why rp_$k)
	echo "PAT $k: $r1 $r2 $r3 (pause $(scan_us) us)"
done
r=$($ROTCTL why rp_timer force)
echo "PAT timer force: $r (pause $(scan_us) us)"
sleep 2
# Something unreferenced, after all that: still freed.
r1=$($ROTCTL load "$MODDIR/alpha.ko"); r2=$($ROTCTL delete alpha 0); r3=$($ROTCTL why alpha)
echo "PAT alpha after: $r1 $r2 $r3 (pause $(scan_us) us)"
cat /proc/rotting_modules
sleep 3
echo "PAT alive"
