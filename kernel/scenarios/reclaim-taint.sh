# A fresh kernel, not tainted R: O_TRUNC on a module with an exit function
# is a plain unload (no reference count to force past), and reclaim is
# what taints R.
r1=$(load_raw alpha)
r2=$($ROTCTL delete alpha 0x200)
row trunc-plain-unload "ok,ok,rot=1,R=0" "$r1,$r2,rot=$(rotting_count alpha),R=$(taint_r)" \
	"O_TRUNC on a module with exit: a plain unload, no taint"

# A reclaim that frees nothing (the instance's timer is still armed) does
# not taint.
r1=$(load_raw straytimer)
r2=$($ROTCTL delete straytimer 0)
r3=$($ROTCTL reclaim straytimer)
row reclaim-refused-no-taint "ok,ok,EBUSY,rot=1,R=0" "$r1,$r2,$r3,rot=$(rotting_count straytimer),R=$(taint_r)" \
	"reclaim refusing a busy instance frees nothing and does not taint"
# Reclaim taints R on a kernel that was not tainted R before.
r1=$(load_raw delta)
r2=$($ROTCTL delete delta 0)
t0=$(taint_r)
r3=$($ROTCTL reclaim delta)
row reclaim-taints-r "ok,ok,R=0,ok=1,R=1,rot=0" "$r1,$r2,R=$t0,$r3,R=$(taint_r),rot=$(rotting_count delta)" \
	"reclaim taints an untainted kernel R"

# A forced reclaim does not stop the timer an exit forgot: the armed
# timer is a reference like any other (rot-abi.md R12), so force refuses
# too, after its bounded wait, and the kernel lives on.
r4=$($ROTCTL reclaim straytimer force)
sleep 0.3
row reclaim-forced "EBUSY,rot=1,R=1,alive" "$r4,rot=$(rotting_count straytimer),R=$(taint_r),$(cat /proc/sys/kernel/tainted >/dev/null && echo alive)" \
	"a forced reclaim refuses the instance whose timer is armed, as a plain one does; the kernel lives"
