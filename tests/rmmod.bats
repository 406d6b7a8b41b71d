#!/usr/bin/env bats
# rmmod: unloading on rot and stock kernels, kmod's words, holders, reclaim.

load helpers/tools

setup() {
	kernel_new rot
}

@test "rmmod on a rot kernel unloads the module and it rots with the same size" {
	kmod_load alpha delta
	size=$(live_size delta)
	run --separate-stderr on_kernel "$RMMOD" delta
	assert_success
	assert_equal "$output" ""
	assert_equal "$stderr" ""
	run is_live delta
	assert_failure
	assert_equal "$(rotting_count delta)" 1
	assert_equal "$(rotting_bytes delta)" "$size"
	is_live alpha
	assert_equal "$(taint)" 0
	"$SIM" ledger "$K" --check
}

@test "rmmod -v says how many bytes stay allocated and how to reclaim them" {
	kmod_load delta
	size=$(live_size delta)
	run --separate-stderr on_kernel "$RMMOD" -b -v delta
	assert_success
	assert_equal "$stderr" "rmmod: delta now rots: $size bytes stay allocated; 'rmmod --reclaim delta' frees them and taints the kernel"
}

@test "rmmod of a module that is not loaded exits 1 with kmod's words and changes nothing" {
	kmod_load alpha
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" zeta
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module zeta is not currently loaded"
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod prints each error once, where kmod prints it twice" {
	run --separate-stderr on_kernel "$RMMOD" zeta
	assert_equal "$(echo "$stderr" | wc -l)" 1
	run --separate-stderr on_kernel "$KMOD_RMMOD" zeta
	# kmod's first line is the same words.
	assert_equal "$(echo "$stderr" | head -1)" "rmmod: ERROR: Module zeta is not currently loaded"
}

@test "rmmod of a module with holders exits 1 and names them, as kmod does" {
	kmod_load alpha beta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" alpha
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module alpha is in use by: beta"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$KMOD_RMMOD" alpha
	assert_equal "$(echo "$stderr" | head -1)" "rmmod: ERROR: Module alpha is in use by: beta"
}

@test "rmmod of a builtin module says it is builtin" {
	kernel_new rot --builtin ext4
	run --separate-stderr on_kernel "$RMMOD" ext4
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module ext4 is builtin."
}

@test "rmmod of a permanent module exits 1 and -f forces it, tainting R" {
	kmod_load permanent
	run --separate-stderr on_kernel "$RMMOD" permanent
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module permanent is permanent (it has no exit function); -f forces it and taints the kernel"
	is_live permanent
	assert_equal "$(taint)" 0
	run on_kernel "$RMMOD" -f permanent
	assert_success
	run is_live permanent
	assert_failure
	assert_equal "$(rotting_count permanent)" 1
	assert_equal $(( $(taint) & 8 )) 8
}

@test "rmmod of a module still in its init says it is busy" {
	# Its init runs until the test creates the gate: as long as it takes.
	"$SIM" set "$K" slowinit init_gate="$BATS_TEST_TMPDIR/go"
	on_kernel "$KMOD_INSMOD" "$FIXTURES/slowinit.ko" &
	loader=$!
	wait_state '^live slowinit .* Loading '
	run --separate-stderr on_kernel "$RMMOD" slowinit
	touch "$BATS_TEST_TMPDIR/go"
	wait "$loader"
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module slowinit is busy: its init is still running"
	is_live slowinit
}

@test "rmmod of a module that is already unloading says it is busy" {
	# The exit waits for the test (exit_gate), so the second rmmod meets
	# the module going however loaded the machine is.
	"$SIM" set "$K" delta exit_gate="$BATS_TEST_TMPDIR/go"
	kmod_load delta
	on_kernel "$RMMOD" delta &
	unloader=$!
	wait_state '^live delta .* Unloading '
	run --separate-stderr on_kernel "$RMMOD" delta
	touch "$BATS_TEST_TMPDIR/go"
	wait "$unloader"
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module delta is busy: it is already unloading"
	assert_equal "$(rotting_count delta)" 1
}

