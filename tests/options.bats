#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Each tool's options live in four places: getopt's table in its source,
# --help, its manual page and its completions. man.bats holds the pages to
# --help; this file holds --help to getopt's table, and every shell's
# completion of "TOOL -" to --help, for every tool with a table (a new
# tool is checked as soon as it is built).

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load "$top_srcdir/tests/helpers/completion.bash"

# The tools: every tools/NAME.c that parses options with cli_next_option.
tools_with_options()
{
	grep -l 'cli_next_option(argc' "$top_srcdir"/tools/*.c | sed 's|.*/||; s|\.c$||'
}

# The options getopt's table in tools/$1.c gives, one a line, sorted: each
# long name of the option array (and of the CLI_OPTIONS_* macros of
# tools/cli.h it lists), and each letter of the short-option string handed
# to cli_next_option.
table_options()
{
	local src=$top_srcdir/tools/$1.c short
	{
		grep -oE '\{ "[A-Za-z][A-Za-z-]*", *(no|required|optional)_argument' "$src" |
			sed -E 's/^\{ "([^"]*)".*/--\1/'
		grep -q 'CLI_OPTIONS_HELP_VERSION' "$src" && printf '%s\n' --help --version
		grep -q 'CLI_OPTIONS_SYSLOG_VERBOSE' "$src" && printf '%s\n' --syslog --verbose
		short=$(grep -oE 'cli_next_option\(argc, argv, "[^"]*"' "$src" | sed -E 's/.*"(.*)"/\1/')
		short=${short#+}
		short=${short//:/}
		local i
		for ((i = 0; i < ${#short}; i++)); do printf -- "-%s\n" "${short:i:1}"; done
	} | LC_ALL=C sort -u
}

@test "the tools with options are the ones the suite installs" {
	run tools_with_options
	assert_success
	for t in insmod lsmod modreap modrot-metrics rmmod; do
		assert_line "$t"
	done
	for t in $(tools_with_options); do
		[ -x "$top_builddir/tools/$t" ] || fail "tools/$t is not built"
	done
}

@test "table_options reads a table as getopt would (rmmod)" {
	run table_options rmmod
	assert_success
	assert_output "$(printf '%s\n' --dry-run --force --help --json --reclaim --remove-holders \
		--syslog --unused --verbose --version -J -V -f -h -n -s -v | LC_ALL=C sort)"
}

@test "every tool's --help lists every option of its getopt table, and no other" {
	local t diffs=
	for t in $(tools_with_options); do
		d=$(diff <(table_options "$t") <(completion_help_options "$t")) ||
			diffs+=$'\n'"$t (< table only, > --help only):"$'\n'"$d"
	done
	[[ -z $diffs ]] || fail "$diffs"
}

@test "bash, zsh and fish complete every option each tool's --help lists" {
	local t sh got diffs=
	for t in $(tools_with_options); do
		for sh in bash zsh fish; do
			got=$("complete_$sh" "$t -" | grep -- '^-' | LC_ALL=C sort -u) ||
				fail "$sh could not complete '$t -'"
			d=$(diff <(completion_help_options "$t") <(echo "$got")) ||
				diffs+=$'\n'"$t in $sh (< --help only, > completion only):"$'\n'"$d"
		done
	done
	[[ -z $diffs ]] || fail "$diffs"
}
