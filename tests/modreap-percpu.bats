#!/usr/bin/env bats
# modreap and the per-CPU module reserve: per-CPU bytes in the report,
# --percpu (the fewest names that make room, or all that hold some),
# --watch --percpu-floor, kernels that do not report the reserve, and
# rmmod -v saying what an unload keeps of it.

load helpers/tools

setup() {
	kernel_new rot
}

# The first line of /proc/module_percpu: "reserve SIZE free FREE largest LARGEST".
reserve_line() { on_kernel cat /proc/module_percpu | head -n1; }
reserve_free() { reserve_line | awk '{ print $4 }'; }
reserve_largest() { reserve_line | awk '{ print $6 }'; }

# Unloads NAME after loading it, COUNT times: each unload leaves it rotting
# with its per-CPU area.
rot_times() {
	local name=$1 count=$2 i
	for ((i = 0; i < count; i++)); do
		kmod_load "$name" || return
		kmod_unload "$name" || return
	done
}

# The watcher's targets: at least FLOOR bytes free in one piece; and the
# floor of 4000 with rot down to 9000 bytes, pcpu1500 all reclaimed.
floor_kept() { [ "$(reserve_largest)" -ge "$1" ]; }
both_kept() {
	floor_kept 4000 && [ "$(rotting_count pcpu1500)" -eq 0 ] && [ "$(rotting_bytes)" -le 9000 ]
}

# pcpu1500 rots 3 times (4500 per-CPU bytes), pcpu512 once (512), delta
# twice (none): 3180 bytes of the 8 KiB reserve stay free.
make_percpu_rot() {
	rot_times pcpu1500 3
	rot_times pcpu512 1
	rot_times delta 2
	assert_equal "$(reserve_free)" 3180
}

@test "modreap reports the per-CPU bytes of each rotting name, and the reserve" {
	make_percpu_rot
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b
	assert_success
	assert_line --index 0 --regexp '^NAME +INSTANCES +BYTES +PERCPU$'
	assert_line --regexp "^pcpu1500 +3 +$(rotting_bytes pcpu1500) +4500\$"
	assert_line --regexp "^pcpu512 +1 +$(rotting_bytes pcpu512) +512\$"
	assert_line --regexp "^delta +2 +$(rotting_bytes delta) +0\$"
	assert_equal "${lines[-1]}" "total: 6 rotting instances of 3 names, $(rotting_bytes) bytes, 5012 per-CPU bytes; per-CPU reserve: 3180 of 8192 bytes free, $(reserve_largest) in one piece"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap -J gives each name's per-CPU bytes and the reserve, as the kernel counts them" {
	make_percpu_rot
	run --separate-stderr on_kernel "$MODREAP" -b -J
	assert_success
	assert_equal "$(jq -r '.rotting[] | "\(.name)=\(.rotting_percpu_bytes)"' <<<"$output" | sort | tr '\n' ' ')" \
		"delta=0 pcpu1500=4500 pcpu512=512 "
	assert_equal "$(jq -c '.summary | [.rotting_percpu_bytes, .percpu_reserve_bytes, .percpu_free_bytes, .percpu_largest_bytes]' <<<"$output")" \
		"[5012,8192,3180,$(reserve_largest)]"
}

@test "modreap --percpu SIZE reclaims the one smallest name that is enough, and no other" {
	make_percpu_rot
	taken_before=$(rotting_bytes pcpu512)
	# 3180 free: 320 more are needed, and pcpu512 alone gives them.
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 3500
	assert_success
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "pcpu512: reclaimed 1 instance, $taken_before bytes, 512 per-CPU bytes"
	assert_line --index 1 "total: reclaimed 1 instance, $taken_before bytes, 512 per-CPU bytes; $(rotting_bytes) bytes still rot; per-CPU reserve: 3692 of 8192 bytes free, $(reserve_largest) in one piece; kernel taint: none -> R (8)"
	assert_equal "$stderr" ""
	assert_equal "$(rotting_count pcpu512)" 0
	assert_equal "$(rotting_count pcpu1500)" 3
	assert_equal "$(rotting_count delta)" 2
	assert_equal "$(reserve_free)" 3692
	[ "$(reserve_largest)" -ge 3500 ]
	assert_equal "$(taint)" 8
	"$SIM" ledger "$K" --check
}

