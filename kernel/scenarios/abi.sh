# The rows of docs/rot-abi.md both kernels can show, in one fresh kernel.  Sourced after lib.sh.

# Detection
if [ -e /proc/rotting_modules ]; then d=exists; else d=absent; fi
row detect "exists,0" "$d,$(rotting_total)" "/proc/rotting_modules exists, empty at boot"
row reclaim-checks "Y" "$(cat /sys/module/module/parameters/rot_reclaim_checks 2>&1)" \
	"rot_reclaim_checks reads Y: reclaim's reachability scan is always built (D2)"

# Failures before init free everything: beta needs alpha's symbol.
r=$(load_raw beta)
row unknown-symbol "ENOENT,rot=0" "$r,rot=$(rotting_total)" "load with an unresolved symbol fails and leaves no rot"

# Load
r=$(load alpha)
row load "ok,Live,sysfs=yes" "$r,$(live_state alpha),sysfs=$(sysfs_dir alpha)" "load: Live in /proc/modules and /sys/module"

r=$(load beta)
row load-dependent "ok,holders=beta," "$r,holders=$(live_field alpha 4)" "a user of alpha_fn loads; alpha's HOLDERS lists it"

# Reference counts
c=$(awk '$3 != 0 { bad++ } END { print bad + 0 }' /proc/modules)
s=$(for m in $(awk '{ print $1 }' /proc/modules); do cat "/sys/module/$m/refcnt"; done | sort -u | tr '\n' ' ')
row refcnt "col3-nonzero=0,sysfs=0 " "col3-nonzero=$c,sysfs=$s" "refcnt 0 everywhere, even with holders"

# Pins of live modules (C5): /proc/module_pins names the modules of
# /proc/modules in the same order, with their pins and declaration.
mp=$(awk '{ print $1 }' /proc/modules | tr '\n' ' ')
pp=$(awk '{ print $1 }' /proc/module_pins 2>/dev/null | tr '\n' ' ')
[ "$mp" = "$pp" ] && order=same || order="differ:$pp"
row module-pins "same,alpha 0 -" "$order,$(awk '$1 == "alpha" { print $1, $2, $3 }' /proc/module_pins 2>&1)" \
	"/proc/module_pins lists the live modules in /proc/modules order: alpha, unpinned and undeclared"

r=$(load_raw alpha)
row eexist "EEXIST,rot=0" "$r,rot=$(rotting_count alpha)" "loading a live name: EEXIST, no rot"

# Holders block unloading
r=$($ROTCTL delete alpha 0)
row holders-block "EWOULDBLOCK,Live" "$r,$(live_state alpha)" "delete_module of a module with holders: EWOULDBLOCK"

r=$($ROTCTL delete alpha 0x200)
row holders-block-forced "EWOULDBLOCK,Live" "$r,$(live_state alpha)" "O_TRUNC does not override holders"

row rmmod-holders "rc=1,Live" "$(rc $RMMOD alpha),$(live_state alpha)" "rmmod of a module with holders exits 1"

# Unload: exit runs, the module rots with its SIZE
size=$(live_field beta 2)
r=$(rc $RMMOD beta)
rsize=$(awk '$1 == "beta" { print $2; exit }' /proc/rotting_modules)
if [ "$size" = "$rsize" ]; then sz=same-size; else sz="size:$size->$rsize"; fi
row unload "rc=0,none,sysfs=no,rot=1,same-size" "$r,$(live_state beta),sysfs=$(sysfs_dir beta),rot=$(rotting_count beta),$sz" \
	"rmmod: leaves /proc/modules and /sys/module, rots with the same SIZE"
row rotting-top "beta" "$(awk 'NR == 1 { print $1 }' /proc/rotting_modules)" "newest rotting instance first"

# A rotting instance holds no references: its dependency can go.
r=$($ROTCTL delete alpha 0)
row rot-no-refs "ok,rot=1,holders-gone" "$r,rot=$(rotting_count alpha),holders-$( [ -d /sys/module/alpha ] && echo left || echo gone)" \
	"a rotting user holds no reference: alpha unloads"

