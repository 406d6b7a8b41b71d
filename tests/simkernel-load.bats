#!/usr/bin/env bats
# simkernel, rot mode: init_module and finit_module (rot-abi.md "Loading").
# Each test checks the syscall's answer, what readers see, and the state and
# ledger the simulator keeps.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create rot
}

@test "init_module of a module makes it Live in /proc/modules and the state" {
	run sim_run "$SYSC" init "$(fixture delta)"
	assert_success
	assert_output ok
	run sim_run cat /proc/modules
	assert_output --regexp '^delta [0-9]+ 0 - Live 0xffffffffc[0-9a-f]{7}$'
	run sim_state
	assert_line --index 0 --regexp '^live delta [0-9]+ 0xffffffffc[0-9a-f]{7} Live refcnt=0 holders=- permanent=0$'
	assert_line --index 1 'taint 0'
	sim_ledger_check
}

@test "finit_module loads the same module as init_module, with the same size" {
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ok
	local finit_size
	finit_size=$(sim_state | awk '$1 == "live" { print $3 }')
	sim_create rot
	sim_run "$SYSC" init "$(fixture delta)"
	assert_equal "$(sim_state | awk '$1 == "live" { print $3 }')" "$finit_size"
}

@test "a loaded module's size is its core: coresize in sysfs, initsize 0 once live" {
	sim_run "$SYSC" finit "$(fixture delta)"
	size=$(sim_run cut -d' ' -f2 /proc/modules)
	run sim_run cat /sys/module/delta/coresize /sys/module/delta/initsize /sys/module/delta/initstate /sys/module/delta/refcnt
	assert_output "$size
0
live
0"
}

@test "loading a module that uses another makes it a holder of that one" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	run sim_run "$SYSC" finit "$(fixture beta)"
	assert_output ok
	run sim_run cat /proc/modules
	assert_line --index 0 --regexp '^beta [0-9]+ 0 - Live '
	assert_line --index 1 --regexp '^alpha [0-9]+ 0 beta, Live '
	run sim_run readlink /sys/module/alpha/holders/beta
	assert_output ../../beta
	run sim_run cat /sys/module/alpha/refcnt
	assert_output 0
	run sim_state
	assert_line --index 1 --regexp '^live alpha .* refcnt=0 holders=beta permanent=0$'
}

@test "a missing dependency gives ENOENT and leaves nothing behind" {
	run sim_run "$SYSC" finit "$(fixture beta)"
	assert_failure 1
	assert_output ENOENT
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_output ''
	run sim_run cat /proc/rotting_modules
	assert_output ''
}

@test "an undefined symbol nobody exports gives ENOENT and no rot" {
	run sim_run "$SYSC" finit "$(fixture needsym)"
	assert_output ENOENT
	run sim_state
	assert_output 'taint 0'
}

@test "a vermagic of another release gives ENOEXEC and no rot" {
	run sim_run "$SYSC" finit "$(fixture badmagic)"
	assert_output ENOEXEC
	run sim_state
	assert_output 'taint 0'
}

@test "a module with symbol CRCs loads when only the release in its vermagic differs" {
	run sim_run "$SYSC" finit "$(fixture versioned)"
	assert_output ok
	run sim_run cut -d' ' -f1,5 /proc/modules
	assert_output 'versioned Live'
}

@test "finit flag IGNORE_VERMAGIC loads a module of another release and taints F" {
	run sim_run "$SYSC" finit "$(fixture badmagic)" "" 2
	assert_output ok
	run sim_run cat /proc/modules
	assert_output --regexp '^badmagic [0-9]+ 0 - Live 0x[0-9a-f]{16} \(F\)$'
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 2
}

@test "finit flags other than IGNORE_MODVERSIONS and IGNORE_VERMAGIC give EINVAL" {
	run sim_run "$SYSC" finit "$(fixture delta)" "" 4
	assert_output EINVAL
	run sim_state
	assert_output 'taint 0'
}

@test "finit_module of a bad descriptor gives EBADF" {
	run sim_run "$SYSC" finit - "" 0
	assert_output EBADF
}