@test "rmmod --remove-holders on a random dependency graph unloads each holder once, before what it uses" {
	"$SIM" populate "$K" --live 120 --seed 7 --max-deps 4
	root=pop00000
	run on_kernel "$RMMOD" --remove-holders "$root"
	assert_success
	order=$("$SIM" ledger "$K" | awk '$2 == "rot" { print $3 }')
	# Each name rotted once, and the root last.
	assert_equal "$(echo "$order" | sort | uniq -d)" ""
	assert_equal "$(echo "$order" | tail -1)" "$root"
	# Nothing that is still live depends on anything that rotted.
	rotted=" $(echo "$order" | paste -sd' ') "
	while read -r kind name _ _ _ _ holders _; do
		[ "$kind" = live ] || continue
		[[ "$rotted" != *" $name "* ]] || { echo "$name rotted but is live"; false; }
	done < <(kernel_state)
	# Every module unloaded was a holder, direct or indirect, of the root.
	[ "$(echo "$order" | wc -l)" -gt 1 ]
	"$SIM" ledger "$K" --check
}

@test "rmmod of several modules does all it can and reports each failure on one line" {
	kmod_load alpha beta delta gamma
	run --separate-stderr on_kernel "$RMMOD" delta zeta alpha gamma
	assert_equal "$status" 1
	assert_equal "${#stderr_lines[@]}" 2
	assert_equal "${stderr_lines[0]}" "rmmod: ERROR: Module zeta is not currently loaded"
	assert_equal "${stderr_lines[1]}" "rmmod: ERROR: Module alpha is in use by: beta"
	run is_live delta
	assert_failure
	run is_live gamma
	assert_failure
	is_live alpha
	is_live beta
}

@test "rmmod accepts dashes and paths for module names" {
	kmod_load delta
	on_kernel "$KMOD_INSMOD" "$FIXTURES/snd-dummy.ko"
	cp "$FIXTURES/delta.ko.zst" "$BATS_TEST_TMPDIR/delta.ko.zst"
	run on_kernel "$RMMOD" snd-dummy "$BATS_TEST_TMPDIR/delta.ko.zst"
	assert_success
	assert_equal "$(rotting_count snd_dummy)" 1
	assert_equal "$(rotting_count delta)" 1
}

# kmod's rmmod reads a path as the module of the file there (stat, then
# the file); with no file there it names no loaded module. Both kmod 30
# and kmod 34 fail such a name (tests/kmod34-oracle.bats), so modrot does.
@test "rmmod of a path with no file there unloads nothing of that name, and goes on" {
	kmod_load delta alpha
	local before
	before=$(kernel_state | grep -v '^live alpha')
	run --separate-stderr on_kernel "$RMMOD" /some/where/delta.ko.zst alpha
	assert_failure 1
	assert_equal "$output" ''
	assert_equal "$stderr" "rmmod: ERROR: /some/where/delta.ko.zst: no such module file; a path names the module in that file, so this one names no loaded module"
	assert_equal "$(kernel_state | grep -c '^live delta ')" 1
	assert_equal "$(rotting_count delta)" 0
	assert_equal "$(rotting_count alpha)" 1
	assert_equal "$(kernel_state | grep -v '^rotting alpha')" "$before"
}

# The same for every reason the path cannot be read, each said as it is:
# a directory the caller may not search, a component that is a file.
@test "rmmod of a path it cannot stat says why, unloads nothing of that name, and goes on" {
	kmod_load delta alpha
	local d=$BATS_TEST_TMPDIR before
	mkdir "$d/closed"
	: > "$d/closed/delta.ko"
	: > "$d/plain"
	chmod 000 "$d/closed"
	before=$(kernel_state | grep -v '^live alpha')
	run --separate-stderr on_kernel setpriv --bounding-set=-dac_override,-dac_read_search \
		--inh-caps=-dac_override,-dac_read_search "$RMMOD" "$d/closed/delta.ko" "$d/plain/delta.ko" alpha
	assert_failure 1
	assert_equal "$output" ''
	assert_equal "${stderr_lines[0]}" "rmmod: ERROR: $d/closed/delta.ko: Permission denied; a path names the module in that file, so this one names no loaded module"
	assert_equal "${stderr_lines[1]}" "rmmod: ERROR: $d/plain/delta.ko: Not a directory; a path names the module in that file, so this one names no loaded module"
	assert_equal "${#stderr_lines[@]}" 2
	assert_equal "$(kernel_state | grep -c '^live delta ')" 1
	assert_equal "$(rotting_count delta)" 0
	assert_equal "$(rotting_count alpha)" 1
	assert_equal "$(kernel_state | grep -v '^rotting alpha')" "$before"
}

