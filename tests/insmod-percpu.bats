#!/usr/bin/env bats
# insmod and the per-CPU module reserve (rot-abi.md "Per-CPU memory"): its
# refusal before the kernel when the reserve cannot hold a module, naming
# what holds it; its account of a kernel ENOMEM the reserve caused;
# --check and --batch's count of both; with lsmod, a kernel that does not
# report the reserve and the sizes it shows. lsmod's PERCPU column:
# lsmod-percpu.bats; modreap --percpu: modreap-percpu.bats.

load helpers/tools
load helpers/percpu
bats_require_minimum_version 1.5.0

setup() {
	kernel_new rot
}

@test "reload a per-CPU module until the reserve runs out: insmod refuses before the kernel, in one line" {
	reload pcpu1500 5
	assert_equal "$(reserve_line)" "reserve 8192 free 692 largest 676"
	before=$(kernel_state)
	ledger=$("$SIM" ledger "$K")
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpu1500.ko: its per-CPU data needs 1500 bytes of the per-CPU module reserve, and 692 of 8192 are free, 676 in one piece; rotting instances hold 7500: pcpu1500 (5 instances, 7500 bytes) ('modreap --percpu=1504' reclaims what it takes)"
	# refused before the kernel: nothing changed, not even the ledger
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$("$SIM" ledger "$K")" "$ledger"
	# what the refusal says is so: the kernel would have said ENOMEM
	run on_kernel "$KMOD_INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_failure
	assert_output --partial "Cannot allocate memory"
	assert_equal "$(rotting_count pcpu1500)" 5
	# reclaiming the rotting names gives the reserve back: the next load succeeds
	on_kernel "$RMMOD" --reclaim pcpu1500
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_success
	is_live pcpu1500
	# in the newest reclaimed instance's area, held areas in front (R15)
	assert_equal "$(reserve_line)" "reserve 8192 free 6692 largest 6016"
	"$SIM" ledger "$K" --check
}

@test "insmod names the rotting names that hold the reserve, most bytes first" {
	reload pcpu512 2
	reload pcpu1500 3
	on_kernel "$INSMOD" "$FIXTURES/pcpufail.ko" || true
	# 512, 512, 1500 three times, 1000; each aligned to 8: three 4-byte gaps
	assert_equal "$(reserve_line)" "reserve 8192 free 1668 largest 1656"
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpu4096.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpu4096.ko: its per-CPU data needs 4096 bytes of the per-CPU module reserve, and 1668 of 8192 are free, 1656 in one piece; rotting instances hold 6524: pcpu1500 (3 instances, 4500 bytes), pcpu512 (2 instances, 1024 bytes), pcpufail (1 instance, 1000 bytes) ('modreap --percpu=4100' reclaims what it takes)"
}

@test "when live modules hold the reserve, insmod says so and offers no reclaim" {
	kernel_new rot --percpu-reserve 2K
	on_kernel "$INSMOD" "$FIXTURES/pcpu1500.ko"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpufail.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpufail.ko: its per-CPU data needs 1000 bytes of the per-CPU module reserve, and 548 of 2048 are free, 548 in one piece; live modules hold the rest, and no rotting instance holds any"
	assert_equal "$(kernel_state)" "$before"
}

@test "a module whose per-CPU data can never fit is refused as such" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpuhuge.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpuhuge.ko: its per-CPU data needs 40000 bytes, more than the whole per-CPU module reserve (8192 bytes)"
	kernel_new rot --percpu-reserve 64K
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpuhuge.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpuhuge.ko: its per-CPU data (40000 bytes aligned to 8) is an area the kernel's per-CPU allocator never gives"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "a kernel ENOMEM the reserve caused is explained the same way" {
	# 120 bytes free in one piece, but 100 bytes aligned to 64 do not fit in
	# it: preflight cannot tell, the kernel says ENOMEM
	kernel_new rot --percpu-reserve 1624
	on_kernel "$INSMOD" "$FIXTURES/pcpuodd.ko"
	assert_equal "$(reserve_line)" "reserve 1624 free 120 largest 120"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpualign.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpualign.ko: Cannot allocate memory: its per-CPU data needs 100 bytes aligned to 64 of the per-CPU module reserve, and 120 of 1624 are free, 120 in one piece; live modules hold the rest, and no rotting instance holds any"
	# ENOMEM before init: nothing rots
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --check judges the reserve too, and loads nothing" {
	reload pcpu1500 5
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --check --batch -j1 "$FIXTURES/pcpu1500.ko" "$FIXTURES/pcpu512.ko" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_line --index 0 "$FIXTURES/pcpu512.ko: ok, pcpu512 would load"
	assert_line --index 1 "$FIXTURES/delta.ko: ok, delta would load"
	assert_line --index 2 "2 of 3 would load, 1 refused (1 for want of per-CPU reserve), 0 skipped"
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpu1500.ko: its per-CPU data needs 1500 bytes of the per-CPU module reserve, and 692 of 8192 are free, 676 in one piece; rotting instances hold 7500: pcpu1500 (5 instances, 7500 bytes) ('modreap --percpu=1504' reclaims what it takes)"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch counts refusals and failures for want of reserve, in text and JSON" {
	kernel_new rot --percpu-reserve 1624
	on_kernel "$INSMOD" -b "$FIXTURES/pcpuodd.ko"
	run --separate-stderr on_kernel "$INSMOD" -b --batch -j1 "$FIXTURES/pcpu512.ko" "$FIXTURES/pcpualign.ko" \
		"$FIXTURES/delta.ko" "$FIXTURES/failinit.ko"
	assert_equal "$status" 1
	assert_output "1 of 4 loaded, 2 failed (1 left rot: $(rotting_bytes failinit) bytes; 1 for want of per-CPU reserve), 1 refused before loading (1 for want of per-CPU reserve), 0 skipped"
	assert_equal "$(wc -l <<<"$stderr")" 3
	is_live delta
	kernel_new rot --percpu-reserve 1624
	on_kernel "$INSMOD" -b "$FIXTURES/pcpuodd.ko"
	run --separate-stderr on_kernel "$INSMOD" -b --batch -j1 -J "$FIXTURES/pcpu512.ko" "$FIXTURES/pcpualign.ko" \
		"$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.summary | [.loaded, .refused, .refused_percpu, .failed, .failed_percpu]' <<<"$output")" "[1,1,1,1,1]"
	assert_equal "$(jq -c '[.modules[] | [.name, .result, .error, .percpu_bytes, .percpu_short]]' <<<"$output")" \
		'[["pcpu512","refused","ENOMEM",512,true],["pcpualign","failed","ENOMEM",100,true],["delta","loaded","",0,false]]'
	assert_equal "$(jq -r '.modules[0].message' <<<"$output")" "could not insert module $FIXTURES/pcpu512.ko: its per-CPU data needs 512 bytes of the per-CPU module reserve, and 120 of 1624 are free, 120 in one piece; live modules hold the rest, and no rotting instance holds any"
}

