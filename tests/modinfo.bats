#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What modinfo adds to kmod's: the running kernel's rot of a name (with
# its per-CPU bytes), --verify as insmod does it, and -J. kmod
# compatibility itself is modinfo-kmod.bats.

bats_require_minimum_version 1.5.0

load helpers/tools

MODINFO=$top_builddir/tools/modinfo
INSMOD=$top_builddir/tools/insmod
SIGN=$top_srcdir/tests/helpers/sign-module.sh

setup_file() {
	local F=$BATS_FILE_TMPDIR
	"$SIGN" --make-ca "$F/ca" > /dev/null
	"$SIGN" --make-ca "$F/other" "another signer" > /dev/null
	"$SIGN" "$F/ca/key.pem" "$F/ca/cert.pem" "$FIXTURES/delta.ko" "$F/signed.ko"
	"$SIGN" "$F/ca/key.pem" "$F/ca/cert.pem" "$FIXTURES/delta.ko" "$F/keyid.ko" --keyid
	xz --check=crc32 --lzma2=dict=1MiB -c "$F/signed.ko" > "$F/signed.ko.xz"
	# The signature no longer covers what follows a changed byte.
	perl -0777 -pe 's/a module on its own/a module on its OWN/' "$F/signed.ko" > "$F/tampered.ko"
}

setup() {
	kernel_new rot
	F=$BATS_FILE_TMPDIR
}

@test "modinfo shows a name live, with its rotting instances, their bytes and per-CPU bytes" {
	kmod_load pcpu1500
	kmod_unload pcpu1500
	kmod_load pcpu1500 delta
	kmod_unload delta
	local bytes
	bytes=$(rotting_bytes pcpu1500)
	run --separate-stderr on_kernel "$MODINFO" "$FIXTURES/pcpu1500.ko"
	assert_success
	assert_equal "$(tail -4 <<< "$output")" "$(printf 'state:          live\nrotting:        1\nrotting_bytes:  %s\nrotting_percpu: 1500' "$bytes")"
	assert [ "$bytes" -gt 0 ]
	run on_kernel "$MODINFO" -F state -F rotting "$FIXTURES/delta.ko"
	assert_output 1
	run on_kernel "$MODINFO" -F state "$FIXTURES/delta.ko" "$FIXTURES/alpha.ko"
	assert_output "$(printf 'not loaded\nnot loaded')"
	run on_kernel "$MODINFO" -F rotting_percpu "$FIXTURES/delta.ko"
	assert_output 0
}

@test "modinfo on a stock kernel prints kmod's fields only, and -J says the state without rot" {
	kernel_new stock
	kmod_load delta
	run on_kernel "$MODINFO" "$FIXTURES/delta.ko"
	assert_success
	refute_output --regexp '^(state|rotting)'
	assert_equal "$output" "$(on_kernel /sbin/modinfo "$FIXTURES/delta.ko")"
	run on_kernel "$MODINFO" -J "$FIXTURES/delta.ko"
	assert_success
	assert_equal "$(jq -c '[.rot, .modules[0].state, (.modules[0] | has("rotting"))]' <<< "$output")" \
		'[false,"live",false]'
}

@test "modinfo --verify: valid, unsigned, unknown key, tampered; one line each and exit 1" {
	local before
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODINFO" --verify "$F/ca/cert.pem" -F verified \
		"$F/signed.ko" "$F/signed.ko.xz" "$F/keyid.ko"
	assert_success
	assert_output "$(printf 'valid\nvalid\nvalid')"
	assert_equal "$stderr" ''
	run --separate-stderr on_kernel "$MODINFO" --verify "$F/ca/cert.pem" -F verified "$FIXTURES/delta.ko"
	assert_failure 1
	assert_output unsigned
	assert_equal "$stderr" "modinfo: ERROR: $FIXTURES/delta.ko: the module is not signed"
	run --separate-stderr on_kernel "$MODINFO" --verify "$F/other/cert.pem" -F verified "$F/signed.ko"
	assert_failure 1
	assert_output 'unknown key'
	assert_regex "$stderr" "^modinfo: ERROR: $F/signed.ko: signed by modrot test signer \(key [0-9a-f: serial]+\), which is not in the keyring $F/other/cert.pem\$"
	run --separate-stderr on_kernel "$MODINFO" --verify "$F/ca/cert.pem" -F verified "$F/tampered.ko"
	assert_failure 1
	assert_output bad
	assert_regex "$stderr" "^modinfo: ERROR: $F/tampered.ko: the signature by modrot test signer \(key [0-9a-f]+\) does not match the module"
	assert_equal "${#stderr_lines[@]}" 1
	# The same verdicts as insmod --verify gives.
	run --separate-stderr on_kernel "$INSMOD" --check --verify "$F/other/cert.pem" "$F/signed.ko"
	assert_failure 1
	assert_regex "$stderr" "which is not in the keyring $F/other/cert.pem"
	assert_equal "$(kernel_state)" "$before"
}