@test "an image that is not ELF gives ENOEXEC" {
	echo "not a module" > "$BATS_TEST_TMPDIR/junk.ko"
	run sim_run "$SYSC" init "$BATS_TEST_TMPDIR/junk.ko"
	assert_output ENOEXEC
	run sim_state
	assert_output 'taint 0'
}

@test "loading a name that is already live gives EEXIST" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run "$SYSC" init "$(fixture delta)"
	assert_output EEXIST
	run sim_state
	assert_line --index 0 --partial 'live delta '
	assert_line --index 1 'taint 0'
}

@test "a module's symbol file is written before the lock and only a live module keeps one" {
	# The file is staged outside the lock and renamed to syms/ID under it:
	# loads that end early (EEXIST, ENOENT, a failed init) leave nothing.
	run sim_run "$SYSC" init "$(fixture alpha)"
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture alpha)"
	assert_output EEXIST
	run sim_run "$SYSC" finit "$(fixture needsym)"
	assert_output ENOENT
	run sim_run "$SYSC" finit "$(fixture failinit)"
	assert_output ENODEV
	run ls -A "$K/syms"
	assert_output --regexp '^[0-9]+$'
	grep -qx '[0-9a-f]* T alpha_fn' "$K/syms/$output"
	# beta resolves alpha_fn through it, and kallsyms lists it
	run sim_run "$SYSC" init "$(fixture beta)"
	assert_output ok
	run sim_run grep -c 'alpha_fn\s\[alpha\]$' /proc/kallsyms
	assert_output 1
	assert_equal "$(ls -A "$K/syms" | grep -c .)" 2
	# a staged file left by a load that died before the lock is never read
	printf '0 T crashed_fn\n' > "$K/syms/.staged.999999"
	run sim_run "$SYSC" init "$(fixture gamma)"
	assert_output ok
	run sim_run grep -c crashed_fn /proc/kallsyms
	assert_output 0
	sim_ledger_check
}

@test "a failed init returns its error and the instance rots with core plus init size" {
	run sim_run "$SYSC" finit "$(fixture failinit)"
	assert_failure 1
	assert_output ENODEV
	run sim_run cat /proc/modules
	assert_output ''
	loaded=$("$SIMKERNEL" ledger "$K" | awk '$2 == "load" { print $5 }')
	run sim_run cat /proc/rotting_modules
	assert_output --regexp "^failinit $loaded 0 \\[rotting\\], Rotting 0xffffffffc[0-9a-f]{7}\$"
	run sim_run test -e /sys/module/failinit
	assert_failure
	run "$SIMKERNEL" ledger "$K"
	assert_line --index 1 --regexp "^2 rot failinit 0x[0-9a-f]{16} $loaded\$"
	sim_ledger_check
}

@test "a module without intree taints itself and the kernel O" {
	sim_run "$SYSC" finit "$(fixture oot)"
	run sim_run cat /proc/modules
	assert_output --regexp '^oot [0-9]+ 0 - Live 0x[0-9a-f]{16} \(O\)$'
	run sim_run cat /proc/sys/kernel/tainted /sys/module/oot/taint
	assert_output "4096
O"
}

@test "parameters given at load appear under /sys/module/NAME/parameters" {
	run sim_run "$SYSC" finit "$(fixture params)" 'count=0x10 label="two words" verbose'
	assert_output ok
	run sim_run sh -c 'cd /sys/module/params/parameters 2>/dev/null; cat /sys/module/params/parameters/count /sys/module/params/parameters/label /sys/module/params/parameters/verbose'
	assert_output "16
two words
Y"
}

@test "parameters not given read their defaults, unknown ones are ignored" {
	run sim_run "$SYSC" finit "$(fixture params)" 'nosuch=1'
	assert_output ok
	run sim_run cat /sys/module/params/parameters/count /sys/module/params/parameters/label /sys/module/params/parameters/verbose
	assert_output "0
(null)
N"
}

@test "a non-numeric value for an int parameter gives EINVAL and no rot" {
	run sim_run "$SYSC" finit "$(fixture params)" 'count=many'
	assert_output EINVAL
	run sim_state
	assert_output 'taint 0'
}

@test "a bad bool parameter gives EINVAL" {
	run sim_run "$SYSC" init "$(fixture params)" 'verbose=maybe'
	assert_output EINVAL
}

