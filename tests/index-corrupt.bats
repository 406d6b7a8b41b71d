#!/usr/bin/env bats
# Corrupt binary indexes (modules.dep.bin and the four others libkmod 30
# opens): each is checked before libkmod reads it, as a file and against
# the text file depmod wrote beside it; one that fails is named in one
# warning line and read as missing, so the answer is the one libkmod gives
# without it. No bit flipped crashes or hangs a tool, or changes its answer.

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
	assert_equal "$(grep -v "WARNING: .* read as missing (run depmod)$" <<<"$stderr")" "$missing_err"
	assert_equal "${stderr_lines[0]}" "modprobe: WARNING: $D/modules.dep.bin is corrupt: read as missing (run depmod)"
	assert_equal "${stderr_lines[1]}" "modprobe: WARNING: Module mt_net not found in directory $D"
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
@test "single-bit flips of every index: no crash, no hang, no other answer; rejected ones answer as if missing" {
	run "$top_srcdir/tests/helpers/indexflip.pl" "$D" "${INDEX_FLIP_STRIDE:-31}" 20 $INDEXES \
		-- "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask.sh"
	echo "$output" >&3
	assert_success
	assert_line --regexp '^total: [1-9][0-9]* flips, [0-9]+ rejected, [0-9]+ accepted, 0 accepted with another answer, 0 failures$'
}

# The text file each index is made from, and a line depmod would have
# written there had the tree held one more module, alias, symbol or
# built-in module.
text_of() {
	case $1 in
	modules.dep.bin) echo "modules.dep kernel/misc/mt_more.ko:" ;;
	modules.alias.bin) echo "modules.alias alias mt-more-alias mt_inst" ;;
	modules.symbols.bin) echo "modules.symbols alias symbol:mt_more_fn mt_inst" ;;
	modules.builtin.bin) echo "modules.builtin kernel/misc/mt_more.ko" ;;
	modules.builtin.alias.bin) echo "modules.builtin.modinfo mt_more.alias=mt-more" ;;
	esac
}

@test "a well-formed index with another key than its text file says is named and read as missing" {
	mv "$D/modules.alias.bin" "$BATS_TEST_TMPDIR/alias.bin"
	run --separate-stderr ask
	local missing_out=$output missing_err=$stderr
	cp "$BATS_TEST_TMPDIR/alias.bin" "$D/modules.alias.bin"
	# platform:mt_codec -> platform:mt_codex: the trie stays well-formed
	# (the string is one node's prefix), the key is another.
	local at
	at=$(grep -obUa 'atform:mt_codec' "$D/modules.alias.bin" | cut -d: -f1)
	[ -n "$at" ]
	poke "$D/modules.alias.bin" $((at + 14)) 'x'
	run --separate-stderr ask
	assert_equal "$output" "$missing_out"
	assert_equal "$(grep -v "WARNING: .* read as missing (run depmod)$" <<<"$stderr")" "$missing_err"
	assert_equal "${stderr_lines[0]}" "modprobe: WARNING: $D/modules.alias.bin does not match modules.alias: read as missing (run depmod)"
	run grep -c "WARNING: $D/modules.alias.bin does not match modules.alias: read as missing" <<<"$stderr"
	assert_output 2
}

@test "each index whose text file says more than it holds is named, alone" {
	for index in $INDEXES; do
		rm -rf "$ROOT" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
		read -r text line < <(text_of "$index")
		if [ "$text" = modules.builtin.modinfo ]; then
			printf '%s\0' "$line" >>"$D/$text"
		else
			printf '%s\n' "$line" >>"$D/$text"
		fi
		run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
		assert_equal "${stderr_lines[0]}" "modinfo: WARNING: $D/$index does not match $text: read as missing (run depmod)"
		run grep -c WARNING <<<"$stderr"
		assert_output 1
		if [ "$index" = modules.dep.bin ]; then
			# Without modules.dep.bin, no name is found.
			run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
			assert_failure
			assert_equal "${stderr_lines[1]}" "modinfo: ERROR: module or alias 'mt_snd' not found in $D"
		else
			run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
			assert_success
			assert_output "$D/kernel/sound/mt_snd.ko.xz"
		fi
	done
}

@test "an index whose text file is missing, or not a regular file, cannot be confirmed: named, read as missing, not waited on" {
	for index in modules.alias.bin modules.symbols.bin modules.builtin.bin modules.builtin.alias.bin; do
		rm -rf "$ROOT" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
		read -r text line < <(text_of "$index")
		rm "$D/$text"
		run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
		assert_success
		assert_equal "$stderr" "modinfo: WARNING: $D/$index cannot be checked: $text: No such file or directory: read as missing (run depmod)"
		mkfifo "$D/$text"
		run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
		assert_success
		assert_equal "$stderr" "modinfo: WARNING: $D/$index cannot be checked: $text is not a regular file: read as missing (run depmod)"
	done
	# The module order of modules.alias and modules.symbols is modules.dep's.
	rm -rf "$ROOT" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
	rm "$D/modules.dep"
	run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
	assert_failure
	assert_equal "${stderr_lines[0]}" "modinfo: WARNING: $D/modules.dep.bin cannot be checked: modules.dep: No such file or directory: read as missing (run depmod)"
	assert_equal "${stderr_lines[1]}" "modinfo: WARNING: $D/modules.alias.bin cannot be checked: modules.dep: No such file or directory: read as missing (run depmod)"
	assert_equal "${stderr_lines[2]}" "modinfo: WARNING: $D/modules.symbols.bin cannot be checked: modules.dep: No such file or directory: read as missing (run depmod)"
	assert_equal "${stderr_lines[3]}" "modinfo: ERROR: module or alias 'mt_snd' not found in $D"
}