@test "modinfo --verify with a keyring that is missing or holds no certificate is a usage error" {
	run --separate-stderr on_kernel "$MODINFO" --verify "$F/nothing.pem" "$F/signed.ko"
	assert_failure 2
	assert_equal "$stderr" "modinfo: ERROR: could not read the keyring $F/nothing.pem: No such file or directory (see 'modinfo --help')"
	assert_equal "$output" ''
	run --separate-stderr on_kernel "$MODINFO" --verify "$FIXTURES/delta.ko" "$F/signed.ko"
	assert_failure 2
	assert_equal "$stderr" "modinfo: ERROR: the keyring $FIXTURES/delta.ko holds no X.509 certificate (see 'modinfo --help')"
}

@test "modinfo -J: one document, typed members, parameters, rot and the verdict" {
	kmod_load params
	kmod_unload params
	run --separate-stderr on_kernel "$MODINFO" -J --verify "$F/ca/cert.pem" "$FIXTURES/params.ko" "$F/signed.ko" nosuch
	assert_failure 1
	assert_equal "$stderr" "$(printf "modinfo: ERROR: %s: the module is not signed\nmodinfo: ERROR: module or alias 'nosuch' not found in /lib/modules/6.1.0-sim" "$FIXTURES/params.ko")"
	jq -e . <<< "$output" > /dev/null
	assert_equal "$(jq -c '.rot' <<< "$output")" true
	assert_equal "$(jq -c '.modules | length' <<< "$output")" 2
	assert_equal "$(jq -c '.modules[0] | [.name, .builtin, .state, .rotting_instances, .rotting_bytes, .rotting_percpu_bytes]' <<< "$output")" \
		"[\"params\",false,\"not loaded\",1,$(rotting_bytes params),0]"
	assert_equal "$(jq -c '.modules[0].parameters' <<< "$output")" \
		'[{"name":"verbose","description":"chatty","type":"bool"},{"name":"label","description":"a label","type":"charp"},{"name":"count","description":"how many","type":"int"}]'
	assert_equal "$(jq -c '.modules[0].verify | [.valid, .status, .message]' <<< "$output")" \
		'[false,"unsigned","the module is not signed"]'
	assert_equal "$(jq -c '.modules[1].verify | [.valid, .status, .signer, .message]' <<< "$output")" \
		'[true,"valid","modrot test signer",""]'
	assert_equal "$(jq -r '.modules[1].info[] | select(.key == "signer") | .value' <<< "$output")" "modrot test signer"
	# The .modinfo entries keep their order, parameters apart.
	assert_equal "$(jq -r '[.modules[0].info[].key] | join(",")' <<< "$output")" \
		"$(on_kernel /sbin/modinfo -0 "$FIXTURES/params.ko" | tr '\0' '\n' | sed -n 's/^\([a-z_]*\)=.*/\1/p' | paste -sd,)"
}

@test "modinfo writes module text as it is to a pipe, and escapes control bytes on a terminal" {
	perl -0777 -pe 's/a module on its own/a\e[2J module on own/' "$FIXTURES/delta.ko" > "$BATS_TEST_TMPDIR/evil.ko"
	run on_kernel "$MODINFO" -F description "$BATS_TEST_TMPDIR/evil.ko"
	assert_output "$(printf 'a\033[2J module on own')"
	command -v script > /dev/null || skip "no script(1) to give modinfo a terminal"
	run script -qec "$SIM run $K -- $MODINFO -F description $BATS_TEST_TMPDIR/evil.ko" /dev/null
	assert_output --partial 'a\x1b[2J module on own'
}

@test "modinfo in every output mode exits 1 with one line when stdout cannot be written" {
	kmod_load params
	local args
	for args in "$FIXTURES/params.ko" "-J $FIXTURES/params.ko" "-F parm $FIXTURES/params.ko" \
		"-0 $FIXTURES/params.ko" "--help" "--version"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel sh -c '"$@" > /dev/full' sh "$MODINFO" $args
		assert_equal "$status" 1
		assert_equal "$stderr" "modinfo: ERROR: could not write to standard output: No space left on device"
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel sh -c '"$@" >&-' sh "$MODINFO" $args
		assert_equal "$status" 1
		assert_equal "$stderr" "modinfo: ERROR: could not write to standard output: Bad file descriptor"
	done
}