# Waits (bounded) until NAME is Loading: its init runs until the test
# creates the init_gate file.
wait_loading() {
	sim_wait_state "^live $1 .* Loading "
}

# Starts `sysc finit` of slowinit in the background, its answer in
# $BATS_TEST_TMPDIR/NAME.out; $! is sysc itself (simkernel run execs it).
start_finit() {
	"$SIMKERNEL" run "$K" -- "$SYSC" finit "$(fixture slowinit)" > "$BATS_TEST_TMPDIR/$1.out" &
}

# The second load is inside the kernel, waiting behind the first (its
# only sleep), and has not answered.
second_waits() {
	wait_sleeping "$1"
	kill -0 "$1"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" ''
}

@test "a module whose init sleeps is Loading meanwhile, and delete_module gives EBUSY" {
	"$SIMKERNEL" set "$K" slowinit init_gate="$BATS_TEST_TMPDIR/go"
	start_finit load
	local loader=$!
	wait_loading slowinit
	run sim_run cat /proc/modules
	assert_output --regexp '^slowinit [0-9]+ 0 - Loading 0x[0-9a-f]{16}$'
	run sim_run cat /sys/module/slowinit/initstate
	assert_output coming
	run sim_run "$SYSC" delete slowinit 0x800
	assert_output EBUSY
	touch "$BATS_TEST_TMPDIR/go"
	wait "$loader"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/load.out")" ok
	run sim_run cat /sys/module/slowinit/initstate /sys/module/slowinit/initsize
	assert_output "live
0"
	sim_ledger_check
}

@test "a sysfs update replaces a temporary a crashed caller left, never writing through its link" {
	# sysfs values are hard links to one shared copy (root/.shared); a
	# stale temporary of the same name, linked to "0", must be replaced.
	sim_run "$SYSC" finit "$(fixture delta)"
	assert_equal "$(cat "$K/root/.shared/v-0")" 0
	# the temporary is named after the updating thread: the pid that sh execs into
	# shellcheck disable=SC2016
	run sim_run sh -c 'ln "$1/root/.shared/v-0" "$1/root/.staging/slowinit.initstate.$$" && exec "$2" finit "$3"' \
		sh "$K" "$SYSC" "$(fixture slowinit)"
	assert_output ok
	assert_equal "$(cat "$K/root/.shared/v-0")" 0
	run sim_run cat /sys/module/slowinit/initstate /sys/module/delta/refcnt
	assert_output "live
0"
	run ls "$K/root/.staging"
	assert_output ''
	sim_ledger_check
}

@test "loading a name that is still Loading waits for its init, then gives EEXIST" {
	"$SIMKERNEL" set "$K" slowinit init_gate="$BATS_TEST_TMPDIR/go"
	start_finit first
	local first=$!
	wait_loading slowinit
	start_finit second
	local second=$!
	# The second cannot answer while the first init runs, however long.
	second_waits "$second"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$second" || : # the syscall tool exits non-zero with an errno
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" EEXIST
	wait "$first" || :
	assert_equal "$(cat "$BATS_TEST_TMPDIR/first.out")" ok
	run sim_state
	assert_output --regexp '^live slowinit [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
taint 0$'
	sim_ledger_check
}

@test "loading a name whose init then fails waits for it, then gives EBUSY without a second try" {
	"$SIMKERNEL" set "$K" slowinit init_errno=5 init_gate="$BATS_TEST_TMPDIR/go"
	start_finit first
	local first=$!
	wait_loading slowinit
	# the second load reads the behaviour file before it waits: its own init
	# would succeed, but it never runs
	"$SIMKERNEL" set "$K" slowinit init_errno= init_gate=
	start_finit second
	local second=$!
	# It waits for the first init, however long that runs.
	second_waits "$second"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$second" || : # the syscall tool exits non-zero with an errno
	assert_equal "$(cat "$BATS_TEST_TMPDIR/second.out")" EBUSY
	wait "$first" || :
	assert_equal "$(cat "$BATS_TEST_TMPDIR/first.out")" EIO
	run sim_state
	assert_output --regexp '^rotting slowinit [0-9]+ 0x[0-9a-f]{16}
taint 0$'
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' load slowinit ' <<< "$output")" 1
	sim_ledger_check
	# the name is free again: a third load loads
	run sim_run "$SYSC" finit "$(fixture slowinit)"
	assert_output ok
	run sim_state
	assert_output --regexp '^live slowinit [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0
