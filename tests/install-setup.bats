#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/setup.sh as a newcomer meets it: a tree configured in place
# (./configure && make) is built there, a named build directory beside it
# is refused with one line saying what to do, and with SETUP_LOG each
# stage is one line with its output in the log. Run on a stand-in tree
# (stub configure and Makefile), so nothing is installed or built.

load helpers/tools

# Under `make check` the suite's own make flags (-j, jobserver, MAKELEVEL)
# are in the environment; setup.sh's make must run as a newcomer's does.
setup() {
	unset MAKEFLAGS MFLAGS MAKELEVEL
}

# A tree with the real setup scripts and a configure and make that only
# record that they ran.
stub_tree() {
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/scripts"
	cp "$top_srcdir/scripts/setup.sh" "$top_srcdir/scripts/need-packages.sh" "$T/scripts/"
	# older than configure, whatever the clock's granularity: no autoreconf
	touch -d '1 hour ago' "$T/configure.ac"
	printf '#!/bin/sh\necho "configure $*" >> "%s/ran"\necho "all: ; @echo compiled; echo make >> %s/ran" > Makefile\n' \
		"$T" "$T" > "$T/configure"
	chmod +x "$T/configure"
}

@test "setup.sh: a tree configured in place is built in place" {
	stub_tree
	(cd "$T" && ./configure) # as the newcomer did: ./configure in the tree
	touch "$T/config.status"
	run --separate-stderr "$T/scripts/setup.sh"
	assert_success
	assert_equal "${lines[-1]}" "$T"
	assert_equal "$(cat "$T/ran")" $'configure \nmake'
	[ ! -e "$T/build" ]
}

@test "setup.sh: a build directory beside a tree configured in place is refused with one line" {
	stub_tree
	(cd "$T" && ./configure)
	touch "$T/config.status"
	run --separate-stderr "$T/scripts/setup.sh" build
	assert_equal "$status" 2
	assert_output ""
	assert_equal "$stderr" "setup.sh: the source tree is configured in place (config.status): build there (scripts/setup.sh with no arguments), or run 'make distclean' in it to build in $T/build"
	[ ! -e "$T/build" ]
	assert_equal "$(cat "$T/ran")" "configure "
}

@test "setup.sh: with SETUP_LOG each stage is one line, and its output is in the log" {
	stub_tree
	run --separate-stderr env SETUP_LOG="$T/setup.log" "$T/scripts/setup.sh"
	assert_success
	assert_equal "$output" "$T/build"
	assert_equal "$stderr" "set-up: configuring $T/build ... done
set-up: building (make -j$(nproc)) ... done"
	assert_equal "$(cat "$T/setup.log")" "compiled"
	# a failing stage: one line, then the end of the log, and its exit code
	printf 'all: ; @echo "cc: error: oops"; exit 3\n' > "$T/build/Makefile"
	run --separate-stderr env SETUP_LOG="$T/setup.log" "$T/scripts/setup.sh"
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "set-up: building (make -j$(nproc)) ... failed (exit 2); the last lines of $T/setup.log:"
	assert_equal "${stderr_lines[1]}" "cc: error: oops"
}
