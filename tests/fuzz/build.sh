#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build.sh OUTDIR: builds the libFuzzer harnesses of tests/fuzz with clang
# (-fsanitize=fuzzer,address,undefined) into OUTDIR/fuzz-NAME, compiling
# lib/, the CLI helper (cli*.c, outbuf.c, jsonwrt.c, sigwords.c, promlabel.c) and
# modinfo's record code (modinfo-params/text/json.c) into each with the same
# instrumentation.
# Module file decompression is capped at 8 MiB here (512 MiB in the
# product) so that a bomb costs the fuzzer milliseconds, not seconds.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cc=${FUZZ_CC:-clang}

pkgs="libkmod libelf libzstd liblzma libcrypto smartcols"
# shellcheck disable=SC2086
cflags="-std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
	-fno-sanitize-recover=undefined -I$top/lib -I$top/tools/cli -I$top/tools/modinfo-cmd $(pkg-config --cflags $pkgs)
	-DPACKAGE_NAME=\"modrot\" -DPACKAGE_VERSION=\"fuzz\" -DMODFILE_LIMIT=(8u<<20)
	-DFUZZ_KEYRING=\"$top/tests/fuzz/keyring.pem\""
# shellcheck disable=SC2086
libs="$(pkg-config --libs $pkgs) -lpthread"

objs=$out/obj
mkdir -p "$objs"
for src in "$top"/lib/*.c "$top"/tools/cli/cli*.c "$top"/tools/cli/outbuf.c "$top"/tools/cli/jsonwrt.c \
	"$top"/tools/cli/sigwords.c "$top"/tools/cli/promlabel.c "$top"/tools/modinfo-cmd/modinfo-params.c \
	"$top"/tools/modinfo-cmd/modinfo-text.c "$top"/tools/modinfo-cmd/modinfo-json.c; do
	o=$objs/$(basename "$src" .c).o
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ "$0" -nt "$o" ] ||
		[ -n "$(find "$top/lib" "$top"/tools/cli -name '*.h' -newer "$o")" ]; then
		# shellcheck disable=SC2086
		$cc $cflags -c "$src" -o "$o"
	fi
done
for h in "$top"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$h" .c)
	# shellcheck disable=SC2086
	$cc $cflags -fsanitize=fuzzer "$h" "$objs"/*.o $libs -o "$out/$name"
done
echo "$out"
