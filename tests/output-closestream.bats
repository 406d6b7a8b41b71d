#!/usr/bin/env bats
# Output that cannot be written: every tool, every output mode. A full
# disk, a closed stdout and a broken pipe (SIGPIPE ignored) each give one
# line on stderr and exit 1, and what the tool did to the kernel is still
# what it says it did.

load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup() {
	kernel_new rot
}

# Runs "$@" on the kernel with stdout a pipe whose reader is gone, and
# SIGPIPE ignored (as a shell's trap '' PIPE leaves it for its children).
on_kernel_broken_pipe() {
	perl -e 'pipe(my $r, my $w) or die; close $r; $SIG{PIPE} = "IGNORE";
		open(STDOUT, ">&", $w) or die; exec @ARGV or die' -- "$SIM" run "$K" -- "$@"
}

# Asserts the three failures for one command line (already run once per
# way by the caller's setup of the kernel). $1 is the tool's name.
assert_write_failures() {
	local tool=$1
	shift
	run --separate-stderr on_kernel sh -c '"$@" > /dev/full' sh "$@"
	assert_equal "$status" 1
	assert_equal "$stderr" "$tool: ERROR: could not write to standard output: No space left on device"
	run --separate-stderr on_kernel sh -c '"$@" >&-' sh "$@"
	assert_equal "$status" 1
	assert_equal "$stderr" "$tool: ERROR: could not write to standard output: Bad file descriptor"
	run --separate-stderr on_kernel_broken_pipe "$@"
	assert_equal "$status" 1
	assert_equal "$stderr" "$tool: ERROR: could not write to standard output: Broken pipe"
}

@test "lsmod in every output mode exits 1 with one line when stdout fails" {
	kmod_load alpha beta delta
	kmod_unload delta
	before=$(kernel_state)
	for args in "" "-J" "-o name,holders" "-r" "-n" "--rotting" "--live -J" "--help" "--version"; do
		# shellcheck disable=SC2086
		assert_write_failures lsmod "$LSMOD" $args
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "lsmod | head -1 with SIGPIPE ignored fails with Broken pipe" {
	"$SIM" populate "$K" --live 3000 --seed 2
	run --separate-stderr on_kernel bash -c "trap '' PIPE; '$LSMOD' | head -1; exit \${PIPESTATUS[0]}"
	assert_equal "$status" 1
	assert_equal "$output" "Module                  Size  Used by"
	assert_equal "$stderr" "lsmod: ERROR: could not write to standard output: Broken pipe"
	run --separate-stderr on_kernel bash -c "trap '' PIPE; '$LSMOD' -J | head -1; exit \${PIPESTATUS[0]}"
	assert_equal "$status" 1
	assert_equal "$stderr" "lsmod: ERROR: could not write to standard output: Broken pipe"
}

@test "modreap reports, reclaims and dry-runs exit 1 when stdout fails, and still reclaim" {
	kmod_load delta alpha
	kmod_unload delta alpha
	for args in "" "-J" "-n -a" "-n -a -J"; do
		# shellcheck disable=SC2086
		assert_write_failures modreap "$MODREAP" $args
	done
	assert_equal "$(rotting_count)" 2
	run --separate-stderr on_kernel sh -c '"$1" delta > /dev/full' sh "$MODREAP"
	assert_equal "$status" 1
	assert_equal "$stderr" "modreap: ERROR: could not write to standard output: No space left on device"
	assert_equal "$(rotting_count delta)" 0
	run --separate-stderr on_kernel sh -c '"$1" -a -J >&-' sh "$MODREAP"
	assert_equal "$status" 1
	assert_equal "$stderr" "modreap: ERROR: could not write to standard output: Bad file descriptor"
	assert_equal "$(rotting_count)" 0
	assert_equal "$(taint)" 8
}

@test "rmmod's reports exit 1 when stdout fails; the unload itself is done" {
	kmod_load alpha delta
	run --separate-stderr on_kernel sh -c '"$1" -J delta > /dev/full' sh "$RMMOD"
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: could not write to standard output: No space left on device"
	assert_equal "$(rotting_count delta)" 1
	run --separate-stderr on_kernel_broken_pipe "$RMMOD" --reclaim delta
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: could not write to standard output: Broken pipe"
	assert_equal "$(rotting_count delta)" 0
	before=$(kernel_state)
	assert_write_failures rmmod "$RMMOD" --unused -n
	assert_write_failures rmmod "$RMMOD" --unused -n -J
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod --unused and insmod --batch exit 1 when their summary line cannot be written" {
	kmod_load delta
	run --separate-stderr on_kernel sh -c '"$1" --unused > /dev/full' sh "$RMMOD"
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: could not write to standard output: No space left on device"
	assert_equal "$(rotting_count delta)" 1
	run --separate-stderr on_kernel_broken_pipe "$INSMOD" --batch "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not write to standard output: Broken pipe"
	is_live alpha
	is_live beta
}

@test "modreap --watch -J exits 1 when its report at the end cannot be written" {
	kmod_load delta
	kmod_unload delta
	# One process from here to modreap (each execs the next), so the
	# signal reaches modreap itself.
	"$SIM" run "$K" -- sh -c 'exec "$1" --watch --down-to 0 --interval 0.05 -J > /dev/full 2> "$2"' \
		sh "$MODREAP" "$BATS_TEST_TMPDIR/err" &
	watcher=$!
	wait_until eval '[ "$(rotting_count)" -eq 0 ]'
	kill -TERM "$watcher"
	status=0
	wait "$watcher" || status=$?
	assert_equal "$status" 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" "modreap: ERROR: could not write to standard output: No space left on device"
	assert_equal "$(rotting_count)" 0
}

@test "rmmod with nothing to print succeeds with stdout closed or full" {
	kmod_load alpha delta
	run --separate-stderr on_kernel sh -c '"$1" delta >&-' sh "$RMMOD"
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr on_kernel sh -c '"$1" alpha > /dev/full' sh "$RMMOD"
	assert_success
	assert_equal "$(rotting_count)" 2
}

@test "insmod --check, --batch and -J exit 1 when stdout fails" {
	before=$(kernel_state)
	for args in "--check $FIXTURES/delta.ko" "--check -J $FIXTURES/delta.ko" \
		"--batch --check $FIXTURES/delta.ko $FIXTURES/alpha.ko"; do
		# shellcheck disable=SC2086
		assert_write_failures insmod "$INSMOD" $args
	done
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel sh -c '"$1" --batch -J "$2" > /dev/full' sh "$INSMOD" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not write to standard output: No space left on device"
	is_live delta
}

@test "a failing stderr crashes no tool and changes no exit status" {
	kmod_load alpha
	run on_kernel sh -c '"$1" nosuch 2>/dev/full' sh "$RMMOD"
	assert_equal "$status" 1
	run on_kernel sh -c '"$1" nosuch 2>&-' sh "$RMMOD"
	assert_equal "$status" 1
	run on_kernel sh -c '"$1" --bogus 2>&-' sh "$LSMOD"
	assert_equal "$status" 2
	run on_kernel sh -c '"$1" "$2" 2>/dev/full' sh "$INSMOD" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	run on_kernel sh -c '"$1" 2>&-' sh "$MODREAP"
	assert_success
	run is_live needsym
	assert_failure
}