rotting slowinit [0-9]+ 0x[0-9a-f]{16}
taint 0$'
}

@test "loading a name that is still Unloading gives EBUSY at once" {
	sim_run "$SYSC" finit "$(fixture slowexit)"
	# The exit runs until the test opens the gate: the load that answers
	# meanwhile did not wait for it.
	"$SIMKERNEL" set "$K" slowexit exit_gate="$BATS_TEST_TMPDIR/go"
	sim_run "$SYSC" delete slowexit 0 > "$BATS_TEST_TMPDIR/unload.out" &
	local unloader=$!
	sim_wait_state '^live slowexit .* Unloading '
	run timeout 60 "$SIMKERNEL" run "$K" -- "$SYSC" finit "$(fixture slowexit)"
	assert_output EBUSY
	run sim_state
	assert_output --regexp '^live slowexit [0-9]+ 0x[0-9a-f]{16} Unloading refcnt=0 holders=- permanent=0
taint 0$'
	touch "$BATS_TEST_TMPDIR/go"
	wait "$unloader"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/unload.out")" ok
	run sim_run "$SYSC" finit "$(fixture slowexit)"
	assert_output ok
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' load slowexit ' <<< "$output")" 2
	sim_ledger_check
}

@test "a declared device is bound: /sys/module/NAME/drivers/BUS:DRIVER/DEVICE" {
	sim_run "$SYSC" finit "$(fixture bound)"
	run sim_run readlink /sys/module/bound/drivers/platform:bound_drv
	assert_output ../../../bus/platform/drivers/bound_drv
	run sim_run ls /sys/module/bound/drivers/platform:bound_drv
	assert_output "bind
bound.0
module
uevent
unbind"
	run sim_run readlink /sys/module/bound/drivers/platform:bound_drv/bound.0
	assert_output ../../devices/bound.0
}

@test "a file named with a dash loads under its .modinfo name" {
	run sim_run "$SYSC" finit "$(fixture snd-dummy)"
	assert_output ok
	run sim_run cut -d' ' -f1 /proc/modules
	assert_output snd_dummy
}

@test "with sig_enforce an unsigned module gives EKEYREJECTED" {
	sim_create rot --sig-enforce
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output EKEYREJECTED
	run sim_run cat /sys/module/module/parameters/sig_enforce
	assert_output Y
	cat "$(fixture delta)" > "$BATS_TEST_TMPDIR/signed.ko"
	printf '~Module signature appended~\n' >> "$BATS_TEST_TMPDIR/signed.ko"
	run sim_run "$SYSC" finit "$BATS_TEST_TMPDIR/signed.ko"
	assert_output ok
}

@test "with modules disabled loading gives EPERM" {
	sim_create rot --modules-disabled
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output EPERM
	run sim_state
	assert_output 'taint 0'
}

@test "a caller without CAP_SYS_MODULE gets EPERM and nothing changes" {
	run "$SIMKERNEL" run "$K" --nocap -- "$SYSC" finit "$(fixture delta)"
	assert_output EPERM
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_output ''
}

@test "without SIMKERNEL_DIR the module wrappers give ENOSYS" {
	run env LD_PRELOAD="$SIMKERNEL_LIB" "$SYSC" finit "$(fixture delta)"
	assert_output ENOSYS
	run env LD_PRELOAD="$SIMKERNEL_LIB" "$SYSC" delete delta 0
	assert_output ENOSYS
}

@test "uname reports the simulated release and /lib/modules/RELEASE is served" {
	sim_create rot --release 6.1.0-test --builtin snd-core,ext4
	run sim_run uname -r
	assert_output 6.1.0-test
	run sim_run cat /lib/modules/6.1.0-test/modules.builtin
	assert_output "kernel/builtin/snd_core.ko
kernel/builtin/ext4.ko"
	run sim_run ls /sys/module/ext4
	assert_output parameters
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ENOEXEC
}