# Reload of a rotting name, and a second unload
r=$(load alpha)
row reload "ok,Live,rot=1" "$r,$(live_state alpha),rot=$(rotting_count alpha)" "a rotting name loads again at once"
r=$($ROTCTL delete alpha 0x800)
row unload-nonblock "ok,rot=2,unique" "$r,rot=$(rotting_count alpha),$(rotting_addresses_unique)" \
	"O_NONBLOCK accepted; every instance its own address"

# Failed init rots (once per attempt)
r=$(load_raw failinit)
row failinit "ENODEV,none,sysfs=no,rot=1" "$r,$(live_state failinit),sysfs=$(sysfs_dir failinit),rot=$(rotting_count failinit)" \
	"init returning -ENODEV: the error, and one rotting instance"
r=$(load_raw failinit)
row failinit-again "ENODEV,rot=2" "$r,rot=$(rotting_count failinit)" "each failed init leaves one more instance"

row rotting-format "format-ok" "$(rotting_format)" "/proc/rotting_modules lines match rot-abi.md"

# Errors of delete_module
row enoent "ENOENT" "$($ROTCTL delete nosuch_module 0)" "no live module of that name"
# Unknown flag bits are ignored, as a stock kernel ignores them.
r1=$(load delta)
r2=$($ROTCTL delete delta 0x880)
r3=$(load delta)
r4=$($ROTCTL delete delta 0x80000001)
row flags-ignored "ok,ok,ok,ok,none,rot=2" "$r1,$r2,$r3,$r4,$(live_state delta),rot=$(rotting_count delta)" \
	"unknown flag bits ignored: O_NONBLOCK|O_EXCL (0x880) and 0x80000001 are plain unloads"
# busybox's applets as they are (rmmod passes O_NONBLOCK|O_EXCL).
r1=$(rc busybox insmod "$MODDIR/delta.ko")
b=$(busybox lsmod | awk '$1 == "delta" { print "listed" }')
r2=$(rc busybox rmmod delta)
row busybox "rc=0,listed,rc=0,none,rot=3" "$r1,$b,$r2,$(live_state delta),rot=$(rotting_count delta)" \
	"busybox insmod, lsmod and rmmod work unchanged"
r=$(load delta)
row eperm "EPERM,EPERM,Live" "$(rotctl_nocap delete delta 0),$(rotctl_nocap reclaim alpha),$(live_state delta)" \
	"without CAP_SYS_MODULE: EPERM"

# Permanent modules
r=$(load permanent)
row permanent "ok,[permanent],,EBUSY,rc=1,Live" \
	"$r,$(live_field permanent 4),$($ROTCTL delete permanent 0),$(rc $RMMOD permanent),$(live_state permanent)" \
	"init without exit: EBUSY unless forced"
t0=$(taint_r)
r=$($ROTCTL delete permanent 0x200)
row permanent-force "R=0,ok,none,rot=1,R=1" "R=$t0,$r,$(live_state permanent),rot=$(rotting_count permanent),R=$(taint_r)" \
	"O_TRUNC unloads a permanent module (it rots) and taints R"

# Loading: a module whose init is still running (until its gate opens)
$ROTCTL load "$MODDIR/slowinit.ko" $(gate slowinit init) >/dev/null &
wait_state slowinit Loading
st=$(live_state slowinit)
r=$($ROTCTL delete slowinit 0)
open_gate slowinit
wait
row loading-busy "Loading,EBUSY,Live" "$st,$r,$(live_state slowinit)" "delete_module while init runs: EBUSY"

# Loading a name that is still Loading waits for it, then EEXIST.  The
# second load is of a copy: since Linux 6.6 a finit_module() of the very
# file (inode) another finit_module() is still loading waits for that call
# and returns its result instead (docs/rot-abi.md, L4 on 6.12).
r=$($ROTCTL delete slowinit 0)
$ROTCTL load "$MODDIR/slowinit.ko" $(gate slowinit init) >/dev/null &
wait_state slowinit Loading
st=$(live_state slowinit)
cp "$MODDIR/slowinit.ko" slowinit-copy.ko
$ROTCTL load slowinit-copy.ko >slowinit.second &
wait_name_waiter $!
open_gate slowinit
wait
row load-while-loading "ok,Loading,EEXIST,Live,rot=1" "$r,$st,$(cat slowinit.second),$(live_state slowinit),rot=$(rotting_count slowinit)" \
	"loading a name still Loading waits for it, then EEXIST"
