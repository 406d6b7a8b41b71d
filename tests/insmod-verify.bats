#!/usr/bin/env bats
# insmod --verify loads the bytes it verified, and --check says "would
# load" only when the kernel would.

load helpers/tools
bats_require_minimum_version 1.5.0

INSMOD=$top_builddir/tools/insmod
SIGN=$top_srcdir/tests/helpers/sign-module.sh
SIMLIB=$top_builddir/tests/simkernel/libsimkernel.so

setup_file() {
	local d=$BATS_FILE_TMPDIR
	"$SIGN" --make-ca "$d/ca" "modrot test signer" >/dev/null 2>&1
	"$SIGN" "$d/ca/key.pem" "$d/ca/cert.pem" "$FIXTURES/alpha.ko" "$d/alpha-signed.ko"
}

setup() {
	D=$BATS_FILE_TMPDIR
}

ledger_names() { "$SIM" ledger "$K" | awk '{ print $3 }' | sort -u | tr '\n' ' '; }

@test "insmod --verify never loads an unsigned module a flipping symlink swaps in" {
	# The signed module's init fails on this kernel, so a try that loads
	# the verified bytes changes nothing lasting; the unsigned delta would
	# stay live. helpers/flip-after-open.c turns the link to the other file
	# right after insmod's open of it, in every try: a reopen after the
	# check would read the other file. Tries alternate which file comes
	# first, so each is checked as many times.
	kernel_new stock
	"$SIM" set "$K" alpha init_errno=19
	local flip=$BATS_FILE_TMPDIR/flip-after-open.so link=$BATS_TEST_TMPDIR/link.ko
	"${CC:-cc}" -shared -fPIC -o "$flip" "$top_srcdir/tests/helpers/flip-after-open.c" -ldl
	local tries=${MODROT_RACE_TRIES:-200} first second
	signed=0 unsigned=0 other=0
	for i in $(seq "$tries"); do
		if [ $((i % 2)) -eq 0 ]; then
			first=$D/alpha-signed.ko second=$FIXTURES/delta.ko
		else
			first=$FIXTURES/delta.ko second=$D/alpha-signed.ko
		fi
		ln -sfn "$first" "$link"
		err=$(FLIP_LINK=$link FLIP_TO=$second FLIP_LOG=$BATS_TEST_TMPDIR/flips \
			SIMKERNEL_DIR=$K LD_PRELOAD=$flip:$SIMLIB "$INSMOD" --verify "$D/ca/cert.pem" \
			"$link" 2>&1 >/dev/null) || :
		case $err in
		*"No such device"*) signed=$((signed + 1)) ;;
		*"the module is not signed") unsigned=$((unsigned + 1)) ;;
		*) other=$((other + 1)); echo "unexpected: $err" ;;
		esac
		# The file checked is the one the link named at the open.
		[ "$(readlink "$link")" = "$second" ]
	done
	echo "signed $signed unsigned $unsigned other $other"
	assert_equal "$other" 0
	# Every try flipped the link between its check and any reopen.
	assert_equal "$(grep -c flipped "$BATS_TEST_TMPDIR/flips")" "$tries"
	assert_equal "$signed" $((tries / 2))
	assert_equal "$unsigned" $((tries - tries / 2))
	# delta was never loaded, not even for a moment: the ledger never saw it.
	assert_equal "$(ledger_names)" "alpha "
	assert_equal "$(kernel_state)" "taint 0"
	"$SIM" ledger "$K" --check >/dev/null
}

@test "insmod --verify inserts the verified image itself, decompressed by modrot" {
	kernel_new rot
	zstd -q -f "$D/alpha-signed.ko" -o "$BATS_TEST_TMPDIR/alpha-signed.ko.zst"
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$BATS_TEST_TMPDIR/alpha-signed.ko.zst" count=3
	assert_success
	assert_equal "$stderr" ""
	is_live alpha
}

@test "insmod --verify with a force option is a usage error, and nothing is loaded" {
	kernel_new rot
	before=$(kernel_state)
	for force in -f --force-vermagic --force-modversion; do
		run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$force" "$D/alpha-signed.ko"
		assert_equal "$status" 2
		assert_equal "$stderr" "insmod: ERROR: --verify excludes --force, --force-vermagic and --force-modversion (see 'insmod --help')"
	done
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --verify refuses a gzip module it cannot look inside" {
	kernel_new rot
	gzip -c "$D/alpha-signed.ko" > "$BATS_TEST_TMPDIR/alpha.ko.gz"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --verify "$D/ca/cert.pem" "$BATS_TEST_TMPDIR/alpha.ko.gz"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $BATS_TEST_TMPDIR/alpha.ko.gz: gzip-compressed, which insmod cannot decompress to verify"
	assert_equal "$(kernel_state)" "$before"
}

# --- insmod --check compares vermagic as the kernel does ------------------

# The kernel's own vermagic comes from a module it shipped: the first one
# /lib/modules/RELEASE/modules.dep lists.
ship_kernel_modules() {
	local dir=$K/root/lib/modules/6.1.0-sim
	mkdir -p "$dir/kernel"
	cp "$FIXTURES/delta.ko" "$dir/kernel/delta.ko"
	printf 'kernel/delta.ko:\n' > "$dir/modules.dep"
}

