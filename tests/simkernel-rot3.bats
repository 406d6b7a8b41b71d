#!/usr/bin/env bats
# simkernel, rot mode, revision 3: the rules the simulator follows beyond
# the ioctl itself (simkernel-ioctl.bats): U7 (a crypto or livepatch
# module refuses to unload while pinned), R5's bounded wait of a forced
# reclaim (create --reclaim-wait MS), and the kernel log and audit record
# (R4, R5, R7: `simkernel dmesg`).

bats_require_minimum_version 1.5.0

load helpers/rot3

REL=6.1.0-sim

# a depmod tree holding the fixture FILE, so that modprobe finds it
install_fixture() {
	mkdir -p "$K/root/lib/modules/$REL/kernel/test"
	cp "$(fixture "$1")" "$K/root/lib/modules/$REL/kernel/test/"
	depmod -b "$K/root" "$REL" 2>/dev/null
}

# `simkernel state` shows no timer= any more: a forced reclaim's first
# look stopped it (wait for it with wait_until timer_stopped)
timer_stopped() {
	! sim_state | grep -q ' timer='
}

ms() { echo $(($(date +%s%N) / 1000000)); }

# a reclaim a failed test left waiting (bounds of 10 minutes) must not outlive it
teardown() {
	for pid in ${first:-} ${second:-}; do kill "$pid" 2>/dev/null || true; done
}

# --- U7 ---------------------------------------------------------------

@test "U7: a pinned crypto template refuses delete_module with EWOULDBLOCK, forced or not; nothing changes" {
	sim_create rot --abi 3
	load_fx cbc
	"$SIMKERNEL" pin "$K" cbc
	refused_deletes cbc EWOULDBLOCK 0 0x800 0x200 0xa00
	run sim_run cat /proc/modules
	assert_output --regexp "^cbc [0-9]+ 0 - Live $ADDR\$"
	run sim_run cat /sys/module/cbc/refcnt
	assert_output 0
	run sim_run cat /proc/rotting_modules
	assert_output ''
	run "$SIMKERNEL" ledger "$K"
	refute_output --partial ' rot '
	# unpinned, it unloads as any module does
	"$SIMKERNEL" unpin "$K" cbc
	run sim_run "$SYSC" delete cbc 0
	assert_output ok
	run sim_state
	assert_output --regexp "^rotting cbc [0-9]+ $ADDR
taint 0\$"
	sim_ledger_check
}

@test "U7: rmmod, rmmod -f and modprobe -r say the module is in use and exit 1; modreap finds nothing rotting" {
	sim_create rot --abi 3
	install_fixture cbc
	load_fx cbc
	"$SIMKERNEL" pin "$K" cbc 2
	before=$(sim_state)
	for f in "" -f; do
		run --separate-stderr sim_run "$top_builddir/tools/rmmod" $f cbc
		assert_equal "$status" 1
		assert_equal "$output" ""
		assert_equal "$stderr" "rmmod: ERROR: Module cbc is in use"
		run --separate-stderr sim_run "$top_builddir/tools/modprobe" -r $f cbc
		assert_equal "$status" 1
		assert_equal "$stderr" "modprobe: ERROR: could not remove 'cbc': Resource temporarily unavailable"
	done
	run --separate-stderr sim_run "$top_builddir/tools/modreap" cbc
	assert_equal "$status" 1
	assert_equal "$stderr" "modreap: ERROR: Module cbc has no rotting instances"
	assert_equal "$(sim_state)" "$before"
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 0
}

@test "U7: a livepatch refuses while its patch pins it; disabled (unpinned), it unloads and is reclaimed" {
	sim_create rot --abi 3
	run sim_run "$SYSC" finit "$(fixture livepatch-sample)"
	assert_output ok
	"$SIMKERNEL" pin "$K" livepatch_sample
	run sim_run "$SYSC" delete livepatch_sample 0x200
	assert_output EWOULDBLOCK
	run sim_state
	assert_output --regexp "^live livepatch_sample [0-9]+ $ADDR Live refcnt=0 holders=- permanent=0 pins=1
taint 0\$"
	"$SIMKERNEL" unpin "$K" livepatch_sample
	run sim_run "$SYSC" delete livepatch_sample 0
	assert_output ok
	run sim_run "$SYSC" reclaim livepatch_sample
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
}

