#!/usr/bin/env bats
# Terminal escapes: names from module files (.modinfo name=, vermagic=),
# from kernel files and from argv reach the terminal with control bytes,
# bytes that are not UTF-8 and the backslash shown as \xHH; JSON escapes
# them as JSON does and stays valid.

load helpers/tools

INSMOD=$top_builddir/tools/insmod
SIGN=$top_srcdir/tests/helpers/sign-module.sh

# delta.ko with its name= or its vermagic's release (5 bytes each) replaced
# by hostile bytes of the same length: ESC, CR, BEL and a lone 0xff.
setup_file() {
	perl -0777 -pe 's/name=delta\0/name=d\e\r\a\xff\0/' "$FIXTURES/delta.ko" \
		> "$BATS_FILE_TMPDIR/evil.ko"
	perl -0777 -pe 's/name=delta\0/name=d"\\ta\0/' "$FIXTURES/delta.ko" \
		> "$BATS_FILE_TMPDIR/quote.ko"
	perl -0777 -pe 's/vermagic=6\.1\.0-sim /vermagic=6\e[2J-sim /' "$FIXTURES/delta.ko" \
		> "$BATS_FILE_TMPDIR/evilmagic.ko"
	# A C1 control (U+009B, CSI) in valid UTF-8 is an escape on some terminals.
	perl -0777 -pe 's/name=delta\0/name=d\xc2\x9bta\0/' "$FIXTURES/delta.ko" \
		> "$BATS_FILE_TMPDIR/c1.ko"
}

setup() {
	kernel_new rot
	E=$BATS_FILE_TMPDIR
}

# Fails when $1 holds a byte below 0x20 other than the newline, or DEL.
assert_no_control_bytes() {
	if printf '%s' "$1" | LC_ALL=C grep -q "[$(printf '\001-\011\013-\037\177')]"; then
		echo "control bytes in: $(printf '%s' "$1" | od -c | head -5)"
		return 1
	fi
}

ESCAPED='d\x1b\x0d\x07\xff'

@test "insmod --check shows a hostile .modinfo name escaped" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --check "$E/evil.ko"
	assert_success
	assert_output "$E/evil.ko: ok, $ESCAPED would load"
	assert_no_control_bytes "$output"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod names a hostile vermagic escaped, and loads nothing" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" "$E/evilmagic.ko"
	assert_equal "$status" 1
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" "^insmod: ERROR: could not insert module $E/evilmagic.ko: built for kernel 6\\\\x1b\\[2J-sim"
	assert_no_control_bytes "$stderr"
	assert_equal "$(kernel_state)" "$before"
}

@test "lsmod shows a hostile module name escaped in every text layout" {
	on_kernel "$INSMOD" "$E/evil.ko"
	on_kernel "$INSMOD" "$FIXTURES/alpha.ko"
	run --separate-stderr on_kernel "$LSMOD"
	assert_success
	assert_line --index 2 --regexp "^d\\\\x1b\\\\x0d\\\\x07\\\\xff +[0-9]+  0$"
	assert_no_control_bytes "$output"
	for args in "-o name,holders" "-r -o name" "-n -o name"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$LSMOD" $args
		assert_success
		assert_line --regexp "^$(printf '%s' "$ESCAPED" | sed 's/\\/\\\\/g') *$"
		assert_no_control_bytes "$output"
	done
}

@test "lsmod -J keeps a hostile name exact as JSON escapes and stays valid" {
	on_kernel "$INSMOD" "$E/evil.ko"
	on_kernel "$INSMOD" "$E/quote.ko" || true
	run --separate-stderr on_kernel "$LSMOD" -J -o name
	assert_success
	assert_no_control_bytes "$output"
	# 0xff is no UTF-8: JSON holds U+FFFD in its place.
	assert_equal "$(jq -r '.modules[] | .name' <<<"$output" | od -An -c | tr -s ' ')" \
		"$(printf 'd"\\ta\nd\033\r\a\357\277\275\n' | od -An -c | tr -s ' ')"
}

@test "a C1 control in a name is escaped like the C0 ones" {
	on_kernel "$INSMOD" "$E/c1.ko"
	run --separate-stderr on_kernel "$LSMOD" -o name -n
	assert_success
	assert_output 'd\xc2\x9bta'
}

