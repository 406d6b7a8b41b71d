#!/usr/bin/env bats
# libmodrot opens libcrypto, libelf, libzstd, liblzma and libkmod on first
# use (lib/dynlib.h). Each is made unloadable here the way a broken
# installation would: an empty file of its name first on the search path
# (LD_LIBRARY_PATH), which the dynamic loader takes and refuses.
# A tool that does not need a library runs as if it were fine; one that
# does says in one line which library, and changes nothing.

load helpers/tools

bats_require_minimum_version 1.5.0

INSMOD=$top_builddir/tools/insmod
SIGN=$top_srcdir/tests/helpers/sign-module.sh
ALL_OPTIONAL="libcrypto.so.3 libelf.so.1 libzstd.so.1 liblzma.so.5 libkmod.so.2"

setup_file() {
	local d=$BATS_FILE_TMPDIR
	"$SIGN" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/delta.ko" "$d/delta-signed.ko"
}

setup() {
	kernel_new rot
	D=$BATS_FILE_TMPDIR
	BROKEN=$BATS_TEST_TMPDIR/broken
	mkdir "$BROKEN"
}

# break SONAME...: each becomes an empty file the loader finds first.
break_libs() {
	local so
	for so in "$@"; do
		: >"$BROKEN/$so"
	done
}

with_broken() {
	on_kernel env LD_LIBRARY_PATH="$BROKEN" "$@"
}

@test "lsmod, rmmod, modreap and modrot-metrics open none of the optional libraries" {
	break_libs $ALL_OPTIONAL
	kmod_load alpha beta delta
	local want
	want=$(on_kernel "$LSMOD")
	run --separate-stderr with_broken "$LSMOD"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$want"
	run --separate-stderr with_broken "$LSMOD" -J -o name,size,inuse
	assert_success
	assert_equal "$stderr" ""
	run --separate-stderr with_broken "$RMMOD" delta
	assert_success
	assert_equal "$stderr" ""
	kernel_state | grep -q '^rotting delta '
	run --separate-stderr with_broken "$MODREAP" --all
	assert_success
	assert_equal "$(rotting_count)" 0
	run --separate-stderr with_broken "$top_builddir/tools/modrot-metrics"
	assert_success
	assert_output --partial modrot_
	local t
	for t in lsmod rmmod modreap modrot-metrics insmod; do
		run with_broken "$top_builddir/tools/$t" -V
		assert_success
	done
}

@test "insmod --verify without a loadable libcrypto says so in one line and loads nothing" {
	break_libs libcrypto.so.3
	local before
	before=$(kernel_state)
	run --separate-stderr with_broken "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-signed.ko"
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "insmod: ERROR: cannot verify against the keyring $D/ca/cert.pem: libcrypto.so.3 could not be loaded: $BROKEN/libcrypto.so.3: file too short"
	assert_equal "$(kernel_state)" "$before"
}

# BROKEN-SONAME NAMED-SONAME INSMOD-ARGS...: insmod fails with one line that
# says NAMED-SONAME could not be loaded for want of BROKEN-SONAME (the same,
# or one it needs), and the kernel is unchanged.
refused_for() {
	local so=$1 named=$2 before
	shift 2
	break_libs "$so"
	before=$(kernel_state)
	run --separate-stderr with_broken "$INSMOD" "$@"
	assert_equal "$status" 1
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" "^insmod: ERROR: .*$named could not be loaded: $BROKEN/$so: file too short\$"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --verify of a .ko.zst without a loadable libzstd names libzstd and loads nothing" {
	refused_for libzstd.so.1 libzstd.so.1 --verify "$D/ca/cert.pem" "$FIXTURES/delta.ko.zst"
}

@test "insmod --verify of a .ko.xz without a loadable liblzma names liblzma and loads nothing" {
	refused_for liblzma.so.5 liblzma.so.5 --verify "$D/ca/cert.pem" "$FIXTURES/delta.ko.xz"
}

@test "insmod without a loadable libelf names libelf and loads nothing" {
	refused_for libelf.so.1 libelf.so.1 "$FIXTURES/delta.ko"
}

@test "insmod without a loadable libkmod names libkmod and loads nothing" {
	refused_for libkmod.so.2 libkmod.so.2 "$FIXTURES/delta.ko"
}

@test "insmod without libzstd, which libkmod needs, names both and loads nothing" {
	refused_for libzstd.so.1 libkmod.so.2 "$FIXTURES/delta.ko"
}

@test "insmod --verify of a plain .ko needs neither libkmod nor the decompressors" {
	break_libs libkmod.so.2 libzstd.so.1 liblzma.so.5
	run --separate-stderr with_broken "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-signed.ko"
	assert_success
	assert_equal "$stderr" ""
	is_live delta
}

@test "modinfo and modprobe open libkmod for their first lookup only: -V and --help run without it, a lookup names it in one line" {
	break_libs $ALL_OPTIONAL
	local t
	for t in modinfo modprobe; do
		run --separate-stderr with_broken "$top_builddir/tools/$t" -V
		assert_success
		assert_equal "$stderr" ""
		assert_output "$t (modrot) $(on_kernel "$LSMOD" -V | awk '{ print $NF }')"
		run --separate-stderr with_broken "$top_builddir/tools/$t" --help
		assert_success
		assert_equal "$stderr" ""
	done
	mkdir -p "$BATS_TEST_TMPDIR/root/lib/modules/6.1.0-sim"
	local before
	before=$(kernel_state)
	run --separate-stderr with_broken "$top_builddir/tools/modinfo" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "modinfo: ERROR: libkmod.so.2 could not be loaded: $BROKEN/libkmod.so.2: file too short"
	run --separate-stderr with_broken "$top_builddir/tools/modprobe" -d "$BATS_TEST_TMPDIR/root" -S 6.1.0-sim delta
	assert_equal "$status" 1
	assert_output ""
	assert_equal "$stderr" "modprobe: ERROR: libkmod.so.2 could not be loaded: $BROKEN/libkmod.so.2: file too short"
	assert_equal "$(kernel_state)" "$before"
}
