#!/usr/bin/env bats
# simkernel, rot mode, revision 4 (the default): /proc/module_pins (D5,
# C5), MODULE_ROT_SAFE (C4) and the unload it allows while pinned (U8),
# rotting users (P7), the scan's references (R10, `simkernel hold DIR NAME
# ref WHERE`), ROT_IOC_RECLAIM4 and revision 3's request answered from
# the same scan (R11), the forced reclaim that only looks again (R12) and
# the log line (R13). Revision 3's own rules are simkernel-ioctl.bats'
# and simkernel-rot3.bats' (with --abi 3).

bats_require_minimum_version 1.5.0

load helpers/rot3

setup() {
	sim_create rot --reclaim-wait 200
}

@test "revision 4 is the default; /proc/module_pins lists every module of /proc/modules, in its order (D5, C5)" {
	run grep '^abi=' "$K/config"
	assert_output abi=4
	run sim_run cat /proc/module_pins
	assert_success
	assert_output ''
	load_fx rotsafe
	load_delta
	run "$SIMKERNEL" pin "$K" delta 2
	assert_success
	run sim_run cat /proc/module_pins
	assert_output 'delta 2 -
rotsafe 0 safe'
	# the same order as /proc/modules, and C1 still holds
	run sim_run awk '{ print $1, $3 }' /proc/modules
	assert_output 'delta 0
rotsafe 0'
	run sim_run cat /sys/module/delta/refcnt
	assert_output 0
	# no pointer in it: the same file for a reader without CAP_SYSLOG
	run "$SIMKERNEL" run "$K" --nocap -- cat /proc/module_pins
	assert_output 'delta 2 -
rotsafe 0 safe'
}

@test "--abi 3 and older have no /proc/module_pins, and no ROT_IOC_RECLAIM4 (ENOTTY, D3)" {
	for abi in 3 2 1; do
		sim_create rot --abi "$abi"
		load_delta
		run sim_run cat /proc/module_pins
		assert_failure
		run sim_run test -e /proc/module_pins
		assert_failure
		run sim_run "$SYSC" reclaim -4 delta
		assert_output ENOTTY
	done
	run grep '^abi=' "$K/config"
	assert_output abi=1
}

@test "U8: a pinned module that did not declare MODULE_ROT_SAFE refuses delete_module, forced or not; nothing changes" {
	load_delta
	"$SIMKERNEL" pin "$K" delta
	refused_deletes delta EWOULDBLOCK 0x800 0x0 0x200 0xa00
	run sim_state
	assert_output --regexp "^live delta $DELTA_SIZE $ADDR Live refcnt=0 holders=- permanent=0 pins=1
taint 0\$"
	# unpinned, it unloads and rots
	"$SIMKERNEL" unpin "$K" delta
	run sim_run "$SYSC" delete delta 0x800
	assert_output ok
	run sim_state
	assert_output --regexp "^rotting delta $DELTA_SIZE $ADDR
taint 0\$"
}

@test "U8: a module that declared it (rot=safe) unloads while pinned; its pins move into rot (C4, P1)" {
	load_fx rotsafe
	run sim_run "$top_builddir/tools/modinfo" -F rot "$(fixture rotsafe)"
	assert_output safe
	"$SIMKERNEL" pin "$K" rotsafe 2
	run sim_run "$SYSC" delete rotsafe 0x800
	assert_output ok
	run sim_run awk '{ print $1, $3 }' /proc/rotting_modules
	assert_output 'rotsafe 2'
	run sim_run cat /proc/module_pins
	assert_output ''
	# the behaviour key makes any module safe, and rot_safe=0 takes it back
	"$SIMKERNEL" set "$K" delta rot_safe=1
	load_delta
	"$SIMKERNEL" pin "$K" delta
	run sim_run cat /proc/module_pins
	assert_output 'delta 1 safe'
	run sim_run "$SYSC" delete delta 0
	assert_output ok
	"$SIMKERNEL" set "$K" rotsafe rot_safe=0
	load_fx rotsafe
	"$SIMKERNEL" pin "$K" rotsafe
	run sim_run "$SYSC" delete rotsafe 0x200
	assert_output EWOULDBLOCK
}