@test "a batch that fills the reserve refuses the modules after the point it ran out" {
	kernel_new rot --percpu-reserve 4K
	run --separate-stderr on_kernel "$INSMOD" --batch -j1 "$FIXTURES/pcpu1500.ko" "$FIXTURES/pcpu512.ko" \
		"$FIXTURES/pcpuodd.ko" "$FIXTURES/pcpualign.ko" "$FIXTURES/pcpufail.ko"
	assert_equal "$status" 1
	# 1500, 512 and 1504 bytes end at 3520; 100 aligned to 64 fit there; 1000 do not
	assert_output "4 of 5 loaded, 0 failed, 1 refused before loading (1 for want of per-CPU reserve), 0 skipped"
	assert_equal "$(rotting_count)" 0
	assert_equal "$(reserve_line)" "reserve 4096 free 480 largest 476"
}

@test "on a stock kernel the reserve is not looked at and per-CPU modules load" {
	kernel_new stock
	for _ in 1 2 3 4 5 6 7; do
		on_kernel "$INSMOD" "$FIXTURES/pcpu1500.ko"
		on_kernel "$RMMOD" pcpu1500
	done
	run --separate-stderr on_kernel "$INSMOD" -J "$FIXTURES/pcpu1500.ko"
	assert_success
	assert_equal "$(jq -c '.modules[0] | [.result, .percpu_bytes, .percpu_short]' <<<"$output")" '["loaded",1500,false]'
}

@test "a rot kernel without /proc/module_percpu (older) is treated as not reporting" {
	reload pcpu1500 5
	# rendered now, then gone: the simulator renders it again only after a change
	on_kernel cat /proc/modules /proc/module_percpu >/dev/null
	rm "$K/root/proc/module_percpu"
	run --separate-stderr on_kernel "$LSMOD" -J -o name,percpu
	assert_success
	assert_equal "$(jq -c '[.modules[] | .percpu_bytes]' <<<"$output")" '[null,null,null,null,null]'
	run --separate-stderr on_kernel "$LSMOD" --rotting
	assert_success
	assert_equal "${lines[-1]}" "5 rotting instances, $(rotting_bytes) bytes"
	# then the kernel's ENOMEM is all insmod can report
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpu1500.ko: Cannot allocate memory"
	assert_equal "$(kernel_state)" "$before"
}

@test "the reserve paths are clean under valgrind" {
	skip_if_sanitized
	reload pcpu1500 5
	valgrind_clean "$INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_equal "$status" 1
	valgrind_clean "$LSMOD" --rotting
	assert_success
	valgrind_clean "$LSMOD" -J -o name,percpu
	assert_success
}

@test "per-CPU sizes are the section's, as the kernel shows them; the reserve gives whole 4-byte units" {
	run --separate-stderr on_kernel "$INSMOD" -J "$FIXTURES/pcpuodd.ko"
	assert_success
	assert_equal "$(jq -c '.modules[0] | [.result, .percpu_bytes]' <<<"$output")" '["loaded",1501]'
	run --separate-stderr on_kernel "$LSMOD" -r -n -o name,percpu
	assert_output "pcpuodd 1501"
	assert_equal "$(reserve_line)" "reserve 8192 free 6688 largest 6688"
}
