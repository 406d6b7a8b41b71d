#!/usr/bin/env bats
# lsmod and the per-CPU module reserve (rot-abi.md "Per-CPU memory"): the
# PERCPU column (bytes per instance, joined by address or by name), the
# reserve on --rotting's total line, and a stock kernel's empty column.

load helpers/tools
load helpers/percpu
bats_require_minimum_version 1.5.0

setup() {
	kernel_new rot
}

@test "lsmod's PERCPU column: bytes per instance, 0 for none, joined by address" {
	reload pcpu1500 2
	kmod_load pcpu512 alpha
	on_kernel "$INSMOD" "$FIXTURES/pcpufail.ko" || true
	run --separate-stderr on_kernel "$LSMOD" -r -n -o name,state,percpu
	assert_success
	assert_output "alpha live 0
pcpu512 live 512
pcpufail rotting 1000
pcpu1500 rotting 1500
pcpu1500 rotting 1500"
	run --separate-stderr on_kernel "$LSMOD" -J -o name,percpu
	assert_success
	assert_equal "$(jq -c '[.modules[] | .percpu_bytes]' <<<"$output")" '[0,512,1000,1500,1500]'
	# without kernel pointers every address is zero: joined by name and order
	run --separate-stderr on_kernel_nocap "$LSMOD" -r -n -o name,percpu,address
	assert_success
	assert_line --index 1 "pcpu512 512 0x0000000000000000"
	assert_line --index 3 "pcpu1500 1500 0x0000000000000000"
}

@test "lsmod --rotting ends with the reserve on the total line" {
	reload pcpu1500 2
	kmod_load pcpu512 alpha
	kmod_unload alpha
	run --separate-stderr on_kernel "$LSMOD" --rotting
	assert_success
	assert_equal "${lines[-1]}" "3 rotting instances, $(rotting_bytes) bytes; per-CPU reserve 8192 bytes: 3000 held by rotting instances, 4680 free"
}

@test "on a stock kernel PERCPU is empty text and JSON null, never an error" {
	kernel_new stock
	kmod_load pcpu512 alpha
	run --separate-stderr on_kernel "$LSMOD" -r -n -o name,percpu
	assert_success
	assert_equal "$stderr" ""
	assert_output "alpha -
pcpu512 -"
	run --separate-stderr on_kernel "$LSMOD" -J -o name,percpu
	assert_success
	assert_equal "$(jq -c '[.modules[] | .percpu_bytes]' <<<"$output")" '[null,null]'
	run --separate-stderr on_kernel "$LSMOD"
	assert_success
	assert_equal "$stderr" ""
}