@test "U7 is only for modules that ask: any other pinned module unloads (C3); the key works from DIR/behaviour too" {
	sim_create rot --abi 3
	load_fx delta
	"$SIMKERNEL" pin "$K" delta
	run sim_run "$SYSC" delete delta 0
	assert_output ok
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR pins=1
taint 0\$"
	"$SIMKERNEL" set "$K" delta pins_block_unload=1
	load_fx delta
	"$SIMKERNEL" pin "$K" delta
	run sim_run "$SYSC" delete delta 0x200
	assert_output EWOULDBLOCK
	# holders still come first (C2), as in the kernel's order
	load_fx alpha
	"$SIMKERNEL" set "$K" alpha pins_block_unload=1
	sim_run "$SYSC" delete alpha 0
	load_fx alpha
	"$SIMKERNEL" pin "$K" alpha
	load_fx beta
	run sim_run "$SYSC" delete alpha 0
	assert_output EWOULDBLOCK
	run sim_run "$SYSC" delete beta 0
	assert_output ok
	run sim_run "$SYSC" delete alpha 0
	assert_output EWOULDBLOCK
}

@test "U7 on --abi 2 and on a stock kernel: revision 2 counted no pins; stock refuses a reference unless forced" {
	sim_create rot --abi 2
	load_fx cbc
	"$SIMKERNEL" pin "$K" cbc
	run sim_run "$SYSC" delete cbc 0
	assert_output ok
	sim_create stock
	load_fx cbc
	"$SIMKERNEL" pin "$K" cbc
	run sim_run "$SYSC" delete cbc 0
	assert_output EWOULDBLOCK
	run sim_run "$SYSC" delete cbc 0x200
	assert_output ok
	run sim_state
	assert_output 'taint 8'
}

# --- R5: the forced reclaim's bounded wait -----------------------------

@test "R5: forced, a task inside is waited for, bounded; then it is kept with ROT_KEPT_RUNNING and a log line" {
	sim_create rot --abi 3 --reclaim-wait 400
	load_fx delta
	"$SIMKERNEL" pin "$K" delta
	"$SIMKERNEL" hold "$K" delta task
	"$SIMKERNEL" hold "$K" delta timer
	sim_run "$SYSC" delete delta 0
	t0=$(ms)
	run sim_run "$SYSC" reclaim -r delta 1
	t1=$(ms)
	assert_failure 1
	assert_output "EBUSY
freed=0 kept=1 why=pin,task,running pins=1 tasks=1 callbacks=0 probes=0 bytes=0 percpu=0"
	# it waited its bound, no less (an upper bound would time the machine)
	[ $((t1 - t0)) -ge 400 ] || fail "returned after $((t1 - t0)) ms"
	# the timer was stopped; the pin and the task stay
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR pins=1 task=1
taint 0\$"
	run "$SIMKERNEL" dmesg "$K"
	assert_output "delta: a rotting instance is still in use (pins 1, tasks 1, callbacks 0, kprobes 0, still running after a forced reclaim's wait): not reclaimed
audit: type=1330 op=reclaim name=\"delta\" freed=0 kept=1 res=0"
	# not forced: no wait, no ROT_KEPT_RUNNING
	run sim_run "$SYSC" reclaim -r delta
	assert_output "EBUSY
freed=0 kept=1 why=pin,task pins=1 tasks=1 callbacks=0 probes=0 bytes=0 percpu=0"
}

