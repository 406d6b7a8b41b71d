#!/usr/bin/env bats
# simkernel: the per-CPU module reserve (/proc/module_percpu, percpu_modalloc,
# tests/simkernel/README.md "Per-CPU reserve").

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel


setup() {
	sim_create rot
}

# reload NAME N: load and unload NAME N times (each unload leaves it rotting)
reload() {
	local i
	for i in $(seq "$2"); do
		run sim_run "$SYSC" finit "$(fixture "$1")"
		assert_output ok
		run sim_run "$SYSC" delete "$1" 0x800
		assert_output ok
	done
}

percpu() { sim_run cat /proc/module_percpu; }
# the same with each address as ADDR (addresses follow from module sizes)
percpu_masked() { percpu | sed 's/ 0xffffffffc[0-9a-f]\{7\}$/ ADDR/'; }

# A copy of a fixture with one field of its .data..percpu section header
# changed: patched FIXTURE FIELD VALUE (FIELD: flags, size or align).
patched() {
	local src out idx shoff off
	src=$(fixture "$1")
	out=$BATS_TEST_TMPDIR/$1-$2-$3.ko
	cp "$src" "$out"
	idx=$(readelf -SW "$src" | sed -n 's/^ *\[ *\([0-9]*\)\] \.data\.\.percpu .*/\1/p')
	shoff=$(readelf -hW "$src" | sed -n 's/^ *Start of section headers: *\([0-9]*\).*/\1/p')
	case $2 in
	flags) off=8 ;;
	size) off=32 ;;
	align) off=48 ;;
	esac
	# eight little-endian bytes at the field
	local hex bytes="" i
	hex=$(printf '%016x' "$3")
	for i in 14 12 10 8 6 4 2 0; do bytes="$bytes\\x${hex:$i:2}"; done
	# shellcheck disable=SC2059
	printf "$bytes" | dd of="$out" bs=1 seek=$((shoff + idx * 64 + off)) conv=notrunc status=none
	echo "$out"
}

@test "a fresh rot kernel serves an empty 8 KiB reserve; a stock kernel has no file" {
	run percpu
	assert_success
	assert_output "reserve 8192 free 8192 largest 8192"
	run sim_run cat /proc/modules
	assert_output ""
	sim_create stock
	run sim_run cat /proc/module_percpu
	assert_failure
	assert_output --partial "No such file or directory"
}

@test "create --percpu-reserve sets the size; a size that is no whole 4-byte units is a usage error" {
	sim_create rot --percpu-reserve 4K
	run percpu
	assert_output "reserve 4096 free 4096 largest 4096"
	sim_create rot --percpu-reserve 12
	run percpu
	assert_output "reserve 12 free 12 largest 12"
	for bad in 4097 -4 x 4M 2G ""; do
		run "$SIMKERNEL" create "$BATS_TEST_TMPDIR/bad" --percpu-reserve "$bad"
		assert_equal "$status" 2
		[ ! -e "$BATS_TEST_TMPDIR/bad" ]
	done
}

