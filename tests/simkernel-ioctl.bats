#!/usr/bin/env bats
# simkernel, rot mode, revision 3: ioctl(ROT_IOC_RECLAIM) on
# /proc/rotting_modules (rot-abi.md R1-R9), pins (C3, P1) and what else
# keeps an instance (`simkernel hold`), and the refused delete_module (U6).
# Revision 2's delete_module reclaim is in simkernel-reclaim.bats.

load helpers/rot3

setup() {
	sim_create rot --abi 3
}

@test "the ioctl frees every rotting instance of the name, returns the count, fills the reply and taints R (R1, R3)" {
	rot_delta 2
	run sim_run "$SYSC" reclaim -r delta
	assert_success
	assert_output "ok=2
freed=2 kept=0 why=- pins=0 tasks=0 callbacks=0 probes=0 bytes=$((2 * DELTA_SIZE)) percpu=0"
	run sim_state
	assert_output 'taint 8'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' reclaim delta ' <<< "$output")" 2
	sim_ledger_check
}

@test "the ioctl leaves a live module of that name alone (R1)" {
	rot_delta
	load_delta
	run sim_run "$SYSC" reclaim delta
	assert_output ok=1
	run sim_state
	assert_output --regexp "^live delta $DELTA_SIZE $ADDR Live refcnt=0 holders=- permanent=0
taint 8\$"
}

@test "nothing of that name rots: ENOENT, the reply untouched, no taint (R2, R3)" {
	load_delta
	run sim_run "$SYSC" reclaim -r delta
	assert_failure 1
	assert_output ENOENT
	run sim_state
	assert_output --regexp "^live delta [0-9]+ $ADDR Live refcnt=0 holders=- permanent=0
taint 0\$"
}

@test "a failed init's reclaim counts core and init; per-CPU bytes come back in the reply (R1, R9)" {
	run sim_run "$SYSC" finit "$(fixture pcpufail)"
	assert_output ENODEV
	size=$(sim_run awk '{ print $2 }' /proc/rotting_modules)
	run sim_run "$SYSC" reclaim -r pcpufail
	assert_output "ok=1
freed=1 kept=0 why=- pins=0 tasks=0 callbacks=0 probes=0 bytes=$size percpu=1000"
	run sim_run head -1 /proc/module_percpu
	assert_output 'reserve 8192 free 8192 largest 8192'
	sim_ledger_check
}

@test "pins show in rotting_modules' third column only: /proc/modules and refcnt stay 0 (C1, C3, P1)" {
	load_delta
	run "$SIMKERNEL" pin "$K" delta 3
	assert_success
	run sim_run awk '{ print $3 }' /proc/modules
	assert_output 0
	run sim_run cat /sys/module/delta/refcnt
	assert_output 0
	run sim_state
	assert_output --regexp "^live delta [0-9]+ $ADDR Live refcnt=0 holders=- permanent=0 pins=3
taint 0\$"
	run sim_run "$SYSC" delete delta 0x800
	assert_output ok # pins never block an unload (C3)
	run sim_run cat /proc/rotting_modules
	assert_output --regexp "^delta [0-9]+ 3 \[rotting\], Rotting $ADDR\$"
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR pins=3
taint 0\$"
}

@test "a pinned instance is kept, even forced: EBUSY, the reply counts the pins, nothing changes (R4, R5)" {
	load_delta
	"$SIMKERNEL" pin "$K" delta 2
	sim_run "$SYSC" delete delta 0x800
	before=$(sim_state)
	for flags in 0 1; do
		run sim_run "$SYSC" reclaim -r delta $flags
		assert_failure 1
		assert_output "EBUSY
freed=0 kept=1 why=pin pins=2 tasks=0 callbacks=0 probes=0 bytes=0 percpu=0"
		run sim_state
		assert_output "$before"
	done
	run "$SIMKERNEL" ledger "$K"
	refute_output --partial reclaim
	"$SIMKERNEL" unpin "$K" delta 2
	run sim_run cat /proc/rotting_modules
	assert_output --regexp "^delta [0-9]+ 0 \[rotting\]"
	run sim_run "$SYSC" reclaim delta
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
	sim_ledger_check
}