@test "modreap and rmmod --unused -n show rotting and live hostile names escaped" {
	on_kernel "$INSMOD" "$E/evil.ko"
	run --separate-stderr on_kernel "$RMMOD" -b --unused -n
	assert_success
	assert_line --index 0 "$ESCAPED"
	assert_no_control_bytes "$output"
	kmod_unload "$(printf 'd\033\r\a\377')"
	assert_equal "$(rotting_count)" 1
	run --separate-stderr on_kernel "$MODREAP" -b
	assert_success
	assert_line --index 1 --regexp "^$(printf '%s' "$ESCAPED" | sed 's/\\/\\\\/g') +1 +[0-9]+ +0$"
	assert_no_control_bytes "$output"
	run --separate-stderr on_kernel "$MODREAP" -b -a
	assert_success
	assert_line --index 0 --regexp "^$(printf '%s' "$ESCAPED" | sed 's/\\/\\\\/g'): reclaimed 1 instance, [0-9]+ bytes$"
	assert_no_control_bytes "$output"
	assert_equal "$(rotting_count)" 0
}

@test "names typed with control bytes are refused with the bytes escaped" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" "$(printf 'a\033]0;owned\007')"
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: 'a\\x1b]0;owned\\x07' is not a module name: a name is printable ASCII without blanks, not '.' or '..', and holds a '/' only as a module file's path (see 'rmmod --help')"
	run --separate-stderr on_kernel "$MODREAP" "$(printf 'x\ry')"
	assert_equal "$status" 2
	assert_equal "$stderr" "modreap: ERROR: 'x\\x0dy' is not a module name: a name is printable ASCII without blanks, not '.' or '..', and holds a '/' only as a module file's path (see 'modreap --help')"
	run --separate-stderr on_kernel "$INSMOD" "$(printf '/nowhere/\033[31mred.ko')"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not read /nowhere/\\x1b[31mred.ko: No such file or directory"
	run --separate-stderr on_kernel "$LSMOD" "$(printf '\033c')"
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: unexpected argument '\\x1bc' (see 'lsmod --help')"
	assert_equal "$(kernel_state)" "$before"
}

@test "a signer name with control bytes is shown escaped" {
	"$SIGN" --make-ca "$BATS_TEST_TMPDIR/ca" "$(printf 'evil\033[2Jsigner')"
	"$SIGN" --make-ca "$BATS_TEST_TMPDIR/other"
	"$SIGN" "$BATS_TEST_TMPDIR/ca/key.pem" "$BATS_TEST_TMPDIR/ca/cert.pem" \
		"$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/signed.ko"
	run --separate-stderr on_kernel "$INSMOD" --verify "$BATS_TEST_TMPDIR/other/cert.pem" \
		"$BATS_TEST_TMPDIR/signed.ko"
	assert_equal "$status" 1
	assert_no_control_bytes "$stderr"
	assert_regex "$stderr" 'signed by evil\\x1b\[2Jsigner \(key '
	run is_live delta
	assert_failure
}

# kmod's modprobe prints modprobe.d's options and install commands raw on
# standard output (-D, -n -v, -c): a terminal obeys what they hold. Text
# with a control byte is escaped; plain text stays byte for byte kmod's.
@test "modprobe -D, -n -v and -c escape control bytes from modprobe.d, and leave plain text as kmod prints it" {
	load helpers/modtree
	modtree_install
	local conf=$BATS_TEST_TMPDIR/esc.conf before
	printf 'options mt_extra x=\033]0;pwn\007 y=ok\ninstall mt_inst /bin/true \033[2J\n' >"$conf"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$top_builddir/tools/modprobe" -C "$conf" -D mt_extra
	assert_success
	assert_output 'insmod /lib/modules/6.1.0-sim/kernel/sound/mt_extra.ko x=\x1b]0;pwn\x07 y=ok '
	run --separate-stderr on_kernel "$top_builddir/tools/modprobe" -C "$conf" -n -v mt_inst
	assert_success
	assert_output 'install /bin/true \x1b[2J '
	run --separate-stderr on_kernel "$top_builddir/tools/modprobe" -C "$conf" -c
	assert_success
	assert_line 'options mt_extra x=\x1b]0;pwn\x07 y=ok'
	assert_line 'install mt_inst /bin/true \x1b[2J'
	assert_equal "$(kernel_state)" "$before"
	run on_kernel "$top_builddir/tools/modprobe" -C "$MODTREE_CONF" -D mt_net
	assert_equal "$output" "$(on_kernel /sbin/modprobe -C "$MODTREE_CONF" -D mt_net)"
}
