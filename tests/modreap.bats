#!/usr/bin/env bats
# modreap: reporting rot, reclaiming it by name, all of it or down to a
# ceiling, dry runs, JSON, --watch, and racing reapers.

load helpers/tools

setup() {
	kernel_new rot
}

# delta rots three times, alpha once, failinit twice (failed inits).
make_rot() {
	rot_delta3_alpha1
	on_kernel "$KMOD_INSMOD" "$FIXTURES/failinit.ko" || true
	on_kernel "$KMOD_INSMOD" "$FIXTURES/failinit.ko" || true
	assert_equal "$(rotting_count)" 6
}

@test "modreap with no arguments reports rot by name and its total, and reclaims nothing" {
	make_rot
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b
	assert_success
	assert_line --index 0 --regexp '^NAME +INSTANCES +BYTES +PERCPU$'
	assert_line --regexp "^delta +3 +$(rotting_bytes delta) +0\$"
	assert_line --regexp "^failinit +2 +$(rotting_bytes failinit) +0\$"
	assert_line --regexp "^alpha +1 +$(rotting_bytes alpha) +0\$"
	assert_equal "${lines[-1]}" "total: 6 rotting instances of 3 names, $(rotting_bytes) bytes, 0 per-CPU bytes; per-CPU reserve: 8192 of 8192 bytes free, 8192 in one piece"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap lists names largest first" {
	make_rot
	run on_kernel "$MODREAP" -b
	order=$(printf '%s\n' "${lines[@]:1:3}" | awk '{ print $3 }')
	assert_equal "$order" "$(echo "$order" | sort -rn)"
}

@test "modreap on a kernel with nothing rotting reports zero" {
	run on_kernel "$MODREAP" -b
	assert_success
	assert_output "total: 0 rotting instances of 0 names, 0 bytes, 0 per-CPU bytes; per-CPU reserve: 8192 of 8192 bytes free, 8192 in one piece"
}

@test "modreap -J reports rot as JSON whose sums match the kernel" {
	make_rot
	run on_kernel "$MODREAP" -b -J
	assert_success
	assert_equal "$(echo "$output" | jq '[.rotting[].rotting_bytes] | add')" "$(rotting_bytes)"
	assert_equal "$(echo "$output" | jq '.summary.rotting_bytes')" "$(rotting_bytes)"
	assert_equal "$(echo "$output" | jq '.summary.rotting_instances')" 6
	assert_equal "$(echo "$output" | jq -r '.rotting[] | select(.name == "delta") | .rotting_instances')" 3
}

@test "modreap NAME reclaims only that name, with a summary and the taint" {
	make_rot
	bytes=$(rotting_bytes delta)
	left=$(( $(rotting_bytes) - bytes ))
	run --separate-stderr on_kernel "$MODREAP" -b delta
	assert_success
	assert_line --index 0 "delta: reclaimed 3 instances, $bytes bytes"
	assert_line --index 1 "total: reclaimed 3 instances, $bytes bytes; $left bytes still rot; kernel taint: none -> R (8)"
	assert_equal "$(rotting_count delta)" 0
	assert_equal "$(rotting_count)" 3
	assert_equal "$(taint)" 8
	"$SIM" ledger "$K" --check
}

@test "modreap -a reclaims everything, and the ledger shows every rotted byte freed once" {
	make_rot
	rotted=$(rotting_bytes)
	run on_kernel "$MODREAP" -b -a -q
	assert_success
	assert_output ""
	assert_equal "$(rotting_count)" 0
	freed=$("$SIM" ledger "$K" | awk '$2 == "reclaim" { s += $5 } END { print s }')
	assert_equal "$freed" "$rotted"
	"$SIM" ledger "$K" --check
}

@test "modreap --down-to reclaims the largest names until at most SIZE rots" {
	make_rot
	ceiling=$(( $(rotting_bytes alpha) ))
	run on_kernel "$MODREAP" -b --down-to "$ceiling"
	assert_success
	[ "$(rotting_bytes)" -le "$ceiling" ]
	# Largest first: the smallest group, alpha, is the one left.
	assert_equal "$(rotting_count alpha)" 1
	assert_equal "$(rotting_count)" 1
}