rm -f slowinit.second slowinit-copy.ko

# The very file again, while its first finit_module() still runs init:
# Linux 6.1 loads it and waits by name (EEXIST); 6.12 (since 6.6) waits
# for the first call and returns its result, loading nothing of its own
# (docs/rot-abi.md, L4 on 6.12). $KSERIES says which kernel this is.
# same_file_race NAME: the first call's answer and the second's.
same_file_race() {
	$ROTCTL load "$MODDIR/$1.ko" $(gate "$1" init) >"$1.first" &
	wait_state "$1" Loading
	$ROTCTL load "$MODDIR/$1.ko" >"$1.second" &
	wait_file_waiter $!
	open_gate "$1"
	wait
	echo "$(cat "$1.first"),$(cat "$1.second")"
	rm -f "$1.first" "$1.second"
}
r=$($ROTCTL delete slowinit 0)
r2=$(same_file_race slowinit)
same=EEXIST
[ "$KSERIES" = 6.12 ] && same=ok
row load-same-file-while-loading "ok,ok,$same,Live,rot=2" \
	"$r,$r2,$(live_state slowinit),rot=$(rotting_count slowinit)" \
	"the file a finit_module() is still loading, again: 6.1 waits by name (EEXIST), 6.12 returns that call's result"

# Loading a name whose load is still Loading and then fails: it waits,
# then EBUSY; the failed load is not retried in its place.
$ROTCTL load "$MODDIR/slowfail.ko" $(gate slowfail init) >slowfail.first &
wait_state slowfail Loading
st=$(live_state slowfail)
cp "$MODDIR/slowfail.ko" slowfail-copy.ko
$ROTCTL load slowfail-copy.ko >slowfail.second &
wait_name_waiter $!
open_gate slowfail
wait
row load-while-loading-fails "Loading,EBUSY,ENODEV,none,rot=1" \
	"$st,$(cat slowfail.second),$(cat slowfail.first),$(live_state slowfail),rot=$(rotting_count slowfail)" \
	"loading a name still Loading whose init then fails: waits, then EBUSY, nothing loaded"
rm -f slowfail.first slowfail.second slowfail-copy.ko

# The very file again, with an init that fails: 6.1 answers EBUSY, 6.12
# the init's own error; either way one instance rots (slowfail's second,
# after the row above's).
r=$(same_file_race slowfail)
same=EBUSY
[ "$KSERIES" = 6.12 ] && same=ENODEV
row load-same-file-while-loading-fails "ENODEV,$same,none,rot=2" \
	"$r,$(live_state slowfail),rot=$(rotting_count slowfail)" \
	"the file a finit_module() is still loading, whose init then fails, again: 6.1 EBUSY, 6.12 the init's error; one instance rots"

# Loading a name that is still Unloading: EBUSY at once.  The exit waits
# for its gate on both kernels.
r=$(load slowexit "$(gate slowexit exit)")
$ROTCTL delete slowexit 0 >/dev/null &
wait_state slowexit Unloading
st=$(live_state slowexit)
r2=$(load_raw slowexit)
open_gate slowexit
wait
row load-while-unloading "ok,Unloading,EBUSY,none,rot=1" "$r,$st,$r2,$(live_state slowexit),rot=$(rotting_count slowexit)" \
	"loading a name still Unloading: EBUSY, nothing loaded"

# Parameters
r=$(load params "count=5 label=hi verbose")
p=/sys/module/params/parameters
row params "ok,5,hi,Y" "$r,$(cat $p/count),$(cat $p/label),$(cat $p/verbose)" "parameters given at load show in sysfs"
r=$(rc $RMMOD params)
r2=$(load params "count=7")
row params-reload "rc=0,rot=1,ok,7,(null),N" "$r,rot=$(rotting_count params),$r2,$(cat $p/count),$(cat $p/label),$(cat $p/verbose)" \
	"unloaded params rots; reloaded with other values"

