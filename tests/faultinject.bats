#!/usr/bin/env bats
# A bounded fault-injection sweep (tests/faultinject/sweep.sh) in the
# normal suite: every tool, a sample of its modes, with its Nth
# allocation, read or standard-output write failing, for a sample of N.
# No crash, no exit 0 with output or kernel state that differ from the
# run without a fault, no failure that does not say what failed. The full
# sweep (every mode, every N) is `tests/faultinject/sweep.sh`.

load helpers/tools

SWEEP=$top_srcdir/tests/faultinject/sweep.sh

# The sweeps' kernels and keys, made by the first sweep, copied by each run.
setup_file() {
	export SWEEP_KERNELS=$BATS_FILE_TMPDIR/kernels
}

setup() {
	# The preload replaces the allocator: ASan will not share it.
	[ "$MODROT_SANITIZED" = no ] || skip "the fault-injection preload needs the plain build"
}

# Runs the sweep; fails unless it tried at least MIN runs and found no defect.
sweep() {
	local min=$1
	shift
	run "$SWEEP" "$@"
	echo "$output"
	[[ "${lines[-1]}" =~ ^runs\ ([0-9]+),\ crashes\ 0,\ silent\ wrong\ outputs\ 0,\ unexplained\ failures\ 0,\ broken\ ledgers\ 0, ]]
	[ "${BASH_REMATCH[1]}" -ge "$min" ]
	assert_success
}

@test "lsmod in every output mode survives a failed allocation, read or write" {
	sweep 150 -s 2 -m '^lsmod(-o|-J-all|-r|-rotting|-stock-J|-inuse|-pins)?$'
}

@test "rmmod, plain, --reclaim and --unused, survives a failed allocation, read or write" {
	sweep 30 -s 2 -m '^rmmod(-inuse|-reclaim-live|-unused-reclaim)$'
}

@test "modreap, report and reclaim, text and JSON, survives a failed allocation, read or write" {
	sweep 60 -s 2 -m '^modreap(-J|-all|-down-to-J|-name-J)?$'
}

# --verify is left out: OpenSSL 3.0 reports some allocation failures
# inside CMS_verify() as "decode error" or "initialization error", which
# insmod can only quote ("could not be checked: OpenSSL: decode error"; the
# module is refused all the same). sweep.sh -m insmod-verify shows them.
@test "insmod, single, --check -J, --batch -J and --match-devices, survives a failed allocation, read or write" {
	sweep 40 -s 13 -m '^insmod(|-check-J|-batch-J|-match-devices)$'
}

@test "insmod --verify under a failed allocation never loads, crashes or calls the signature a mismatch" {
	run "$SWEEP" -v -k alloc -s 53 -m '^insmod-verify-der$'
	echo "$output"
	[[ "${lines[-1]}" =~ ^runs\ ([0-9]+),\ crashes\ 0,\ silent\ wrong\ outputs\ 0,\ unexplained\ failures\ [0-9]+,\ broken\ ledgers\ 0, ]]
	[ "${BASH_REMATCH[1]}" -ge 60 ]
	# What OpenSSL only calls "decode error" is quoted, not called a mismatch.
	refute_output --partial "does not match the module"
}

@test "modrot-metrics, to stdout and -o, rot and stock, survives every failed allocation, read or write" {
	sweep 50 -m '^metrics'
}

# modprobe's insert modes (plain, -a, -n -v, --show-depends) are left out:
# a plan with module options goes through libkmod 30's
# module_options_concat() (libkmod-module.c:1120), which writes through an
# unchecked malloc(): a crash no caller can prevent while libkmod runs the
# probe. sweep.sh -m '^modprobe(|-a|-n-v|-show-depends)$' shows it, and
# tests/faultinject/README.md says what would remove it.
@test "modprobe -v, -c, -r (a module's and a remove command), -r -v and -r --reclaim survive a failed allocation, read or write" {
	sweep 150 -s 3 -m '^modprobe(-v|-c|-r|-r-cmd|-r-v|-r-reclaim)$'
}

# modinfo -J and of several modules are left out: a compressed module
# whose decompression libkmod cannot allocate is "Invalid argument" to
# kmod_module_get_info(), with errno overwritten (README.md).
@test "modinfo by alias, -F, of a file and on a stock kernel survives a failed allocation, read or write" {
	sweep 120 -s 2 -m '^modinfo(|-F|-file|-stock)$'
}

# modinfo decodes a signature with the libcrypto libkmod links: its
# allocations reach a preload that replaces the allocator, and each one
# that fails is seen and said.
@test "libcrypto allocates through the program's allocator: its failures are seen and said" {
	local d=$BATS_TEST_TMPDIR modinfo=$top_builddir/tools/modinfo
	local lib=$top_builddir/tests/faultinject/libfaultinject.so
	local sign=$top_srcdir/tests/helpers/sign-module.sh
	"$sign" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$sign" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/delta.ko" "$d/delta-signed.ko"
	FAULTINJECT_LOG=$d/count LD_PRELOAD=$lib "$modinfo" "$d/delta-signed.ko" >"$d/expected"
	local total
	total=$(sed -n 's/^count alloc \([0-9]*\).*/\1/p' "$d/count")
	[ "$total" -gt 20 ]
	local n seen=0
	for ((n = 1; n <= total; n++)); do
		rm -f "$d/log"
		run --separate-stderr env FAULTINJECT_ALLOC=$n FAULTINJECT_LOG="$d/log" LD_PRELOAD="$lib" \
			"$modinfo" "$d/delta-signed.ko"
		grep -q '^hit alloc [0-9]* libcrypto\.so' "$d/log" || continue
		seen=$((seen + 1))
		# Failed, in words, not killed; or nothing lost (libcrypto's
		# clean-up at exit allocates too).
		if [ "$status" -eq 0 ]; then
			assert_output "$(cat "$d/expected")"
		else
			[ "$status" -eq 1 ]
			[[ "$stderr" == *"out of memory"* || "$stderr" == *"Cannot allocate memory"* ]]
		fi
	done
	echo "libcrypto allocations failed: $seen of $total"
	[ "$seen" -ge 5 ]
}

@test "the sweep catches what it is for: exit 0 after a failed write, a failure that says nothing, a crash" {
	local d=$BATS_TEST_TMPDIR
	# A failed write, and exit 0 all the same: output lost.
	printf '#!/bin/dash\necho hello 2>/dev/null\nexit 0\n' >"$d/ignores-write"
	# A read that fails, and a non-zero exit with no word of why.
	printf '#!/bin/dash\nread x </etc/hostname || exit 3\n' >"$d/says-nothing"
	# Killed by a signal after its write failed.
	printf '#!/bin/dash\necho hello 2>/dev/null\nkill -SEGV $$\n' >"$d/crashes"
	chmod +x "$d"/*
	run "$SWEEP" -k write -x "echo|rot|$d/ignores-write"
	assert_failure
	assert_line --regexp "^silent +echo +write N=1 +rc=0"
	assert_line --partial "runs 1, crashes 0, silent wrong outputs 1,"
	run "$SWEEP" -k read -x "read|rot|$d/says-nothing"
	assert_failure
	assert_line --regexp "^unexplained +read +read +N=[0-9]+ +rc=3"
	run "$SWEEP" -k write -x "crash|rot|$d/crashes"
	assert_failure
	assert_line --regexp "^crash +crash +write N=1 +rc=139"
	assert_line --partial "runs 1, crashes 1,"
}