@test "each thing reclaim finds inside keeps the instance and is named in why (R4)" {
	for kind in task timer work rcu kprobe running; do
		sim_create rot --abi 3
		load_delta
		"$SIMKERNEL" hold "$K" delta $kind 2
		sim_run "$SYSC" delete delta 0x800
		run sim_run "$SYSC" reclaim -r delta
		assert_failure 1
		case $kind in
		task) counts='tasks=2 callbacks=0 probes=0' ;;
		kprobe) counts='tasks=0 callbacks=0 probes=1' ;; # instances, not kprobes (R4)
		*) counts='tasks=0 callbacks=2 probes=0' ;;
		esac
		# a callback that comes back is seen as a timer; ROT_KEPT_RUNNING
		# is only for a forced reclaim whose wait ran out (R4, R5)
		why=$kind
		[ $kind = running ] && why=timer
		assert_output "EBUSY
freed=0 kept=1 why=$why pins=0 $counts bytes=0 percpu=0"
		run sim_state
		assert_output --regexp "^rotting delta [0-9]+ $ADDR $kind=2
taint 0\$"
	done
}

@test "kept and freed instances of one name: the free ones go, the reply counts both (R1, R4)" {
	rot_delta
	load_delta
	"$SIMKERNEL" pin "$K" delta
	"$SIMKERNEL" hold "$K" delta task
	sim_run "$SYSC" delete delta 0x800
	rot_delta
	run sim_run "$SYSC" reclaim -r delta
	assert_output "ok=2
freed=2 kept=1 why=pin,task pins=1 tasks=1 callbacks=0 probes=0 bytes=$((2 * DELTA_SIZE)) percpu=0"
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR pins=1 task=1
taint 8\$"
	sim_ledger_check
}

@test "forced: timers, work and RCU callbacks are stopped and the instance freed; tasks, kprobes, running stay (R5)" {
	sim_create rot --abi 3 --reclaim-wait 0
	load_delta
	for kind in timer work rcu; do "$SIMKERNEL" hold "$K" delta $kind; done
	sim_run "$SYSC" delete delta 0x800
	load_delta
	for kind in timer task kprobe running; do "$SIMKERNEL" hold "$K" delta $kind; done
	sim_run "$SYSC" delete delta 0x800
	run sim_run "$SYSC" reclaim -r delta 1
	assert_output "ok=1
freed=1 kept=1 why=task,timer,kprobe,running pins=0 tasks=1 callbacks=1 probes=1 bytes=$DELTA_SIZE percpu=0"
	# the kept instance's timer was stopped too
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR task=1 kprobe=1 running=1
taint 8\$"
	sim_ledger_check
}

@test "the straytimer fixture's timer keeps it until forced (R4, R5)" {
	load_fx straytimer
	sim_run "$SYSC" delete straytimer 0
	run sim_run "$SYSC" reclaim -r straytimer
	assert_output --partial "why=timer pins=0 tasks=0 callbacks=1"
	run sim_run "$SYSC" reclaim straytimer 1
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
}

@test "--reclaim-checks n: only pins and kprobes are refused (D2)" {
	sim_create rot --abi 3 --reclaim-checks n
	load_delta
	for kind in task timer work rcu running; do "$SIMKERNEL" hold "$K" delta $kind; done
	sim_run "$SYSC" delete delta 0x800
	load_delta
	"$SIMKERNEL" hold "$K" delta kprobe
	"$SIMKERNEL" pin "$K" delta
	sim_run "$SYSC" delete delta 0x800
	run sim_run "$SYSC" reclaim -r delta
	assert_output "ok=1
freed=1 kept=1 why=pin,kprobe pins=1 tasks=0 callbacks=0 probes=1 bytes=$DELTA_SIZE percpu=0"
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR pins=1 kprobe=1
taint 8\$"
}

@test "EINVAL: unknown flag bits, an empty name, a name not terminated within 64 bytes (R6)" {
	rot_delta
	before=$(sim_state)
	run sim_run "$SYSC" reclaim delta 2
	assert_output EINVAL
	run sim_run "$SYSC" reclaim delta 0x80000001
	assert_output EINVAL
	run sim_run "$SYSC" reclaim ''
	assert_output EINVAL
	run sim_run "$SYSC" reclaim "$(printf 'd%.0s' $(seq 64))"
	assert_output EINVAL
	run sim_run "$SYSC" reclaim "$(printf 'd%.0s' $(seq 63))"
	assert_output ENOENT
	run sim_state
	assert_output "$before"
}

