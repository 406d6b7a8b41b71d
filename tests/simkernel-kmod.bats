#!/usr/bin/env bats
# simkernel: Debian's kmod (insmod, lsmod, rmmod, modinfo; libkmod linked
# in statically) runs unchanged under the preload and behaves as on a real
# kernel. Stock mode unless a test says otherwise.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create stock
}

size_of() {
	sim_state | awk -v m="$1" '$1 == "live" && $2 == m { print $3 }'
}

@test "kmod modinfo reads the fixtures, plain and compressed" {
	for ext in "" xz zst; do
		run modinfo -F name "$(fixture snd-dummy "$ext")"
		assert_success
		assert_output snd_dummy
	done
	run modinfo -F vermagic "$(fixture delta)"
	assert_output '6.1.0-sim SMP preempt mod_unload modversions '
	run modinfo -F parmtype "$(fixture params)"
	assert_output --partial 'count:int'
}

@test "kmod insmod loads a .ko, a .ko.xz and a .ko.zst" {
	run sim_run insmod "$(fixture alpha)"
	assert_success
	assert_output ''
	run sim_run insmod "$(fixture beta xz)"
	assert_success
	run sim_run insmod "$(fixture gamma zst)"
	assert_success
	run sim_state
	assert_line --index 0 --regexp '^live gamma [0-9]+ .* refcnt=0 holders=- permanent=0$'
	assert_line --index 1 --regexp '^live beta [0-9]+ .* refcnt=1 holders=gamma permanent=0$'
	assert_line --index 2 --regexp '^live alpha [0-9]+ .* refcnt=1 holders=beta permanent=0$'
	sim_ledger_check
}

@test "kmod insmod passes parameters through" {
	run sim_run insmod "$(fixture params)" count=7 label=hi
	assert_success
	run sim_run cat /sys/module/params/parameters/count /sys/module/params/parameters/label
	assert_output "7
hi"
}

@test "kmod lsmod lists modules as on a real kernel" {
	sim_run insmod "$(fixture alpha)"
	sim_run insmod "$(fixture beta xz)"
	sim_run insmod "$(fixture gamma zst)"
	run sim_run lsmod
	assert_success
	assert_output "$(printf '%-19s %8s  %s\n' Module Size 'Used by' \
		gamma "$(size_of gamma)" 0 \
		beta "$(size_of beta)" '1 gamma' \
		alpha "$(size_of alpha)" '1 beta')"
}

@test "kmod lsmod prints holders in sysfs (kernfs) order" {
	"$SIMKERNEL" populate "$K" --live 12 --max-deps 8 --seed 11
	holder_line=$(sim_run cat /proc/modules | awk '$4 ~ /,.*,/ { print; exit }')
	name=${holder_line%% *}
	[ -n "$name" ]
	expected=$(sim_run ls -f "/sys/module/$name/holders" | tail -n +3 | paste -sd,)
	run sim_run lsmod
	assert_line --regexp "^$name +[0-9]+  [0-9]+ $expected\$"
}

@test "kmod rmmod removes a module and the memory is freed" {
	sim_run insmod "$(fixture delta)"
	run sim_run rmmod delta
	assert_success
	assert_output ''
	run sim_state
	assert_output 'taint 0'
	run "$SIMKERNEL" ledger "$K"
	assert_line --regexp '^[0-9]+ free delta '
}

@test "kmod rmmod of a module with holders fails and names them" {
	sim_run insmod "$(fixture alpha)"
	sim_run insmod "$(fixture beta)"
	run sim_run rmmod alpha
	assert_failure 1
	assert_output 'rmmod: ERROR: Module alpha is in use by: beta'
	run sim_state
	assert_line --index 1 --regexp '^live alpha '
}

@test "kmod rmmod of a permanent module fails with EBUSY, rmmod -f forces it and taints R" {
	sim_run insmod "$(fixture permanent)"
	run sim_run rmmod permanent
	assert_failure 1
	assert_output --partial 'could not remove module permanent: Device or resource busy'
	run sim_run rmmod -f permanent
	assert_success
	run sim_state
	assert_output 'taint 8'
	run sim_run cat /proc/sys/kernel/tainted
	assert_output 8
	sim_ledger_check
}

@test "kmod insmod of a module whose init fails reports the error and frees it" {
	run sim_run insmod "$(fixture failinit)"
	assert_failure 1
	assert_output --partial 'No such device'
	run sim_state
	assert_output 'taint 0'
}

@test "kmod insmod of a module of another release reports an invalid format" {
	run sim_run insmod "$(fixture badmagic zst)"
	assert_failure 1
	assert_output --partial 'Invalid module format'
}

@test "kmod insmod -f strips the vermagic: the module loads and taints F" {
	run sim_run insmod -f "$(fixture badmagic)"
	assert_success
	run sim_run cat /proc/modules /proc/sys/kernel/tainted
	assert_output --regexp '^badmagic [0-9]+ 0 - Live 0x[0-9a-f]{16} \(F\)
2$'
}

@test "kmod rmmod names a module typed with a dash" {
	sim_run insmod "$(fixture snd-dummy xz)"
	run sim_run rmmod snd-dummy
	assert_success
	run sim_state
	assert_output 'taint 0'
}

@test "kmod works on a rot kernel too: rmmod leaves a rotting instance" {
	sim_create rot
	sim_run insmod "$(fixture delta zst)"
	run sim_run rmmod delta
	assert_success
	run sim_run cut -d' ' -f1,4,5 /proc/rotting_modules
	assert_output 'delta [rotting], Rotting'
	run sim_run lsmod
	assert_output 'Module                  Size  Used by'
}
