#!/usr/bin/env bats
# lsmod against Debian's kmod lsmod on the same simulated kernel: byte for
# byte where kmod has an answer, and a consistent answer where kmod's is not.

load helpers/tools

# standard output, then the exit status, of both on $K
compare_with_kmod() {
	local ours theirs
	ours=$(on_kernel "$LSMOD" "$@"; echo "exit $?")
	theirs=$(on_kernel "$KMOD_LSMOD"; echo "exit $?")
	if [ "$ours" != "$theirs" ]; then
		diff <(echo "$theirs") <(echo "$ours") | head -20
		return 1
	fi
}

@test "lsmod matches kmod's lsmod byte for byte on many stock module sets" {
	for seed in 1 2 3 4 5 6 7 8; do
		kernel_new stock
		"$SIM" populate "$K" --live $((seed * 25)) --seed "$seed" --max-deps $((seed % 5))
		compare_with_kmod
		rm -rf "$K"
	done
}

@test "lsmod matches kmod's lsmod with fixtures loaded by kmod, refcounts and holders" {
	kernel_new stock
	kmod_load alpha beta gamma delta params oot
	"$SIM" ref "$K" delta 3
	compare_with_kmod
	kmod_unload gamma
	compare_with_kmod
}

@test "lsmod lists holders in the order kmod reads them from sysfs" {
	kernel_new stock
	"$SIM" populate "$K" --live 300 --seed 42 --max-deps 8
	run on_kernel "$LSMOD"
	# The test is only worth something if some module has several holders.
	assert_line --regexp '  [0-9]+ [a-z0-9_]+,[a-z0-9_]+,[a-z0-9_]+'
	compare_with_kmod
}

@test "lsmod --live on a rot kernel matches kmod's lsmod for live modules" {
	kernel_new rot
	"$SIM" populate "$K" --live 200 --rotting 50 --seed 9 --max-deps 3
	compare_with_kmod --live
}

@test "lsmod on an empty kernel prints only kmod's header" {
	kernel_new stock
	run on_kernel "$LSMOD"
	assert_success
	assert_output "Module                  Size  Used by"
	compare_with_kmod
}

@test "lsmod during concurrent unloads prints only well-formed rows" {
	kernel_new rot
	"$SIM" populate "$K" --live 400 --seed 3
	# Unload every populated module while lsmod lists over and over.
	on_kernel sh -c "for m in \$(awk '{print \$1}' /proc/modules); do
		'$KMOD_RMMOD' \$m || exit 1; done" &
	unloader=$!
	local runs=0
	while kill -0 "$unloader" 2>/dev/null; do
		run on_kernel "$LSMOD"
		assert_success
		assert_line --index 0 "Module                  Size  Used by"
		# Every row is a name, a size and a zero count; a rotting
		# instance's name is in parentheses, and it is marked.
		bad=$(printf '%s\n' "${lines[@]:1}" |
			grep -Ecv '^([a-z0-9_]+ +[0-9]+  0|\([a-z0-9_]+\) +[0-9]+  0 \[rotting\])$' || true)
		assert_equal "$bad" 0
		# No name is both live and rotting.
		live=$(printf '%s\n' "${lines[@]:1}" | grep -v rotting | awk '{print $1}' | sort)
		rotting=$(printf '%s\n' "${lines[@]:1}" | grep rotting | awk '{print $1}' | tr -d '()' | sort)
		assert_equal "$(comm -12 <(echo "$live") <(echo "$rotting") | grep -c . || true)" 0
		assert_equal $(( ${#lines[@]} - 1 )) 400
		runs=$((runs + 1))
	done
	wait "$unloader"
	[ "$runs" -gt 0 ]
	run on_kernel "$LSMOD" --rotting -n -r -o name
	assert_equal "${#lines[@]}" 400
}

@test "lsmod is clean under valgrind in every output mode" {
	skip_if_sanitized
	kernel_new rot
	"$SIM" populate "$K" --live 50 --rotting 20 --seed 5 --max-deps 3
	for args in "" "--live" "--rotting" "-J" "-r -n -o name,holders,taints,permanent" "-o bogus"; do
		# shellcheck disable=SC2086
		valgrind_clean "$LSMOD" $args
	done
}

@test "lsmod's exit status is kmod's for a listing; where kmod's is 1 for a usage error or no module support, modrot's says which (2, 3)" {
	kernel_new stock
	kmod_load alpha
	compare_with_kmod
	# kmod 30's lsmod takes no argument: its usage error is 1, modrot's 2
	run --separate-stderr on_kernel "$KMOD_LSMOD" alpha
	assert_failure 1
	assert_equal "$output" ''
	run --separate-stderr on_kernel "$LSMOD" alpha
	assert_failure 2
	assert_equal "$output" ''
	assert_equal "${#stderr_lines[@]}" 1
	# this host has no /proc/modules: no module support, outside the simulator
	[ ! -e /proc/modules ] || skip "this host has real module support"
	run --separate-stderr "$KMOD_LSMOD"
	assert_failure 1
	assert_equal "$output" ''
	# (after libkmod's own line)
	assert_regex "$stderr" $'(^|\n)Error: could not get list of modules: '
	run --separate-stderr "$LSMOD"
	assert_failure 3
	assert_equal "$output" ''
	assert_equal "$stderr" "lsmod: ERROR: this kernel has no module support (/proc/modules is missing)"
}
