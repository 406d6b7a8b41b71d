#!/usr/bin/env bats
# simkernel: what readers see, /proc and /sys rendering, in both modes.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create rot
}

# kernfs_name_hash() of Linux 6.1, written again here from the kernel's
# definition so that the simulator's C version is checked independently.
kernfs_hash() {
	local name=$1 hash=0 i c
	for ((i = 0; i < ${#name}; i++)); do
		printf -v c '%d' "'${name:i:1}"
		hash=$(((hash + (c << 4) + (c >> 4)) * 11))
	done
	hash=$((((hash & 0xffffffff) * 0x61C88647) & 0xffffffff))
	hash=$((hash & 0x7fffffff))
	((hash < 2)) && hash=$((hash + 2))
	((hash >= 0x7fffffff)) && hash=$((0x7fffffff - 1))
	echo "$hash"
}

@test "readers without the right to see kernel pointers read zero addresses" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete delta 0
	run "$SIMKERNEL" run "$K" --nocap -- cat /proc/modules /proc/rotting_modules
	assert_output --regexp '^alpha [0-9]+ 0 - Live 0x0000000000000000
delta [0-9]+ 0 \[rotting\], Rotting 0x0000000000000000$'
	run "$SIMKERNEL" run "$K" --nocap -- grep alpha_fn /proc/kallsyms
	assert_output "$(printf '0000000000000000 T alpha_fn\t[alpha]')"
	run sim_run cat /proc/modules
	assert_output --regexp ' 0xffffffffc[0-9a-f]{7}$'
}

@test "/proc/kallsyms lists each live module's global symbols, and only while live" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	base=$(sim_state | awk '/^live beta/ { print $4 }')
	run sim_run grep '\[beta\]' /proc/kallsyms
	assert_line --regexp "^[0-9a-f]{16} T beta_fn	\\[beta\\]\$"
	refute_line --partial init_module
	run sim_run grep -c ' T _printk$' /proc/kallsyms
	assert_output 1
	sim_run "$SYSC" delete beta 0
	run sim_run grep -c '\[beta\]' /proc/kallsyms
	assert_output 0
	[ -n "$base" ]
}

@test "holders are listed newest first in /proc/modules" {
	"$SIMKERNEL" populate "$K" --live 1
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	sim_run "$SYSC" finit "$(fixture gamma)"
	run sim_run cut -d' ' -f1,4 /proc/modules
	assert_output "gamma -
beta gamma,
alpha beta,
pop00000 -"
}

@test "a listing of a /sys directory comes back in kernfs hash order" {
	"$SIMKERNEL" populate "$K" --live 40
	expected=$(for n in $(sim_run cut -d' ' -f1 /proc/modules) module; do
		echo "$(kernfs_hash "$n") $n"
	done | sort -n -k1,1 -k2,2 | cut -d' ' -f2)
	run sim_run ls -f /sys/module
	assert_line --index 0 .
	assert_line --index 1 ..
	assert_equal "$(echo "$output" | tail -n +3)" "$expected"
}

@test "the kernfs hash matches values computed from the kernel's definition" {
	# partial_name_hash/end_name_hash by hand for "a": (97<<4)+(97>>4) = 1558, *11 = 17138
	assert_equal "$(kernfs_hash a)" $(((17138 * 0x61C88647) & 0x7fffffff))
	"$SIMKERNEL" populate "$K" --live 2 --max-deps 1 --seed 3
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture beta)"
	run sim_run ls -f /sys/module/beta
	expected=$(for n in coresize holders initsize initstate refcnt taint; do
		echo "$(kernfs_hash $n) $n"
	done | sort -n | cut -d' ' -f2)
	assert_equal "$(echo "$output" | tail -n +3)" "$expected"
}

@test "/proc/modules is rendered on open after a change, and not again until the next one" {
	sim_run "$SYSC" finit "$(fixture delta)"
	run sim_run strace -f -e trace=flock cat /proc/modules
	assert_output --partial 'LOCK_EX'
	run sim_run strace -f -e trace=flock cat /proc/modules
	refute_output --partial 'LOCK_EX'
	assert_output --regexp '^delta '
}

@test "populate adds live and rotting instances in one rendering" {
	run "$SIMKERNEL" populate "$K" --live 50 --rotting 20 --max-deps 3 --seed 5
	assert_success
	run sim_run wc -l /proc/modules /proc/rotting_modules
	assert_line --index 0 --regexp '^ *50 /proc/modules$'
	assert_line --index 1 --regexp '^ *20 /proc/rotting_modules$'
	run sim_run sh -c 'ls /sys/module | wc -l'
	assert_output 51
	sim_ledger_check
	run "$SIMKERNEL" populate "$K" --live 5
	run sim_run cut -d' ' -f1 /proc/modules
	assert_line --index 0 pop00054
}

@test "/proc/cmdline and /proc/sys/kernel/tainted are served" {
	run sim_run cat /proc/cmdline /proc/sys/kernel/tainted
	assert_output "BOOT_IMAGE=/boot/vmlinuz-6.1.0-sim root=/dev/vda ro
0"
}

@test "state lists live then rotting instances, newest first, then the taint" {
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture delta)"
	sim_run "$SYSC" delete alpha 0
	sim_run "$SYSC" finit "$(fixture alpha)"
	sim_run "$SYSC" finit "$(fixture oot)"
	run sim_state
	assert_line --index 0 --regexp '^live oot [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0$'
	assert_line --index 1 --regexp '^live alpha '
	assert_line --index 2 --regexp '^live delta '
	assert_line --index 3 --regexp '^rotting alpha [0-9]+ 0x[0-9a-f]{16}$'
	assert_line --index 4 'taint 4096'
}