@test "modinfo: libkmod's own lines never reach the terminal raw, even with KMOD_LOG=debug" {
	local dir
	dir=$BATS_TEST_TMPDIR/$(printf 'x\033[2J')
	run --separate-stderr on_kernel env KMOD_LOG=debug "$MODINFO" -b "$dir" nosuch
	assert_equal "$status" 1
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" "^modinfo: ERROR: module or alias 'nosuch' not found in .*/x\\\\x1b\\[2J/lib/modules/"
	refute [ "$(printf '%s' "$stderr" | tr -d '\n' | tr -d '[:print:]')" ]
}

@test "modinfo never opens a FIFO or directory named as a module file, and refuses a huge one: one line each, exit 1" {
	local t=$BATS_TEST_TMPDIR
	mkfifo "$t/fifo.ko"
	mkdir "$t/dir.ko"
	truncate -s 64G "$t/huge.ko"
	before=$(kernel_state)
	local m args
	for args in "" "-J" "-F license" "-0"; do
		for m in fifo dir; do
			# As kmod's modinfo: what is not a regular file is a name to look up.
			# shellcheck disable=SC2086
			run --separate-stderr timeout 10 "$SIM" run "$K" -- "$MODINFO" $args "$t/$m.ko"
			assert_equal "$status" 1
			assert_regex "$stderr" "^modinfo: ERROR: module or alias '$t/$m.ko' not found in "
		done
		# shellcheck disable=SC2086
		run --separate-stderr timeout 10 "$SIM" run "$K" -- "$MODINFO" $args "$t/huge.ko"
		assert_equal "$status" 1
		assert_equal "$stderr" "modinfo: ERROR: huge: could not read the module's information from $t/huge.ko: too large: more than 512 MiB"
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "modinfo refuses a FIFO named in modules.dep without waiting on it" {
	local root=$BATS_TEST_TMPDIR/root rel
	rel=$(on_kernel uname -r)
	mkdir -p "$root/lib/modules/$rel/kernel"
	cp "$FIXTURES/delta.ko" "$root/lib/modules/$rel/kernel/delta.ko"
	/sbin/depmod -b "$root" "$rel"
	# Indexed as a module, then replaced by a FIFO without a writer.
	rm "$root/lib/modules/$rel/kernel/delta.ko"
	mkfifo "$root/lib/modules/$rel/kernel/delta.ko"
	run --separate-stderr timeout 10 "$SIM" run "$K" -- "$MODINFO" -b "$root" delta
	assert_equal "$status" 1
	assert_equal "$stderr" "modinfo: ERROR: delta: could not read the module's information from $root/lib/modules/$rel/kernel/delta.ko: a fifo, not a regular file"
}

@test "modinfo --verify refuses a FIFO, /dev/null, /dev/zero and a huge file as keyring: exit 2 at once" {
	local t=$BATS_TEST_TMPDIR
	mkfifo "$t/fifo.pem"
	truncate -s 64G "$t/huge.pem"
	local k
	for k in "$t/fifo.pem:a fifo, not a regular file" "/dev/null:a character device, not a regular file" \
		"/dev/zero:a character device, not a regular file" "$t/huge.pem:too large: more than 16 MiB"; do
		run --separate-stderr timeout 10 "$SIM" run "$K" -- "$MODINFO" --verify "${k%%:*}" "$F/signed.ko"
		assert_equal "$status" 2
		assert_equal "$stderr" "modinfo: ERROR: could not read the keyring ${k%%:*}: ${k#*:} (see 'modinfo --help')"
		assert_output ""
	done
}

# 100,000 parameters, each a parm= and a parmtype= entry, appended to
# params.ko's .modinfo. Gathering them was quadratic (18-34 s); the
# output is checked here, the time only bounded generously.
@test "modinfo gathers 100,000 parameters whole and in kmod's order, well within 20 s" {
	local t=$BATS_TEST_TMPDIR
	objcopy -O binary --only-section=.modinfo "$FIXTURES/params.ko" "$t/modinfo.bin"
	perl -e 'for (0 .. 99999) { print "parm=p$_:desc $_\0parmtype=p$_:int\0" }' >> "$t/modinfo.bin"
	objcopy --update-section .modinfo="$t/modinfo.bin" "$FIXTURES/params.ko" "$t/many.ko"
	run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODINFO" -F parm "$t/many.ko"
	assert_success
	assert_equal "${#lines[@]}" 100003
	assert_equal "${lines[0]}" "p99999:desc 99999 (int)"
	assert_equal "${lines[50000]}" "p49999:desc 49999 (int)"
	assert_equal "${lines[99999]}" "p0:desc 0 (int)"
	assert_equal "${lines[100002]}" "count:how many (int)"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" 100003
	run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODINFO" -J "$t/many.ko"
	assert_success
	assert_equal "$(jq -c '.modules[0].parameters | [length, .[0], .[99999]]' <<< "$output")" \
		'[100003,{"name":"p99999","description":"desc 99999","type":"int"},{"name":"p0","description":"desc 0","type":"int"}]'
}

@test "modinfo escapes a hostile .modinfo key on a terminal as it does values, in every layout; JSON escapes it" {
	# "license" becomes "l", ESC, "[31mX": the same length.
	perl -0777 -pe 's/\0license=/\0l\e[31mX=/' "$FIXTURES/delta.ko" > "$BATS_TEST_TMPDIR/evilkey.ko"
	run on_kernel "$MODINFO" -0 "$BATS_TEST_TMPDIR/evilkey.ko"
	assert_output --partial "$(printf 'l\033[31mX=')"
	run --separate-stderr on_kernel "$MODINFO" -J "$BATS_TEST_TMPDIR/evilkey.ko"
	assert_success
	assert_equal "$(jq -r '.modules[0].info[] | select(.key | startswith("l")) | .key' <<< "$output")" "$(printf 'l\033[31mX')"
	assert_output --partial '"key": "l\u001b[31mX"'
	command -v script > /dev/null || skip "no script(1) to give modinfo a terminal"
	local args
	for args in "" "-0"; do
		run script -qec "$SIM run $K -- $MODINFO $args $BATS_TEST_TMPDIR/evilkey.ko" /dev/null
		assert_output --partial 'l\x1b[31mX'
		refute_output --partial "$(printf '\033')"
	done
}

# A few kilobytes that decompress to 600 MiB, with no size in the stream:
# refused in constant memory (the address space is capped below what
# decompressing it would take, where no sanitizer reserves its own).
@test "modinfo refuses a decompression bomb (xz, zstd) in bounded memory, text and -J" {
	local b=$BATS_TEST_TMPDIR/bomb cap=''
	[ "$MODROT_SANITIZED" = no ] && cap='ulimit -v 400000;'
	head -c 600M /dev/zero | zstd -q -1 -c >"$b.ko.zst"
	head -c 600M /dev/zero | xz -0 -T1 -c >"$b.ko.xz"
	local f
	for f in "$b.ko.zst" "$b.ko.xz"; do
		run --separate-stderr bash -c "$cap"' "$@"' bash timeout 60 "$SIM" run "$K" -- "$MODINFO" "$f"
		assert_failure 1
		assert_output "filename:       $f"
		assert_equal "$stderr" "modinfo: ERROR: bomb: could not read the module's information from $f: it decompresses to more than 512 MiB, more than any module"
		run --separate-stderr bash -c "$cap"' "$@"' bash timeout 60 "$SIM" run "$K" -- "$MODINFO" -J "$f"
		assert_failure 1
		assert_equal "$(jq -c .modules <<<"$output")" '[]'
		assert_equal "$stderr" "modinfo: ERROR: bomb: could not read the module's information from $f: it decompresses to more than 512 MiB, more than any module"
	done
	assert_equal "$(kernel_state | grep -v '^#')" "taint 0"
}

@test "modinfo reads a compressed module once and hands libkmod the decoded bytes; a plain one goes by its path" {
	local before trace=$BATS_TEST_TMPDIR/trace
	zstd -q -c "$F/signed.ko" > "$F/signed.ko.zst"
	before=$(kernel_state)
	for f in "$F/signed.ko.xz" "$F/signed.ko.zst"; do
		run --separate-stderr on_kernel_traced -f -qq -e trace=openat,memfd_create \
			-o "$trace" "$MODINFO" "$f"
		assert_success
		assert_equal "$stderr" ''
		# the same fields as the plain module's, its own file name first
		assert_equal "$(sed 1d <<< "$output")" "$(on_kernel "$MODINFO" "$F/signed.ko" | sed 1d)"
		assert_equal "$(head -n 1 <<< "$output")" "filename:       $f"
		# one open of the compressed file (the check's), one memory file
		# that libkmod opens by its descriptor's path
		assert_equal "$(grep -c "openat(.*\"$f\"" "$trace")" 1
		assert_equal "$(grep -c 'memfd_create(' "$trace")" 1
		assert_equal "$(grep -c 'openat(.*"/proc/self/fd/[0-9]*"' "$trace")" 1
	done
	run on_kernel_traced -f -qq -e trace=memfd_create -o "$trace" "$MODINFO" "$F/signed.ko"
	assert_success
	assert_equal "$(grep -c 'memfd_create(' "$trace")" 0
	assert_equal "$(kernel_state)" "$before"
}
