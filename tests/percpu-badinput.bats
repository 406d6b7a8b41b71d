#!/usr/bin/env bats
# The /proc/module_percpu bad-input corpus (tests/badinput/percpu-manifest):
# what lsmod and insmod do with a malformed per-CPU reserve file. A tool
# that needs the file refuses with one line naming the file, the line and
# what is wrong, exit 1, nothing on stdout, nothing changed; a tool that
# does not need it (plain lsmod, insmod of a module without per-CPU data)
# never reads it.

load helpers/tools
load helpers/badinput
bats_require_minimum_version 1.5.0

INSMOD=$top_builddir/tools/insmod

# A rot kernel with pcpu512 live and pcpu1500 rotting, its files rendered
# (so they are not rendered again over what a test plants).
setup() {
	kernel_new rot
	kmod_load pcpu1500
	kmod_unload pcpu1500
	kmod_load pcpu512
	on_kernel cat /proc/modules /proc/rotting_modules /proc/module_percpu >/dev/null
}


@test "lsmod and insmod refuse each malformed /proc/module_percpu with the file, line and reason" {
	local n=0
	before=$(kernel_state)
	while IFS= read -r file && IFS= read -r content && IFS= read -r reason; do
		plant "$file" "$content"
		local why="could not read the per-CPU reserve: $reason"
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD" -o name,percpu
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD" -J -o name,size,percpu
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD" --rotting
		refuses "$content" "insmod: ERROR: could not insert module $FIXTURES/pcpu1500.ko: $why" \
			"$INSMOD" "$FIXTURES/pcpu1500.ko"
		refuses "$content" "insmod: ERROR: could not insert module $FIXTURES/pcpu4096.ko: $why" \
			"$INSMOD" --check "$FIXTURES/pcpu4096.ko"
		n=$((n + 1))
	done < <(entries percpu-manifest)
	[ "$n" -ge 35 ]
}

@test "what does not need the reserve does not read it: plain lsmod, a module without per-CPU data" {
	plant /proc/module_percpu 'reserve x\n'
	run --separate-stderr on_kernel "$LSMOD"
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 1 --regexp '^pcpu512 '
	run --separate-stderr on_kernel "$LSMOD" -o name,size,state
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/delta.ko"
	assert_success
	assert_equal "$stderr" ""
	is_live delta
}

@test "insmod --batch refuses the per-CPU modules and loads the rest when the file is malformed" {
	plant /proc/module_percpu 'reserve 8192 free 8192 largest 8192\nx 4 Live 0x1\n'
	run --separate-stderr on_kernel "$INSMOD" --batch -j1 "$FIXTURES/pcpu1500.ko" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/pcpu1500.ko: could not read the per-CPU reserve: /proc/module_percpu line 2: the instances hold more than the reserve less what is free"
	assert_output "1 of 2 loaded, 0 failed, 1 refused before loading, 0 skipped"
	is_live delta
	run is_live pcpu1500
	assert_failure
}

@test "the refusals are clean under valgrind" {
	skip_if_sanitized
	plant /proc/module_percpu 'reserve 8192 free 0 largest 0\nx 1 Live 0x1 (O)\n'
	valgrind_clean "$LSMOD" -o name,percpu
	assert_equal "$status" 1
	valgrind_clean "$INSMOD" "$FIXTURES/pcpu1500.ko"
	assert_equal "$status" 1
}
