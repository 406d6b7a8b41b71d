#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Each tool's options live in four places: getopt's table in its source,
# --help, its manual page and its completions. man.bats holds the pages to
# --help; this file holds --help to getopt's table, and every shell's
# completion of "TOOL -" to --help, for every tool with a table (a new
# tool is checked as soon as it is built).

bats_require_minimum_version 1.5.0

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load "$top_srcdir/tests/helpers/completion.bash"

# The source of tool NAME's main(): tools/NAME.c, or tools/NAME-cmd/NAME.c
# for a tool of several files.
tool_source() {
	if [ -e "$top_srcdir/tools/$1.c" ]; then
		echo "$top_srcdir/tools/$1.c"
	else
		echo "$top_srcdir/tools/$1-cmd/$1.c"
	fi
}

# The tools: every tool source that parses options with cli_next_option.
tools_with_options()
{
	grep -l 'cli_next_option(argc' "$top_srcdir"/tools/*.c "$top_srcdir"/tools/*/*.c |
		sed 's|.*/||; s|\.c$||' | LC_ALL=C sort
}

# $TOOLS: the same list, for the loops of every test; a list short of the
# five tools the first test names fails every test, which would otherwise
# check nothing.
setup() {
	TOOLS=$(tools_with_options)
	[ "$(wc -w <<< "$TOOLS")" -ge 5 ] || fail "tools_with_options found only: $TOOLS"
}

# The options getopt's table in tool $1's source gives, one a line, sorted: each
# long name of the option array (and of the CLI_OPTIONS_* macros of
# tools/cli/cli-opts.h it lists), and each letter of the short-option string handed
# to cli_next_option.
table_options()
{
	local src short
	src=$(tool_source "$1")
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
	for t in $TOOLS; do
		[ -x "$top_builddir/tools/$t" ] || fail "tools/$t is not built"
	done
}

@test "table_options reads a table as getopt would (rmmod)" {
	run table_options rmmod
	assert_success
	assert_output "$(printf '%s\n' --bytes --dry-run --force --help --json --reclaim --remove-holders \
		--syslog --unused --verbose --version -J -V -b -f -h -n -s -v | LC_ALL=C sort)"
}

@test "every tool's --help lists every option of its getopt table, and no other" {
	local t diffs=
	for t in $TOOLS; do
		d=$(diff <(table_options "$t") <(completion_help_options "$t")) ||
			diffs+=$'\n'"$t (< table only, > --help only):"$'\n'"$d"
	done
	[[ -z $diffs ]] || fail "$diffs"
}

@test "bash, zsh and fish complete every option each tool's --help lists" {
	local t sh got diffs=
	for t in $TOOLS; do
		for sh in bash zsh fish; do
			got=$("complete_$sh" "$t -" | grep -- '^-' | LC_ALL=C sort -u) ||
				fail "$sh could not complete '$t -'"
			d=$(diff <(completion_help_options "$t") <(echo "$got")) ||
				diffs+=$'\n'"$t in $sh (< --help only, > completion only):"$'\n'"$d"
		done
	done
	[[ -z $diffs ]] || fail "$diffs"
}

# --- what getopt refuses, as getopt users expect it told ---------------

# Each entry of getopt's table in tool $1's source, in table order, one a line:
# NAME HAS_ARG VALUE (the CLI_OPTIONS_* macros of tools/cli/cli-opts.h expanded).
table_entries()
{
	sed -nE '/struct option longopts\[\]/,/^\s*\};/{
		s/^\s*\{ "([a-z-]+)", *([a-z_]+), *NULL, *([^ }]+) *\},?$/\1 \2 \3/p
		s/^\s*CLI_OPTIONS_SYSLOG_VERBOSE,?$/syslog no_argument \x27s\x27\nverbose no_argument \x27v\x27/p
		s/^\s*CLI_OPTIONS_HELP_VERSION,?$/help no_argument \x27h\x27\nversion no_argument \x27V\x27/p
	}' "$(tool_source "$1")"
}

# The options getopt offers for the prefix $2 in tool $1, one a line, as
# getopt counts them: none when $2 is an option's whole name; else the
# first entry it begins, and each after that means something else (another
# HAS_ARG or VALUE). Entries that differ only in name are aliases: getopt
# takes the first. Two lines or more: the prefix is ambiguous.
possibilities()
{
	table_entries "$1" | awk -v p="$2" '
		$1 == p { exact = 1 }
		index($1, p) == 1 {
			if (!n++) { arg = $2; val = $3; out = "--" $1 }
			else if ($2 != arg || $3 != val) out = out "\n--" $1
		}
		END { if (!exact && n) print out }'
}