@test "U8 replaces U7: pins_block_unload changes nothing on revision 4; a mount pins and refuses too" {
	load_fx cbc
	"$SIMKERNEL" pin "$K" cbc
	refused_deletes cbc EWOULDBLOCK 0x800 0x200
	"$SIMKERNEL" unpin "$K" cbc
	run sim_run "$SYSC" delete cbc 0x800
	assert_output ok
	# a file system type's module, mounted: pinned, so refused (plainfs declares nothing)
	load_fx plainfs
	run "$SIMKERNEL" mount "$K" plainfs
	assert_success
	run sim_run cat /proc/module_pins
	assert_output 'plainfs 1 -'
	refused_deletes plainfs EWOULDBLOCK 0x800 0x200
	run "$SIMKERNEL" umount "$K" /mnt/plainfs
	assert_success
	run sim_run "$SYSC" delete plainfs 0x800
	assert_output ok
}

@test "R10, R11: a reference the scan finds keeps the instance; the reply names where, refs counts it" {
	rot_delta
	run "$SIMKERNEL" hold "$K" delta ref 'slab kmalloc-64 object'
	assert_success
	before=$(sim_state)
	run sim_run "$SYSC" reclaim -4 -r delta
	assert_failure 1
	assert_output "EBUSY
freed=0 kept=1 why=ref pins=0 tasks=0 refs=1 probes=0 bytes=0 percpu=0 where=slab kmalloc-64 object"
	assert_equal "$(sim_state)" "$before"
	# revision 3's request is answered from the same scan: callbacks counts refs
	run sim_run "$SYSC" reclaim -r delta
	assert_output "EBUSY
freed=0 kept=1 why=ref pins=0 tasks=0 callbacks=1 probes=0 bytes=0 percpu=0"
	run "$SIMKERNEL" release "$K" delta ref
	assert_success
	run sim_run "$SYSC" reclaim -4 -r delta
	assert_output "ok=1
freed=1 kept=0 why=- pins=0 tasks=0 refs=0 probes=0 bytes=$DELTA_SIZE percpu=0 where="
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "R10: every hold is a reference; a task's is found on its stack, after the others; kprobes count as refs" {
	rot_delta
	"$SIMKERNEL" hold "$K" delta task
	run sim_run "$SYSC" reclaim -4 -r delta
	assert_output --regexp "^EBUSY
freed=0 kept=1 why=task pins=0 tasks=1 refs=0 probes=0 bytes=0 percpu=0 where=task [0-9]+ \([^)]+\) stack\$"
	"$SIMKERNEL" hold "$K" delta kprobe 2
	"$SIMKERNEL" hold "$K" delta timer
	run sim_run "$SYSC" reclaim -4 -r delta
	assert_output "EBUSY
freed=0 kept=1 why=task,ref pins=0 tasks=1 refs=3 probes=0 bytes=0 percpu=0 where=per-CPU data of CPU 0"
	# the stray= of a fixture is such a reference too
	load_fx straytimer
	sim_run "$SYSC" delete straytimer 0x800
	run sim_run "$SYSC" reclaim -4 -r straytimer
	assert_output "EBUSY
freed=0 kept=1 why=ref pins=0 tasks=0 refs=1 probes=0 bytes=0 percpu=0 where=per-CPU data of CPU 0"
	run "$SIMKERNEL" hold "$K" delta ref
	assert_equal "$status" 2
	run "$SIMKERNEL" hold "$K" delta ref "$(printf 'bad\tword')"
	assert_equal "$status" 2
}

