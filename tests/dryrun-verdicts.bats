#!/usr/bin/env bats
# One decision, two runs: a dry run (modprobe -r -n, rmmod --unused -n)
# reaches the verdict its real run reaches, through the same decision
# functions (lib's rot_module_unload_predict() where the real run calls
# delete_module, and the in-use rule), with every option: -w, -f,
# --reclaim, --remove-holders, permanent modules, holders, bound devices,
# mounts. Each refusal branch is run both ways on the same kernel (the dry
# run changes nothing), and the two verdicts, message and exit status, are
# compared.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

# A dry run's words for the wait it does not make, in the real run's words.
as_real() {
	sed -E 's/^(.*still in use)(.*) \(a run would wait ([0-9]+) ms first\)$/\1 after \3 ms\2/;
		s/^(.*cannot tell whether it is in use)(: .*; not unloaded \(-f unloads it anyway); a run would wait ([0-9]+) ms first\)$/\1 after \3 ms\2)/'
}

# both ARGS...: modprobe ARGS with -n, then without; the dry run changes
# nothing and both end alike (status, and standard error but for the wait).
# Sets dry_status, dry_err, real_status, real_err.
both() {
	local before
	before=$(kernel_state)
	run --separate-stderr mp -n "$@"
	dry_status=$status dry_err=$(as_real <<< "$stderr")
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr mp "$@"
	real_status=$status real_err=$stderr
	assert_equal "$dry_err" "$real_err"
	assert_equal "$dry_status" "$real_status"
}

@test "modprobe -r -n and -r agree: a mounted file system, with and without -w, -v and --reclaim" {
	mp mtfs
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	for opts in "" "-v" "-w 100" "-v -w 100" "--reclaim" "--reclaim -w 100"; do
		# shellcheck disable=SC2086
		both -r $opts mtfs
		assert_equal "$real_status" 1
		[ -n "$real_err" ]
		is_live mtfs
	done
}

@test "modprobe -r -n and -r agree: a bound device, a live holder, with and without -w and --remove-holders" {
	mp -a mt_codec mt_net
	for args in "mt_codec" "-w 100 mt_codec" "--remove-holders mt_codec" "mt_core" "-w 100 mt_core" "-w 100 mt_bus"; do
		# shellcheck disable=SC2086
		both -r $args
		assert_equal "$real_status" 1
		[ -n "$real_err" ]
	done
	is_live mt_codec
	is_live mt_core
	is_live mt_bus
}

@test "modprobe -r -n and -r agree on a permanent module: refused (EBUSY) with and without -v, -w and --reclaim; -f unloads it" {
	mp mt_perm
	for opts in "" "-v" "-w 100" "--reclaim"; do
		# shellcheck disable=SC2086
		both -r $opts mt_perm
		assert_equal "$real_status" 1
		assert_equal "$real_err" "modprobe: ERROR: could not remove 'mt_perm': Device or resource busy$(
			on_kernel "$MODPROBE" -r mt_perm 2>&1 >/dev/null | sed -n "s/.*busy//p")"
		is_live mt_perm
	done
	both -r -f mt_perm
	assert_equal "$real_status" 0
	run is_live mt_perm
	assert_failure
}

@test "modprobe -r -n and -r agree on a module not loaded (--first-time)" {
	both -r --first-time mt_extra
	assert_equal "$real_status" 1
	assert_equal "$real_err" "modprobe: FATAL: Module mt_extra is not in kernel."
}

@test "stock: modprobe -r -n and -r agree on a module with a reference, with and without -w" {
	MODE=stock inuse_kernel
	mp mt_extra
	"$SIM" ref "$K" mt_extra 1
	for opts in "" "-w 100"; do
		# shellcheck disable=SC2086
		both -r $opts mt_extra
		assert_equal "$real_status" 1
		[ -n "$real_err" ]
		is_live mt_extra
	done
}

@test "rmmod --unused -n names exactly the modules rmmod --unused unloads, with and without -f" {
	mp -a mtfs mt_codec mt_net mt_perm mt_extra
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	for opts in "" "-f"; do
		before=$(kernel_state)
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$RMMOD" --unused -n -J $opts
		dry_status=$status
		dry=$(jq -c '[.modules[] | .name] | sort' <<< "$output")
		assert_equal "$(kernel_state)" "$before"
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$RMMOD" --unused -J $opts
		assert_equal "$status" "$dry_status"
		assert_equal "$(jq -c '[.modules[] | .name] | sort' <<< "$output")" "$dry"
		is_live mtfs
	done
}
