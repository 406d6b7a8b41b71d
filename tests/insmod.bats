#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# insmod: loading one module on rot and stock kernels, parameters, forcing,
# preflight refusals, failed inits that rot, usage and permission errors.

bats_require_minimum_version 1.5.0
load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup() {
	kernel_new rot
}

snapshot() { kernel_state; "$SIM" ledger "$K"; }

# Loads one file and checks the result: silent, exit 0, NAME live, taint 0.
assert_loads_quietly() {
	local file=$1 name=$2
	run --separate-stderr on_kernel "$INSMOD" "$file"
	assert_success
	assert_equal "$output" ""
	assert_equal "$stderr" ""
	is_live "$name"
	assert_equal "$(taint)" 0
	"$SIM" ledger "$K" --check
}

@test "insmod loads a plain .ko and the module is live with its core size" {
	assert_loads_quietly "$FIXTURES/delta.ko" delta
	run "$SIM" ledger "$K"
	assert_line --regexp '^1 load delta 0x[0-9a-f]{16} [0-9]+$'
	assert_equal "$(rotting_count)" 0
}

@test "insmod loads an xz-compressed module" {
	assert_loads_quietly "$FIXTURES/delta.ko.xz" delta
}

@test "insmod loads a zstd-compressed module" {
	assert_loads_quietly "$FIXTURES/delta.ko.zst" delta
}

@test "insmod loads a module whose file name has a dash under its underscored name" {
	assert_loads_quietly "$FIXTURES/snd-dummy.ko" snd_dummy
}

@test "insmod passes parameters to the kernel, quoting a value with a space as kmod does" {
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/params.ko" count=0x10 'label=a b' verbose
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(on_kernel cat /sys/module/params/parameters/count)" 16
	assert_equal "$(on_kernel cat /sys/module/params/parameters/label)" "a b"
	assert_equal "$(on_kernel cat /sys/module/params/parameters/verbose)" Y
	is_live params
	"$SIM" ledger "$K" --check
}

@test "insmod passes an already quoted value unchanged" {
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/params.ko.xz" 'label="two words"'
	assert_success
	assert_equal "$(on_kernel cat /sys/module/params/parameters/label)" "two words"
	assert_equal "$(on_kernel cat /sys/module/params/parameters/count)" 0
	is_live params
}

@test "insmod with a bad value for an int parameter exits 1 with Invalid parameters and loads nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/params.ko" count=many
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/params.ko: Invalid parameters"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod refuses a module built for another release and names both releases" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/badmagic.ko"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/badmagic.ko: built for kernel 6.0.0-other, and this kernel is 6.1.0-sim (--force-vermagic loads it anyway)"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod -f loads a module built for another release, and the kernel is tainted F" {
	run --separate-stderr on_kernel "$INSMOD" -f "$FIXTURES/badmagic.ko"
	assert_success
	assert_equal "$stderr" ""
	is_live badmagic
	assert_equal $(( $(taint) & 2 )) 2
	assert_equal "$(on_kernel cat /sys/module/badmagic/taint)" F
	"$SIM" ledger "$K" --check
}

@test "insmod --force-vermagic loads a compressed module built for another release" {
	run --separate-stderr on_kernel "$INSMOD" --force-vermagic "$FIXTURES/badmagic.ko.zst"
	assert_success
	assert_equal "$stderr" ""
	is_live badmagic
	assert_equal $(( $(taint) & 2 )) 2
}

@test "insmod loads a module with symbol versions from another release, as the kernel's same_magic allows" {
	# The kernel compares vermagic past the release when the module has
	# __versions (CONFIG_MODVERSIONS); kmod's insmod loads it too.
	assert_loads_quietly "$FIXTURES/versioned.ko" versioned
}

@test "insmod --force-modversion loads a module with symbol versions" {
	run --separate-stderr on_kernel "$INSMOD" --force-modversion "$FIXTURES/versioned.ko"
	assert_success
	assert_equal "$stderr" ""
	is_live versioned
	"$SIM" ledger "$K" --check
}