@test "rmmod --remove-holders unloads the holders deepest first, each once, then the module" {
	kmod_load alpha beta gamma
	run on_kernel "$RMMOD" --remove-holders alpha
	assert_success
	# The ledger records the rot events in the order the unloads happened.
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "rot" { print $3 }' | paste -sd' ')" "gamma beta alpha"
	assert_equal "$(kernel_state | grep -c '^live')" 0
	"$SIM" ledger "$K" --check
}

@test "rmmod --remove-holders with a module named twice unloads it once" {
	kmod_load alpha beta gamma
	run --separate-stderr on_kernel "$RMMOD" --remove-holders alpha beta
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module beta is not currently loaded"
	assert_equal "$(rotting_count beta)" 1
	assert_equal "$(rotting_count)" 3
}

@test "rmmod --reclaim unloads a live module, frees every instance and reports the taint" {
	kmod_load delta
	kmod_unload delta
	kmod_load delta
	bytes=$(( $(rotting_bytes delta) + $(live_size delta) ))
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim delta
	assert_success
	assert_line --index 0 "delta: reclaimed 2 instances, $bytes bytes"
	assert_line --index 1 "kernel taint: none -> R (8)"
	assert_equal "${#lines[@]}" 2
	assert_equal "$(kernel_state | grep -c delta)" 0
	assert_equal "$(taint)" 8
	reclaimed=$("$SIM" ledger "$K" | awk '$2 == "reclaim" && $3 == "delta" { s += $5 } END { print s }')
	assert_equal "$reclaimed" "$bytes"
	"$SIM" ledger "$K" --check
}

@test "rmmod --reclaim of a module that will not unload still reclaims its rot" {
	kmod_load alpha
	kmod_unload alpha
	kmod_load alpha beta
	rotted=$(rotting_bytes alpha)
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim alpha
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module alpha is in use by: beta"
	assert_line --index 0 "alpha: reclaimed 1 instance, $rotted bytes"
	assert_line --index 1 "kernel taint: none -> R (8)"
	is_live alpha
	assert_equal "$(rotting_count alpha)" 0
}

@test "rmmod --reclaim of a name with nothing loaded or rotting exits 1" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --reclaim zeta
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module zeta has no rotting instances and is not currently loaded"
	assert_equal "$output" ""
	assert_equal "$(kernel_state)" "$before"
}

# straytimer rots twice (its exit leaves a timer armed: still in use),
# then once more without the stray.
rot_straytimer() {
	kmod_load straytimer
	kmod_unload straytimer
	kmod_load straytimer
	kmod_unload straytimer
}

refused_words() { # NAME N INSTANCE(S) IT|THEM: N instances of straytimer, a timer in each
	local timers=timers
	[ "$2" = 1 ] && timers=timer
	echo "rmmod: ERROR: could not reclaim $1: $2 rotting $3 kept: $2 $timers pointing into it; 'rmmod --reclaim -f $1' stops the timers and work left in $4"
}

# revision 2's words: its delete_module reply says nothing of why
refused_words_rev2() { # NAME N INSTANCE(S) IT|THEM
	echo "rmmod: ERROR: $1: $2 rotting $3 still in use (an armed timer, queued work or a probe points into $4); not reclaimed; 'rmmod --reclaim -f $1' frees $4 anyway, at the risk of a crash"
}

@test "rmmod --reclaim of instances all still in use: one line, exit 1, nothing freed, no taint" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --reclaim straytimer
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "$(refused_words straytimer 2 instances them)"
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$(taint)" 0
}