# The longest prefix of two of the tool's long options that is ambiguous
# to getopt. Empty when the table has none.
ambiguous_prefix()
{
	local -a names
	local a b p best='' i
	mapfile -t names < <(table_entries "$1" | cut -d' ' -f1)
	for a in "${names[@]}"; do
		for b in "${names[@]}"; do
			[ "$a" != "$b" ] || continue
			p=
			for ((i = 0; i < ${#a} && i < ${#b}; i++)); do
				[ "${a:i:1}" = "${b:i:1}" ] || break
				p+=${a:i:1}
			done
			if [ ${#p} -gt ${#best} ] && [ "$(possibilities "$1" "$p" | wc -l)" -ge 2 ]; then
				best=$p
			fi
		done
	done
	echo "$best"
}

# Runs tools/$1 with the rest as arguments; it must exit 2 with nothing on
# stdout and one line on stderr, which is left in $stderr.
refused()
{
	local tool=$1
	shift
	run --separate-stderr "$top_builddir/tools/$tool" "$@"
	assert_equal "$status" 2
	assert_equal "$output" ""
	assert_equal "${#stderr_lines[@]}" 1
}

@test "table_entries, possibilities and ambiguous_prefix read a table as getopt would (modprobe, modreap)" {
	run table_entries modreap
	assert_line --index 0 "all no_argument 'a'"
	assert_line --index 2 "percpu optional_argument OPT_PERCPU"
	assert_line --index 9 "bytes no_argument 'b'"
	assert_line --index 11 "help no_argument 'h'"
	assert_equal "${#lines[@]}" 13
	# --percpu is an option's whole name, so not ambiguous beside --percpu-floor
	run possibilities modreap percpu
	assert_output ''
	run ambiguous_prefix modreap
	assert_output d
	# what is compared with is the first match: an entry that means what
	# it means is left out, one that means what a later one means is not
	run possibilities modprobe re
	assert_output "$(printf '%s\n' --remove --remove-dependencies --remove-holders --resolve-alias --reclaim)"
	run possibilities modprobe ignore-
	assert_output --ignore-install
	run ambiguous_prefix modrot-metrics
	assert_output ''
}

@test "every tool says an ambiguous long option is ambiguous, and lists every option it may mean" {
	local t p want got seen=
	for t in $TOOLS; do
		p=$(ambiguous_prefix "$t")
		[ -n "$p" ] || continue
		seen+=" $t"
		want=$(possibilities "$t" "$p" | sed "s/.*/'&'/" | paste -sd' ')
		for word in "--$p" "--$p=1"; do
			refused "$t" "$word"
			assert_equal "$stderr" "$t: ERROR: option '$word' is ambiguous; possibilities: $want (see '$t --help')"
		done
	done
	# modrot-metrics' options (--output, --help, --version) share no prefix
	assert_equal "$seen" " insmod lsmod modinfo modprobe modreap rmmod"
}

@test "every tool takes a prefix that is one option's alone as that option" {
	local t
	for t in $TOOLS; do
		run "$top_builddir/tools/$t" --he
		assert_success
		assert_equal "$output" "$("$top_builddir/tools/$t" --help)"
	done
}

@test "every tool names an option given a value it takes none of in full, typed whole or as a prefix" {
	local t word
	for t in $TOOLS; do
		for word in --help=1 --hel=1; do
			refused "$t" "$word"
			assert_equal "$stderr" "$t: ERROR: option '--help' doesn't allow an argument (see '$t --help')"
		done
	done
}

@test "every tool names a long option missing its argument in full, and a short one by its letter" {
	local t name
	for t in $TOOLS; do
		for name in $(grep -oE '\{ "[a-z-]+", *required_argument' "$(tool_source "$t")" | sed -E 's/^\{ "([^"]*)".*/\1/'); do
			refused "$t" "--$name"
			assert_equal "$stderr" "$t: ERROR: missing argument for option '--$name' (see '$t --help')"
		done
	done
	refused lsmod -o
	assert_equal "$stderr" "lsmod: ERROR: missing argument for option '-o' (see 'lsmod --help')"
	refused lsmod --o
	assert_equal "$stderr" "lsmod: ERROR: missing argument for option '--output' (see 'lsmod --help')"
}

@test "every tool calls an unknown option unknown, long as typed and short by its letter, after long ones too" {
	local t
	for t in $TOOLS; do
		refused "$t" --no-such-option=1
		assert_equal "$stderr" "$t: ERROR: unknown option '--no-such-option=1' (see '$t --help')"
		refused "$t" -Z
		assert_equal "$stderr" "$t: ERROR: unknown option '-Z' (see '$t --help')"
	done
	# a refused letter inside a cluster, after a long option that was taken
	refused rmmod --force -Zf delta
	assert_equal "$stderr" "rmmod: ERROR: unknown option '-Z' (see 'rmmod --help')"
	refused lsmod --raw -Zr
	assert_equal "$stderr" "lsmod: ERROR: unknown option '-Z' (see 'lsmod --help')"
}