@test "insmod of a module already loaded exits 5 with one line and changes nothing; -J says present" {
	kmod_load delta
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/delta.ko.xz"
	assert_equal "$status" 5
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/delta.ko.xz: Module already loaded (delta is live)"
	assert_equal "$(snapshot)" "$before"
	# JSON tells it from a refusal, and it is no failure
	run --separate-stderr on_kernel "$INSMOD" -J "$FIXTURES/delta.ko.xz"
	assert_equal "$status" 5
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.modules[0] | [.name, .result, .reason, .errno, .error]' <<<"$output")" \
		'["delta","present","already_loaded",0,""]'
	assert_equal "$(jq -c '.summary | [.failures, .files, .loaded, .present, .refused, .failed]' <<<"$output")" \
		'[0,1,0,1,0,0]'
	assert_equal "$(snapshot)" "$before"
	# next to a real failure the run exits 1, and the present one is still no failure
	run --separate-stderr on_kernel "$INSMOD" --batch -J "$FIXTURES/delta.ko" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_equal "$(jq -c '[.modules[] | .result]' <<<"$output")" '["present","refused"]'
	assert_equal "$(jq -c '.summary | [.failures, .present, .refused]' <<<"$output")" '[1,1,1]'
	# next to a load it exits 5: everything named is there now
	run --separate-stderr on_kernel "$INSMOD" --batch "$FIXTURES/delta.ko" "$FIXTURES/alpha.ko"
	assert_equal "$status" 5
	assert_equal "$output" "1 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped, 1 loaded already"
	is_live alpha
}

@test "insmod of a module needing a symbol nobody exports names the symbol and loads nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/needsym.ko: unknown symbol nobody_exports_this (neither the kernel nor a loaded module offers it)"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod of a module whose dependency is not loaded names the symbol it needs" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/beta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/beta.ko: unknown symbol alpha_fn (neither the kernel nor a loaded module offers it)"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod loads a module once its dependency is live, and the dependency holds it" {
	kmod_load alpha
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/beta.ko"
	assert_success
	assert_equal "$stderr" ""
	kernel_state | grep -q '^live alpha .* holders=beta '
	"$SIM" ledger "$K" --check
}

@test "insmod on a rot kernel: a failing init exits 1, says how many bytes rot and how to reclaim" {
	before_live=$(kernel_state | grep -c '^live' || :)
	run --separate-stderr on_kernel "$INSMOD" -b "$FIXTURES/failinit.ko"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$(rotting_count failinit)" 1
	bytes=$(rotting_bytes failinit)
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/failinit.ko: No such device; its init failed and its $bytes bytes now rot ('rmmod --reclaim failinit' frees them)"
	run is_live failinit
	assert_failure
	assert_equal "$(kernel_state | grep -c '^live' || :)" "$before_live"
	# One load and one rot of the same size, nothing else.
	run "$SIM" ledger "$K"
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp "^1 load failinit 0x[0-9a-f]{16} $bytes\$"
	assert_line --index 1 --regexp "^2 rot failinit 0x[0-9a-f]{16} $bytes\$"
	"$SIM" ledger "$K" --check
}

@test "insmod on a stock kernel: a failing init exits 1 and leaves nothing behind" {
	kernel_new stock
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/failinit.ko.zst"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/failinit.ko.zst: No such device"
	run is_live failinit
	assert_failure
	run "$SIM" ledger "$K"
	assert_line --index 1 --regexp '^2 free failinit 0x[0-9a-f]{16} [0-9]+$'
	"$SIM" ledger "$K" --check
}

@test "insmod loads a permanent module, which stays live as permanent" {
	assert_loads_quietly "$FIXTURES/permanent.ko" permanent
	kernel_state | grep -q '^live permanent .* permanent=1$'
}

@test "insmod waits for a slow init and the module is live when it returns" {
	assert_loads_quietly "$FIXTURES/slowinit.ko" slowinit
	kernel_state | grep -q '^live slowinit .* Live '
}