@test "per-CPU data is not SIZE: pcpu1500 is as large as a module without it" {
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output ok
	run sim_run cat /proc/modules
	assert_output --regexp '^pcpu1500 [0-9]+ 0 - Live 0xffffffffc0000000$'
	local size=${output#pcpu1500 }
	size=${size%% *}
	# .text, 3100 bytes of .data and a 1024-byte this_module: no 1500 bytes on top
	[ "$size" -gt 4124 ] && [ "$size" -lt 4600 ]
	run percpu_masked
	assert_output "reserve 8192 free 6692 largest 6692
pcpu1500 1500 Live ADDR"
	run sim_state
	assert_line --regexp '^live pcpu1500 [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0 percpu=1500@0$'
}

@test "the sixth reload of a 1500-byte per-CPU module fails with ENOMEM before init, leaving no rot" {
	reload pcpu1500 5
	run percpu_masked
	assert_output "reserve 8192 free 692 largest 676
pcpu1500 1500 Rotting ADDR
pcpu1500 1500 Rotting ADDR
pcpu1500 1500 Rotting ADDR
pcpu1500 1500 Rotting ADDR
pcpu1500 1500 Rotting ADDR"
	# the addresses are /proc/rotting_modules', in its order
	assert_equal "$(percpu | awk 'NR > 1 { print $4 }')" "$(sim_run awk '{ print $6 }' /proc/rotting_modules)"
	before=$(sim_state)
	ledger_before=$("$SIMKERNEL" ledger "$K")
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output ENOMEM
	run sim_run "$SYSC" init "$(fixture pcpu1500)"
	assert_output ENOMEM
	assert_equal "$(sim_state)" "$before"
	assert_equal "$("$SIMKERNEL" ledger "$K")" "$ledger_before"
	run percpu
	assert_line --index 0 "reserve 8192 free 692 largest 676"
	# a module without per-CPU data still loads
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ok
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_line --index 1 "percpu reserve 8192 allocated 7500 freed 0 live 0 rotting 7500 free 692"
}

@test "reclaim gives the per-CPU bytes back, and the next load fits" {
	reload pcpu1500 5
	run sim_run "$SYSC" reclaim pcpu1500
	assert_output ok=5
	run percpu
	assert_output "reserve 8192 free 8192 largest 8192"
	# every area is held (R15): the load takes them back oldest first, which
	# is the newest instance's (a reclaim frees newest first), at 6016; the
	# rest, held, counts free in front of it
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output ok
	run percpu_masked
	assert_output "reserve 8192 free 6692 largest 6016
pcpu1500 1500 Live ADDR"
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_line --index 1 "percpu reserve 8192 allocated 9000 freed 7500 live 1500 rotting 0 free 6692"
	run "$SIMKERNEL" ledger "$K"
	assert_equal "$(grep -c ' pcpu_free pcpu1500 ' <<<"$output")" 5
	assert_equal "$(grep -c ' pcpu_alloc pcpu1500 ' <<<"$output")" 6
}

@test "areas are whole 4-byte units, aligned, first fit" {
	# stock: an unload frees its area at once, leaving a hole to fit into
	sim_create stock
	run sim_run "$SYSC" finit "$(fixture pcpuodd)" # 1501 bytes, byte aligned: 1504 at 0
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpu512)" # 512 at 1504
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpu1500)" # 1500 at 2016
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpuodd .* percpu=1504@0$'
	assert_line --regexp '^live pcpu512 .* percpu=512@1504$'
	assert_line --regexp '^live pcpu1500 .* percpu=1500@2016$'
	# a hole of 512 at 1504: 100 bytes aligned to 64 go at 1536, the first fit
	run sim_run "$SYSC" delete pcpu512 0x800
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpualign)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpualign .* percpu=100@1536$'
	assert_line --regexp '^live pcpuodd .* percpu=1504@0$'
	assert_line --regexp '^live pcpu1500 .* percpu=1500@2016$'
	# 512 does not fit the 380 left in the hole: it goes after pcpu1500, aligned to 8
	run sim_run "$SYSC" finit "$(fixture pcpu512)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpu512 .* percpu=512@3520$'
	sim_ledger_check
}

@test "a reclaimed area is held: counted free, taken back only when nothing else fits, oldest first" {
	run sim_run "$SYSC" finit "$(fixture pcpuodd)" # 1504 at 0
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpu512)" # 512 at 1504
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpu1500)" # 1500 at 2016
	assert_output ok
	run sim_run "$SYSC" delete pcpu512 0x800
	assert_output ok
	run sim_run "$SYSC" reclaim pcpu512
	assert_output ok=1
	# the held 512 at 1504 counts free: 8192 - 1504 - 1500, in one piece
	# from 3516, or two with the hole
	run percpu
	assert_line --index 0 "reserve 8192 free 5188 largest 4676"
	# what the allocator refuses whatever is free gives nothing back
	run sim_run "$SYSC" finit "$(fixture pcpuhuge)"
	assert_output ENOMEM
	run sim_run "$SYSC" finit "$(patched pcpu512 align 48)"
	assert_output ENOMEM
	# there is room after pcpu1500: the hole stays held (R15)
	run sim_run "$SYSC" finit "$(fixture pcpualign)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpualign .* percpu=100@3520$'
	run percpu
	assert_line --index 0 "reserve 8192 free 5088 largest 4572"
	# pcpuodd goes too (freed on reclaim after pcpu512's: newer)
	run sim_run "$SYSC" delete pcpuodd 0x800
	assert_output ok
	run sim_run "$SYSC" reclaim pcpuodd
	assert_output ok=1
	run percpu
	assert_line --index 0 "reserve 8192 free 6592 largest 4572"
	# 4096 fit after pcpualign (aligned to 8): nothing is given back; 472 stay free
	run sim_run "$SYSC" finit "$(fixture pcpu4096)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpu4096 .* percpu=4096@3624$'
	# 500 fit nowhere free: the oldest held area (pcpu512's, at 1504) is
	# given back and takes them; pcpuodd's, newer, stays held
	run sim_run "$SYSC" finit "$(patched pcpuodd size 500)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpuodd .* percpu=500@1504$'
	run percpu
	assert_line --index 0 "reserve 8192 free 1996 largest 1504"
	sim_ledger_check
}

