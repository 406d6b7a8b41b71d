#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modreap's completions, in the real bash, zsh and fish, on a simulated rot
# kernel.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load "$top_srcdir/tests/helpers/completion.bash"

# One kernel for the whole file (completion_kernel_setup says which modules).
setup_file()
{
	completion_kernel_setup
}

ROTTING=$'delta\nfailinit\ngamma'

help_options() { completion_help_options modreap; }

@test "the simulated kernel has the live and rotting modules these tests expect" {
	run "$SIMKERNEL" state "$K"
	assert_success
	assert_equal "$(awk '$1 == "live" { print $2 }' <<<"$output" | LC_ALL=C sort | tr '\n' ' ')" \
		'alpha beta delta snd_dummy '
	assert_equal "$(awk '$1 == "rotting" { print $2 }' <<<"$output" | LC_ALL=C sort | tr '\n' ' ')" \
		'delta delta failinit gamma '
}

@test "bash completes every short and long option modreap --help lists" {
	run complete_bash 'modreap -'
	assert_success
	assert_output "$(help_options)"
}

@test "bash offers exactly the rotting names, not the live ones" {
	run complete_on_kernel bash 'modreap '
	assert_success
	assert_output "$ROTTING"
}

@test "bash does not offer a rotting name already on the line" {
	run complete_on_kernel bash 'modreap gamma '
	assert_success
	assert_output $'delta\nfailinit'
}

@test "bash offers no name after --all" {
	run complete_on_kernel bash 'modreap --all '
	assert_success
	assert_output ''
}

@test "bash offers nothing for the size of --down-to" {
	run complete_on_kernel bash 'modreap --down-to '
	assert_success
	assert_output ''
}

@test "bash offers nothing for the seconds of --interval" {
	run complete_on_kernel bash 'modreap --down-to 16M --watch --interval '
	assert_success
	assert_output ''
}

@test "zsh completes every short and long option modreap --help lists" {
	run complete_zsh 'modreap -'
	assert_success
	assert_output "$(help_options)"
}

@test "zsh offers exactly the rotting names, not the live ones" {
	run complete_on_kernel zsh 'modreap '
	assert_success
	assert_output "$ROTTING"
}

@test "zsh does not offer a rotting name already on the line" {
	run complete_on_kernel zsh 'modreap gamma '
	assert_success
	assert_output $'delta\nfailinit'
}

@test "zsh offers no name after --all" {
	run complete_on_kernel zsh 'modreap --all '
	assert_success
	# zsh offers the remaining options where no argument may follow.
	refute_output --partial delta
}

@test "zsh offers nothing for the size of --down-to" {
	run complete_on_kernel zsh 'modreap --down-to '
	assert_success
	assert_output ''
}

@test "zsh offers nothing for the seconds of --interval" {
	run complete_on_kernel zsh 'modreap --down-to 16M --watch --interval '
	assert_success
	assert_output ''
}

@test "fish completes every short and long option modreap --help lists" {
	run complete_fish 'modreap -'
	assert_success
	assert_output "$(help_options)"
}

@test "fish offers exactly the rotting names, not the live ones" {
	run complete_on_kernel fish 'modreap '
	assert_success
	assert_output "$ROTTING"
}

@test "fish does not offer a rotting name already on the line" {
	run complete_on_kernel fish 'modreap gamma '
	assert_success
	assert_output $'delta\nfailinit'
}

@test "fish offers no name after --all" {
	run complete_on_kernel fish 'modreap --all '
	assert_success
	assert_output ''
}

@test "fish offers nothing for the size of --down-to" {
	run complete_on_kernel fish 'modreap --down-to '
	assert_success
	assert_output ''
}

@test "fish offers nothing for the seconds of --interval" {
	run complete_on_kernel fish 'modreap --down-to 16M --watch --interval '
	assert_success
	assert_output ''
}

# --percpu chooses the names itself, with or without its size; --watch
# takes no name; --percpu-floor takes a size.
@test "bash offers no name after --percpu, with or without its size" {
	run complete_on_kernel bash 'modreap --percpu '
	assert_success
	assert_output ''
	run complete_on_kernel bash 'modreap --percpu 1500 '
	assert_success
	assert_output ''
}

@test "bash offers no name after --watch, and no --percpu or --all with it" {
	run complete_on_kernel bash 'modreap --watch '
	assert_success
	assert_output ''
	run complete_bash 'modreap --watch --percpu-floor 2K --'
	assert_success
	refute_line --percpu
	refute_line --all
	assert_line --down-to
}

@test "bash offers nothing for the size of --percpu-floor" {
	run complete_on_kernel bash 'modreap --watch --percpu-floor '
	assert_success
	assert_output ''
}

@test "zsh offers no name after --percpu" {
	run complete_on_kernel zsh 'modreap --percpu '
	assert_success
	refute_output --partial delta
}

@test "zsh offers nothing for the size of --percpu-floor" {
	run complete_on_kernel zsh 'modreap --watch --percpu-floor '
	assert_success
	assert_output ''
}

@test "fish offers no name after --percpu, with or without its size" {
	run complete_on_kernel fish 'modreap --percpu '
	assert_success
	assert_output ''
	run complete_on_kernel fish 'modreap --percpu 1500 '
	assert_success
	assert_output ''
}

@test "fish offers no name after --watch" {
	run complete_on_kernel fish 'modreap --watch '
	assert_success
	assert_output ''
}

@test "fish offers nothing for the size of --percpu-floor" {
	run complete_on_kernel fish 'modreap --watch --percpu-floor '
	assert_success
	assert_output ''
}