@test "insmod -v reports the module it loaded" {
	run --separate-stderr on_kernel "$INSMOD" -v "$FIXTURES/delta.ko"
	assert_success
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: loaded delta ($FIXTURES/delta.ko)"
	is_live delta
}

@test "insmod - (standard input) is a usage error: exit 2, nothing loaded" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" - < "$FIXTURES/delta.ko"
	assert_equal "$status" 2
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: loading a module from standard input is not supported: give its file (see 'insmod --help')"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod with an unknown option exits 2 and loads nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --frobnicate "$FIXTURES/delta.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: unknown option '--frobnicate' (see 'insmod --help')"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod without a file exits 2" {
	run --separate-stderr on_kernel "$INSMOD"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: missing module file (see 'insmod --help')"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "insmod --jobs without --batch exits 2 and loads nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --jobs 2 "$FIXTURES/delta.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: --jobs only makes sense with --batch (see 'insmod --help')"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod on a system without module support exits 3" {
	[ ! -e /proc/modules ] || skip "this host has /proc/modules: it has module support"
	run --separate-stderr "$INSMOD" "$FIXTURES/delta.ko"
	assert_equal "$status" 3
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: this kernel has no module support (/proc/modules is missing)"
}

@test "insmod without CAP_SYS_MODULE exits 4 with the hint and changes nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel_nocap "$INSMOD" "$FIXTURES/delta.ko"
	assert_equal "$status" 4
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/delta.ko: Operation not permitted (this needs CAP_SYS_MODULE, and module loading must not be disabled)"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod -s sends errors to syslog, not stderr" {
	run --separate-stderr on_kernel_traced -f -qq -e trace=connect,sendto,write -s 512 \
		-o "$BATS_TEST_TMPDIR/trace" "$INSMOD" -s "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	grep -q 'connect(.*"/dev/log"' "$BATS_TEST_TMPDIR/trace"
	grep -Eq '(sendto\(|write\([013-9]).*insmod.*unknown symbol nobody_exports_this' "$BATS_TEST_TMPDIR/trace"
	run is_live needsym
	assert_failure
}

@test "insmod --check on a good module says it would load, and loads nothing" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --check "$FIXTURES/delta.ko.xz"
	assert_success
	assert_equal "$output" "$FIXTURES/delta.ko.xz: ok, delta would load"
	assert_equal "$stderr" ""
	assert_equal "$(snapshot)" "$before"
}

@test "insmod --check on a module whose init would fail cannot know: ok, and nothing rots" {
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --check "$FIXTURES/failinit.ko"
	assert_success
	assert_equal "$output" "$FIXTURES/failinit.ko: ok, failinit would load"
	assert_equal "$(rotting_count)" 0
	assert_equal "$(snapshot)" "$before"
}

