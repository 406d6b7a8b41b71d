# shellcheck shell=bash
# tests/helpers/kmod34.bash: Debian 13's kmod 34, as a second oracle beside
# this machine's kmod 30, run from the Debian 13 root that
# scripts/package-test.sh keeps in its cache. Load after helpers/tools.
#
#   kmod34_setup_file   (in setup_file) unpacks kmod and the libraries it
#                       needs from the root's tar into $BATS_FILE_TMPDIR/k34
#                       and sets KMOD34_MISSING when there is no such tar
#   kmod34_skip         (in setup) skips the test, saying why, when the
#                       root is missing: nothing else skips these tests
#   KMOD34 TOOL ARG...  the words that run kmod 34's TOOL: its own dynamic
#                       loader with its own libraries, argv[0] TOOL, so that
#                       no file of this machine's kmod or glibc is used
#
# The tar: MODROT_TRIXIE_ROOT_TAR, or the newest
# ${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}/trixie-*.tar
# (PACKAGE_TEST_SUITES=trixie scripts/package-test.sh makes it), or else
# the newest debian13-kmod-*.tar there, which holds just kmod and its
# libraries from Debian 13's packages (scripts/debian13-oracle.sh makes
# it, as CI does).

kmod34_tar() {
	if [ -n "${MODROT_TRIXIE_ROOT_TAR:-}" ]; then
		echo "$MODROT_TRIXIE_ROOT_TAR"
		return
	fi
	local cache=${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test} tar
	# (not a trixie-*.part.tar, which package-test.sh is still writing)
	# shellcheck disable=SC2010,SC2012
	tar=$(ls -t "$cache"/trixie-*.tar 2>/dev/null | grep -v '\.part\.tar$' | head -n 1)
	# shellcheck disable=SC2012
	[ -n "$tar" ] || tar=$(ls -t "$cache"/debian13-kmod-*.tar 2>/dev/null | head -n 1)
	echo "$tar"
}

kmod34_setup_file() {
	local tar k=$BATS_FILE_TMPDIR/k34 lib=./usr/lib/x86_64-linux-gnu
	tar=$(kmod34_tar)
	if [ -z "$tar" ] || [ ! -f "$tar" ]; then
		echo "no Debian 13 kmod (${tar:-${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}/trixie-*.tar or debian13-kmod-*.tar}):" \
			"scripts/debian13-oracle.sh makes one" > "$BATS_FILE_TMPDIR/kmod34-missing"
		return 0
	fi
	mkdir -p "$k"
	# kmod links libcrypto and opens the decompressors by name on first
	# use (liblzma, libzstd, zlib): all from the root, none from here.
	tar -C "$k" -xf "$tar" ./usr/bin/kmod "$lib/ld-linux-x86-64.so.2" "$lib/libc.so.6" \
		--wildcards "$lib/libkmod.so.2*" "$lib/liblzma.so.5*" "$lib/libzstd.so.1*" \
		"$lib/libz.so.1*" "$lib/libcrypto.so.3*"
	"$k/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$k/usr/lib/x86_64-linux-gnu" \
		--argv0 modprobe "$k/usr/bin/kmod" --version > "$k/version"
	grep -q '^kmod version 34' "$k/version"
}

kmod34_skip() {
	if [ -f "$BATS_FILE_TMPDIR/kmod34-missing" ]; then
		skip "$(cat "$BATS_FILE_TMPDIR/kmod34-missing")"
	fi
	local k=$BATS_FILE_TMPDIR/k34/usr
	KMOD34_LD=$k/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	KMOD34_LIBS=$k/lib/x86_64-linux-gnu
	KMOD34_BIN=$k/bin/kmod
}

# KMOD34 TOOL ARG...: prints nothing; sets the array kmod34 to the command.
KMOD34() {
	kmod34=("$KMOD34_LD" --library-path "$KMOD34_LIBS" --argv0 "$1" "$KMOD34_BIN")
}