@test "rmmod --reclaim frees what is not in use, reports the rest and exits 1" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	kmod_load straytimer
	kmod_unload straytimer
	"$SIM" set "$K" straytimer stray=none
	kmod_load straytimer
	kmod_unload straytimer
	kmod_load straytimer
	size=$(live_size straytimer)
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim straytimer
	assert_equal "$status" 1
	assert_line --index 0 "straytimer: reclaimed 2 instances, $((2 * size)) bytes"
	assert_line --index 1 "kernel taint: none -> R (8)"
	assert_equal "${#lines[@]}" 2
	assert_equal "$stderr" "$(refused_words straytimer 1 instance it)"
	run kernel_state
	assert_output --regexp "^rotting straytimer $size 0x[0-9a-f]{16} timer=1
taint 8\$"
	"$SIM" ledger "$K" --check
}

@test "rmmod --reclaim says what keeps each name: pins, a task, a timer (revision 3's reply)" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	kmod_load delta
	"$SIM" pin "$K" delta 3
	"$SIM" hold "$K" delta task
	kmod_unload delta
	kmod_load delta
	"$SIM" hold "$K" delta timer
	kmod_unload delta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --reclaim delta
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "rmmod: ERROR: could not reclaim delta: 2 rotting instances kept: 3 pins, 1 task inside its code, 1 timer pointing into it; 'rmmod --reclaim -f delta' stops the timers and work left in them"
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$(taint)" 0
}

@test "rmmod --reclaim -f stops a timer and frees that instance, but not a pinned or entered one" {
	kernel_new rot --abi 3 --reclaim-wait 0 # revision 3 (R5): the kernel waits 5 s for the task first
	kmod_load delta
	"$SIM" pin "$K" delta 2
	"$SIM" hold "$K" delta task
	kmod_unload delta
	kmod_load delta
	"$SIM" hold "$K" delta timer
	size=$(live_size delta)
	kmod_unload delta
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim -f delta
	assert_equal "$status" 1
	assert_line --index 0 "delta: reclaimed 1 instance, $size bytes"
	assert_line --index 1 "kernel taint: none -> R (8)"
	assert_equal "$stderr" "rmmod: ERROR: could not reclaim delta: 1 rotting instance kept: 2 pins, 1 task inside its code, still in use when the forced reclaim's wait ran out"
	run kernel_state
	assert_output --regexp "^rotting delta $size 0x[0-9a-f]{16} pins=2 task=1
taint 8\$"
	"$SIM" ledger "$K" --check
}

@test "rmmod -J --reclaim: a kept name's record has kept, why, pins, tasks, callbacks and probes" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	kmod_load delta
	"$SIM" pin "$K" delta
	"$SIM" hold "$K" delta kprobe 2 # two kprobes: probes counts the instance once (R4)
	kmod_unload delta
	run --separate-stderr on_kernel "$RMMOD" -J --reclaim delta
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.modules[] | [.name, .result, .reason, .error, .kept_instances, .why, .pins, .tasks, .callbacks, .probes]' <<< "$output")" \
		'["delta","failed","kept_in_use","EBUSY",1,["pin","kprobe"],1,0,0,1]'
	assert_equal "$(jq -r '.modules[0].message' <<< "$output")" "could not reclaim delta: 1 rotting instance kept: 1 pin, kprobes on its code"
	assert_equal "$(jq -c '.summary.kept_instances' <<< "$output")" 1
	assert_equal "$(rotting_count delta)" 1
	assert_equal "$(taint)" 0
}

@test "--abi 2: rmmod --reclaim falls back to delete_module on ENOTTY, with revision 2's words" {
	kernel_new rot --abi 2
	rot_straytimer
	kmod_load delta
	"$SIM" pin "$K" delta
	kmod_unload delta
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim straytimer delta
	assert_equal "$status" 1
	assert_line --index 0 --regexp '^delta: reclaimed 1 instance, [0-9]+ bytes$'
	assert_equal "$stderr" "$(refused_words_rev2 straytimer 2 instances them)"
	run kernel_state
	assert_output --regexp "^rotting straytimer [0-9]+ 0x[0-9a-f]{16} timer=1
rotting straytimer [0-9]+ 0x[0-9a-f]{16} timer=1
taint 8\$"
	"$SIM" ledger "$K" --check
}

