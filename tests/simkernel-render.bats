#!/usr/bin/env bats
# simkernel: what readers see, /proc and /sys rendering, in both modes.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel

setup() {
	sim_create rot
}

# kernfs_name_hash() of each name, from the definition the simulator and
# libmodrot share (lib/kernfs-hash.c), for the default release (6.1).
kernfs_hash() {
	"$SIMKERNEL" kernfs-hash "$@" | cut -d' ' -f1
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

@test "the kernfs hash is Linux 6.1's: the top half of a 64-bit multiply, a byte above 0x7f sign-extended" {
	[ "$(uname -m)" = x86_64 ] || skip "the expected values are x86_64's (a signed char before 6.2)"
	# Values from fs/kernfs/dir.c and include/linux/{stringhash,hash}.h of
	# linux-source-6.1, compiled as that kernel is on x86_64 (plain char is
	# signed; -funsigned-char came with 6.2), and from 6.2 on.
	run "$SIMKERNEL" kernfs-hash a snd $'\xc3\xa9' $'caf\xc3\xa9' $'\xff' $'\x80x'
	assert_output "$(printf '%s\n' '573381588 a' '1795955646 snd' $'1490632645 \xc3\xa9' \
		$'1180589465 caf\xc3\xa9' $'579201663 \xff' $'1050659434 \x80x')"
	run "$SIMKERNEL" kernfs-hash --release 6.2.0 a $'\xc3\xa9' $'caf\xc3\xa9' $'\xff' $'\x80x'
	assert_output "$(printf '%s\n' '573381588 a' $'586328901 \xc3\xa9' $'276285720 caf\xc3\xa9' \
		$'682799989 \xff' $'42757364 \x80x')"
	# And a /sys directory lists entries in that order, on 6.1 and on 6.2.
	local ids=(snd $'\xc3\xa9' a $'caf\xc3\xa9' $'\x80x' $'\xff') id
	for id in "${ids[@]}"; do
		"$SIMKERNEL" device add "$K" pci "$id" pci:v00008086d00001234
	done
	run sim_run ls -f /sys/bus/pci/devices
	assert_equal "$(echo "$output" | tail -n +3)" \
		"$(printf '%s\n' a $'\xff' $'\x80x' $'caf\xc3\xa9' $'\xc3\xa9' snd)"
	"$SIMKERNEL" create "$BATS_TEST_TMPDIR/k62" --mode rot --release 6.2.0
	for id in "${ids[@]}"; do
		"$SIMKERNEL" device add "$BATS_TEST_TMPDIR/k62" pci "$id" pci:v00008086d00001234
	done
	run "$SIMKERNEL" run "$BATS_TEST_TMPDIR/k62" -- ls -f /sys/bus/pci/devices
	assert_equal "$(echo "$output" | tail -n +3)" \
		"$(printf '%s\n' $'\x80x' $'caf\xc3\xa9' a $'\xc3\xa9' $'\xff' snd)"
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
