#!/usr/bin/env bats
# One exit-code rule for every tool (architecture.md): names that name no
# module are usage errors (2); EPERM and EACCES are 4, and so is a run
# whose every root cause is one, however it cascades; options that exclude
# each other are refused in one helper.

load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup() {
	kernel_new rot
}

@test "rmmod of '.', '..', blanks, '/', control bytes or nothing is a usage error" {
	kmod_load alpha
	before=$(kernel_state)
	for name in . .. 'a b' 'a/b' "$(printf 'a\tb')" '' '/x/../..' 'delta/' '../..' "$(printf 'x\177')"; do
		run --separate-stderr on_kernel "$RMMOD" "$name"
		assert_equal "$status" 2
		assert_equal "${#stderr_lines[@]}" 1
		assert_regex "$stderr" "^rmmod: ERROR: '.*' is not a module name: "
		# Never asked of the kernel: /sys/module/.. would say "builtin".
		refute_regex "$stderr" "builtin|not currently loaded"
	done
	# A usage error stops the whole run: alpha, named first, stays.
	run --separate-stderr on_kernel "$RMMOD" alpha ..
	assert_equal "$status" 2
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod and modreap still take a module file's path" {
	kmod_load delta snd-dummy
	# (a path names the module of the file there, as kmod's rmmod reads it)
	cp "$FIXTURES/delta.ko.zst" "$FIXTURES/snd-dummy.ko" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr on_kernel "$RMMOD" "$BATS_TEST_TMPDIR/delta.ko.zst" ./snd-dummy.ko
	assert_success
	assert_equal "$(rotting_count)" 2
	run --separate-stderr on_kernel "$MODREAP" ../delta.ko
	assert_success
	assert_equal "$(rotting_count delta)" 0
	assert_equal "$(rotting_count snd_dummy)" 1
}