@test "modreap --percpu=SIZE takes the largest name when one small one is not enough" {
	make_percpu_rot
	run --separate-stderr on_kernel "$MODREAP" -b --percpu=4000
	assert_success
	assert_line --index 0 --regexp "^pcpu1500: reclaimed 3 instances, [0-9]+ bytes, 4500 per-CPU bytes\$"
	assert_equal "${#lines[@]}" 2
	assert_equal "$(rotting_count pcpu1500)" 0
	assert_equal "$(rotting_count pcpu512)" 1
	assert_equal "$(reserve_free)" 7680
}

@test "modreap --percpu SIZE with enough free in one piece reclaims nothing and does not taint" {
	make_percpu_rot
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 2K
	assert_success
	assert_output "total: reclaimed 0 instances, 0 bytes, 0 per-CPU bytes; $(rotting_bytes) bytes still rot; per-CPU reserve: 3180 of 8192 bytes free, $(reserve_largest) in one piece; kernel taint: none -> none (0)"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap --percpu with no size reclaims every name holding per-CPU bytes, and only those" {
	make_percpu_rot
	delta_before=$(rotting_bytes delta)
	run --separate-stderr on_kernel "$MODREAP" -b --percpu
	assert_success
	assert_line --index 0 --regexp "^pcpu1500: reclaimed 3 instances, [0-9]+ bytes, 4500 per-CPU bytes\$"
	assert_line --index 1 --regexp "^pcpu512: reclaimed 1 instance, [0-9]+ bytes, 512 per-CPU bytes\$"
	assert_line --index 2 --regexp "^total: reclaimed 4 instances, [0-9]+ bytes, 5012 per-CPU bytes; $delta_before bytes still rot; per-CPU reserve: 8192 of 8192 bytes free, 8192 in one piece; kernel taint: none -> R \\(8\\)\$"
	assert_equal "$(rotting_count delta)" 2
	assert_equal "$(rotting_count pcpu1500)$(rotting_count pcpu512)" 00
	assert_equal "$(reserve_line)" "reserve 8192 free 8192 largest 8192"
	"$SIM" ledger "$K" --check
}

@test "modreap --percpu SIZE asks the kernel again when the freed bytes lie apart, and goes on" {
	kernel_new rot --percpu-reserve 4096
	# pcpu1500 rots at 0, pcpu512 stays live after it (at 1504, 8-byte
	# aligned), pcpuodd (1501 bytes, 1504 in the reserve) rots after
	# that: 576 free at the end, and 4 between pcpu1500 and pcpu512.
	rot_times pcpu1500 1
	kmod_load pcpu512
	rot_times pcpuodd 1
	assert_equal "$(reserve_line)" "reserve 4096 free 580 largest 576"
	# 1420 missing: pcpu1500 alone gives them, but its 1500 lie apart
	# from the 576, so the largest piece is 1504; then pcpuodd.
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 2000
	assert_success
	assert_line --index 0 --regexp "^pcpu1500: reclaimed 1 instance, [0-9]+ bytes, 1500 per-CPU bytes\$"
	assert_line --index 1 --regexp "^pcpuodd: reclaimed 1 instance, [0-9]+ bytes, 1501 per-CPU bytes\$"
	assert_equal "${#lines[@]}" 3
	assert_equal "$(reserve_line)" "reserve 4096 free 3584 largest 2080"
	is_live pcpu512
	assert_equal "$(rotting_count)" 0
}

@test "modreap --percpu SIZE that live modules keep from fitting reclaims what it can, says so and exits 1" {
	kmod_load pcpu4096
	rot_times pcpu1500 2
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 6000
	assert_failure 1
	assert_line --index 0 --regexp "^pcpu1500: reclaimed 2 instances, [0-9]+ bytes, 3000 per-CPU bytes\$"
	assert_equal "$stderr" "modreap: ERROR: could not make 6000 bytes of the per-CPU reserve free in one piece: the largest free piece is $(reserve_largest) bytes (4096 of 8192 free), and no rotting name left to reclaim holds any of the rest"
	assert_equal "$(rotting_count pcpu1500)" 0
	is_live pcpu4096
}