@test "modreap --down-to with rot already under the ceiling does nothing" {
	make_rot
	before=$(kernel_state)
	run on_kernel "$MODREAP" -b --down-to 1G
	assert_success
	assert_equal "$(kernel_state)" "$before"
	assert_line "total: reclaimed 0 instances, 0 bytes; $(rotting_bytes) bytes still rot; kernel taint: none -> none (0)"
}

@test "modreap --down-to accepts sizes in bytes and binary units" {
	make_rot
	for size in 1G 1g 1GiB 1073741824 1073741824B; do
		run on_kernel "$MODREAP" -b -n --down-to "$size"
		assert_success
		assert_line --regexp "^total: would reclaim 0 instances, 0 bytes; "
	done
	run on_kernel "$MODREAP" -b -n --down-to 0
	assert_line --regexp "^total: would reclaim 6 instances, "
}

@test "modreap shows a progress bar on a terminal and keeps every line" {
	"$SIM" populate "$K" --live 0 --rotting 100 --seed 2
	run script -qec "'$SIM' run '$K' -- '$MODREAP' -a" /dev/null
	assert_success
	assert_output --partial "modreap: reclaiming ["
	assert_equal "$(echo "$output" | grep -c ': reclaimed 1 instance, ')" 100
	assert_equal "$(rotting_count)" 0
}

@test "modreap -q shows no progress bar, even on a terminal" {
	"$SIM" populate "$K" --live 0 --rotting 100 --seed 2
	run script -qec "'$SIM' run '$K' -- '$MODREAP' -a -q" /dev/null
	assert_success
	assert_output ""
	assert_equal "$(rotting_count)" 0
}

@test "modreap -n says what would be freed and frees nothing" {
	make_rot
	before=$(kernel_state)
	ledger=$("$SIM" ledger "$K")
	run on_kernel "$MODREAP" -b -n -a
	assert_success
	assert_line "delta: would reclaim 3 instances, $(rotting_bytes delta) bytes"
	assert_line "total: would reclaim 6 instances, $(rotting_bytes) bytes; 0 bytes would still rot; kernel taint would go: none -> R (8)"
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$("$SIM" ledger "$K")" "$ledger"
}

@test "modreap -J after reclaiming gives the reclaimed names and a summary" {
	make_rot
	total=$(rotting_bytes)
	run on_kernel "$MODREAP" -b -a -J
	assert_success
	assert_equal "$(echo "$output" | jq '.summary.reclaimed_bytes')" "$total"
	assert_equal "$(echo "$output" | jq '.summary.rotting_bytes')" 0
	assert_equal "$(echo "$output" | jq -r '.summary.taint_after')" R
	assert_equal "$(echo "$output" | jq '[.reclaimed[].reclaimed_instances] | add')" 6
	assert_equal "$(rotting_count)" 0
}

@test "modreap of a name with nothing rotting fails for it and reclaims the rest" {
	make_rot
	run --separate-stderr on_kernel "$MODREAP" -b zeta alpha
	assert_equal "$status" 1
	assert_equal "$stderr" "modreap: ERROR: Module zeta has no rotting instances"
	assert_equal "$(rotting_count alpha)" 0
	assert_equal "$(rotting_count delta)" 3
}

# straytimer's exit leaves a timer armed: its rotting instances are still
# in use, and the kernel refuses to free them without O_TRUNC.
rot_straytimer() { # TIMES
	local i
	for i in $(seq "$1"); do
		kmod_load straytimer
		kmod_unload straytimer
	done
}

refused_words() { # N INSTANCE(S) IT|THEM: N instances of straytimer, a timer in each
	local timers=timers
	[ "$1" = 1 ] && timers=timer
	echo "modreap: ERROR: could not reclaim straytimer: $1 rotting $2 kept: $1 $timers pointing into it; 'modreap --force straytimer' stops the timers and work left in $3"
}

@test "modreap NAME reports instances still in use, reclaims the other names and exits 1" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	make_rot
	rot_straytimer 2
	stray=$(rotting_bytes straytimer)
	bytes=$(rotting_bytes delta)
	left=$(( $(rotting_bytes) - bytes ))
	run --separate-stderr on_kernel "$MODREAP" -b straytimer delta
	assert_equal "$status" 1
	assert_equal "$stderr" "$(refused_words 2 instances them)"
	assert_line --index 0 "delta: reclaimed 3 instances, $bytes bytes"
	assert_line --index 1 "total: reclaimed 3 instances, $bytes bytes; $left bytes still rot; 2 instances still in use; kernel taint: none -> R (8)"
	assert_equal "${#lines[@]}" 2
	assert_equal "$(rotting_count straytimer)" 2
	assert_equal "$(rotting_bytes straytimer)" "$stray"
	assert_equal "$(rotting_count delta)" 0
	"$SIM" ledger "$K" --check
}

