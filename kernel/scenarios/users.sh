# What ordinary drivers leave using a module after its unload
# (docs/rot-abi.md C3, U6, U8, R10-R13).  Each pattern is kept from
# reclaim while something can still run, return or read inside the
# instance, and late calls into the rotting code keep working until then.
# Sourced after lib.sh.  "rotctl why" prints the revision-4 reply, with
# the kind of place where the first reference was found (R11):
#   RESULT kept=K why=REASON,... pins=P where=KIND
#
# On the real kernel (SIDE=real) real objects make each pattern.  On the
# simulated kernel (SIDE=sim) the first part below makes the same rows,
# with the same names and expected values, from fixtures named like the
# test modules and from `simkernel pin/hold` standing for what each
# pattern leaves: a pin for the open file, the mount, the kthread's
# reference, the AF_ALG socket and the enabled patch; a task for the
# sleeping reader, the kthread and the worker; a reference (`hold ... ref
# WHERE`) for the slab object that points into the instance (the open
# file's file operations, the superblock's type and operations, the
# kthread's function, a kmalloc'd timer's function, the record of the
# worker running a work item).  The timers, work and
# probes an exit forgets are the fixtures' stray= keys, which the
# simulator's scan finds where the kernel's does (the timer wheel, the
# worker pool, the kprobe table).  srcu-static and the in-tree modules stay
# real only (kernel/run.sh names them).

pins_of() { # NAME -> the newest rotting instance's pins (P1 column 3)
	awk -v n="$1" '$1 == n { print $3; exit }' /proc/rotting_modules
}

# reclaim_ok NAME: one reclaim of NAME freed one instance.
reclaim_ok() {
	[ "$($ROTCTL reclaim "$1")" = ok=1 ]
}

# wait_reclaimed NAME: until one reclaim of NAME frees an instance, at
# most 60 tries half a second apart: each try is a whole reclaim, whose
# scan stops every CPU, far slower than a look at a file.
wait_reclaimed() {
	i=0
	until reclaim_ok "$1"; do
		[ $i -ge 60 ] && return 1
		sleep 0.5
		i=$((i + 1))
	done
}