# Compressed images, decompressed in userspace, loaded with init_module
r1=$($ROTCTL init "$MODDIR/delta.ko.xz")
$ROTCTL delete delta 0 >/dev/null
r2=$($ROTCTL init "$MODDIR/delta.ko.xz")
s2=$(live_state delta)
$ROTCTL delete delta 0 >/dev/null
r3=$($ROTCTL init "$MODDIR/delta.ko.zst")
row compressed "EEXIST,ok,Live,ok,Live" "$r1,$r2,$s2,$r3,$(live_state delta)" ".ko.xz and .ko.zst via init_module"

# The suite's lsmod sees the same picture on both kernels.
ls=$($LSMOD -r -n -o NAME,STATE,REFCNT,HOLDERS,PERMANENT | tr -s ' ' | tr '\n' ';')
row lsmod "*" \
	"$ls" "lsmod: live modules, then every rotting instance"

# Reclaim.  beta's rotting instance still calls the alpha it was linked
# against (P7): that one is kept until beta's goes, the other is freed.
r=$(load alpha)
before=$(rotting_count alpha)
r=$($ROTCTL reclaim alpha)
after=$(rotting_count alpha)
w=$($ROTCTL why alpha)
rb=$($ROTCTL reclaim beta)
r2=$($ROTCTL reclaim alpha)
row reclaim "rot=2,ok=1,rot=1,EBUSY kept=1 why=user pins=0 where=user,ok=1,ok=1,rot=0,Live" \
	"rot=$before,$r,rot=$after,$w,$rb,$r2,rot=$(rotting_count alpha),$(live_state alpha)" \
	"ROT_IOC_RECLAIM frees the rotting instances nothing reaches, returns how many; the alpha rotting beta used is kept (P7) until beta's instance is freed; the live one stays"
row reclaim-enoent "ENOENT" "$($ROTCTL reclaim alpha)" "reclaim with nothing rotting: ENOENT"
r1=$($ROTCTL delete failinit 0x40000800)
r2=$($ROTCTL reclaim failinit 0x2)
r3=$($ROTCTL reclaim "")
row reclaim-einval "EINVAL,EINVAL,EINVAL,rot=2,ok=2,rot=0" "$r1,$r2,$r3,rot=$(rotting_count failinit),$($ROTCTL reclaim failinit),rot=$(rotting_count failinit)" \
	"delete_module(MODULE_RECLAIM) is refused (revision 3), and so are an unknown reclaim flag and an empty name: nothing freed"
row reclaim-trunc "ok=5,rot=0" "$($ROTCTL reclaim delta force),rot=$(rotting_count delta)" \
	"ROT_RECLAIM_FORCE: a forced reclaim, the count of instances freed"
# How long that reclaim's last look stopped every CPU: a figure for the
# notes, no row (it depends on the machine).
if [ "$SIDE" = real ]; then
	note "rot_scan_last_us $(cat /sys/module/module/parameters/rot_scan_last_us) after reclaiming 5 delta instances"
fi

# A timer left armed in rotting memory: the timer wheel reaches it, so
# reclaim refuses, and so does a forced one, which stops nothing (R12).
r1=$(load straytimer)
r2=$(rc $RMMOD straytimer)
r3=$(wheel_where "$($ROTCTL why straytimer)")
r4=$(rotting_count straytimer)
r5=$($ROTCTL reclaim straytimer force)
row reclaim-stray "ok,rc=0,EBUSY kept=1 why=ref pins=0 where=wheel,rot=1,EBUSY,rot=1" \
	"$r1,$r2,$r3,rot=$r4,$r5,rot=$(rotting_count straytimer)" \
	"reclaim refuses an instance with an armed timer (EBUSY, a reference from the timer wheel); forced too: force stops no timer"
r=$(rc $MODREAP params)
row modreap-name "rc=0,rot=0,Live" "$r,rot=$(rotting_count params),$(live_state params)" "modreap NAME reclaims that name"
r=$(rc $MODREAP -a)
row modreap-all "rc=1,1,straytimer,R=1" "$r,$(rotting_total),$(awk '{ print $1 }' /proc/rotting_modules | tr '\n' ' ' | sed 's/ $//'),R=$(taint_r)" \
	"modreap -a reclaims everything nothing reaches, and exits 1 for what is kept: straytimer, whose timer is still armed"