@test "modreap with only refusals exits 1 and leaves the taint alone" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer 1
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" -b -a
	assert_equal "$status" 1
	assert_equal "$stderr" "$(refused_words 1 instance it)"
	assert_output "total: reclaimed 0 instances, 0 bytes; $(rotting_bytes) bytes still rot; 1 instance still in use; kernel taint: none -> none (0)"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap -J counts the refused instances in its summary" {
	make_rot
	rot_straytimer 2
	total=$(rotting_bytes)
	stray=$(rotting_bytes straytimer)
	run --separate-stderr on_kernel "$MODREAP" -b -a -J
	assert_equal "$status" 1
	assert_equal "$(jq '.summary.kept_instances' <<< "$output")" 2
	assert_equal "$(jq '.summary.failures' <<< "$output")" 1
	assert_equal "$(jq '.summary.reclaimed_bytes' <<< "$output")" $((total - stray))
	assert_equal "$(jq '.summary.rotting_bytes' <<< "$output")" "$stray"
	assert_equal "$(jq -r '[.reclaimed[].name] | sort | join(",")' <<< "$output")" "alpha,delta,failinit"
	assert_equal "$(rotting_count)" 2
}

@test "modreap --force frees instances still in use" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	make_rot
	rot_straytimer 2
	stray=$(rotting_bytes straytimer)
	run --separate-stderr on_kernel "$MODREAP" -b --force straytimer
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 "straytimer: reclaimed 2 instances, $stray bytes"
	assert_equal "$(rotting_count straytimer)" 0
	assert_equal "$(taint)" 8
	run on_kernel "$MODREAP" -b -f -a -J
	assert_success
	assert_equal "$(jq '.summary.kept_instances' <<< "$output")" 0
	assert_equal "$(rotting_count)" 0
	"$SIM" ledger "$K" --check
}

@test "modreap --down-to passes over a refused name to the next largest and meets the target" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer 4
	kmod_load delta alpha
	kmod_unload delta alpha
	stray=$(rotting_bytes straytimer)
	ceiling=$(( stray + $(rotting_bytes alpha) ))
	run --separate-stderr on_kernel "$MODREAP" -b --down-to "$ceiling"
	assert_equal "$status" 1
	assert_equal "$stderr" "$(refused_words 4 instances them)"
	assert_line --index 0 --regexp '^delta: reclaimed 1 instance, [0-9]+ bytes$'
	[ "$(rotting_bytes)" -le "$ceiling" ]
	assert_equal "$(rotting_count straytimer)" 4
	assert_equal "$(rotting_count alpha)" 1
	assert_equal "$(rotting_count delta)" 0
}

# Lines in FILE (0 when it does not exist yet).
lines_in() { if [ -e "$1" ]; then wc -l < "$1"; else echo 0; fi; }
has_lines() { [ "$(lines_in "$1")" -ge "$2" ]; }
# delta rots once more, and a pass of the watcher reclaims it: a pass
# that, after anything before it, asked for every name it did not see
# refused before.
delta_reaped() {
	kmod_load delta
	kmod_unload delta
	wait_until eval '[ "$(rotting_count delta)" -eq 0 ]'
}