@test "a text file newer than its index, with the same entries, is no reason to refuse the index" {
	# a second newer than the index, whatever the clock's granularity
	touch -d "@$(($(stat -c %Y "$D/modules.dep.bin") + 1))" \
		"$D/modules.dep" "$D/modules.alias" "$D/modules.symbols" "$D/modules.builtin" "$D/modules.builtin.modinfo"
	run --separate-stderr ask
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $D/kernel/lib/mt_core.ko.zst "
	refute_line --partial "status=1"
}

@test "an empty index (kmod's own test trees have them) is no index to libkmod: no warning" {
	: >"$D/modules.builtin.bin"
	run --separate-stderr on_kernel "$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends mt_net
	assert_success
	assert_equal "$stderr" ''
	assert_line --index 2 "insmod $D/kernel/drivers/mt_net.ko "
}

# The texts modrot itself opens to check the indexes (libkmod reads only the
# .bin files and modules.softdep): one is opened exactly when the check runs.
texts_opened() {
	on_kernel strace -f -qq -e trace=openat,open -o "$BATS_TEST_TMPDIR/trace" "$MODINFO" \
		-b "$ROOT" -k 6.1.0-sim -F filename mt_snd >/dev/null 2>&1
	grep -cE '/modules\.(alias|symbols|builtin\.modinfo)"' "$BATS_TEST_TMPDIR/trace" || true
}

@test "a directory that passed is checked once, until any of its ten files changes: a verdict file per directory" {
	export MODROT_INDEX_CACHE=$BATS_TEST_TMPDIR/cache
	# Files written within two seconds of a check keep no verdict: their
	# times may not tell the next write.
	run texts_opened
	assert_output 3
	assert_not_exist "$MODROT_INDEX_CACHE"
	sleep 3
	run texts_opened
	assert_output 3
	run ls -A "$MODROT_INDEX_CACHE"
	assert_output --regexp '^index-[0-9a-f]{16}$'
	run stat -c %a "$MODROT_INDEX_CACHE" "$MODROT_INDEX_CACHE/$output"
	assert_output $'700\n600'
	# Kept: no text is read, and the answer is the intact one.
	run texts_opened
	assert_output 0
	run --separate-stderr ask
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $D/kernel/lib/mt_core.ko.zst "
	assert_line "$D/kernel/sound/mt_snd.ko.xz"
	# A key flipped, its modification time put back: the change time
	# still tells, and the index is checked and refused.
	local at
	at=$(grep -obUa 'atform:mt_codec' "$D/modules.alias.bin" | cut -d: -f1)
	[ -n "$at" ]
	touch -r "$D/modules.alias.bin" "$BATS_TEST_TMPDIR/stamp"
	poke "$D/modules.alias.bin" $((at + 14)) 'x'
	touch -r "$BATS_TEST_TMPDIR/stamp" "$D/modules.alias.bin"
	run --separate-stderr ask
	assert_equal "${stderr_lines[0]}" "modprobe: WARNING: $D/modules.alias.bin does not match modules.alias: read as missing (run depmod)"
	# A refused directory keeps no verdict, however old its files.
	sleep 3
	run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
	assert_equal "$stderr" "modinfo: WARNING: $D/modules.alias.bin does not match modules.alias: read as missing (run depmod)"
	run texts_opened
	assert_output 3
	# A text changed (one line more) is a change too.
	rm -rf "$ROOT" "$MODROT_INDEX_CACHE" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
	sleep 3
	run texts_opened
	assert_output 3
	run texts_opened
	assert_output 0
	printf '%s\n' "alias mt-more-alias mt_inst" >>"$D/modules.alias"
	run --separate-stderr on_kernel "$MODINFO" -b "$ROOT" -k 6.1.0-sim -F filename mt_snd
	assert_success
	assert_equal "$stderr" "modinfo: WARNING: $D/modules.alias.bin does not match modules.alias: read as missing (run depmod)"
}

@test "a verdict file others could have written is not trusted, and MODROT_INDEX_CACHE= keeps none" {
	export MODROT_INDEX_CACHE=$BATS_TEST_TMPDIR/cache
	sleep 3
	run texts_opened
	assert_output 3
	local verdict
	verdict=$(ls "$MODROT_INDEX_CACHE"/index-*)
	chmod 0622 "$verdict"
	run texts_opened
	assert_output 3
	chmod 0600 "$verdict"
	chown nobody "$verdict"
	run texts_opened
	assert_output 3
	# Garbage of the right size is a verdict that matches nothing.
	rm -f "$verdict"
	head -c 736 /dev/zero >"$verdict"
	chmod 0600 "$verdict"
	run texts_opened
	assert_output 3
	# Rewritten by that run: kept again.
	run texts_opened
	assert_output 0
	# A directory others can write is not used.
	rm -rf "$MODROT_INDEX_CACHE" && mkdir -m 0777 "$MODROT_INDEX_CACHE"
	run texts_opened
	assert_output 3
	run ls -A "$MODROT_INDEX_CACHE"
	assert_output ''
	export MODROT_INDEX_CACHE=
	run texts_opened
	assert_output 3
	run texts_opened
	assert_output 3
}
