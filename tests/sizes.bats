#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Sizes in the text output of modrot's own words (modreap's report and
# summaries, what rmmod, modprobe and insmod say rots or was reclaimed)
# read as util-linux's lsblk prints them: powers of 1024, one letter, at
# most one decimal. -b/--bytes gives the exact bytes; JSON always has
# them; what kmod prints (lsmod's layout, modinfo's fields, modprobe's
# kmod lines) is never changed. Each figure is held against the
# simulator's own.

bats_require_minimum_version 1.5.0

load helpers/tools
load helpers/modtree

MODPROBE=$top_builddir/tools/modprobe
INSMOD=$top_builddir/tools/insmod
MODINFO=$top_builddir/tools/modinfo

setup() {
	kernel_new rot
}


@test "the oracle is lsblk's rule: a few sizes by hand" {
	assert_equal "$(human_size 0) $(human_size 512) $(human_size 1024) $(human_size 1920) $(human_size 2047) $(human_size 5000)" \
		"0B 512B 1K 1.9K 2K 4.9K"
	assert_equal "$(human_size 1048575) $(human_size 1048576) $(human_size 1572864)" "1024K 1M 1.5M"
}

@test "modreap's report: human sizes in the table and the total, -b the bytes, JSON the bytes" {
	rot_delta3_alpha1
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP"
	assert_success
	assert_line --index 0 --regexp '^NAME +INSTANCES +BYTES +PERCPU$'
	assert_line --regexp "^delta +3 +$(human_size "$(rotting_bytes delta)") +0B\$"
	assert_line --regexp "^alpha +1 +$(human_size "$(rotting_bytes alpha)") +0B\$"
	assert_equal "${lines[-1]}" "total: 4 rotting instances of 2 names, $(human_size "$(rotting_bytes)"), 0B per-CPU; per-CPU reserve: 8K of 8K free, 8K in one piece"
	run --separate-stderr on_kernel "$MODREAP" --bytes
	assert_success
	assert_line --regexp "^delta +3 +$(rotting_bytes delta) +0\$"
	assert_equal "${lines[-1]}" "total: 4 rotting instances of 2 names, $(rotting_bytes) bytes, 0 per-CPU bytes; per-CPU reserve: 8192 of 8192 bytes free, 8192 in one piece"
	run --separate-stderr on_kernel "$MODREAP" -J
	assert_success
	assert_equal "$(jq '.summary.rotting_bytes' <<<"$output")" "$(rotting_bytes)"
	assert_equal "$(jq '[.rotting[].rotting_bytes] | add' <<<"$output")" "$(rotting_bytes)"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap's reclaim lines and summary are human; -b gives the old bytes" {
	rot_delta3_alpha1
	local delta alpha
	delta=$(rotting_bytes delta)
	alpha=$(rotting_bytes alpha)
	run --separate-stderr on_kernel "$MODREAP" delta
	assert_success
	assert_line --index 0 "delta: reclaimed 3 instances, $(human_size "$delta")"
	assert_regex "${lines[-1]}" "^total: reclaimed 3 instances, $(human_size "$delta"); $(human_size "$alpha") still rot; "
	assert_equal "$(rotting_count delta)" 0
	run --separate-stderr on_kernel "$MODREAP" -b -a
	assert_success
	assert_line --index 0 "alpha: reclaimed 1 instance, $alpha bytes"
	assert_equal "$(rotting_count)" 0
}

@test "rmmod -v and rmmod --unused say what rots in human sizes; -b in bytes" {
	kmod_load alpha delta
	local size
	size=$(live_size delta)
	run --separate-stderr on_kernel "$RMMOD" -v delta
	assert_success
	assert_equal "$stderr" "rmmod: delta now rots: $(human_size "$size") stay allocated; 'rmmod --reclaim delta' frees them and taints the kernel"
	assert_equal "$(rotting_bytes delta)" "$size"
	size=$(live_size alpha)
	run --separate-stderr on_kernel "$RMMOD" -b --unused
	assert_success
	assert_equal "${lines[-1]}" "unloaded 1 unused module; $size bytes now rot"
	run --separate-stderr on_kernel "$RMMOD" --reclaim alpha
	assert_success
	assert_line --index 0 "alpha: reclaimed 1 instance, $(human_size "$size")"
	assert_equal "$(rotting_count alpha)" 0
}

@test "modprobe: its own rot lines are human (--bytes: bytes); kmod's rmmod lines and exit stay kmod's" {
	modtree_install
	on_kernel "$MODPROBE" -C "$MODTREE_CONF" mtfs_tools
	local tools fs core
	tools=$(live_size mtfs_tools)
	fs=$(live_size mtfs)
	core=$(live_size mt_fscore)
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r -n -v mtfs_tools
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore"
	assert_equal "${stderr_lines[0]}" "modprobe: mtfs_tools would rot: $(human_size "$tools") would stay allocated"
	assert_equal "${stderr_lines[-1]}" "modprobe: 3 modules would rot: $(human_size $((tools + fs + core)))"
	run --separate-stderr on_kernel "$MODPROBE" --bytes -C "$MODTREE_CONF" -r -v mtfs_tools
	assert_success
	assert_equal "${stderr_lines[0]}" "modprobe: mtfs_tools now rots: $tools bytes stay allocated; 'rmmod --reclaim mtfs_tools' frees them and taints the kernel"
	assert_equal "${stderr_lines[-1]}" "modprobe: 3 modules now rot: $((tools + fs + core)) bytes"
	assert_equal "$(rotting_bytes)" "$((tools + fs + core))"
}

@test "insmod: a failed init's rot is human, -b the bytes; lsmod and modinfo keep kmod's bytes" {
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/failinit.ko"
	assert_failure 1
	local size
	size=$(rotting_bytes failinit)
	assert [ "$size" -gt 1024 ]
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/failinit.ko: No such device; its init failed and its $(human_size "$size") now rot ('rmmod --reclaim failinit' frees them)"
	run --separate-stderr on_kernel "$INSMOD" -b "$FIXTURES/failinit.ko"
	assert_failure 1
	assert_regex "$stderr" "; its init failed and its $size bytes now rot "
	# kmod's layout: bytes, always
	kmod_load alpha
	run on_kernel "$LSMOD"
	assert_line --regexp "^alpha +$(live_size alpha)  0\$"
	assert_line --regexp "^\\(failinit\\) +$size  0 \\[rotting\\]\$"
	run on_kernel "$MODINFO" -F rotting_bytes "$FIXTURES/failinit.ko"
	assert_output "$((size * 2))"
}