@test "modreap of a name that is no module name is a usage error" {
	kmod_load delta
	kmod_unload delta
	before=$(kernel_state)
	for name in .. 'a b' 'x/y'; do
		run --separate-stderr on_kernel "$MODREAP" "$name"
		assert_equal "$status" 2
		assert_regex "$stderr" "^modreap: ERROR: '.*' is not a module name: "
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod of an empty file name is a usage error, also in a batch" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" ""
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: an empty module file name (see 'insmod --help')"
	run --separate-stderr on_kernel "$INSMOD" --batch "$FIXTURES/delta.ko" ""
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: an empty module file name (see 'insmod --help')"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod exits 4 when the kernel says EACCES, as when it says EPERM" {
	"$SIM" set "$K" delta init_errno=13
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/delta.ko"
	assert_equal "$status" 4
	assert_regex "$stderr" "^insmod: ERROR: could not insert module $FIXTURES/delta.ko: Permission denied"
	assert_equal "$(rotting_count delta)" 1
	run --separate-stderr on_kernel_nocap "$INSMOD" "$FIXTURES/alpha.ko"
	assert_equal "$status" 4
	run is_live alpha
	assert_failure
}

@test "insmod --batch exits 4 when dependents are skipped only for a permission error" {
	"$SIM" set "$K" alpha init_errno=13
	run --separate-stderr on_kernel "$INSMOD" -b --batch "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko" "$FIXTURES/gamma.ko"
	assert_equal "$status" 4
	assert_line --index 0 "0 of 3 loaded, 1 failed (1 left rot: $(rotting_bytes alpha) bytes), 0 refused before loading, 2 skipped"
	run is_live beta
	assert_failure
	run --separate-stderr on_kernel_nocap "$INSMOD" -b --batch -J "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko"
	assert_equal "$status" 4
	assert_equal "$(jq -r '[.modules[] | .result] | join(",")' <<<"$output")" "failed,skipped"
	assert_equal "$(jq -r '.modules[0].error' <<<"$output")" EPERM
}

@test "insmod --batch with a permission error and another failure exits 1" {
	"$SIM" set "$K" alpha init_errno=13
	run --separate-stderr on_kernel "$INSMOD" --batch "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	"$SIM" set "$K" alpha init_errno=19
	run --separate-stderr on_kernel "$INSMOD" --batch "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko"
	assert_equal "$status" 1
}

@test "rmmod exits 4 when a module stays in use only because its holder's unload was refused" {
	kmod_load alpha beta
	before=$(kernel_state)
	run --separate-stderr on_kernel_nocap "$RMMOD" beta alpha
	assert_equal "$status" 4
	assert_equal "${stderr_lines[1]}" "rmmod: ERROR: Module alpha is in use by: beta"
	run --separate-stderr on_kernel_nocap "$RMMOD" --unused
	assert_equal "$status" 4
	run --separate-stderr on_kernel_nocap "$RMMOD" --remove-holders alpha
	assert_equal "$status" 4
	assert_equal "$(kernel_state)" "$before"
}

@test "rmmod exits 1 when a module is in use for a reason of its own" {
	kmod_load alpha beta
	# alpha comes first: beta still holds it, refusal or not.
	run --separate-stderr on_kernel_nocap "$RMMOD" alpha beta
	assert_equal "$status" 1
	run --separate-stderr on_kernel_nocap "$RMMOD" beta nosuch
	assert_equal "$status" 1
	is_live alpha
	is_live beta
}

@test "modreap exits 4 when every reclaim is refused for permission" {
	kmod_load delta
	kmod_unload delta
	run --separate-stderr on_kernel_nocap "$MODREAP" -a
	assert_equal "$status" 4
	run --separate-stderr on_kernel_nocap "$MODREAP" -a -J
	assert_equal "$status" 4
	assert_equal "$(jq '.summary.failures' <<<"$output")" 1
	assert_equal "$(rotting_count delta)" 1
}

@test "options that exclude each other are refused in either order, each once" {
	for args in "-J -r" "-r -J" "--json --raw"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$LSMOD" $args
		assert_equal "$status" 2
		assert_regex "$stderr" "^lsmod: ERROR: --(json and --raw|raw and --json) exclude each other \(see 'lsmod --help'\)$"
	done
	run --separate-stderr on_kernel "$LSMOD" --live --rotting
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: --live and --rotting exclude each other (see 'lsmod --help')"
	run --separate-stderr on_kernel "$LSMOD" --live --live
	assert_success
	run --separate-stderr on_kernel "$RMMOD" --remove-holders --unused
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: --remove-holders and --unused exclude each other (see 'rmmod --help')"
	run --separate-stderr on_kernel "$MODREAP" -q -J
	assert_equal "$status" 2
	assert_equal "$stderr" "modreap: ERROR: --quiet and --json exclude each other (see 'modreap --help')"
	run --separate-stderr on_kernel "$MODREAP" --watch --down-to 1M -n
	assert_equal "$status" 2
	assert_equal "$stderr" "modreap: ERROR: --watch and --dry-run exclude each other (see 'modreap --help')"
}

# root reads any file; without these two capabilities it cannot.
without_dac() {
	setpriv --bounding-set=-dac_override,-dac_read_search -- "$SIM" run "$K" -- "$@"
}

@test "insmod exits 4 for a --from list or --verify keyring it may not read" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	echo "$FIXTURES/delta.ko" > "$BATS_TEST_TMPDIR/list"
	cp "$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/keyring.pem"
	chmod 000 "$BATS_TEST_TMPDIR/list" "$BATS_TEST_TMPDIR/keyring.pem"
	before=$(kernel_state)
	run --separate-stderr without_dac "$INSMOD" --from "$BATS_TEST_TMPDIR/list"
	assert_equal "$status" 4
	assert_equal "$stderr" "insmod: ERROR: could not read the list $BATS_TEST_TMPDIR/list: Permission denied"
	run --separate-stderr without_dac "$INSMOD" --verify "$BATS_TEST_TMPDIR/keyring.pem" "$FIXTURES/delta.ko"
	assert_equal "$status" 4
	assert_equal "$stderr" "insmod: ERROR: could not read the keyring $BATS_TEST_TMPDIR/keyring.pem: Permission denied"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch exits 4 when its only failure is a file it may not read" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	cp "$FIXTURES/alpha.ko" "$BATS_TEST_TMPDIR/alpha.ko"
	chmod 000 "$BATS_TEST_TMPDIR/alpha.ko"
	run --separate-stderr without_dac "$INSMOD" --batch "$BATS_TEST_TMPDIR/alpha.ko" "$FIXTURES/delta.ko"
	assert_equal "$status" 4
	is_live delta
}
