#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# rmmod's completions, in the real bash, zsh and fish, on a simulated rot
# kernel.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load "$top_srcdir/tests/helpers/completion.bash"

# One kernel for the whole file (completion_kernel_setup says which modules).
# delta is both live and rotting, so --reclaim must offer it once.
setup_file()
{
	completion_kernel_setup
}

LIVE=$'alpha\nbeta\ndelta\nsnd_dummy'
LIVE_AND_ROTTING=$'alpha\nbeta\ndelta\nfailinit\ngamma\nsnd_dummy'

help_options() { completion_help_options rmmod; }

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

@test "after --unused no shell offers a module name or --remove-holders, and -n is offered" {
	for sh in bash zsh fish; do
		# (zsh lists the options where no argument may follow)
		run complete_on_kernel "$sh" 'rmmod --unused '
		assert_success
		refute_output --regexp '(^|'$'\n'')[^-]'
		run complete_on_kernel "$sh" 'rmmod --unused --re'
		assert_success
		assert_output '--reclaim'
		run complete_on_kernel "$sh" 'rmmod --unused --dr'
		assert_success
		assert_output '--dry-run'
	done
}

@test "after a module name no shell offers --unused or --dry-run" {
	for sh in bash zsh fish; do
		run complete_on_kernel "$sh" 'rmmod alpha --un'
		assert_success
		assert_output ''
		run complete_on_kernel "$sh" 'rmmod alpha -'
		assert_success
		if grep -qxE -- '-n|--dry-run' <<<"$output"; then fail "$sh offers --dry-run without --unused"; fi
		assert_line '--remove-holders'
	done
}