@test "rmmod -J --reclaim: refused instances are a failed EBUSY record and the summary's refused" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	kmod_load straytimer
	kmod_unload straytimer
	"$SIM" set "$K" straytimer stray=none
	kmod_load straytimer
	size=$(live_size straytimer)
	run --separate-stderr on_kernel "$RMMOD" -J --reclaim straytimer
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '[.modules[] | [.name, .result, .reason, .error, .reclaimed_instances, .kept_instances]]' <<< "$output")" \
		'[["straytimer","unloaded","","",0,0],["straytimer","reclaimed","","",1,0],["straytimer","failed","kept_in_use","EBUSY",0,1]]'
	assert_equal "$(jq -r '.modules[2].message' <<< "$output")" "$(refused_words straytimer 1 instance it | sed 's/^rmmod: ERROR: //')"
	assert_equal "$(jq -c '.summary | [.failures, .reclaimed_names, .reclaimed_instances, .reclaimed_bytes, .kept_instances]' <<< "$output")" "[1,1,1,$size,1]"
	assert_equal "$(rotting_count straytimer)" 1
}

@test "rmmod --reclaim -f frees instances still in use, with the kernel's count" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	rot_straytimer
	kmod_load straytimer
	bytes=$(( $(rotting_bytes straytimer) + $(live_size straytimer) ))
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim -f straytimer
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 "straytimer: reclaimed 3 instances, $bytes bytes"
	assert_line --index 1 "kernel taint: none -> R (8)"
	assert_equal "$(kernel_state)" "taint 8"
	assert_equal "$("$SIM" ledger "$K" | grep -c ' reclaim straytimer ')" 3
}

@test "rmmod --reclaim on a kernel that does not check (rot_reclaim_checks N) frees everything" {
	kernel_new rot --abi 3 --reclaim-checks n
	rot_straytimer
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim straytimer
	assert_success
	assert_line --index 0 --regexp '^straytimer: reclaimed 2 instances, [0-9]+ bytes$'
	assert_equal "$(kernel_state)" "taint 8"
}

@test "rmmod -f of a module with an exit and no holders is a plain unload: no taint" {
	kmod_load delta
	run --separate-stderr on_kernel "$RMMOD" -f delta
	assert_success
	assert_equal "$(rotting_count delta)" 1
	assert_equal "$(taint)" 0
}

@test "rmmod --reclaim counts exactly what the kernel freed while another process unloads the name" {
	# busybox-style unloads (0x880) of delta, racing with the reclaims
	(
		for _ in $(seq 60); do
			# either may lose to rmmod: the name is live or gone already
			on_kernel "$top_builddir/tests/simkernel/sysc" finit "$FIXTURES/delta.ko" > /dev/null || true
			on_kernel "$top_builddir/tests/simkernel/sysc" delete delta 0x880 > /dev/null || true
		done
	) &
	racer=$!
	: > "$BATS_TEST_TMPDIR/out"
	while kill -0 "$racer" 2> /dev/null; do
		on_kernel "$RMMOD" -b --reclaim delta >> "$BATS_TEST_TMPDIR/out" 2> /dev/null || true
	done
	wait "$racer"
	on_kernel "$RMMOD" -b --reclaim delta >> "$BATS_TEST_TMPDIR/out" 2> /dev/null || true
	assert_equal "$(rotting_count delta)" 0
	said=$(awk '/^delta: reclaimed/ { n += $3 } END { print n + 0 }' "$BATS_TEST_TMPDIR/out")
	freed=$("$SIM" ledger "$K" | grep -c ' reclaim delta ')
	[ "$freed" -gt 0 ]
	assert_equal "$said" "$freed"
	said_bytes=$(awk '/^delta: reclaimed/ { n += $5 } END { print n + 0 }' "$BATS_TEST_TMPDIR/out")
	freed_bytes=$("$SIM" ledger "$K" | awk '$2 == "reclaim" { s += $5 } END { print s + 0 }')
	# An instance that rotted and was freed between two of rmmod's reads is
	# counted, but its size can only be known from a delta seen live or
	# rotting: the bytes are never more than freed, and whole instances.
	size=$(on_kernel "$top_builddir/tests/simkernel/sysc" finit "$FIXTURES/delta.ko" > /dev/null; live_size delta)
	[ "$said_bytes" -le "$freed_bytes" ]
	assert_equal $((said_bytes % size)) 0
	"$SIM" ledger "$K" --check
}