@test "R5: forced, pins and kprobes alone are not waited for; stopped timers, work and RCU need no wait" {
	sim_create rot --abi 3 --reclaim-wait 600000
	load_fx delta
	"$SIMKERNEL" pin "$K" delta
	"$SIMKERNEL" hold "$K" delta kprobe
	sim_run "$SYSC" delete delta 0
	load_fx delta
	for kind in timer work rcu; do "$SIMKERNEL" hold "$K" delta $kind 2; done
	sim_run "$SYSC" delete delta 0
	# with a 10-minute bound, a wait would end in bats' timeout, not here
	run timeout 60 "$SIMKERNEL" run "$K" -- "$SYSC" reclaim -r delta 1
	assert_output --regexp "^ok=1
freed=1 kept=1 why=pin,kprobe pins=1 tasks=0 callbacks=0 probes=1 bytes=[0-9]+ percpu=0\$"
}

@test "R5: a callback that comes back at every look is kept as a timer, with ROT_KEPT_RUNNING once the wait ran out" {
	sim_create rot --abi 3 --reclaim-wait 0
	load_fx delta
	"$SIMKERNEL" hold "$K" delta running
	sim_run "$SYSC" delete delta 0
	run sim_run "$SYSC" reclaim -r delta 1
	assert_output "EBUSY
freed=0 kept=1 why=timer,running pins=0 tasks=0 callbacks=1 probes=0 bytes=0 percpu=0"
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR running=1
taint 0\$"
}