@test "modreap --watch asks a refused, unchanged name again after 1, 3, 7 and 15 passes, and again when it changes" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer 2
	(exec "$SIM" run "$K" -- "$MODREAP" -J --watch --down-to 0 --interval 0.01 \
		> "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err") &
	reaper=$!
	# A JSON line a pass: wait for 33 passes.
	wait_until has_lines "$BATS_TEST_TMPDIR/watch.out" 33
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
	# The passes that asked (and were refused): the first, then after a
	# back-off that doubles up to 16 passes.
	run jq -r 'select(.pass and .pass <= 33 and .failures > 0) | .pass' "$BATS_TEST_TMPDIR/watch.out"
	assert_output "$(printf '%s\n' 1 3 7 15 31)"
	assert_equal "$(grep -c . "$BATS_TEST_TMPDIR/watch.err")" \
		"$(jq -s '[.[] | select(.pass) | .failures] | add' "$BATS_TEST_TMPDIR/watch.out")"
	run sort -u "$BATS_TEST_TMPDIR/watch.err"
	assert_output "$(refused_words 2 instances them)"
	assert_equal "$(rotting_count straytimer)" 2
	# A change is asked about at once: a third instance, the next pass.
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --down-to 0 --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch2.out" 2> "$BATS_TEST_TMPDIR/watch2.err") &
	reaper=$!
	wait_until has_lines "$BATS_TEST_TMPDIR/watch2.err" 1
	rot_straytimer 1
	wait_until grep -qF "$(refused_words 3 instances them)" "$BATS_TEST_TMPDIR/watch2.err"
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
	run cat "$BATS_TEST_TMPDIR/watch2.err"
	assert_line --index 0 "$(refused_words 2 instances them)"
	run sort -u "$BATS_TEST_TMPDIR/watch2.err"
	assert_output "$(printf '%s\n' "$(refused_words 2 instances them)" "$(refused_words 3 instances them)")"
	assert_equal "$(rotting_count straytimer)" 3
}

@test "modreap --watch reclaims a refused name once what kept it goes, with nothing else changing" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer 2
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --down-to 0 --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch.out" 2> "$BATS_TEST_TMPDIR/watch.err") &
	reaper=$!
	wait_until has_lines "$BATS_TEST_TMPDIR/watch.err" 1
	# the user goes: the timers in both instances stop
	"$SIM" release "$K" straytimer timer 1
	"$SIM" release "$K" straytimer timer 1
	wait_until eval '[ "$(rotting_count straytimer)" -eq 0 ]'
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
	run tail -1 "$BATS_TEST_TMPDIR/watch.out"
	assert_output --regexp '^total: reclaimed 2 instances, [0-9]+ bytes; 0 bytes still rot; kernel taint: none -> R \(8\)$'
}

@test "modreap --watch: a SIGTERM between its look at the stop flag and its sleep ends the sleep at once" {
	kmod_load delta
	kmod_unload delta
	local shim=$BATS_TEST_TMPDIR/signal-before-sleep.so
	"${CC:-cc}" -shared -fPIC -o "$shim" "$top_srcdir/tests/helpers/signal-before-sleep.c" -ldl
	# A day's interval: the first pass reclaims delta, and the signal,
	# sent just before the sleep, must end it, not a day later.
	run --separate-stderr timeout 60 env --default-signal=TERM SLEEP_SIGNAL_MIN=3600 \
		SIMKERNEL_DIR="$K" LD_PRELOAD="$shim:$top_builddir/tests/simkernel/libsimkernel.so" \
		"$MODREAP" -b --watch --down-to 0 --interval 86400
	assert_equal "$status" 143
	assert_equal "$stderr" "signalled before sleeping"
	assert_line --regexp '^total: reclaimed 1 instance, [0-9]+ bytes; 0 bytes still rot; kernel taint: none -> R \(8\)$'
	assert_equal "$(rotting_count delta)" 0
}

@test "modreap says what keeps a pinned, entered or probed name; --force frees none of them" {
	kernel_new rot --abi 3 --reclaim-wait 0 # the kernel waits 5 s for the task first (R5)
	kmod_load delta
	"$SIM" pin "$K" delta 2
	kmod_unload delta
	kmod_load alpha
	"$SIM" hold "$K" alpha task
	"$SIM" hold "$K" alpha kprobe
	"$SIM" hold "$K" alpha rcu
	kmod_unload alpha
	before=$(kernel_state)
	for force in "" --force; do
		run --separate-stderr on_kernel "$MODREAP" -b $force -a
		assert_equal "$status" 1
		assert_equal "$output" "total: reclaimed 0 instances, 0 bytes; $(rotting_bytes) bytes still rot; 2 instances still in use; kernel taint: none -> none (0)"
		assert_line --index 0 --partial "still rot"
		[ -z "$force" ] && hint="; 'modreap --force alpha' stops the timers and work left in it" || hint=
		[ -z "$force" ] && rcu=", 1 RCU callback pointing into it" || rcu=
		# forced: the task outlasted the kernel's bounded wait (R5)
		[ -z "$force" ] && ran= || ran=", still in use when the forced reclaim's wait ran out"
		run sort <<< "$stderr"
		assert_output "modreap: ERROR: could not reclaim alpha: 1 rotting instance kept: 1 task inside its code$rcu, kprobes on its code$ran$hint
modreap: ERROR: could not reclaim delta: 1 rotting instance kept: 2 pins"
	done
	# --force stopped alpha's RCU callback, and nothing else changed
	run kernel_state
	assert_output "$(sed 's/ rcu=1//' <<< "$before")"
}

