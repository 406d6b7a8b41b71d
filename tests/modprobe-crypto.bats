#!/usr/bin/env bats
# Which libcrypto modprobe and modinfo read signatures with: the system's,
# which libkmod links (DT_NEEDED), whether the run loads anything or not.
# modrot ships no library of its own under libcrypto's name (install.bats
# checks every installed library's SONAME).

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

SIGN=$top_srcdir/tests/helpers/sign-module.sh

setup() { inuse_kernel; }

# ld_files CMD...: runs CMD on the kernel with the loader's file log in
# $BATS_TEST_TMPDIR/ld.*; $output and $stderr are CMD's, $ld the log.
ld_files() {
	rm -f "$BATS_TEST_TMPDIR"/ld.*
	run --separate-stderr ld_logged "$@"
	ld=$(cat "$BATS_TEST_TMPDIR"/ld.* 2>/dev/null)
}
ld_logged() {
	export LD_DEBUG=files LD_DEBUG_OUTPUT=$BATS_TEST_TMPDIR/ld
	"$@"
}

# took_system: the last ld_files run mapped one libcrypto.so.3, the one
# the loader's cache names, as a dependency of the program (which names
# it first when libkmod links it: configure.ac) or of libkmod.
took_system() {
	local sys
	sys=$(ldconfig -p | awk '$1 == "libcrypto.so.3" { print $NF; exit }')
	[ -n "$sys" ] || fail "the loader's cache has no libcrypto.so.3"
	local re='file=libcrypto\.so\.3 \[0\];  needed by [^ ]*/(modprobe|modinfo|libkmod\.so\.2) \[0\]'
	[[ "$ld" =~ $re ]] ||
		fail "libcrypto.so.3 was not loaded as a dependency of the program or libkmod"
	[[ "$ld" == *"calling init: $sys"$'\n'* ]] || fail "$sys was not the libcrypto loaded"
	assert_equal "$(grep -c 'libcrypto[^ ]*\.so[^ ]* \[0\];  generating link map' <<<"$ld")" 1
}

# Every kind of run that loads nothing, one a line (--show-modversions of
# a module without versions fails, as kmod's does: the same failure).
no_load_runs() {
	local f
	f=$(find "$K/root/lib/modules" -name 'mt_bus.ko*' | head -n 1)
	printf '%s\n' "-D mt_net" "-n -v mt_snd" "-R fs-mtfs" "-c" "--show-exports $f" \
		"--show-modversions $f" "-r -n -v mt_net"
}

@test "runs that load nothing take the system's libcrypto, and change nothing" {
	local args before
	mp mt_net
	before=$(kernel_state)
	while read -r args; do
		# shellcheck disable=SC2086 # the words are the arguments
		ld_files mp $args
		took_system
	done < <(no_load_runs)
	assert_equal "$(kernel_state)" "$before"
	ld_files mp -r mt_net
	assert_success
	took_system
	kernel_state | grep -q '^rotting mt_net '
}

@test "a load takes the system's libcrypto: a signed module loads on a kernel that enforces signatures, an unsigned one is refused" {
	kernel_new rot --sig-enforce
	local rel=6.1.0-sim d=$BATS_TEST_TMPDIR
	local mods=$d/root/lib/modules/$rel
	mkdir -p "$mods/kernel"
	"$SIGN" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/delta.ko" "$mods/kernel/delta.ko"
	cp "$FIXTURES/alpha.ko" "$mods/kernel/alpha.ko"
	/sbin/depmod -b "$d/root" "$rel"
	ld_files on_kernel "$MODPROBE" -d "$d/root" -S "$rel" delta
	assert_success
	assert_equal "$stderr" ""
	took_system
	is_live delta
	ld_files on_kernel "$MODPROBE" -d "$d/root" -S "$rel" alpha
	assert_equal "$status" 1
	took_system
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'alpha': the module is not signed, and this kernel enforces signatures; nothing was loaded (the kernel never saw it)"
	run is_live alpha
	assert_failure
}

@test "modinfo of a signed module shows its signer, key and hash as kmod's does, through the system's libcrypto" {
	local d=$BATS_TEST_TMPDIR f
	"$SIGN" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/delta.ko" "$d/delta.ko"
	for f in signer sig_key sig_hashalgo; do
		ld_files on_kernel "$top_builddir/tools/modinfo" -F "$f" "$d/delta.ko"
		assert_success
		assert_equal "$stderr" ""
		[ -n "$output" ]
		assert_equal "$output" "$(/sbin/modinfo -F "$f" "$d/delta.ko")"
		took_system
	done
	ld_files on_kernel "$top_builddir/tools/modinfo" -F signer "$d/delta.ko"
	assert_output "modrot test signer"
	# unsigned: no signer, as kmod
	run --separate-stderr on_kernel "$top_builddir/tools/modinfo" -F signer "$FIXTURES/delta.ko"
	assert_success
	assert_output ""
}