# wait_for CMD...: until CMD succeeds, at most about 30 s.
wait_for() {
	i=0
	until "$@"; do
		[ $i -ge 300 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}

if [ "$SIDE" = sim ]; then
	note "users on the simulator: pins and holds stand for the users; srcu-static is real only"

	load_raw alpha >/dev/null
	r1=$($ROTCTL delete alpha 0x40000000)
	r2=$($ROTCTL delete alpha 0x40000200)
	row reclaim-flag-refused "EINVAL,EINVAL,Live,rot=0" \
		"$r1,$r2,$(live_state alpha),rot=$(rotting_count alpha)" \
		"delete_module(MODULE_RECLAIM), forced or not, is refused with EINVAL and unloads nothing"
	$ROTCTL delete alpha 0 >/dev/null
	$ROTCTL reclaim alpha >/dev/null

	# lostimer's exit leaves its timer armed (stray=timer), wherever it is.
	r0=$(load_raw lostimer where=percpu)
	$ROTCTL delete lostimer 0 >/dev/null
	w=$(wheel_where "$($ROTCTL why lostimer)")
	f=$(wheel_where "$($ROTCTL why lostimer force)")
	row percpu-timer "ok,EBUSY kept=1 why=ref pins=0 where=wheel,EBUSY kept=1 why=ref pins=0 where=wheel,rot=1" \
		"$r0,$w,$f,rot=$(rotting_count lostimer)" \
		"a timer in the instance's per-CPU data keeps it through the timer wheel, forced or not: force stops no timer (R12)"

	# A kmalloc'd timer is found through its slab object (its function),
	# not on the wheel: the wheel points at the object, not the instance.
	r0=$(load_raw lostimer where=heap)
	$ROTCTL delete lostimer 0 >/dev/null
	sk release lostimer timer
	sk hold lostimer ref 'slab kmalloc-64 object'
	w=$($ROTCTL why lostimer)
	f=$($ROTCTL why lostimer force)
	row heap-timer "ok,EBUSY kept=2 why=ref pins=0 where=slab,EBUSY kept=2 why=ref pins=0 where=slab,rot=2" \
		"$r0,$w,$f,rot=$(rotting_count lostimer)" \
		"a heap timer whose callback is in the instance keeps it through its slab object, forced or not; the per-CPU timer's instance is still kept too"

	# A reader holds /dev/rotsleep open (a pin) and sleeps in read() (a task).
	r0=$(load_raw sleeper)
	sk pin sleeper
	sk hold sleeper ref 'slab filp object'
	sk hold sleeper task
	r1=$($ROTCTL delete sleeper 0)
	p=$(pins_of sleeper)
	w=$($ROTCTL why sleeper)
	sk release sleeper task # woken, it returns through rotting code
	sk release sleeper ref  # and closes the file
	sk unpin sleeper
	p2=$(pins_of sleeper)
	r3=$($ROTCTL reclaim sleeper)
	row sleeping-reader "ok,ok,pins=1,EBUSY kept=1 why=pin,task,ref pins=1 where=slab,pins=0,ok=1,rot=0" \
		"$r0,$r1,pins=$p,$w,pins=$p2,$r3,rot=$(rotting_count sleeper)" \
		"a reader asleep in read() and its open file keep the instance; woken, it returns through rotting code, closes, and reclaim frees"

	# Forced: the wait is R5's bound (the kernel's 5 s unless created otherwise).
	load_raw sleeper >/dev/null
	sk pin sleeper
	sk hold sleeper ref 'slab filp object'
	sk hold sleeper task
	$ROTCTL delete sleeper 0 >/dev/null
	f=$($ROTCTL why sleeper force)
	sk release sleeper task
	sk release sleeper ref
	sk unpin sleeper
	r3=$($ROTCTL reclaim sleeper)
	row sleeping-reader-forced "EBUSY kept=1 why=pin,task,ref pins=1 where=slab,ok=1,rot=0" \
		"$f,$r3,rot=$(rotting_count sleeper)" \
		"a forced reclaim does not free what a task sleeps in or a file pins: it waits, bounded, then keeps it"

	# The simulator's mount pins the module providing the type (C3).
	r0=$(load_raw rotfs)
	sk mount rotfs none /tmp/rotfs && m=mounted || m=unmounted
	sk hold rotfs ref 'slab kmalloc-2k object'
	r1=$($ROTCTL delete rotfs 0)
	w=$($ROTCTL why rotfs)
	sk umount /tmp/rotfs && u=unmounted || u=still-mounted
	sk release rotfs ref
	r3=$($ROTCTL reclaim rotfs)
	row mounted-fs "ok,mounted,ok,EBUSY kept=1 why=pin,ref pins=1 where=slab,unmounted,ok=1,rot=0" \
		"$r0,$m,$r1,$w,$u,$r3,rot=$(rotting_count rotfs)" \
		"a mount keeps the instance; umount after the unload runs its kill_sb in rotting code, then reclaim frees"

	# The kthread pins its module and runs in it; it ends with
	# module_put_and_kthread_exit(), after the unload.
	r0=$(load_raw kthreader secs=3)
	sk pin kthreader
	sk hold kthreader ref 'slab kmalloc-128 object'
	sk hold kthreader task
	r1=$($ROTCTL delete kthreader 0)
	w=$($ROTCTL why kthreader)
	sk release kthreader task
	sk release kthreader ref
	sk unpin kthreader
	wait_reclaimed kthreader && r3=freed || r3=kept
	row kthread-put "ok,ok,EBUSY kept=1 why=pin,task,ref pins=1 where=slab,freed,rot=0" \
		"$r0,$r1,$w,$r3,rot=$(rotting_count kthreader)" \
		"a kthread in module_put_and_kthread_exit()'s pattern keeps the instance until it has left"

	# The work item runs in a worker, asleep in the module (a task), and
	# is queued again (work).
	r0=$(load_raw stuckwork)
	sk hold stuckwork task
	sk hold stuckwork work
	sk hold stuckwork ref 'slab kmalloc-192 object' # the worker's current work
	$ROTCTL delete stuckwork 0 >/dev/null
	f=$($ROTCTL why stuckwork force)
	w=$($ROTCTL why stuckwork)
	e=$($ROTCTL reclaim nosuchmodule)
	sk release stuckwork work # its second run starts
	sk release stuckwork task # and ends
	sk release stuckwork ref
	wait_reclaimed stuckwork && done=freed || done=kept
	row stuck-work "ok,EBUSY kept=1 why=task,ref pins=0 where=slab,EBUSY kept=1 why=task,ref pins=0 where=slab,ENOENT,freed,rot=0" \
		"$r0,$f,$w,$e,$done,rot=$(rotting_count stuckwork)" \
		"a work item running in the module and queued again keeps it (the worker's stack and record, the pool's list); a forced reclaim returns after its bounded wait; other reclaims go on; once the work ends it is freed"

	# kprobeinit's init fails and leaves its kprobe on the init text (stray=kprobe).
	r0=$(load_raw kprobeinit)
	w=$($ROTCTL why kprobeinit)
	f=$($ROTCTL why kprobeinit force)
	row kprobe-init-text "ENODEV,rot=1,EBUSY kept=1 why=ref pins=0 where=kernel,EBUSY kept=1 why=ref pins=0 where=kernel,rot=1" \
		"$r0,rot=$(rotting_count kprobeinit),$w,$f,rot=$(rotting_count kprobeinit)" \
		"a kprobe registered on a failed init's text keeps the instance through the kprobe table, forced or not"

	# U7: the AF_ALG socket's cbc(aes) transform pins cbc.
	r0=$(load_raw cbc)
	sk pin cbc && ready=ready || ready=unpinned
	r1=$($ROTCTL delete cbc 0)
	r1f=$($ROTCTL delete cbc 0x200)
	s1=$(live_state cbc)
	sk unpin cbc # the socket is closed
	r2=$($ROTCTL delete cbc 0)
	r3=$($ROTCTL reclaim cbc)
	row crypto-transform "ok,ready,EWOULDBLOCK,EWOULDBLOCK,Live,ok,ok=1,rot=0" \
		"$r0,$ready,$r1,$r1f,$s1,$r2,$r3,rot=$(rotting_count cbc)" \
		"cbc refuses to unload, forced or not, while an AF_ALG transform pins it; once closed it unloads and is reclaimed"

	# U7: an enabled patch is its pin on livepatch_sample here.
	r0=$(load_raw livepatch-sample)
	sk pin livepatch_sample
	sk state | grep -q '^live livepatch_sample .* pins=1$' && patched=patched || patched=unpatched
	r1=$($ROTCTL delete livepatch_sample 0)
	sk unpin livepatch_sample && off=disabled || off=still-enabled
	r2=$($ROTCTL delete livepatch_sample 0)
	wait_reclaimed livepatch_sample && r3=freed || r3=kept
	sk state | grep -q '^[a-z]* livepatch_sample .* pins=' && after=patched || after=unpatched
	row livepatch "ok,patched,EWOULDBLOCK,disabled,ok,freed,unpatched,rot=0" \
		"$r0,$patched,$r1,$off,$r2,$r3,$after,rot=$(rotting_count livepatch_sample)" \
		"an enabled livepatch refuses to unload; disabled, it unloads, and is reclaimed once its transition is over"
	# The look is taken with every other CPU stopped: a callback is seen
	# by every reclaim, running or pending.
	r0=$(load_raw lostimer "where=heap busy=1")
	$ROTCTL delete lostimer 0 >/dev/null
	busy=0
	i=0
	while [ $i -lt 10 ]; do
		[ "$($ROTCTL reclaim lostimer)" = EBUSY ] && busy=$((busy + 1))
		i=$((i + 1))
	done
	f=$($ROTCTL reclaim lostimer force)
	row running-callback "ok,busy=10,EBUSY,rot=3" "$r0,busy=$busy,$f,rot=$(rotting_count lostimer)" \
		"a timer callback running 40 ms of every 50 is seen by every one of 10 reclaims, and by a forced one, which stops nothing (the last row: the timer runs on)"
	return 0
fi # the simulator's side ends here; the real kernel's follows

# U6: the revision-2 request is refused, and nothing is unloaded.
load_raw alpha >/dev/null
r1=$($ROTCTL delete alpha 0x40000000)
r2=$($ROTCTL delete alpha 0x40000200)
row reclaim-flag-refused "EINVAL,EINVAL,Live,rot=0" \
	"$r1,$r2,$(live_state alpha),rot=$(rotting_count alpha)" \
	"delete_module(MODULE_RECLAIM), forced or not, is refused with EINVAL and unloads nothing"
$ROTCTL delete alpha 0 >/dev/null
$ROTCTL reclaim alpha >/dev/null

# A self-re-arming timer in the module's per-CPU data, reached through the
# timer wheel (wheel_where: its bucket's head, or any timer queued before
# it in the same bucket).
r0=$(load_raw lostimer where=percpu)
$ROTCTL delete lostimer 0 >/dev/null
sleep 0.3
w=$(wheel_where "$($ROTCTL why lostimer)")
f=$(wheel_where "$($ROTCTL why lostimer force)")
sleep 0.3
row percpu-timer "ok,EBUSY kept=1 why=ref pins=0 where=wheel,EBUSY kept=1 why=ref pins=0 where=wheel,rot=1" \
	"$r0,$w,$f,rot=$(rotting_count lostimer)" \
	"a timer in the instance's per-CPU data keeps it through the timer wheel, forced or not: force stops no timer (R12)"

# The same timer in kmalloc'd memory, its callback in the module.
r0=$(load_raw lostimer where=heap)
$ROTCTL delete lostimer 0 >/dev/null
sleep 0.3
w=$($ROTCTL why lostimer)
f=$($ROTCTL why lostimer force)
sleep 0.3
row heap-timer "ok,EBUSY kept=2 why=ref pins=0 where=slab,EBUSY kept=2 why=ref pins=0 where=slab,rot=2" \
	"$r0,$w,$f,rot=$(rotting_count lostimer)" \
	"a heap timer whose callback is in the instance keeps it through its slab object, forced or not; the per-CPU timer's instance is still kept too"

# A task asleep in the module's read(), holding the device open.
r0=$(load_raw sleeper)
cat /dev/rotsleep >/dev/null 2>&1 &
reader=$!
sleep 0.5
r1=$($ROTCTL delete sleeper 0)
p=$(pins_of sleeper)
w=$($ROTCTL why sleeper)
kill "$reader"
wait "$reader" 2>/dev/null
p2=$(pins_of sleeper)
r3=$($ROTCTL reclaim sleeper)
row sleeping-reader "ok,ok,pins=1,EBUSY kept=1 why=pin,task,ref pins=1 where=slab,pins=0,ok=1,rot=0" \
	"$r0,$r1,pins=$p,$w,pins=$p2,$r3,rot=$(rotting_count sleeper)" \
	"a reader asleep in read() and its open file keep the instance; woken, it returns through rotting code, closes, and reclaim frees"

# The same, forced: what sleeps or is pinned cannot be stopped, and the
# forced reclaim gives up after its bounded wait.
load_raw sleeper >/dev/null
cat /dev/rotsleep >/dev/null 2>&1 &
reader=$!
sleep 0.5
$ROTCTL delete sleeper 0 >/dev/null
f=$($ROTCTL why sleeper force)
kill "$reader"
wait "$reader" 2>/dev/null
r3=$($ROTCTL reclaim sleeper)
row sleeping-reader-forced "EBUSY kept=1 why=pin,task,ref pins=1 where=slab,ok=1,rot=0" \
	"$f,$r3,rot=$(rotting_count sleeper)" \
	"a forced reclaim does not free what a task sleeps in or a file pins: it waits, bounded, then keeps it"

# A mounted filesystem: the mount pins the module; umount runs rotting code.
r0=$(load_raw rotfs)
mkdir -p /tmp/rotfs
mount -t rotfs none /tmp/rotfs && m=mounted || m=unmounted
r1=$($ROTCTL delete rotfs 0)
w=$($ROTCTL why rotfs)
umount /tmp/rotfs && u=unmounted || u=still-mounted
r3=$($ROTCTL reclaim rotfs)
row mounted-fs "ok,mounted,ok,EBUSY kept=1 why=pin,ref pins=1 where=slab,unmounted,ok=1,rot=0" \
	"$r0,$m,$r1,$w,$u,$r3,rot=$(rotting_count rotfs)" \
	"a mount keeps the instance; umount after the unload runs its kill_sb in rotting code, then reclaim frees"

# A kthread that pins its module and puts it as it exits.
r0=$(load_raw kthreader secs=3)
sleep 0.3
r1=$($ROTCTL delete kthreader 0)
w=$($ROTCTL why kthreader)
wait_reclaimed kthreader && r3=freed || r3=kept
row kthread-put "ok,ok,EBUSY kept=1 why=pin,task,ref pins=1 where=slab,freed,rot=0" \
	"$r0,$r1,$w,$r3,rot=$(rotting_count kthreader)" \
	"a kthread in module_put_and_kthread_exit()'s pattern keeps the instance until it has left"

# A work item both running (20 s asleep in the module) and pending again:
# a forced reclaim stops neither, and gives up after its bounded wait.
r0=$(load_raw stuckwork)
sleep 0.5
$ROTCTL delete stuckwork 0 >/dev/null
f=$($ROTCTL why stuckwork force)
w=$($ROTCTL why stuckwork)
e=$($ROTCTL reclaim nosuchmodule)
wait_reclaimed stuckwork && done=freed || done=kept
row stuck-work "ok,EBUSY kept=1 why=task,ref pins=0 where=slab,EBUSY kept=1 why=task,ref pins=0 where=slab,ENOENT,freed,rot=0" \
	"$r0,$f,$w,$e,$done,rot=$(rotting_count stuckwork)" \
	"a work item running in the module and queued again keeps it (the worker's stack and record, the pool's list); a forced reclaim returns after its bounded wait; other reclaims go on; once the work ends it is freed"

# A static SRCU struct used by a timer left running after exit stays
# usable; the armed timer keeps the instance, forced or not.
r0=$(load_raw srcuuser)
$ROTCTL delete srcuuser 0 >/dev/null
sleep 0.5
torn=$(dmesg | grep -c 'srcuuser: srcu_struct torn down')
w=$(wheel_where "$($ROTCTL why srcuuser)")
f=$($ROTCTL reclaim srcuuser force)
sleep 0.3
row srcu-static "ok,torn=0,EBUSY kept=1 why=ref pins=0 where=wheel,EBUSY,rot=1" \
	"$r0,torn=$torn,$w,$f,rot=$(rotting_count srcuuser)" \
	"a module's static srcu_struct stays usable by rotting code after the unload: the timer using it keeps the instance, forced or not"

# A kprobe on the init text of an instance whose init failed.
r0=$(load_raw kprobeinit)
w=$($ROTCTL why kprobeinit)
f=$($ROTCTL why kprobeinit force)
row kprobe-init-text "ENODEV,rot=1,EBUSY kept=1 why=ref pins=0 where=kernel,EBUSY kept=1 why=ref pins=0 where=kernel,rot=1" \
	"$r0,rot=$(rotting_count kprobeinit),$w,$f,rot=$(rotting_count kprobeinit)" \
	"a kprobe registered on a failed init's text keeps the instance through the kprobe table, forced or not"

# An in-tree user that cannot survive: a cbc(aes) transform held through
# AF_ALG pins the cbc template, and cbc refuses to unload meanwhile (U7).
if [ -f "$MODDIR/cbc.ko" ] && [ -x /bin/afalg ]; then
	r0=$(load_raw cbc)
	/bin/afalg >/tmp/afalg.out 2>&1 &
	holder=$!
	wait_for grep -q ready /tmp/afalg.out && ready=ready || ready="$(cat /tmp/afalg.out)"
	r1=$($ROTCTL delete cbc 0)
	r1f=$($ROTCTL delete cbc 0x200)
	s1=$(live_state cbc)
	kill "$holder"
	wait "$holder" 2>/dev/null
	r2=$($ROTCTL delete cbc 0)
	r3=$($ROTCTL reclaim cbc)
	row crypto-transform "ok,ready,EWOULDBLOCK,EWOULDBLOCK,Live,ok,ok=1,rot=0" \
		"$r0,$ready,$r1,$r1f,$s1,$r2,$r3,rot=$(rotting_count cbc)" \
		"cbc refuses to unload, forced or not, while an AF_ALG transform pins it; once closed it unloads and is reclaimed"
else
	row crypto-transform "present" "missing" "cbc.ko and the afalg helper are in the guest"
fi

# An enabled livepatch refuses to unload (U7); disabled, it unloads.
lp=/sys/kernel/livepatch/livepatch_sample
if [ -f "$MODDIR/livepatch-sample.ko" ]; then
	r0=$(load_raw livepatch-sample)
	wait_for grep -q 'live patched' /proc/cmdline && patched=patched || patched=unpatched
	r1=$($ROTCTL delete livepatch_sample 0)
	echo 0 >$lp/enabled
	wait_for sh -c "[ ! -d $lp ]" && off=disabled || off=still-enabled
	r2=$($ROTCTL delete livepatch_sample 0)
	# The transition's work may still run in the patch's code (a task
	# stack) and its sysfs objects wait to be freed: a reference until
	# both are done.
	wait_reclaimed livepatch_sample && r3=freed || r3=kept
	grep -q 'live patched' /proc/cmdline && after=patched || after=unpatched
	row livepatch "ok,patched,EWOULDBLOCK,disabled,ok,freed,unpatched,rot=0" \
		"$r0,$patched,$r1,$off,$r2,$r3,$after,rot=$(rotting_count livepatch_sample)" \
		"an enabled livepatch refuses to unload; disabled, it unloads, and is reclaimed once its transition is over"
else
	row livepatch "present" "missing" "livepatch-sample.ko is in the guest"
fi

# U8: in-tree modules declare nothing (MODULE_ROT_SAFE()), so each refuses
# to unload while pinned, forced or not, as on a stock kernel, and shows
# its pins in /proc/module_pins (C5): a filesystem while mounted, a
# character device while open, a protocol family while a socket is open.
# Once the user goes, each unloads, rots and is reclaimed.
pins_line() { # NAME -> "PINS SAFE" of a live module (C5)
	awk -v n="$1" '$1 == n { print $2 "/" $3; exit }' /proc/module_pins
}

# refused_while ID NAME WHAT: the module NAME is loaded and held; tries
# both unloads and prints "PINS/SAFE,PLAIN,FORCED,STATE".
refused_while() {
	printf '%s,%s,%s,%s' "$(pins_line "$1")" "$($ROTCTL delete "$1" 0)" \
		"$($ROTCTL delete "$1" 0x200)" "$(live_state "$1")"
}

# ...then released: prints ",UNLOAD,RECLAIM,rot=N".
unloads_after() {
	printf ',%s,%s,rot=%s' "$($ROTCTL delete "$1" 0)" "$($ROTCTL reclaim "$1")" \
		"$(rotting_count "$1")"
}

if [ -f "$MODDIR/binfmt_misc.ko" ]; then
	r0=$(load_raw binfmt_misc)
	mkdir -p /tmp/bm
	mount -t binfmt_misc none /tmp/bm && m=mounted || m=unmounted
	held=$(refused_while binfmt_misc)
	umount /tmp/bm
	row fs-in-use "ok,mounted,1/-,EWOULDBLOCK,EWOULDBLOCK,Live,ok,ok=1,rot=0" \
		"$r0,$m,$held$(unloads_after binfmt_misc)" \
		"a mounted in-tree filesystem (binfmt_misc) refuses to unload, forced or not; unmounted, it unloads"
else
	row fs-in-use "present" "missing" "binfmt_misc.ko is in the guest"
fi

if [ -f "$MODDIR/nvram.ko" ]; then
	r0=$(load_raw nvram)
	wait_for test -c /dev/nvram && dev=dev || dev=nodev
	exec 3</dev/nvram
	held=$(refused_while nvram)
	exec 3<&-
	row chardev-in-use "ok,dev,1/-,EWOULDBLOCK,EWOULDBLOCK,Live,ok,ok=1,rot=0" \
		"$r0,$dev,$held$(unloads_after nvram)" \
		"an open in-tree character device (/dev/nvram) refuses to unload, forced or not; closed, it unloads"
else
	row chardev-in-use "present" "missing" "nvram.ko is in the guest"
fi

if [ -f "$MODDIR/af_packet.ko" ]; then
	r0=$(load_raw af_packet)
	$ROTCTL socket 17 3 >/tmp/sock.out 2>&1 &
	holder=$!
	wait_for grep -q ready /tmp/sock.out && ready=ready || ready="$(cat /tmp/sock.out)"
	held=$(refused_while af_packet)
	kill "$holder"
	wait "$holder" 2>/dev/null
	row proto-in-use "ok,ready,2/-,EWOULDBLOCK,EWOULDBLOCK,Live,ok,ok=1,rot=0" \
		"$r0,$ready,$held$(unloads_after af_packet)" \
		"an open AF_PACKET socket keeps its in-tree protocol family from unloading, forced or not; closed, it unloads"
else
	row proto-in-use "present" "missing" "af_packet.ko is in the guest"
fi

# A callback that is running most of the time: the look is taken with
# every other CPU stopped, so it is never missed half way through.
r0=$(load_raw lostimer "where=heap busy=1")
$ROTCTL delete lostimer 0 >/dev/null
busy=0
i=0
while [ $i -lt 10 ]; do
	[ "$($ROTCTL reclaim lostimer)" = EBUSY ] && busy=$((busy + 1))
	i=$((i + 1))
done
f=$($ROTCTL reclaim lostimer force)
sleep 0.3
row running-callback "ok,busy=10,EBUSY,rot=3" "$r0,busy=$busy,$f,rot=$(rotting_count lostimer)" \
	"a timer callback running 40 ms of every 50 is seen by every one of 10 reclaims, and by a forced one, which stops nothing (the last row: the timer runs on)"
