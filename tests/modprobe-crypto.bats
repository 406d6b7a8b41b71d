#!/usr/bin/env bats
# Which libcrypto modprobe's libkmod gets. A run that loads nothing (-D,
# -n, -R, -c, --show-exports, --show-modversions, -r) never has a
# signature decoded, and takes tools/libcrypto-none.c, found in modrot/
# beside libmodrot.so.1, for libcrypto.so.3; a load, whose preflight reads
# signatures, takes the real one. Without a usable stand-in (missing,
# broken, or short of what libkmod imports) every run takes the real one
# and prints the same bytes.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

SIGN=$top_srcdir/tests/helpers/sign-module.sh
NONE=$top_builddir/lib/modrot/libcrypto-none.so

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

# took_none / took_real: which libcrypto.so.3 the last ld_files run loaded.
# (The loader logs "dynamically loaded" for a file it then fails to open:
# "generating link map" is what says it was mapped.)
took_none() {
	[[ "$ld" == *"file=$1/modrot/libcrypto-none.so [0];  generating link map"* ]] ||
		fail "the stand-in in $1/modrot was not loaded"
	[[ "$ld" != *"file=libcrypto.so.3 "* ]] || fail "the real libcrypto was loaded too"
}
took_real() {
	[[ "$ld" == *"file=libcrypto.so.3 [0];  generating link map"* ]] || fail "the real libcrypto was not loaded"
	[[ "$ld" != *"libcrypto-none.so [0];  generating link map"* ]] || fail "the stand-in was loaded"
}

# Every kind of run that loads nothing, one a line (--show-modversions of
# a module without versions fails, as kmod's does: the same failure).
no_load_runs() {
	local f
	f=$(find "$K/root/lib/modules" -name 'mt_bus.ko*' | head -n 1)
	printf '%s\n' "-D mt_net" "-n -v mt_snd" "-R fs-mtfs" "-c" "--show-exports $f" \
		"--show-modversions $f" "-r -n -v mt_net"
}

@test "runs that load nothing take the stand-in, and print what the real libcrypto gives" {
	local lib=$BATS_TEST_TMPDIR/lib args want
	mkdir "$lib"
	cp "$top_builddir/lib/libmodrot.so.1" "$lib/"
	mp mt_net
	local before
	before=$(kernel_state)
	while read -r args; do
		# shellcheck disable=SC2086 # the words are the arguments
		ld_files on_kernel env LD_LIBRARY_PATH="$lib" "$MODPROBE" --bytes -C "$MODTREE_CONF" $args
		took_real
		want="$status|$output|$stderr"
		# shellcheck disable=SC2086
		ld_files mp $args
		took_none "$top_builddir/lib"
		assert_equal "$status|$output|$stderr" "$want"
	done < <(no_load_runs)
	assert_equal "$(kernel_state)" "$before"
	# and an unload that is done, not dry
	ld_files mp -r mt_net
	assert_success
	took_none "$top_builddir/lib"
	kernel_state | grep -q '^rotting mt_net '
	run is_live mt_net
	assert_failure
}

@test "a load takes the real libcrypto: a signed module loads on a kernel that enforces signatures, an unsigned one is refused" {
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
	took_real
	is_live delta
	ld_files on_kernel "$MODPROBE" -d "$d/root" -S "$rel" alpha
	assert_equal "$status" 1
	took_real
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'alpha': the module is not signed, and this kernel enforces signatures; nothing was loaded (the kernel never saw it)"
	run is_live alpha
	assert_failure
}

@test "a stand-in that is missing, broken, or short of a function libkmod imports: the real libcrypto, the same output" {
	local lib=$BATS_TEST_TMPDIR/lib
	mkdir -p "$lib/modrot"
	cp "$top_builddir/lib/libmodrot.so.1" "$lib/"
	local want before
	want=$(mp -D mt_net)
	[ -n "$want" ]
	before=$(kernel_state)
	# missing: modrot/ is empty
	ld_files on_kernel env LD_LIBRARY_PATH="$lib" "$MODPROBE" --bytes -C "$MODTREE_CONF" -D mt_net
	assert_success
	assert_output "$want"
	took_real
	# broken: not an ELF file
	echo 'not a library' >"$lib/modrot/libcrypto-none.so"
	ld_files on_kernel env LD_LIBRARY_PATH="$lib" "$MODPROBE" --bytes -C "$MODTREE_CONF" -D mt_net
	assert_success
	assert_equal "$stderr" ""
	assert_output "$want"
	took_real
	# short: d2i_PKCS7_bio left out, as a newer libkmod would need more
	sed '/^\td2i_PKCS7_bio;$/d' "$top_srcdir/tools/libcrypto-none.sym" >"$BATS_TEST_TMPDIR/short.sym"
	! grep -q d2i_PKCS7_bio "$BATS_TEST_TMPDIR/short.sym"
	${CC:-cc} -fPIC -shared -Wl,-soname,libcrypto.so.3 -Wl,--version-script="$BATS_TEST_TMPDIR/short.sym" \
		-o "$lib/modrot/libcrypto-none.so" "$top_srcdir/tools/libcrypto-none.c"
	ld_files on_kernel env LD_LIBRARY_PATH="$lib" "$MODPROBE" --bytes -C "$MODTREE_CONF" -D mt_net
	assert_success
	assert_equal "$stderr" ""
	assert_output "$want"
	[[ "$ld" == *"file=$lib/modrot/libcrypto-none.so [0];  generating link map"* ]]
	[[ "$ld" == *"file=libcrypto.so.3 [0];  generating link map"* ]]
	assert_equal "$(kernel_state)" "$before"
}

@test "the stand-in exports every libcrypto function the system's libkmod imports, under libcrypto.so.3's name and version" {
	local libkmod
	libkmod=$(ldconfig -p | awk '$1 == "libkmod.so.2" { print $NF; exit }')
	[ -n "$libkmod" ]
	local wanted have
	wanted=$(nm -D --undefined-only "$libkmod" | awk '$NF ~ /@OPENSSL_/ { print $NF }' | sort)
	[ -n "$wanted" ] || skip "this libkmod imports nothing from libcrypto"
	have=$(nm -D --defined-only "$NONE" | awk '$2 == "T" { print $3 }' | sed 's/@@/@/' | sort)
	assert_equal "$(comm -23 <(echo "$wanted") <(echo "$have"))" ""
	# kmod 34 (Debian 13) imports one more, which Debian 12's does not:
	# scripts/package-test.sh checks the stand-in against it there.
	[[ "$have" == *OBJ_obj2txt@OPENSSL_3.0.0* ]]
	run readelf -d "$NONE"
	assert_output --partial "Library soname: [libcrypto.so.3]"
	assert_equal "$(grep -c '(NEEDED)' <<<"$output")" 1
	assert_output --partial "Shared library: [libc.so.6]"
}