@test "modreap --percpu SIZE larger than the whole reserve exits 3 and changes nothing" {
	make_percpu_rot
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 9000
	assert_equal "$status" 3
	assert_output ""
	assert_equal "$stderr" "modreap: ERROR: --percpu 9000: the per-CPU module reserve of this kernel is only 8192 bytes"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap -n --percpu SIZE says what it would free and frees nothing" {
	make_percpu_rot
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b -n --percpu 3500
	assert_success
	assert_line --index 0 --regexp "^pcpu512: would reclaim 1 instance, [0-9]+ bytes, 512 per-CPU bytes\$"
	assert_line --index 1 --regexp "^total: would reclaim 1 instance, [0-9]+ bytes, 512 per-CPU bytes; [0-9]+ bytes would still rot; per-CPU reserve would have 3692 of 8192 bytes free; kernel taint would go: none -> R \\(8\\)\$"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap --percpu -J reports the per-CPU bytes freed and the reserve after" {
	make_percpu_rot
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 3500 -J
	assert_success
	assert_equal "$(jq -c '[.reclaimed[] | [.name, .reclaimed_percpu_bytes]]' <<<"$output")" '[["pcpu512",512]]'
	assert_equal "$(jq -c '.summary | [.reclaimed_percpu_bytes, .percpu_reserve_bytes, .percpu_free_bytes, .percpu_largest_bytes]' <<<"$output")" \
		"[512,8192,3692,$(reserve_largest)]"
}

# The real kernel's story (issue 11): reload a module with per-CPU data
# until the reserve runs out; then modreap --percpu makes the next load fit.
@test "after the reserve runs out, modreap --percpu SIZE makes the next load succeed" {
	rot_times pcpu1500 5
	run on_kernel "$KMOD_INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_failure
	assert_output --partial "Cannot allocate memory"
	assert_equal "$(reserve_line)" "reserve 8192 free 692 largest 676"
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 1500
	assert_success
	run on_kernel "$KMOD_INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_success
	is_live pcpu1500
	"$SIM" ledger "$K" --check
}

@test "insmod's refusal for want of the reserve names a modreap command that makes the load succeed" {
	rot_times pcpu1500 5
	before=$(kernel_state)
	run --separate-stderr on_kernel "$top_builddir/tools/insmod" "$FIXTURES/pcpu1500.ko"
	assert_failure 1
	cmd=$(grep -o "'modreap --percpu[^']*'" <<<"$stderr" | tr -d "'")
	[ -n "$cmd" ]
	assert_equal "$(kernel_state)" "$before"
	# shellcheck disable=SC2086 # the command as insmod spelled it
	run --separate-stderr on_kernel "$top_builddir/tools/"$cmd
	assert_success
	# as a person reads it (lsblk's sizes): 5 x 1500 per-CPU bytes are 7.3K
	assert_line --index 0 --regexp "^pcpu1500: reclaimed 5 instances, [0-9.]+K, 7.3K per-CPU\$"
	run --separate-stderr on_kernel "$top_builddir/tools/insmod" "$FIXTURES/pcpu1500.ko"
	assert_success
	is_live pcpu1500
	"$SIM" ledger "$K" --check
}

@test "modreap --percpu on a stock kernel exits 3 with one line and changes nothing" {
	kernel_new stock
	kmod_load pcpu1500
	before=$(kernel_state)
	for args in "--percpu" "--percpu 1500" "--watch --percpu-floor 1K"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" -b $args
		assert_equal "$status" 3
		assert_output ""
		assert_equal "$stderr" "modreap: ERROR: this kernel has no module rot support (/proc/rotting_modules is missing)"
	done
	assert_equal "$(kernel_state)" "$before"
}

# A rot kernel from before per-CPU accounting has /proc/rotting_modules
# but no /proc/module_percpu: the simulated kernel's file is taken away.
hide_module_percpu() {
	on_kernel cat /proc/module_percpu >/dev/null # rendered now, not again until a change
	rm "$K/root/proc/module_percpu" "$K/root/.nocap/proc/module_percpu"
}

