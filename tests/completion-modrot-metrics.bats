#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modrot-metrics' completions, in the real bash, zsh and fish.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load "$top_srcdir/tests/helpers/completion.bash"

@test "every shell completes every option modrot-metrics --help lists" {
	local sh
	for sh in bash zsh fish; do
		run "complete_$sh" 'modrot-metrics -'
		assert_success
		local opt
		for opt in $(completion_help_options modrot-metrics); do
			assert_line -- "$opt"
		done
	done
}

@test "every shell completes a file name after -o" {
	local dir=$BATS_TEST_TMPDIR/textfile sh
	mkdir "$dir"
	touch "$dir/modrot.prom"
	for sh in bash zsh fish; do
		run "complete_$sh" "modrot-metrics -o $dir/mod"
		assert_success
		assert_output "$dir/modrot.prom"
	done
}

@test "nothing is offered once help or version is on the line" {
	run complete_bash 'modrot-metrics --help '
	assert_success
	assert_output ""
}