@test "modreap -J lists each kept name with kept, why, pins, tasks, callbacks and probes" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	kmod_load delta
	"$SIM" pin "$K" delta 2
	"$SIM" hold "$K" delta work 3
	kmod_unload delta
	rot_straytimer 1
	run --separate-stderr on_kernel "$MODREAP" -b -a -J
	assert_equal "$status" 1
	# the errors are still said, one a name, as without -J
	assert_equal "$(sort <<< "$stderr")" "modreap: ERROR: could not reclaim delta: 1 rotting instance kept: 2 pins, 3 work items pointing into it; 'modreap --force delta' stops the timers and work left in it
$(refused_words 1 instance it)"
	assert_equal "$(jq -c '[.summary.kept[] | [.name, .reason, .kept_instances, .why, .pins, .tasks, .callbacks, .probes]] | sort' <<< "$output")" \
		'[["delta","kept_in_use",1,["pin","work"],2,0,3,0],["straytimer","kept_in_use",1,["timer"],0,0,1,0]]'
	assert_equal "$(jq '.summary.kept_instances' <<< "$output")" 2
	assert_equal "$(rotting_count)" 2
	assert_equal "$(taint)" 0
}

@test "modreap on a revision-2 kernel falls back to delete_module and keeps its words" {
	kernel_new rot --abi 2
	rot_straytimer 1
	kmod_load delta
	"$SIM" pin "$K" delta
	kmod_unload delta
	run --separate-stderr on_kernel "$MODREAP" -b -a
	assert_equal "$status" 1
	assert_equal "$stderr" "modreap: ERROR: straytimer: 1 rotting instance still in use (an armed timer, queued work or a probe points into it); not reclaimed; 'modreap --force straytimer' frees it anyway, at the risk of a crash"
	assert_line --index 0 --regexp '^delta: reclaimed 1 instance, [0-9]+ bytes$'
	run kernel_state
	assert_output --regexp "^rotting straytimer [0-9]+ 0x[0-9a-f]{16} timer=1
taint 8\$"
}

@test "modreap on a revision-1 kernel (reclaim returns 0, no checks) counts from its snapshot" {
	kernel_new rot --abi 1
	make_rot
	rot_straytimer 2
	total=$(rotting_bytes)
	run --separate-stderr on_kernel "$MODREAP" -b -a -J
	assert_success
	assert_equal "$(jq '.summary.reclaimed_instances' <<< "$output")" 8
	assert_equal "$(jq '.summary.reclaimed_bytes' <<< "$output")" "$total"
	assert_equal "$(jq '.summary.kept_instances' <<< "$output")" 0
	assert_equal "$(kernel_state)" "taint 8"
}