@test "EPERM without CAP_SYS_MODULE or with module loading disabled; nothing freed (R6)" {
	rot_delta
	before=$(sim_state)
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" reclaim delta
	assert_output EPERM
	run sim_state
	assert_output "$before"
	sim_create rot --abi 3 --modules-disabled
	run sim_run "$SYSC" reclaim delta
	assert_output EPERM
}

@test "EBADF on a write-only fd; ENOTTY for another request number or another file (R6)" {
	rot_delta
	before=$(sim_state)
	run sim_run "$SYSC" reclaim -w delta
	assert_output EBADF
	run sim_run "$SYSC" reclaim -n 0xc070b802 delta
	assert_output ENOTTY
	run sim_run "$SYSC" reclaim -f /proc/modules delta
	assert_output ENOTTY
	run sim_run "$SYSC" reclaim -f /dev/null delta
	assert_output ENOTTY
	run sim_state
	assert_output "$before"
}

@test "delete_module with MODULE_RECLAIM is EINVAL on revision 3, whatever else is set, and changes nothing (U6)" {
	rot_delta
	load_delta
	refused_deletes delta EINVAL 0x40000000 0x40000200 0x40000800 0x40000a00
	run "$SIMKERNEL" ledger "$K"
	refute_output --partial reclaim
}

@test "--abi 2: the ioctl is ENOTTY, delete_module reclaims, pins are not shown nor refused (D3, R8)" {
	sim_create rot --abi 2
	load_delta
	"$SIMKERNEL" pin "$K" delta 2
	sim_run "$SYSC" delete delta 0x800
	run sim_run cat /proc/rotting_modules
	assert_output --regexp "^delta [0-9]+ 0 \[rotting\]"
	run sim_run "$SYSC" reclaim delta
	assert_output ENOTTY
	run sim_run cat /sys/module/module/parameters/rot_reclaim_checks
	assert_output Y
	run sim_run "$SYSC" delete delta 0x40000000
	assert_output ok=1
	run sim_state
	assert_output 'taint 8'
	sim_create rot --abi 1
	rot_delta
	run sim_run "$SYSC" reclaim delta
	assert_output ENOTTY
}

@test "pin, unpin, hold and release: errors and a stock kernel's pin as a reference" {
	run "$SIMKERNEL" pin "$K" delta
	assert_failure 1
	assert_output --partial 'no live module of that name'
	load_delta
	run "$SIMKERNEL" pin "$K" delta 0
	assert_failure 2
	run "$SIMKERNEL" hold "$K" delta ghost
	assert_failure 2
	"$SIMKERNEL" pin "$K" delta 2
	run "$SIMKERNEL" unpin "$K" delta 3
	assert_failure 1
	assert_output --partial 'fewer pins than that'
	run "$SIMKERNEL" release "$K" delta timer
	assert_failure 1
	"$SIMKERNEL" unpin "$K" delta
	run sim_state
	assert_output --regexp "^live delta [0-9]+ $ADDR Live refcnt=0 holders=- permanent=0 pins=1
taint 0\$"
	# hold with nothing live goes to the newest rotting instance
	sim_run "$SYSC" delete delta 0
	rot_delta
	"$SIMKERNEL" hold "$K" delta work 3
	"$SIMKERNEL" release "$K" delta work
	run sim_state
	assert_output --regexp "^rotting delta [0-9]+ $ADDR work=2
rotting delta [0-9]+ $ADDR pins=1
taint 0\$"
	sim_create stock
	load_delta
	"$SIMKERNEL" pin "$K" delta
	run sim_run cat /sys/module/delta/refcnt
	assert_output 1
	run sim_run "$SYSC" delete delta 0x800
	assert_output EWOULDBLOCK
	"$SIMKERNEL" unpin "$K" delta
	run sim_run "$SYSC" delete delta 0x800
	assert_output ok
	run "$SIMKERNEL" hold "$K" delta task
	assert_failure 2
}