@test "modreap --percpu on a rot kernel without /proc/module_percpu exits 3 with one line" {
	make_percpu_rot
	hide_module_percpu
	before=$(kernel_state)
	for args in "--percpu" "--percpu 1500" "-n --percpu" "--watch --percpu-floor 1K"; do
		option=--percpu
		[[ $args == *--percpu-floor* ]] && option=--percpu-floor
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" -b $args
		assert_equal "$status" 3
		assert_output ""
		assert_equal "$stderr" "modreap: ERROR: this kernel does not report its per-CPU module reserve (/proc/module_percpu is missing): $option needs a rot kernel that does"
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap without --percpu on a rot kernel without /proc/module_percpu has no PERCPU column" {
	make_percpu_rot
	hide_module_percpu
	run --separate-stderr on_kernel "$MODREAP" -b
	assert_success
	assert_line --index 0 --regexp '^NAME +INSTANCES +BYTES$'
	assert_equal "${lines[-1]}" "total: 6 rotting instances of 3 names, $(rotting_bytes) bytes"
	run --separate-stderr on_kernel "$MODREAP" -b -J
	assert_success
	assert_equal "$(jq -c '[.rotting[].rotting_percpu_bytes] | unique' <<<"$output")" '[null]'
	assert_equal "$(jq -c '.summary | [.rotting_percpu_bytes, .percpu_reserve_bytes, .percpu_free_bytes, .percpu_largest_bytes]' <<<"$output")" \
		'[null,null,null,null]'
	delta_bytes=$(rotting_bytes delta)
	run --separate-stderr on_kernel "$MODREAP" -b delta
	assert_success
	assert_line --index 0 "delta: reclaimed 2 instances, $delta_bytes bytes"
	assert_equal "${lines[-1]%%; kernel taint*}" "total: reclaimed 2 instances, $delta_bytes bytes; $(rotting_bytes) bytes still rot"
}

@test "a malformed /proc/module_percpu: --percpu changes nothing and exits 1, the report goes on without it" {
	make_percpu_rot
	hide_module_percpu
	printf 'reserve 8192 free 3180 largest 3168\npcpu1500 many Rotting 0xffffffffc0000000\n' \
		> "$K/root/proc/module_percpu"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b --percpu 3500
	assert_failure 1
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	[[ $stderr == "modreap: ERROR: could not read the per-CPU reserve: /proc/module_percpu line 2: "* ]]
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$MODREAP" -b
	assert_failure 1
	assert_line --index 0 --regexp '^NAME +INSTANCES +BYTES$'
	assert_equal "${#stderr_lines[@]}" 1
}

@test "modreap --percpu usage errors exit 2 and change nothing" {
	make_percpu_rot
	before=$(kernel_state)
	for args in "--percpu delta" "--percpu -a" "--percpu 1K --down-to 1M" "--percpu=12Q" \
		"--percpu --watch" "--percpu-floor 1K" "--watch --percpu-floor" "--watch --percpu-floor 1Q" \
		"--watch --percpu-floor 1K delta" "--watch --percpu-floor 1K -a" "-n --watch --percpu-floor 1K"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" -b $args
		assert_equal "$status" 2
		assert_equal "${#stderr_lines[@]}" 1
		assert_output ""
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap --watch --percpu-floor keeps a module with per-CPU data loadable while it reloads" {
	rot_times delta 2
	delta_bytes=$(rotting_bytes delta)
	# exec, so that the signal below reaches modreap itself.
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --percpu-floor 3000 --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err") &
	reaper=$!
	failed=0
	# Without the floor the sixth load fails (the test above). Each load
	# waits until the watcher has kept the floor, however slow its passes.
	for _ in $(seq 12); do
		wait_until floor_kept 3000
		kmod_load pcpu1500 || failed=$((failed + 1))
		kmod_unload pcpu1500
	done
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
	assert_equal "$failed" 0
	assert_equal "$(cat "$BATS_TEST_TMPDIR/watch.err")" ""
	run tail -1 "$BATS_TEST_TMPDIR/watch.out"
	assert_output --regexp '^total: reclaimed [0-9]+ instances, [0-9]+ bytes, [0-9]+ per-CPU bytes; [0-9]+ bytes still rot; per-CPU reserve: [0-9]+ of 8192 bytes free, [0-9]+ in one piece; kernel taint: none -> R \(8\)$'
	# Only the floor was asked for: what holds no per-CPU bytes stays.
	assert_equal "$(rotting_count delta)" 2
	assert_equal "$(rotting_bytes delta)" "$delta_bytes"
	run grep -c '^delta:' "$BATS_TEST_TMPDIR/watch.out"
	assert_output 0
	"$SIM" ledger "$K" --check
}

