#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What a newcomer meets first: the README's install paths and probe
# example, the simulator's README, scripts/setup.sh's package list, the
# demo's output when it is not a terminal, and the installer plot's
# legends.

load helpers/tools

# The names in backquotes of the README's sentence "installs as kmod and
# Debian do: ..." that come before "in $DIR".
readme_programs_in() {
	tr '\n' ' ' < "$top_srcdir/README.md" |
		sed -n 's/.*installs as kmod and Debian do: \(.*\)the man pages.*/\1/p' |
		sed 's/ in `\$\([a-z]*\)`/ in=\1\n/g' | sed -n "/ in=$1\$/p" |
		grep -o '`[a-z-]*`' | tr -d '`' | LC_ALL=C sort
}

@test "README: the install paths name all seven programs, each in the directory make install uses" {
	local sbin bin
	sbin=$(make_var "$top_builddir" sbin_PROGRAMS | tr ' ' '\n' | sed -n 's|^tools/||p' | LC_ALL=C sort)
	bin=$(make_var "$top_builddir" bin_PROGRAMS | tr ' ' '\n' | sed -n 's|^tools/||p' | LC_ALL=C sort)
	assert_equal "$(printf '%s\n' $sbin $bin | wc -l)" 7
	assert_equal "$(readme_programs_in sbindir)" "$sbin"
	assert_equal "$(readme_programs_in bindir)" "$bin"
}