@test "modreap on a stock kernel exits 3" {
	kernel_new stock
	kmod_load delta
	before=$(kernel_state)
	for args in "" "-a" "--down-to 1M"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" -b $args
		assert_equal "$status" 3
		assert_equal "$stderr" "modreap: ERROR: this kernel has no module rot support (/proc/rotting_modules is missing)"
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap without CAP_SYS_MODULE can report but reclaiming exits 4" {
	make_rot
	before=$(kernel_state)
	run on_kernel_nocap "$MODREAP" -b
	assert_success
	run --separate-stderr on_kernel_nocap "$MODREAP" -b delta
	assert_equal "$status" 4
	assert_equal "$stderr" "modreap: ERROR: could not reclaim module delta: Operation not permitted (this needs CAP_SYS_MODULE, and module loading must not be disabled)"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap --watch without CAP_SYS_MODULE stops after its first pass and exits 4" {
	make_rot
	before=$(kernel_state)
	# Without the stop it would log the same refusal every 0.1 s until killed.
	run --separate-stderr timeout 20 "$SIM" run "$K" --nocap -- \
		"$MODREAP" -b --watch --down-to 0 --interval 0.1
	assert_equal "$status" 4
	assert_equal "${stderr_lines[-1]}" "modreap: ERROR: stopped watching: reclaiming needs CAP_SYS_MODULE"
	names=$(kernel_state | awk '$1 == "rotting" { print $2 }' | sort -u | wc -l)
	assert_equal "$(grep -c 'Operation not permitted' <<<"$stderr")" "$names"
	assert_line --partial "total: reclaimed 0 instances, 0 bytes"
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap usage errors exit 2 and change nothing" {
	make_rot
	before=$(kernel_state)
	for args in "-a delta" "--down-to 1M -a" "--watch" "--down-to 12Q" "--down-to -1" \
		"--watch --down-to 1M --interval 0" "--interval 2" "-J -q" "--bogus" "-f" "--force -J"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" -b $args
		assert_equal "$status" 2
		assert_equal "${#stderr_lines[@]}" 1
		assert_output ""
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "modreap --watch keeps rot under the ceiling while modules load and unload" {
	ceiling=$(( 3 * $(kmod_load delta; live_size delta) ))
	kmod_unload delta
	# exec, so that the signal below reaches modreap itself.
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --down-to "$ceiling" --interval 0.05 \
		> "$BATS_TEST_TMPDIR/watch.out") &
	reaper=$!
	# Another process probes and unloads, leaving rot each time.
	for _ in $(seq 40); do
		kmod_load delta alpha
		kmod_unload delta alpha
	done
	# Within a few of its passes, the watcher brings rot under the ceiling.
	wait_until eval '[ "$(rotting_bytes)" -le "$ceiling" ]'
	kill -TERM "$reaper"
	# Stopped by SIGTERM, it says so in its exit code: 128 + 15.
	status=0
	wait "$reaper" || status=$?
	[ "$status" -eq 143 ]
	# A reclaim also frees instances that rotted after modreap's snapshot;
	# the kernel says how many, so the summary counts exactly what was
	# freed (each name's instances all have one size).
	freed=$("$SIM" ledger "$K" | awk '$2 == "reclaim" { s += $5 } END { print s }')
	instances=$("$SIM" ledger "$K" | grep -c ' reclaim ')
	summary=$(tail -1 "$BATS_TEST_TMPDIR/watch.out")
	[[ "$summary" =~ ^total:\ reclaimed\ ([0-9]+)\ instances?,\ ([0-9]+)\ bytes\; ]]
	[ "${BASH_REMATCH[2]}" -gt 0 ]
	assert_equal "${BASH_REMATCH[1]}" "$instances"
	assert_equal "${BASH_REMATCH[2]}" "$freed"
	[[ "$summary" == *"kernel taint: none -> R (8)" ]]
	"$SIM" ledger "$K" --check
}

@test "two modreap processes racing never free an instance twice or miscount" {
	"$SIM" populate "$K" --live 0 --rotting 400 --seed 11
	rotted=$(rotting_bytes)
	on_kernel "$MODREAP" -b -a -J > "$BATS_TEST_TMPDIR/a.json" &
	a=$!
	on_kernel "$MODREAP" -b -a -J > "$BATS_TEST_TMPDIR/b.json" &
	b=$!
	wait "$a"
	wait "$b"
	sum=$(( $(jq '.summary.reclaimed_bytes' "$BATS_TEST_TMPDIR/a.json") + $(jq '.summary.reclaimed_bytes' "$BATS_TEST_TMPDIR/b.json") ))
	assert_equal "$sum" "$rotted"
	assert_equal "$(rotting_count)" 0
	"$SIM" ledger "$K" --check
}

@test "modreap is clean under valgrind: report, JSON, dry run and reclaim" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	skip_if_sanitized
	make_rot
	valgrind_clean "$MODREAP" -b
	valgrind_clean "$MODREAP" -b -J
	valgrind_clean "$MODREAP" -b -n -a -J
	valgrind_clean "$MODREAP" -b zeta delta
	assert_failure 1
	valgrind_clean "$MODREAP" -b --down-to 1K
	assert_success
	rot_straytimer 2
	valgrind_clean "$MODREAP" -b -a -J
	assert_failure 1
	valgrind_clean "$MODREAP" -b --force straytimer
	assert_success
}
