#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# lsmod's completions, in the real bash, zsh and fish.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load "$top_srcdir/tests/helpers/completion.bash"

# The options and columns lsmod itself lists, so these tests fail when the
# tool gains one that a completion does not offer.
help_options()
{
	"$top_builddir/tools/lsmod" --help |
		sed -n '/^Options:/,/^$/p' | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		tr -d ' ,' | LC_ALL=C sort -u
}

help_columns()
{
	"$top_builddir/tools/lsmod" --help |
		awk '/^Available output columns:/ { on = 1; next } on && NF { print tolower($1) }' |
		LC_ALL=C sort -u
}

# Asserts that $output holds every line of $1 (and maybe more).
assert_lines_include()
{
	local expected
	while read -r expected; do
		assert_line -- "$expected"
	done <<<"$1"
}

@test "bash completes every short and long option lsmod --help lists" {
	run complete_bash 'lsmod -'
	assert_success
	assert_lines_include "$(help_options)"
}

@test "bash completes every column name after -o" {
	run complete_bash 'lsmod -o '
	assert_success
	assert_output "$(help_columns)"
}

@test "bash completes the column after a comma, keeping the list before it" {
	run complete_bash 'lsmod -o name,s'
	assert_success
	assert_output $'name,size\nname,state'
}

@test "bash does not offer a column already in the list" {
	run complete_bash 'lsmod --output=size,'
	assert_success
	refute_line -- 'size,size'
	assert_line -- 'size,name'
}

@test "bash does not offer --rotting after --live" {
	run complete_bash 'lsmod --live --'
	assert_success
	assert_line -- '--json'
	refute_line -- '--rotting'
	refute_line -- '--live'
}

@test "bash does not offer -r or --raw after -J" {
	run complete_bash 'lsmod -J -'
	assert_success
	assert_line -- '-n'
	refute_line -- '-r'
	refute_line -- '--raw'
}

@test "zsh completes every short and long option lsmod --help lists" {
	run complete_zsh 'lsmod -'
	assert_success
	assert_lines_include "$(help_options)"
}

@test "zsh completes every column name after -o" {
	run complete_zsh 'lsmod -o '
	assert_success
	assert_output "$(help_columns)"
}

@test "zsh completes the column after a comma, keeping the list before it" {
	run complete_zsh 'lsmod -o name,s'
	assert_success
	assert_output $'name,size\nname,state'
}

@test "zsh does not offer a column already in the list" {
	run complete_zsh 'lsmod --output=size,'
	assert_success
	refute_line -- '--output=size,size'
	assert_line -- '--output=size,name'
}

@test "zsh does not offer --rotting after --live" {
	run complete_zsh 'lsmod --live --'
	assert_success
	assert_line -- '--json'
	refute_line -- '--rotting'
	refute_line -- '--live'
}

@test "zsh does not offer -r or --raw after -J" {
	run complete_zsh 'lsmod -J -'
	assert_success
	assert_line -- '-n'
	refute_line -- '-r'
	refute_line -- '--raw'
}

@test "fish completes every short and long option lsmod --help lists" {
	run complete_fish 'lsmod -'
	assert_success
	assert_lines_include "$(help_options)"
}

@test "fish completes every column name after -o" {
	run complete_fish 'lsmod -o '
	assert_success
	assert_output "$(help_columns)"
}

@test "fish completes the column after a comma, keeping the list before it" {
	run complete_fish 'lsmod -o name,s'
	assert_success
	assert_output $'name,size\nname,state'
}

@test "fish does not offer a column already in the list" {
	run complete_fish 'lsmod --output=size,'
	assert_success
	refute_line -- '--output=size,size'
	assert_line -- '--output=size,name'
}

@test "fish does not offer --rotting after --live" {
	run complete_fish 'lsmod --live --'
	assert_success
	assert_line -- '--json'
	refute_line -- '--rotting'
	refute_line -- '--live'
}

@test "fish does not offer -r or --raw after -J" {
	run complete_fish 'lsmod -J -'
	assert_success
	assert_line -- '-n'
	refute_line -- '-r'
	refute_line -- '--raw'
}

@test "every shell completes the PERCPU column after a comma" {
	local sh
	for sh in bash zsh fish; do
		run "complete_$sh" 'lsmod -o name,perc'
		assert_success
		assert_output 'name,percpu'
	done
}