@test "modreap --watch --percpu-floor and --down-to keep both the floor and the ceiling" {
	make_percpu_rot
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --percpu-floor 4000 --down-to 9000 --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err") &
	reaper=$!
	wait_until both_kept
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
	# The floor takes pcpu1500 (4500 per-CPU bytes), then the ceiling delta.
	assert_equal "$(rotting_count pcpu1500)" 0
	[ "$(reserve_largest)" -ge 4000 ]
	[ "$(rotting_bytes)" -le 9000 ]
	assert_equal "$(cat "$BATS_TEST_TMPDIR/watch.err")" ""
}

@test "modreap --watch --percpu-floor says once that the floor cannot be kept, and exits 1 at a stop" {
	kmod_load pcpu4096 pcpu1500
	# SIGINT at its default: a suite run as a background job or under
	# nohup has it ignored, which modreap rightly keeps (signals.bats).
	(exec env --default-signal=INT "$SIM" run "$K" -- "$MODREAP" -b --watch --percpu-floor 6000 --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err") &
	reaper=$!
	wait_until eval '[ -s "$BATS_TEST_TMPDIR/watch.err" ]'
	# pcpu512 rots: a later pass reclaims it (the floor is still not met)
	# and must not say so again.
	rot_times pcpu512 1
	wait_until eval '[ "$(rotting_count pcpu512)" -eq 0 ]'
	kill -INT "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 130
	run cat "$BATS_TEST_TMPDIR/watch.err"
	assert_equal "${#lines[@]}" 1
	assert_output --partial "modreap: ERROR: could not keep 6000 bytes of the per-CPU reserve free in one piece"
	grep -Eq '^pcpu512: reclaimed 1 instance, ' "$BATS_TEST_TMPDIR/watch.out"
	is_live pcpu4096
	is_live pcpu1500
}

@test "rmmod -v says how much of the per-CPU reserve an unload leaves rotting" {
	kmod_load pcpu1500 delta
	size=$(kernel_state | awk '$1 == "live" && $2 == "pcpu1500" { print $3 }')
	run --separate-stderr on_kernel "$RMMOD" -b -v pcpu1500 delta
	assert_success
	assert_equal "${stderr_lines[0]}" "rmmod: pcpu1500 now rots: $size bytes stay allocated, and 1500 bytes of the per-CPU module reserve (6692 of 8192 free); 'rmmod --reclaim pcpu1500' frees them and taints the kernel"
	assert_equal "${stderr_lines[1]}" "rmmod: delta now rots: $(rotting_bytes delta) bytes stay allocated; 'rmmod --reclaim delta' frees them and taints the kernel"
	assert_equal "$(rotting_count pcpu1500)" 1
	assert_equal "$(reserve_free)" 6692
}

@test "rmmod -v on a rot kernel without /proc/module_percpu says only the bytes" {
	kmod_load pcpu1500
	hide_module_percpu
	run --separate-stderr on_kernel "$RMMOD" -b -v pcpu1500
	assert_success
	assert_equal "$stderr" "rmmod: pcpu1500 now rots: $(rotting_bytes pcpu1500) bytes stay allocated; 'rmmod --reclaim pcpu1500' frees them and taints the kernel"
}

@test "modreap --percpu and rmmod -v are clean under valgrind" {
	skip_if_sanitized
	make_percpu_rot
	valgrind_clean "$MODREAP" -b
	valgrind_clean "$MODREAP" -b -J
	valgrind_clean "$MODREAP" -b -n --percpu 3500 -J
	valgrind_clean "$MODREAP" -b --percpu 3500
	assert_success
	kmod_load pcpu1500
	valgrind_clean "$RMMOD" -v pcpu1500
	assert_success
	valgrind_clean "$MODREAP" -b --percpu
	assert_success
}
