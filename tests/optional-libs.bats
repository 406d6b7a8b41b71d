#!/usr/bin/env bats
# libmodrot opens libcrypto, libelf, libzstd and liblzma on first use
# (lib/dynlib.h); insmod, modinfo and modprobe link libkmod, which brings
# libcrypto, libzstd and liblzma with it. Each library is made unloadable
# here the way a broken installation would: an empty file of its name first on the search path
# (LD_LIBRARY_PATH), which the dynamic loader takes and refuses.
# A tool that does not need a library runs as if it were fine; one that
# does says in one line which library, and changes nothing.

load helpers/tools
load helpers/modtree

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
	for t in lsmod rmmod modreap modrot-metrics; do
		run with_broken "$top_builddir/tools/$t" -V
		assert_success
	done
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


@test "modprobe without a loadable libelf names libelf and loads nothing" {
	modtree_install
	break_libs libelf.so.1
	local before
	before=$(kernel_state)
	run --separate-stderr with_broken "$top_builddir/tools/modprobe" -C "$MODTREE_CONF" mtnet
	assert_equal "$status" 1
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" "^modprobe: ERROR: .*libelf.so.1 could not be loaded: $BROKEN/libelf.so.1: file too short\$"
	assert_equal "$(kernel_state)" "$before"
}

# insmod --batch reads module files in threads, where a library opened on
# first use would get its thread-local storage from malloc() (glibc aborts
# when that fails): insmod links libelf from the start, so without it
# insmod does not start, as without libkmod.
@test "insmod links libelf from the start; without it, insmod does not start and changes nothing" {
	local needed
	needed=$(readelf -d "$INSMOD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
	[[ "$needed" == *libelf.so.1* ]] || fail "insmod does not link libelf"
	break_libs libelf.so.1
	local before
	before=$(kernel_state)
	run -127 --separate-stderr with_broken "$INSMOD" "$FIXTURES/delta.ko"
	assert_output ""
	assert_equal "$stderr" "$INSMOD: error while loading shared libraries: $BROKEN/libelf.so.1: file too short"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod, modinfo and modprobe link libkmod, as kmod's tools do; lsmod, rmmod, modreap and modrot-metrics do not" {
	local t needed
	for t in insmod modinfo modprobe lsmod rmmod modreap modrot-metrics; do
		needed=$(readelf -d "$top_builddir/tools/$t" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
		case $t in
		insmod | modinfo | modprobe) [[ "$needed" == *libkmod.so.2* ]] || fail "$t does not link libkmod" ;;
		*) [[ "$needed" != *libkmod* ]] || fail "$t links libkmod" ;;
		esac
	done
}

@test "without a loadable libkmod, insmod, modinfo and modprobe do not start, and change nothing" {
	break_libs libkmod.so.2
	mkdir -p "$BATS_TEST_TMPDIR/root/lib/modules/6.1.0-sim"
	local before t
	before=$(kernel_state)
	for t in "$INSMOD $FIXTURES/delta.ko" "$top_builddir/tools/modinfo $FIXTURES/delta.ko" \
		"$top_builddir/tools/modprobe -d $BATS_TEST_TMPDIR/root -S 6.1.0-sim delta"; do
		# shellcheck disable=SC2086 # the words are the command
		run --separate-stderr with_broken $t
		assert_equal "$status" 127
		assert_output ""
		assert_equal "$stderr" "${t%% *}: error while loading shared libraries: $BROKEN/libkmod.so.2: file too short"
	done
	assert_equal "$(kernel_state)" "$before"
}
