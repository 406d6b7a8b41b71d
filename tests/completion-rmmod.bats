#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rmmod's completions, in the real bash, zsh and fish, on a simulated rot
# kernel.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load "$top_srcdir/tests/helpers/completion.bash"

# One kernel for the whole file, nothing changes it:
#   live:    snd_dummy, delta (again), beta (holds alpha), alpha
#   rotting: delta (twice), gamma, failinit (its init failed)
# delta is both live and rotting, so --reclaim must offer it once.
setup_file()
{
	local m
	K=$BATS_FILE_TMPDIR/kernel
	"$SIMKERNEL" create "$K" --mode rot
	for m in alpha beta gamma delta; do
		"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/$m.ko"
	done
	! "$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/failinit.ko" 2>/dev/null
	"$SIMKERNEL" run "$K" -- /sbin/rmmod delta gamma
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/delta.ko"
	"$SIMKERNEL" run "$K" -- /sbin/rmmod delta
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/delta.ko"
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/snd-dummy.ko"
	export K
}

# Completes line $2 in shell $1 with the simulated kernel in place of the
# real one.
complete_on_kernel()
{
	SIMKERNEL_DIR=$K LD_PRELOAD=$SIMKERNEL_LIB${LD_PRELOAD:+:$LD_PRELOAD} "complete_$1" "$2"
}

LIVE=$'alpha\nbeta\ndelta\nsnd_dummy'
LIVE_AND_ROTTING=$'alpha\nbeta\ndelta\nfailinit\ngamma\nsnd_dummy'

# The options rmmod itself lists, so these tests fail when the tool gains
# one that a completion does not offer.
help_options()
{
	"$top_builddir/tools/rmmod" --help |
		sed -n '/^Options:/,/^$/p' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		tr -d ' ,' | LC_ALL=C sort -u
}

@test "the simulated kernel has the live and rotting modules these tests expect" {
	run "$SIMKERNEL" state "$K"
	assert_success
	assert_equal "$(awk '$1 == "live" { print $2 }' <<<"$output" | LC_ALL=C sort)" "$LIVE"
	assert_equal "$(awk '$1 == "rotting" { print $2 }' <<<"$output" | LC_ALL=C sort | tr '\n' ' ')" \
		'delta delta failinit gamma '
}

@test "bash completes every short and long option rmmod --help lists" {
	run complete_bash 'rmmod -'
	assert_success
	assert_output "$(help_options)"
}

@test "bash offers exactly the live modules' names" {
	run complete_on_kernel bash 'rmmod '
	assert_success
	assert_output "$LIVE"
}

@test "bash never offers lsmod's header word Module" {
	run complete_on_kernel bash 'rmmod --reclaim M'
	assert_success
	# (refute_line cannot read an empty output)
	assert_equal "$(grep -cx Module <<<"$output")" 0
}

@test "bash offers the rotting names too after --reclaim" {
	run complete_on_kernel bash 'rmmod --reclaim '
	assert_success
	assert_output "$LIVE_AND_ROTTING"
}

@test "bash does not offer a module already on the line" {
	run complete_on_kernel bash 'rmmod snd-dummy alpha '
	assert_success
	assert_output $'beta\ndelta'
}

@test "zsh completes every short and long option rmmod --help lists" {
	run complete_zsh 'rmmod -'
	assert_success
	assert_output "$(help_options)"
}

@test "zsh offers exactly the live modules' names" {
	run complete_on_kernel zsh 'rmmod '
	assert_success
	assert_output "$LIVE"
}

@test "zsh never offers lsmod's header word Module" {
	run complete_on_kernel zsh 'rmmod --reclaim M'
	assert_success
	# (refute_line cannot read an empty output)
	assert_equal "$(grep -cx Module <<<"$output")" 0
}

@test "zsh offers the rotting names too after --reclaim" {
	run complete_on_kernel zsh 'rmmod --reclaim '
	assert_success
	assert_output "$LIVE_AND_ROTTING"
}

@test "zsh does not offer a module already on the line" {
	run complete_on_kernel zsh 'rmmod snd-dummy alpha '
	assert_success
	assert_output $'beta\ndelta'
}

@test "fish completes every short and long option rmmod --help lists" {
	run complete_fish 'rmmod -'
	assert_success
	assert_output "$(help_options)"
}

@test "fish offers exactly the live modules' names" {
	run complete_on_kernel fish 'rmmod '
	assert_success
	assert_output "$LIVE"
}

@test "fish never offers lsmod's header word Module" {
	run complete_on_kernel fish 'rmmod --reclaim M'
	assert_success
	# (refute_line cannot read an empty output)
	assert_equal "$(grep -cx Module <<<"$output")" 0
}

@test "fish offers the rotting names too after --reclaim" {
	run complete_on_kernel fish 'rmmod --reclaim '
	assert_success
	assert_output "$LIVE_AND_ROTTING"
}

@test "fish does not offer a module already on the line" {
	run complete_on_kernel fish 'rmmod snd-dummy alpha '
	assert_success
	assert_output $'beta\ndelta'
}