# A copy of a fixture with its vermagic's flags rewritten (same length).
reflag() { # reflag FIXTURE FROM TO OUT
	perl -0777 -pe "s/\Q$2\E/$3/" "$FIXTURES/$1.ko" > "$4"
	strings "$4" | grep -q "vermagic=.*$3"
}

@test "insmod --check refuses a module of the kernel's release built with other flags, as the kernel does" {
	kernel_new rot
	ship_kernel_modules
	reflag alpha "SMP preempt " "SMP nopreem " "$BATS_TEST_TMPDIR/alpha.ko"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --check "$BATS_TEST_TMPDIR/alpha.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $BATS_TEST_TMPDIR/alpha.ko: its vermagic \"6.1.0-sim SMP nopreem mod_unload modversions\" is not this kernel's \"6.1.0-sim SMP preempt mod_unload modversions\" (--force-vermagic loads it anyway)"
	run --separate-stderr on_kernel "$INSMOD" "$BATS_TEST_TMPDIR/alpha.ko"
	assert_equal "$status" 1
	assert_equal "$(kernel_state)" "$before"
	# The kernel agrees: kmod's insmod, which does not check, is refused by it.
	run on_kernel "$KMOD_INSMOD" "$BATS_TEST_TMPDIR/alpha.ko"
	assert_failure
	assert_output --partial "Invalid module format"
	assert_equal "$(kernel_state)" "$before"
	# --force-vermagic is what loads it.
	on_kernel "$INSMOD" --force-vermagic "$BATS_TEST_TMPDIR/alpha.ko"
	is_live alpha
}

@test "insmod --check with symbol versions compares what follows the release" {
	kernel_new rot
	ship_kernel_modules
	# versioned is built for 6.0.0-other with this kernel's flags: it loads.
	run --separate-stderr on_kernel "$INSMOD" --check "$FIXTURES/versioned.ko"
	assert_success
	assert_equal "$stderr" ""
	reflag versioned "mod_unload " "mod_unlozd " "$BATS_TEST_TMPDIR/versioned.ko"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --check "$BATS_TEST_TMPDIR/versioned.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" "insmod: ERROR: could not insert module $BATS_TEST_TMPDIR/versioned.ko: its vermagic \"6.0.0-other SMP preempt mod_unlozd modversions\" is not this kernel's \"6.1.0-sim SMP preempt mod_unload modversions\" (--force-vermagic loads it anyway)"
	run on_kernel "$KMOD_INSMOD" "$BATS_TEST_TMPDIR/versioned.ko"
	assert_failure
	assert_equal "$(kernel_state)" "$before"
	on_kernel "$INSMOD" "$FIXTURES/versioned.ko"
	is_live versioned
}

@test "insmod --check still says which module of the batch would load when the kernel's vermagic is known" {
	kernel_new rot
	ship_kernel_modules
	reflag alpha "SMP preempt " "SMP nopreem " "$BATS_TEST_TMPDIR/alpha.ko"
	run --separate-stderr on_kernel "$INSMOD" --check --batch "$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/alpha.ko"
	assert_equal "$status" 1
	assert_line "1 of 2 would load, 1 refused, 0 skipped"
}

# Files where a keyring is expected: a FIFO (no writer: an open that waits
# would hang), devices, a directory is a keyring directory, a huge sparse file.
@test "insmod --verify refuses a FIFO, /dev/null, /dev/zero and a huge file as keyring at once, and loads nothing" {
	kernel_new rot
	local t=$BATS_TEST_TMPDIR
	mkfifo "$t/fifo.pem"
	truncate -s 64G "$t/huge.pem"
	before=$(kernel_state)
	local k
	for k in "$t/fifo.pem:a fifo, not a regular file" "/dev/null:a character device, not a regular file" \
		"/dev/zero:a character device, not a regular file" "$t/huge.pem:too large: more than 16 MiB"; do
		run --separate-stderr timeout 10 "$SIM" run "$K" -- "$INSMOD" --verify "${k%%:*}" "$FIXTURES/delta.ko"
		assert_equal "$status" 2
		assert_equal "$stderr" "insmod: ERROR: could not read the keyring ${k%%:*}: ${k#*:} (see 'insmod --help')"
		assert_equal "$(kernel_state)" "$before"
	done
}

@test "insmod --verify skips a FIFO and a device inside a keyring directory, never waiting on them" {
	kernel_new rot
	local dir=$BATS_TEST_TMPDIR/keys
	mkdir "$dir"
	cp "$D/ca/cert.pem" "$dir/b.pem"
	mkfifo "$dir/a.pem"
	ln -s /dev/zero "$dir/c.pem"
	run --separate-stderr timeout 10 "$SIM" run "$K" -- "$INSMOD" --verify "$dir" "$D/alpha-signed.ko"
	assert_success
	assert_equal "$(kernel_state | awk '$1 == "live" { print $2 }')" alpha
}
