#!/usr/bin/env bats
# Corrupt binary indexes (modules.dep.bin and the four others libkmod 30
# opens): each is checked before libkmod reads it; one that fails is named
# in one warning line and read as missing, so the answer is the one
# libkmod gives without it. No bit flipped crashes or hangs a tool.

load helpers/tools
load helpers/modtree

bats_require_minimum_version 1.5.0

MODPROBE=$top_builddir/tools/modprobe
MODINFO=$top_builddir/tools/modinfo
INDEXES="modules.dep.bin modules.alias.bin modules.symbols.bin modules.builtin.bin modules.builtin.alias.bin"

setup_file() {
	"$top_srcdir/tests/helpers/modtree.sh" "$BATS_FILE_TMPDIR/tree" >/dev/null 2>&1
}

setup() {
	kernel_new rot
	cp -a "$BATS_FILE_TMPDIR/tree" "$BATS_TEST_TMPDIR/tree"
	ROOT=$BATS_TEST_TMPDIR/tree
	D=$ROOT/lib/modules/6.1.0-sim
	# The private view of a directory goes here: each test checks it is gone.
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
	# What the tools are asked, as indexflip.pl runs it.
	cat >"$BATS_TEST_TMPDIR/ask.sh" <<ASK
"$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends -a mt_net mt_snd mtfs_tools mtblock \
	symbol:mt_core_fn 'pci:v00001234d00005678sv1sd2bc3sc4i5' fs-mtfs; echo status=\$?
"$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd mtblock mt_core mt_dash; echo status=\$?
ASK
}

teardown() {
	run ls -A "$TMPDIR"
	assert_output ''
}

ask() { on_kernel sh "$BATS_TEST_TMPDIR/ask.sh"; }

# Byte $2 of file $1 gets value $3 (octal escape for printf).
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

@test "the indexes depmod writes pass: no warning, the answer is the intact one" {
	run --separate-stderr ask
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $D/kernel/lib/mt_core.ko.zst "
	assert_line "$D/kernel/sound/mt_snd.ko.xz"
	refute_line --partial "status=1"
}

@test "a corrupt modules.dep.bin is named once per tool and read as missing" {
	mv "$D/modules.dep.bin" "$BATS_TEST_TMPDIR/dep.bin"
	run --separate-stderr ask
	local missing_out=$output missing_err=$stderr
	cp "$BATS_TEST_TMPDIR/dep.bin" "$D/modules.dep.bin"
	poke "$D/modules.dep.bin" 11 '\377'
	run --separate-stderr ask
	assert_equal "$output" "$missing_out"
	assert_equal "$(grep -v WARNING <<<"$stderr")" "$missing_err"
	assert_equal "${stderr_lines[0]}" "modprobe: WARNING: $D/modules.dep.bin is corrupt: read as missing (run depmod)"
	assert_equal "${stderr_lines[1]}" "modprobe: ERROR: Module mt_net not found in directory $D"
	run grep -c "WARNING: $D/modules.dep.bin is corrupt: read as missing (run depmod)" <<<"$stderr"
	assert_output 2
}

@test "a corrupt modules.alias.bin leaves names working, and paths are the real directory's" {
	poke "$D/modules.alias.bin" 8 '\001'
	run --separate-stderr on_kernel "$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends mt_net
	assert_success
	assert_equal "$stderr" "modprobe: WARNING: $D/modules.alias.bin is corrupt: read as missing (run depmod)"
	assert_line --index 2 "insmod $D/kernel/drivers/mt_net.ko "
	run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
	assert_success
	assert_output "$D/kernel/sound/mt_snd.ko.xz"
}

@test "an index that is a FIFO or a directory is refused, not waited on" {
	rm "$D/modules.symbols.bin"
	mkfifo "$D/modules.symbols.bin"
	rm "$D/modules.builtin.bin"
	mkdir "$D/modules.builtin.bin"
	run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends mt_net
	assert_success
	assert_line --index 2 "insmod $D/kernel/drivers/mt_net.ko "
	assert_equal "${stderr_lines[0]}" "modprobe: WARNING: $D/modules.symbols.bin is corrupt: read as missing (run depmod)"
	assert_equal "${stderr_lines[1]}" "modprobe: WARNING: $D/modules.builtin.bin is corrupt: read as missing (run depmod)"
}

@test "an index larger than any depmod writes is refused without being read" {
	truncate -s 65M "$D/modules.alias.bin"
	run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
	assert_success
	assert_equal "$stderr" "modinfo: WARNING: $D/modules.alias.bin is larger than any index depmod writes: read as missing (run depmod)"
}

# INDEX_FLIP_STRIDE=1 flips every bit (12,372 flips, about 15 minutes
# here); the default flips every 31st bit of each index (about 400 flips),
# a different phase per file.
@test "single-bit flips of every index: no crash, no hang; rejected ones answer as if missing" {
	run "$top_srcdir/tests/helpers/indexflip.pl" "$D" "${INDEX_FLIP_STRIDE:-31}" 20 $INDEXES \
		-- "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask.sh"
	echo "$output" >&3
	assert_success
	assert_line --partial "total: "
}

@test "an empty index (kmod's own test trees have them) is no index to libkmod: no warning" {
	: >"$D/modules.builtin.bin"
	run --separate-stderr on_kernel "$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends mt_net
	assert_success
	assert_equal "$stderr" ''
	assert_line --index 2 "insmod $D/kernel/drivers/mt_net.ko "
}