@test "R12: forced, it looks again for a bounded time and frees nothing still referenced; it stops nothing" {
	load_fx straytimer
	sim_run "$SYSC" delete straytimer 0x800
	start=$(date +%s%N)
	run sim_run "$SYSC" reclaim -4 -r straytimer 1
	assert_output "EBUSY
freed=0 kept=1 why=ref pins=0 tasks=0 refs=1 probes=0 bytes=0 percpu=0 where=per-CPU data of CPU 0"
	elapsed=$((($(date +%s%N) - start) / 1000000))
	[ "$elapsed" -ge 200 ] || fail "the forced reclaim did not look again for its bound: $elapsed ms"
	# the timer was not stopped: it still keeps the instance
	run sim_state
	assert_output --regexp "^rotting straytimer [0-9]+ $ADDR timer=1
taint 0\$"
	# pins alone are answered at once, forced or not
	sim_create rot --reclaim-wait 600000
	load_fx rotsafe
	"$SIMKERNEL" pin "$K" rotsafe
	sim_run "$SYSC" delete rotsafe 0x800
	run timeout 60 "$SIMKERNEL" run "$K" -- "$SYSC" reclaim -4 -r rotsafe 1
	assert_output --regexp "^EBUSY
freed=0 kept=1 why=pin pins=1 tasks=0 refs=0 probes=0 bytes=0 percpu=0 where=\$"
}

@test "R12: a forced reclaim frees the instance once the reference goes during its wait" {
	sim_create rot --reclaim-wait 600000
	rot_delta
	"$SIMKERNEL" hold "$K" delta ref 'kernel data some_table'
	"$SIMKERNEL" run "$K" -- "$SYSC" reclaim -4 -r delta 1 > "$BATS_TEST_TMPDIR/out" &
	pid=$!
	wait_syscall "$pid" 271 # ppoll(2): asleep between two looks
	kill -0 "$pid"
	"$SIMKERNEL" release "$K" delta ref
	wait "$pid"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_output "ok=1
freed=1 kept=0 why=- pins=0 tasks=0 refs=0 probes=0 bytes=$DELTA_SIZE percpu=0 where="
}

@test "P7: a rotting instance keeps the instances it used from reclaim, named as its rotting user" {
	load_fx alpha
	load_fx beta
	sim_run "$SYSC" delete beta 0x800
	run sim_run "$SYSC" delete alpha 0x800
	assert_output ok # P6: its user rots, so it unloads
	run sim_run "$SYSC" reclaim -4 -r alpha
	assert_output "EBUSY
freed=0 kept=1 why=user pins=0 tasks=0 refs=0 probes=0 bytes=0 percpu=0 where=rotting user beta"
	# forced, users are not waited for: answered at once
	run sim_run "$SYSC" reclaim -4 alpha 1
	assert_output EBUSY
	run sim_run "$SYSC" reclaim beta
	assert_output ok=1
	run sim_run "$SYSC" reclaim -4 alpha
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "R13: a kept instance's log line names the reference; pins alone name none" {
	rot_delta
	"$SIMKERNEL" hold "$K" delta ref 'module gamma'
	run sim_run "$SYSC" reclaim -4 delta
	assert_output EBUSY
	load_fx rotsafe
	"$SIMKERNEL" pin "$K" rotsafe 3
	sim_run "$SYSC" delete rotsafe 0
	run sim_run "$SYSC" reclaim rotsafe
	assert_output EBUSY
	run "$SIMKERNEL" dmesg "$K"
	assert_output 'delta: a rotting instance is still referenced (pins 0, tasks 0, refs 1) from module gamma: not reclaimed
audit: type=1330 op=reclaim name="delta" freed=0 kept=1 res=0
rotsafe: a rotting instance is still referenced (pins 3, tasks 0, refs 0): not reclaimed
audit: type=1330 op=reclaim name="rotsafe" freed=0 kept=1 res=0'
}

@test "--reclaim-checks n is refused on revision 4 (D2: the scan is always built), which reads Y" {
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_output Y
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k2" --reclaim-checks n
	assert_equal "$status" 2
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k2" --abi 4 --reclaim-checks n
	assert_equal "$status" 2
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k2" --abi 3 --reclaim-checks n
	assert_success
	run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/k2" --abi 5
	assert_equal "$status" 2
}