@test "rmmod --reclaim on a revision-1 kernel (reclaim returns 0) counts from its snapshot; -f falls back" {
	kernel_new rot --abi 1
	kmod_load delta
	kmod_unload delta
	kmod_load delta
	bytes=$(( $(rotting_bytes delta) + $(live_size delta) ))
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim delta
	assert_success
	assert_line --index 0 "delta: reclaimed 2 instances, $bytes bytes"
	assert_equal "$(kernel_state)" "taint 8"
	rot_straytimer
	run --separate-stderr on_kernel "$RMMOD" -b --reclaim -f straytimer
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 --regexp '^straytimer: reclaimed 2 instances, [0-9]+ bytes$'
	assert_equal "$(kernel_state)" "taint 8"
}

@test "rmmod --reclaim on a stock kernel exits 3 and unloads nothing" {
	kernel_new stock
	kmod_load delta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --reclaim delta
	assert_equal "$status" 3
	assert_equal "$stderr" "rmmod: ERROR: this kernel has no module rot support: nothing to reclaim"
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod on a stock kernel frees the module" {
	kernel_new stock
	kmod_load delta
	run on_kernel "$RMMOD" delta
	assert_success
	assert_equal "$(kernel_state | grep -c delta)" 0
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "free" && $3 == "delta"' | wc -l)" 1
}

@test "rmmod on a stock kernel refuses a module with references, and -f forces it" {
	kernel_new stock
	kmod_load delta
	"$SIM" ref "$K" delta 2
	run --separate-stderr on_kernel "$RMMOD" delta
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: Module delta is in use"
	is_live delta
	run on_kernel "$RMMOD" -f delta
	assert_success
	run is_live delta
	assert_failure
	assert_equal $(( $(taint) & 8 )) 8
}

@test "rmmod without CAP_SYS_MODULE exits 4 and changes nothing" {
	kmod_load delta
	before=$(kernel_state)
	run --separate-stderr on_kernel_nocap "$RMMOD" delta
	assert_equal "$status" 4
	assert_equal "$stderr" "rmmod: ERROR: could not remove module delta: Operation not permitted (this needs CAP_SYS_MODULE, and module loading must not be disabled)"
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod -s sends errors to syslog, not stderr" {
	run --separate-stderr on_kernel_traced -qq -e trace=connect,sendto,write -s 256 \
		-o "$BATS_TEST_TMPDIR/trace" "$RMMOD" -s zeta
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	# The message goes to /dev/log, or to the console when no syslog
	# daemon listens (LOG_CONS, as kmod opens the log).
	grep -q 'connect(.*"/dev/log"' "$BATS_TEST_TMPDIR/trace"
	grep -Eq '^(sendto\(|write\([013-9]).*rmmod.*Module zeta is not currently loaded' "$BATS_TEST_TMPDIR/trace"
}

@test "rmmod usage errors exit 2 and change nothing" {
	kmod_load delta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD"
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: missing module name (see 'rmmod --help')"
	run --separate-stderr on_kernel "$RMMOD" --frobnicate delta
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: unknown option '--frobnicate' (see 'rmmod --help')"
	long=$(printf 'm%.0s' $(seq 60))
	run --separate-stderr on_kernel "$RMMOD" delta "$long"
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: '$long' is not a module name: longer than 55 bytes (see 'rmmod --help')"
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod is clean under valgrind: unload, holders, reclaim and errors" {
	kernel_new rot --abi 3 # revision 3's reply (R4, R5): revision 4's is in tools-rev4.bats
	skip_if_sanitized
	kmod_load alpha beta gamma delta permanent
	valgrind_clean "$RMMOD" -v delta
	assert_success
	valgrind_clean "$RMMOD" alpha zeta permanent
	assert_failure 1
	valgrind_clean "$RMMOD" --remove-holders alpha
	assert_success
	valgrind_clean "$RMMOD" --reclaim alpha beta gamma
	assert_success
	rot_straytimer
	valgrind_clean "$RMMOD" --reclaim straytimer
	assert_failure 1
	valgrind_clean "$RMMOD" --reclaim -f straytimer
	assert_success
}
