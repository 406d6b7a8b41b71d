#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The built man pages render cleanly and document what the tools offer.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash

setup()
{
	command -v man >/dev/null || command -v groff >/dev/null ||
		command -v mandoc >/dev/null || skip "no man, groff or mandoc to render man pages"
}

# Renders a built page as plain text, as man(1) shows it (or groff or
# mandoc where there is no man). Hyphenation and justification are off so
# that an option is never split across lines, and the width is fixed so the
# result does not depend on the terminal.
render()
{
	local page=$top_builddir/man/$1
	if command -v man >/dev/null; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --nh --nj -l "$page" | col -b
	elif command -v groff >/dev/null; then
		LC_ALL=C.UTF-8 groff -t -man -Tutf8 -rLL=80n -rHY=0 -P-cbou "$page"
	else
		LC_ALL=C.UTF-8 mandoc -Tutf8 -Owidth=80 "$page" | col -b
	fi
}

# Prints the formatter's warnings about a built page. man-db does not pass
# them on when its output is not a terminal, so ask the formatter itself:
# groff, which man-db runs, with every warning (-wall leaves out undefined
# macros), or mandoc.
format_warnings()
{
	local page=$top_builddir/man/$1
	if command -v groff >/dev/null; then
		LC_ALL=C.UTF-8 groff -t -man -Tutf8 -ww -z "$page" 2>&1
	else
		mandoc -Tlint -Wwarning "$page" 2>&1
	fi
}

# The long options a tool's --help lists, one per line.
help_long_options()
{
	"$top_builddir/tools/$1" --help | grep -oE -- '--[A-Za-z][A-Za-z-]*' | LC_ALL=C sort -u
}

# The output columns a tool's --help lists, one per line.
help_columns()
{
	"$top_builddir/tools/$1" --help |
		awk '/^Available output columns:/ { on = 1; next } on && NF { print $1 }'
}

# Fails unless every long option that tool $1 --help lists appears in its
# page as a word of its own.
assert_documents_help_options()
{
	local tool=$1 page opt missing=
	page=$(render "$tool.8")
	for opt in $(help_long_options "$tool"); do
		grep -qE -- "(^|[^-[:alnum:]])$opt([^-[:alnum:]]|$)" <<<"$page" || missing+=" $opt"
	done
	[[ -z $missing ]] || fail "$tool.8 does not document:$missing"
}

# Fails unless page $1's EXIT STATUS section lists every status of
# architecture.md, 0 to 4.
assert_documents_exit_statuses()
{
	local section status missing=
	section=$(render "$1" | sed -n '/^EXIT STATUS/,/^[A-Z]/p')
	for status in 0 1 2 3 4; do
		grep -qE "^ +$status\$" <<<"$section" || missing+=" $status"
	done
	[[ -z $missing ]] || fail "$1 does not document the exit statuses:$missing"
}

@test "lsmod.8 renders" {
	run render lsmod.8
	assert_success
	assert_line --regexp '^ +lsmod - list the kernel'
}

@test "lsmod.8 formats without warnings" {
	run format_warnings lsmod.8
	assert_success
	assert_output ''
}

@test "lsmod.8 documents every long option lsmod --help lists" {
	assert_documents_help_options lsmod
}

@test "lsmod.8 documents every exit status" {
	assert_documents_exit_statuses lsmod.8
}

@test "rmmod.8 renders" {
	run render rmmod.8
	assert_success
	assert_line --regexp '^ +rmmod - unload kernel modules'
}

@test "rmmod.8 formats without warnings" {
	run format_warnings rmmod.8
	assert_success
	assert_output ''
}

@test "rmmod.8 documents every long option rmmod --help lists" {
	assert_documents_help_options rmmod
}

@test "rmmod.8 documents every exit status" {
	assert_documents_exit_statuses rmmod.8
}

@test "modreap.8 renders" {
	run render modreap.8
	assert_success
	assert_line --regexp '^ +modreap - report rotting module memory'
}

@test "modreap.8 formats without warnings" {
	run format_warnings modreap.8
	assert_success
	assert_output ''
}

@test "modreap.8 documents every long option modreap --help lists" {
	assert_documents_help_options modreap
}

@test "modreap.8 documents every exit status" {
	assert_documents_exit_statuses modreap.8
}

@test "modrot.7 renders" {
	run render modrot.7
	assert_success
	assert_line --regexp '^ +modrot - kernel modules without reference counts'
}

@test "modrot.7 formats without warnings" {
	run format_warnings modrot.7
	assert_success
	assert_output ''
}

@test "lsmod.8 documents every output column lsmod --help lists" {
	local section col missing=
	section=$(render lsmod.8 | sed -n '/^OUTPUT COLUMNS/,/^[A-Z]/p')
	for col in $(help_columns lsmod); do
		grep -qE "^ +$col\$" <<<"$section" || missing+=" $col"
	done
	[[ -z $missing ]] || fail "lsmod.8 does not document the columns:$missing"
}

@test "insmod.8 renders" {
	run render insmod.8
	assert_success
	assert_line --regexp '^ +insmod - check kernel modules and load them'
}

@test "insmod.8 formats without warnings" {
	run format_warnings insmod.8
	assert_success
	assert_output ''
}

@test "insmod.8 documents every long option insmod --help lists" {
	assert_documents_help_options insmod
}

@test "insmod.8 documents every exit status" {
	assert_documents_exit_statuses insmod.8
}

@test "modinfo.8 renders" {
	run render modinfo.8
	assert_success
	assert_line --regexp '^ +modinfo - show what a kernel module is'
}

@test "modinfo.8 formats without warnings" {
	run format_warnings modinfo.8
	assert_success
	assert_output ''
}

@test "modinfo.8 documents every long option modinfo --help lists" {
	assert_documents_help_options modinfo
}

@test "modinfo.8 documents every exit status" {
	assert_documents_exit_statuses modinfo.8
}
@test "modprobe.8 renders" {
	run render modprobe.8
	assert_success
	assert_line --regexp '^ +modprobe - load or unload kernel modules'
}

@test "modprobe.8 formats without warnings" {
	run format_warnings modprobe.8
	assert_success
	assert_output ''
}

@test "modprobe.8 documents every long option modprobe --help lists" {
	assert_documents_help_options modprobe
}

@test "modprobe.8 documents every exit status" {
	assert_documents_exit_statuses modprobe.8
}

@test "modprobe.8 says that kmod's depmod builds the indexes" {
	run render modprobe.8
	assert_output --partial "kmod's depmod stays the index builder"
}

@test "modrot.7 has EXAMPLES, with a command of each tool it names" {
	run render modrot.7
	assert_success
	assert_line --regexp '^EXAMPLES$'
	examples=$(sed -n '/^EXAMPLES$/,/^SEE ALSO$/p' <<<"$output")
	for t in lsmod rmmod modreap; do
		grep -qE "^[[:space:]]+# $t " <<<"$examples" || fail "no $t example"
	done
}