@test "insmod --check on a bad module gives the refusal and exit 1; on a loaded one, exit 5 as the run" {
	kmod_load delta
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --check "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/needsym.ko: unknown symbol nobody_exports_this (neither the kernel nor a loaded module offers it)"
	assert_equal "$(snapshot)" "$before"
	run --separate-stderr on_kernel "$INSMOD" --check "$FIXTURES/delta.ko"
	assert_equal "$status" 5
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/delta.ko: Module already loaded (delta is live)"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod -J prints one record and a summary for a loaded module" {
	run --separate-stderr on_kernel "$INSMOD" -J "$FIXTURES/delta.ko"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.modules | length' <<<"$output")" 1
	assert_equal "$(jq -c '.modules[0] | keys_unsorted' <<<"$output")" \
		'["name","filename","result","reason","errno","error","message","rotted_bytes","percpu_bytes","percpu_short"]'
	assert_equal "$(jq -c '.modules[0] | [.name, .filename, .result, .reason, .errno, .error, .message, .rotted_bytes, .percpu_bytes, .percpu_short]' <<<"$output")" \
		"[\"delta\",\"$FIXTURES/delta.ko\",\"loaded\",\"\",0,\"\",\"\",0,0,false]"
	assert_equal "$(jq -c '.summary | [.dry_run, .files, .loaded, .ok, .refused, .failed, .skipped, .rotted, .rotted_bytes]' <<<"$output")" \
		'[false,1,1,0,0,0,0,0,0]'
	is_live delta
}

@test "insmod -J of a failed init records errno, error and the bytes that rot" {
	run --separate-stderr on_kernel "$INSMOD" -J "$FIXTURES/failinit.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	bytes=$(rotting_bytes failinit)
	assert_equal "$(jq -c '.modules[0] | [.name, .result, .reason, .errno, .error, .rotted_bytes]' <<<"$output")" \
		"[\"failinit\",\"failed\",\"no_device\",19,\"ENODEV\",$bytes]"
	assert_equal "$(jq -c '.summary | [.failed, .rotted, .rotted_bytes]' <<<"$output")" "[1,1,$bytes]"
	assert_equal "$(rotting_count failinit)" 1
}

@test "insmod is clean under valgrind: load, failed init, refusal and --check" {
	skip_if_sanitized
	valgrind_clean "$INSMOD" "$FIXTURES/params.ko.xz" 'label=a b'
	assert_success
	valgrind_clean "$INSMOD" "$FIXTURES/failinit.ko.zst"
	assert_failure 1
	valgrind_clean "$INSMOD" "$FIXTURES/needsym.ko"
	assert_failure 1
	valgrind_clean "$INSMOD" --check "$FIXTURES/delta.ko"
	assert_success
	valgrind_clean "$INSMOD" --check --batch "$FIXTURES/delta.ko" "$FIXTURES/badmagic.ko"
	assert_failure 1
}

@test "insmod --batch loads modules after the batch modules they depend on, whatever the order given" {
	run --separate-stderr on_kernel "$INSMOD" --batch -j 2 "$FIXTURES/gamma.ko" "$FIXTURES/beta.ko" "$FIXTURES/alpha.ko"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "3 of 3 loaded, 0 failed, 0 refused before loading, 0 skipped"
	is_live alpha
	is_live beta
	is_live gamma
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "load" { print $3 }' | tr '\n' ' ')" "alpha beta gamma "
	"$SIM" ledger "$K" --check
}

@test "insmod --batch skips a module whose batch dependency was refused, and the kernel never sees it" {
	# alpha built for aarch64 (e_machine patched): refused by the preflight.
	cp "$FIXTURES/alpha.ko" "$BATS_TEST_TMPDIR/alpha.ko"
	printf '\267\000' | dd of="$BATS_TEST_TMPDIR/alpha.ko" bs=1 seek=18 conv=notrunc status=none
	before=$(snapshot)
	run --separate-stderr on_kernel "$INSMOD" --batch "$BATS_TEST_TMPDIR/alpha.ko" "$FIXTURES/beta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $BATS_TEST_TMPDIR/alpha.ko: built for aarch64, and this kernel runs on x86_64
insmod: ERROR: skipped $FIXTURES/beta.ko: it depends on alpha, which was not loaded"
	assert_equal "$output" "0 of 2 loaded, 0 failed, 1 refused before loading, 1 skipped"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod --batch loads a module whose batch dependency is refused only because it is live already" {
	kmod_load alpha beta
	run --separate-stderr on_kernel "$INSMOD" --batch "$FIXTURES/beta.ko" "$FIXTURES/gamma.ko"
	assert_equal "$status" 5
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/beta.ko: Module already loaded (beta is live)"
	assert_equal "$output" "1 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped, 1 loaded already"
	is_live gamma
	kernel_state | grep -q '^live beta .* holders=gamma '
	"$SIM" ledger "$K" --check
}

@test "insmod never waits on a FIFO at /lib/modules/RELEASE/modules.dep: it loads as without one" {
	mkdir -p "$K/root/lib/modules/6.1.0-sim"
	mkfifo "$K/root/lib/modules/6.1.0-sim/modules.dep"
	run --separate-stderr timeout 10 "$SIM" run "$K" -- "$INSMOD" "$FIXTURES/delta.ko"
	assert_success
	assert_equal "$(kernel_state | awk '$1 == "live" { print $2 }')" delta
}