@test "README: the probe example runs in a default bash (no globstar) and finds modules at any depth" {
	local T=$BATS_TEST_TMPDIR line n=0
	mkdir -p "$T/tree/kernel/drivers/net/ethernet" "$T/tree/kernel/drivers/sound" "$T/bin"
	touch "$T/tree/kernel/drivers/net/ethernet/e1000.ko" "$T/tree/kernel/drivers/sound/snd.ko.xz" \
		"$T/tree/kernel/drivers/top.ko.zst" "$T/tree/kernel/drivers/sound/README"
	# insmod, as the example calls it: print what it was given
	printf '#!/bin/sh\nfor a; do echo "$a"; done\n' > "$T/bin/insmod"
	chmod +x "$T/bin/insmod"
	run bash --norc -c 'shopt -q globstar'
	assert_failure
	while IFS= read -r line; do
		line=${line//\/lib\/modules\/\$(uname -r)/$T/tree}
		run env PATH="$T/bin:$PATH" bash --norc -c "$line"
		assert_success
		assert_line "$T/tree/kernel/drivers/net/ethernet/e1000.ko"
		assert_line "$T/tree/kernel/drivers/sound/snd.ko.xz"
		assert_line "$T/tree/kernel/drivers/top.ko.zst"
		refute_line --partial README
		n=$((n + 1))
	done < <(sed -n 's/^    \(find .*\)$/\1/p' "$top_srcdir/README.md")
	assert_equal "$n" 2
}

@test "tests/simkernel/README.md points at docs/rot-abi.md, and the link resolves" {
	local dir=$top_srcdir/tests/simkernel link
	link=$(grep -o '](\([^)]*rot-abi\.md\))' "$dir/README.md" | head -n1 | sed 's/^](\(.*\))$/\1/')
	assert_equal "$link" ../../docs/rot-abi.md
	assert_file_exist "$dir/$link"
}

@test "setup.sh installs what configure and make need; the tests, benchmarks and plots install the rest" {
	local packages p
	packages=$(sed -n '/^packages="/,/"$/p' "$top_srcdir/scripts/setup.sh" | tr -d '"' | sed 's/^packages=//')
	[ -n "$packages" ]
	for p in hyperfine gnuplot-nox ltrace valgrind zsh fish strace busybox jq; do
		run grep -qw -- "$p" <<< "$packages"
		assert_failure
	done
	# each is installed by a script that uses it
	for p in hyperfine ltrace; do grep -q "need-packages.sh.* $p" "$top_srcdir/bench/common.sh"; done
	grep -q 'need-packages.sh.* gnuplot-nox' "$top_srcdir/bench/installer.sh"
	for p in valgrind zsh fish; do
		sed -n '/need-packages.sh/,/^$/p' "$top_srcdir/scripts/check.sh" | grep -qw "$p"
	done
}

# A stand-in tree for the demo: its own demo.sh, a setup.sh that says its
# one stage line and hands over the build tree, and an installer bench
# that only says it ran (the demo's story is what is checked here).
demo_tree() {
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/scripts" "$T/bench"
	cp "$top_srcdir/scripts/demo.sh" "$T/scripts/"
	cat > "$T/scripts/setup.sh" <<-EOF
		#!/bin/sh
		[ -n "\${SETUP_LOG:-}" ] || { echo "setup.sh: no SETUP_LOG" >&2; exit 9; }
		echo "set-up: building ... done" >&2
		echo "full output" > "\$SETUP_LOG"
		echo "$top_builddir"
	EOF
	printf '#!/bin/sh\necho "make: Nothing to be done for all." >&2\necho "installer bench ran"\n' \
		> "$T/bench/installer.sh"
	chmod +x "$T/scripts/setup.sh" "$T/bench/installer.sh"
}

@test "demo: piped, it prints no escape sequence, one line a set-up stage, and the commands quoted as typed" {
	demo_tree
	TERM=xterm-256color timeout 300 sh "$T/scripts/demo.sh" > "$BATS_TEST_TMPDIR/out" 2>&1
	run cat "$BATS_TEST_TMPDIR/out"
	refute_output --partial $'\033'
	assert_equal "${lines[0]}" "set-up: building ... done"
	assert_equal "${lines[1]}" "set-up: ready (its log: $T/build-setup.log)"
	assert_equal "$(head -n1 "$T/build-setup.log")" "full output"
	assert_line "== A simulated kernel with the module-rot ABI"
	assert_line "\$ insmod $FIXTURES/params.ko 'label=hello world' count=3"
	assert_line "hello world"
	assert_line "installer bench ran"
	# the benchmark's set-up talk goes to the set-up log
	refute_output --partial "make: Nothing to be done"
	run cat "$T/build-setup.log"
	assert_line "make: Nothing to be done for all."
	# a benchmark that fails: the demo fails, with the log's end
	printf '#!/bin/sh\necho "gnuplot: oops" >&2\nexit 3\n' > "$T/bench/installer.sh"
	run --separate-stderr sh "$T/scripts/demo.sh"
	assert_failure 1
	assert_equal "${stderr_lines[-3]}" "the installer benchmark failed; the last lines of $T/build-setup.log:"
	assert_equal "${stderr_lines[-2]}" "full output"
	assert_equal "${stderr_lines[-1]}" "gnuplot: oops"
	# the control: on a terminal the headings are bold
	run script -qec "TERM=xterm-256color sh '$T/scripts/demo.sh'" /dev/null
	assert_output --partial $'\033[1m== A simulated kernel'
}

@test "installer plot: every panel's legend sits outside the data" {
	local gp=$BATS_TEST_TMPDIR/plot.gp
	sed -n '/^gnuplot <<PLOT$/,/^PLOT$/p' "$top_srcdir/bench/installer.sh" > "$gp"
	[ -s "$gp" ]
	# one key setting, before the first plot, and outside the graph
	run grep -c '^set key' "$gp"
	assert_output 1
	run grep -n -m1 '^set key\|^plot' "$gp"
	assert_output --regexp '^[0-9]+:set key (below|outside|[tblr]margin)'
	run grep -E '^(unset key|set key .*(inside|left|right|top|bottom|center))' "$gp"
	assert_failure
}

@test "tests: every traced run of a tool goes through on_kernel_traced, so a sanitized build can run it" {
	# LeakSanitizer fails a run under ptrace: a direct strace of a tool
	# passes in the plain suite and fails in the sanitized one. A run that
	# cannot use the helper (strace under timeout) says detect_leaks=0 on
	# the line before.
	run awk '/on_kernel[a-z_]* .*strace / && prev !~ /detect_leaks=0/ { print FILENAME ":" FNR ": " $0 }
		{ prev = $0 }' "$top_srcdir"/tests/*.bats
	assert_output ''
	run grep -c 'on_kernel_traced ' "$top_srcdir"/tests/modinfo.bats
	refute_output 0
}

@test "tests: what skips under ASan runs in check.sh's plain pass, so every test runs once" {
	# check.sh runs the suite from the tarball under ASan, then in build/
	# only the tests named "valgrind" in files that call
	# skip_if_sanitized, and tests/faultinject.bats. A test that skips
	# under ASan by another name, or in another file, would run nowhere.
	run awk '/^@test / { name = $0 }
		/^[[:space:]]*skip_if_sanitized/ && name !~ /valgrind/ { print FILENAME ": " name }' \
		"$top_srcdir"/tests/*.bats
	assert_output ''
	run grep -l '^[[:space:]]*\[ "$MODROT_SANITIZED" = no \] ||' "$top_srcdir"/tests/*.bats
	assert_output "$top_srcdir/tests/faultinject.bats"
	run grep -c 'TESTS="tests/faultinject.bats"\|--filter valgrind' "$top_srcdir/scripts/check.sh"
	assert_output 2
}