@test "R5: the wait ends as soon as the task leaves; loads and unloads go on meanwhile, other reclaims wait behind it" {
	sim_create rot --abi 3 --reclaim-wait 600000
	load_fx delta
	"$SIMKERNEL" hold "$K" delta task
	"$SIMKERNEL" hold "$K" delta timer
	sim_run "$SYSC" delete delta 0
	size=$(grep ' rot delta ' "$K/ledger" | awk '{ print $5 }')
	load_fx alpha
	sim_run "$SYSC" delete alpha 0
	"$SIMKERNEL" run "$K" -- "$SYSC" reclaim -r delta 1 > "$BATS_TEST_TMPDIR/first" &
	first=$!
	# its first look stopped the timer: it is in its wait now
	wait_until timer_stopped
	run sim_run "$SYSC" finit "$(fixture gamma)"
	assert_output ENOENT # gamma needs beta: the loader ran, under the state lock
	run sim_run "$SYSC" finit "$(fixture beta)"
	assert_output ENOENT # beta needs alpha, which rots
	run sim_run "$SYSC" finit "$(fixture alpha)"
	assert_output ok
	run sim_run "$SYSC" delete alpha 0
	assert_output ok
	"$SIMKERNEL" run "$K" -- "$SYSC" reclaim alpha > "$BATS_TEST_TMPDIR/second" &
	second=$!
	wait_syscall "$second" 271 # ppoll(2): behind the first, waiting for the reclaim lock
	kill -0 "$first"
	"$SIMKERNEL" release "$K" delta task
	wait "$first"
	wait "$second"
	run cat "$BATS_TEST_TMPDIR/first"
	assert_output "ok=1
freed=1 kept=0 why=- pins=0 tasks=0 callbacks=0 probes=0 bytes=$size percpu=0"
	run cat "$BATS_TEST_TMPDIR/second"
	assert_output ok=2
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "R6: a forced reclaim in its wait, and one waiting behind it, end with EINTR on a caught signal; nothing freed" {
	sim_create rot --abi 3 --reclaim-wait 600000
	load_fx delta
	"$SIMKERNEL" hold "$K" delta task
	"$SIMKERNEL" hold "$K" delta work
	sim_run "$SYSC" delete delta 0
	load_fx alpha
	sim_run "$SYSC" delete alpha 0
	"$SIMKERNEL" run "$K" -- "$SYSC" reclaim -s delta 1 > "$BATS_TEST_TMPDIR/first" &
	first=$!
	wait_syscall "$first" 271 # ppoll(2): in its wait
	"$SIMKERNEL" run "$K" -- "$SYSC" reclaim -s alpha > "$BATS_TEST_TMPDIR/second" &
	second=$!
	wait_syscall "$second" 271 # ppoll(2): waiting for the reclaim lock
	kill -USR1 "$second"
	wait "$second" || true
	run cat "$BATS_TEST_TMPDIR/second"
	assert_output EINTR
	kill -USR1 "$first"
	wait "$first" || true
	run cat "$BATS_TEST_TMPDIR/first"
	assert_output EINTR
	# the work it stopped stays stopped; nothing was freed, no taint
	run sim_state
	assert_output --regexp "^rotting alpha [0-9]+ $ADDR
rotting delta [0-9]+ $ADDR task=1
taint 0\$"
	run "$SIMKERNEL" dmesg "$K"
	assert_output 'audit: type=1330 op=reclaim name="alpha" freed=0 kept=0 res=0
audit: type=1330 op=reclaim name="delta" freed=0 kept=0 res=0'
	run "$SIMKERNEL" ledger "$K"
	refute_output --partial reclaim
}

# --- R4, R7: the kernel log and the audit record ------------------------

@test "R7: a reclaim logs what it freed and what it kept; every request past its checks is audited, others are not" {
	sim_create rot --abi 3
	rot_delta 2 0
	load_fx delta
	"$SIMKERNEL" pin "$K" delta 2
	"$SIMKERNEL" hold "$K" delta kprobe
	sim_run "$SYSC" delete delta 0
	size=$(grep ' rot delta ' "$K/ledger" | awk 'NR == 1 { print $5 }')
	run sim_run "$SYSC" reclaim delta
	assert_output ok=2
	run sim_run "$SYSC" reclaim delta
	assert_output EBUSY
	run sim_run "$SYSC" reclaim ghost
	assert_output ENOENT
	run sim_run "$SYSC" reclaim 'a "b'
	assert_output ENOENT
	run sim_run "$SYSC" reclaim "$(printf 'x%.0s' $(seq 60))"
	assert_output ENOENT
	# refused before the request is looked at: no record
	run sim_run "$SYSC" reclaim delta 2
	assert_output EINVAL
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" reclaim delta
	assert_output EPERM
	run sim_run "$SYSC" reclaim -w delta
	assert_output EBADF
	run "$SIMKERNEL" dmesg "$K"
	assert_output "delta: a rotting instance is still in use (pins 2, tasks 0, callbacks 0, kprobes 1): not reclaimed
delta: reclaimed 2 rotting instances, $((2 * size)) bytes, others still in use
audit: type=1330 op=reclaim name=\"delta\" freed=2 kept=1 res=1
delta: a rotting instance is still in use (pins 2, tasks 0, callbacks 0, kprobes 1): not reclaimed
audit: type=1330 op=reclaim name=\"delta\" freed=0 kept=1 res=0
audit: type=1330 op=reclaim name=\"ghost\" freed=0 kept=0 res=0
audit: type=1330 op=reclaim name=61202262 freed=0 kept=0 res=0
audit: type=1330 op=reclaim name=\"$(printf 'x%.0s' $(seq 60))\" freed=0 kept=0 res=0"
}

@test "the log starts empty, create empties it, and dmesg of no kernel fails with one line" {
	sim_create rot --abi 3
	run "$SIMKERNEL" dmesg "$K"
	assert_success
	assert_output ''
	run "$SIMKERNEL" dmesg "$BATS_TEST_TMPDIR/none"
	assert_failure 1
	assert_output "simkernel: $BATS_TEST_TMPDIR/none/kmsg: No such file or directory"
	run "$SIMKERNEL" dmesg
	assert_failure 2
	run "$SIMKERNEL" create "$K" --mode stock --reclaim-wait 5
	assert_failure 2
	run "$SIMKERNEL" create "$K" --reclaim-wait -1
	assert_failure 2
	run "$SIMKERNEL" create "$K" --reclaim-wait 600001
	assert_failure 2
}