@test "a failed init rots with its per-CPU area on a rot kernel, frees it on a stock one" {
	run sim_run "$SYSC" finit "$(fixture pcpufail)"
	assert_output ENODEV
	run percpu_masked
	assert_output "reserve 8192 free 7192 largest 7192
pcpufail 1000 Rotting ADDR"
	sim_ledger_check
	sim_create stock
	for _ in 1 2 3 4 5 6 7 8 9; do
		run sim_run "$SYSC" finit "$(fixture pcpufail)"
		assert_output ENODEV
	done
	run sim_state
	assert_output "taint 0"
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_line --index 1 "percpu reserve 8192 allocated 9000 freed 9000 live 0 rotting 0 free 8192"
}

@test "a stock kernel has the reserve too: unloads give it back, so reloads never run out" {
	sim_create stock --percpu-reserve 2K
	for _ in $(seq 10); do
		run sim_run "$SYSC" finit "$(fixture pcpu1500)"
		assert_output ok
		run sim_run "$SYSC" delete pcpu1500 0x800
		assert_output ok
	done
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpufail)" # 1000 more than the 548 left
	assert_output ENOMEM
	run "$SIMKERNEL" ledger "$K" --check
	assert_success
	assert_line --index 1 "percpu reserve 2048 allocated 16500 freed 15000 live 1500 rotting 0 free 548"
}

@test "the name is checked before the reserve, symbols after it, as load_module() orders them" {
	sim_create rot --percpu-reserve 1500
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output ok
	run sim_run "$SYSC" finit "$(fixture pcpu1500)"
	assert_output EEXIST
	# needs a symbol nobody exports, and does not fit: ENOMEM first
	run sim_run "$SYSC" finit "$(fixture pcpuneedsym)"
	assert_output ENOMEM
	sim_create rot
	run sim_run "$SYSC" finit "$(fixture pcpuneedsym)"
	assert_output ENOENT
	run percpu
	assert_output "reserve 8192 free 8192 largest 8192"
	assert_equal "$(sim_state)" "taint 0"
}

@test "hostile per-CPU sections: too large or badly aligned is ENOMEM; unallocated or empty is none" {
	before=$(sim_state)
	run sim_run "$SYSC" finit "$(fixture pcpuhuge)" # more than PCPU_MIN_UNIT_SIZE
	assert_output ENOMEM
	run sim_run "$SYSC" finit "$(patched pcpu1500 align 12)"
	assert_output ENOMEM
	run sim_run "$SYSC" finit "$(patched pcpu1500 size 0x7fffffffffffffff)"
	assert_output ENOEXEC # past the end of the file: no module at all
	sim_create rot --percpu-reserve 1496
	before=$(sim_state)
	run sim_run "$SYSC" finit "$(fixture pcpu1500)" # larger than the whole reserve
	assert_output ENOMEM
	sim_create rot
	assert_equal "$(sim_state)" "$before"
	run percpu
	assert_output "reserve 8192 free 8192 largest 8192"
	# over a page is capped at a page: it loads, page aligned
	run sim_run "$SYSC" finit "$(fixture pcpu512)"
	run sim_run "$SYSC" finit "$(patched pcpu1500 align 0x100000)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpu1500 .* percpu=1500@4096$'
	sim_run "$SYSC" delete pcpu1500 0x800
	sim_run "$SYSC" reclaim pcpu1500
	# without SHF_ALLOC the kernel does not see a per-CPU section (find_sec)
	run sim_run "$SYSC" finit "$(patched pcpu1500 flags 0)"
	assert_output ok
	run sim_state
	assert_line --regexp '^live pcpu1500 [0-9]+ 0x[0-9a-f]{16} Live refcnt=0 holders=- permanent=0$'
	sim_run "$SYSC" delete pcpu1500 0x800
	run sim_run "$SYSC" finit "$(patched pcpu1500 size 0)"
	assert_output ok
	run percpu_masked
	assert_output "reserve 8192 free 7680 largest 7680
pcpu512 512 Live ADDR"
	sim_ledger_check
}

@test "readers without kernel pointers see zero addresses" {
	sim_run "$SYSC" finit "$(fixture pcpu512)"
	run "$SIMKERNEL" run "$K" --nocap -- cat /proc/module_percpu
	assert_output "reserve 8192 free 7680 largest 7680
pcpu512 512 Live 0x0000000000000000"
}
