#!/usr/bin/env bats
# insmod and module signatures: --verify KEYRING, and kernels that enforce
# signatures. Keys are made at test time; modules are signed the way the
# kernel's sign-file signs them.

load helpers/tools

INSMOD=$top_builddir/tools/insmod
SIGN=$top_srcdir/tests/helpers/sign-module.sh

setup_file() {
	local d=$BATS_FILE_TMPDIR
	"$SIGN" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$SIGN" --make-ca "$d/other" "somebody else" >/dev/null 2>&1
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/delta.ko" "$d/delta-signed.ko"
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/alpha.ko" "$d/alpha-keyid.ko" --keyid
	"$SIGN" "$d/other/key.pem" "$d/other/cert.pem" "$FIXTURES/delta.ko" "$d/delta-other.ko"
	zstd -q -f "$d/delta-signed.ko" -o "$d/delta-signed.ko.zst"
	# One byte of the module changed after signing.
	cp "$d/delta-signed.ko" "$d/delta-tampered.ko"
	printf 'X' | dd of="$d/delta-tampered.ko" bs=1 seek=100 conv=notrunc 2>/dev/null
	# A trailer with nothing before the magic.
	{ cat "$FIXTURES/delta.ko"; printf '~Module signature appended~\n'; } > "$d/delta-magic-only.ko"
	mkdir "$d/keyring-dir"
	cp "$d/ca/cert.der" "$d/other/cert.pem" "$d/keyring-dir/"
}

setup() {
	kernel_new rot
	D=$BATS_FILE_TMPDIR
}

key_id() { openssl x509 -in "$1" -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f; }

@test "insmod --verify loads a module signed by a keyring certificate" {
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-signed.ko"
	assert_success
	assert_equal "$stderr" ""
	is_live delta
}

@test "insmod --verify accepts a DER certificate, a directory of certificates, and a compressed module" {
	on_kernel "$INSMOD" --verify "$D/ca/cert.der" "$D/delta-signed.ko"
	kmod_unload delta
	on_kernel "$INSMOD" --verify "$D/keyring-dir" "$D/delta-signed.ko.zst"
	is_live delta
}

@test "insmod --verify accepts a signature that names its key by subject key id" {
	run on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$D/alpha-keyid.ko"
	assert_success
	is_live alpha
}

@test "insmod --verify refuses a module signed by a key outside the keyring, naming the signer" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-other.ko"
	assert_equal "$status" 1
	# The serial is random: compare it without leading zeros.
	serial=$(openssl x509 -in "$D/other/cert.pem" -noout -serial | cut -d= -f2 | tr A-F a-f | sed 's/^0*//')
	[[ "$stderr" =~ \(key\ serial\ 0*([0-9a-f]+)\) ]]
	assert_equal "${BASH_REMATCH[1]}" "$serial"
	assert_equal "${stderr/serial 0*$serial/serial $serial}" "insmod: ERROR: could not insert module $D/delta-other.ko: signed by somebody else (key serial $serial), which is not in the keyring $D/ca/cert.pem"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --verify refuses a module changed after signing" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-tampered.ko"
	assert_equal "$status" 1
	assert_equal "${stderr%%:*}" "insmod"
	[[ "$stderr" == *"delta-tampered.ko: the signature by modrot test signer (key $(key_id "$D/ca/cert.pem")) does not match the module"* ]]
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --verify refuses an unsigned module and a malformed trailer" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/delta.ko: the module is not signed"
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-magic-only.ko"
	assert_equal "$status" 1
	[[ "$stderr" == "insmod: ERROR: could not insert module $D/delta-magic-only.ko: its signature trailer is malformed"* ]]
	assert_equal "$(kernel_state)" "$before"
	"$SIM" ledger "$K" --check
}

@test "insmod on a kernel that enforces signatures refuses an unsigned module before the kernel does" {
	kernel_new rot --sig-enforce
	run --separate-stderr on_kernel "$INSMOD" "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $FIXTURES/delta.ko: the module is not signed, and this kernel enforces signatures"
	# The kernel was never asked: nothing was loaded, nothing rots.
	assert_equal "$("$SIM" ledger "$K" | grep -c . || true)" 0
	run on_kernel "$INSMOD" "$D/delta-signed.ko"
	assert_success
	is_live delta
}

@test "insmod --verify with a keyring that is missing or holds no certificate exits 2" {
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/nothing" "$D/delta-signed.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: could not read the keyring $D/nothing: No such file or directory (see 'insmod --help')"
	run --separate-stderr on_kernel "$INSMOD" --verify "$FIXTURES/delta.ko" "$D/delta-signed.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: the keyring $FIXTURES/delta.ko holds no X.509 certificate (see 'insmod --help')"
	assert_equal "$(kernel_state | grep -c '^live')" 0
}

@test "insmod --batch --verify loads the signed modules and refuses the rest" {
	run --separate-stderr on_kernel "$INSMOD" --batch --verify "$D/ca/cert.pem" \
		"$D/delta-signed.ko" "$D/alpha-keyid.ko" "$D/delta-other.ko" "$FIXTURES/gamma.ko"
	assert_equal "$status" 1
	assert_output "2 of 4 loaded, 0 failed, 2 refused before loading, 0 skipped"
	is_live delta
	is_live alpha
}

@test "insmod --verify is clean under valgrind" {
	skip_if_sanitized
	valgrind_clean "$INSMOD" --verify "$D/keyring-dir" "$D/delta-signed.ko"
	assert_success
	valgrind_clean "$INSMOD" --verify "$D/ca/cert.pem" "$D/delta-tampered.ko"
	assert_failure 1
}
