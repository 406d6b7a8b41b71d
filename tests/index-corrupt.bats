#!/usr/bin/env bats
# Corrupt binary indexes (modules.dep.bin and the four others libkmod
# opens): against a libkmod older than 34, which trusts every offset in
# them, each is checked before libkmod reads it (lib/modindex.c). A run
# that looks names up refuses an index that fails: one error line naming
# the file and telling to run depmod, exit 1, nothing changed in the
# kernel, never a crash or a hang. A run given module files reads no index
# and is not stopped by one.

load helpers/tools

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
	# Nothing of a run may stay behind in $TMPDIR: each test checks it.
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

# The check exists only against a libkmod older than 34 (configure.ac):
# with a newer one there is nothing of modrot's to test here.
needs_check() {
	if pkg-config --atleast-version=34 libkmod; then
		skip "libkmod $(pkg-config --modversion libkmod) reads damaged indexes itself: no check built"
	fi
}

# What refused() runs its command under: nothing, or (below) as root
# without the right to read what a file's mode forbids.
AS=()

# An index image: header (magic, version 2.1, root) then the bytes given,
# from pack() arguments. Flags: 0x80000000 prefix, 0x40000000 values,
# 0x20000000 children.
index_image() { perl -e 'print pack("NNN", 0xB007F457, 0x00020001, shift @ARGV), pack(shift @ARGV, @ARGV)' "$@"; }

# Replaces index $2 in $D by damage $1; prints the reason the tools give.
spoil() {
	local kind=$1 index=$2 f=$D/$2 size
	size=$(stat -c %s "$f")
	case $kind in
	truncated) head -c $((size / 2)) "$f" >"$f.new" && mv "$f.new" "$f" ;;
	header-only) head -c 6 "$f" >"$f.new" && mv "$f.new" "$f" ;;
	magic) printf '\001' | dd of="$f" bs=1 seek=0 conv=notrunc status=none ;;
	version) printf '\003' | dd of="$f" bs=1 seek=5 conv=notrunc status=none ;;
	root-out-of-bounds) printf '\000\377\377\377' | dd of="$f" bs=1 seek=8 conv=notrunc status=none ;;
	trailing) printf 'x' >>"$f" ;;
	# a node that is its own child
	cycle) index_image $((0x20000000 | 12)) "CCN" 97 97 $((0x20000000 | 12)) >"$f" ;;
	# a leaf two children of the root share
	shared) index_image $((0x20000000 | 14)) "a2CCNN" x 97 98 $((0x80000000 | 12)) $((0x80000000 | 12)) >"$f" ;;
	child-out-of-bounds) index_image $((0x20000000 | 12)) "CCN" 97 97 $((0x80000000 | 0x0FFFFFF0)) >"$f" ;;
	unterminated) index_image $((0x80000000 | 12)) "a3" abc >"$f" ;;
	huge-count) index_image $((0x40000000 | 12)) "NNa2" 4294967295 0 v >"$f" ;;
	fifo) rm "$f" && mkfifo "$f" && echo "is not a regular file (run depmod)" && return ;;
	directory) rm "$f" && mkdir "$f" && echo "is not a regular file (run depmod)" && return ;;
	device) rm "$f" && ln -s /dev/zero "$f" && echo "is not a regular file (run depmod)" && return ;;
	too-large) truncate -s 65M "$f" && echo "is larger than any index depmod writes (run depmod)" && return ;;
	*) return 1 ;;
	esac
	echo "is corrupt (run depmod)"
}
KINDS="truncated header-only magic version root-out-of-bounds trailing cycle shared
	child-out-of-bounds unterminated huge-count fifo directory device too-large"

# Runs the tool given under a time bound on $K; asserts the one line
# "TOOL: ERROR: $D/INDEX WHY" (or the line given whole), exit 1, nothing
# on standard output and the kernel as it was.
refused() {
	local line=$1 before
	shift
	before=$(kernel_state)
	run --separate-stderr "${AS[@]}" timeout 20 "$SIM" run "$K" -- "$@"
	if [ "$status" -ne 1 ] || [ "$output" != '' ] || [ "$stderr" != "$line" ] ||
		[ "$(kernel_state)" != "$before" ]; then
		echo "$*: exit $status (want 1)"
		echo "  stdout: $output"
		echo "  stderr: $stderr"
		echo "  want:   $line"
		return 1
	fi
}

@test "the indexes depmod writes pass: no error, the answer is the intact one" {
	run --separate-stderr ask
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $D/kernel/lib/mt_core.ko.zst "
	assert_line "$D/kernel/sound/mt_snd.ko.xz"
	refute_line --partial "status=1"
}

@test "every damage to every index: modprobe and modinfo of a name refuse it in one line, exit 1, nothing changed" {
	needs_check
	local kind index why
	for index in $INDEXES; do
		for kind in $KINDS; do
			rm -rf "$ROOT" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
			why=$(spoil "$kind" "$index")
			refused "modprobe: ERROR: $D/$index $why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim mt_net
			refused "modprobe: ERROR: $D/$index $why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim -D mt_net
			refused "modinfo: ERROR: $D/$index $why" "$MODINFO" -b "$ROOT" -k 6.1.0-sim mt_snd
		done
	done
}

@test "an index damaged while modules are loaded: modprobe -r, -c and -R refuse it, nothing unloaded" {
	needs_check
	run on_kernel "$MODPROBE" -d "$ROOT" -S 6.1.0-sim mt_net
	assert_success
	run kernel_state
	assert_output --partial mt_net
	spoil cycle modules.dep.bin >/dev/null
	local why="modprobe: ERROR: $D/modules.dep.bin is corrupt (run depmod)"
	refused "$why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim -r mt_net
	refused "$why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim -c
	refused "$why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim -R mt_net
	refused "$why" "$MODPROBE" -d "$ROOT" -S 6.1.0-sim -q mt_snd
}

@test "an index this user cannot read, or a link loop in its place, is refused with the reason" {
	needs_check
	chmod 000 "$D/modules.alias.bin"
	AS=(setpriv --bounding-set=-dac_override,-dac_read_search --)
	refused "modinfo: ERROR: could not read $D/modules.alias.bin: Permission denied" \
		"$MODINFO" -b "$ROOT" -k 6.1.0-sim mt_snd
	AS=()
	chmod 644 "$D/modules.alias.bin"
	rm "$D/modules.symbols.bin"
	ln -s modules.symbols.bin "$D/modules.symbols.bin"
	refused "modprobe: ERROR: could not read $D/modules.symbols.bin: Too many levels of symbolic links" \
		"$MODPROBE" -d "$ROOT" -S 6.1.0-sim -D mt_net
}

@test "module files need no index: modinfo FILE and --show-exports FILE work beside a corrupt one" {
	local kind
	for kind in cycle fifo; do
		rm -rf "$ROOT" && cp -a "$BATS_FILE_TMPDIR/tree" "$ROOT"
		spoil $kind modules.dep.bin >/dev/null
		run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODINFO" -b "$ROOT" -k 6.1.0-sim \
			-F filename "$D/kernel/sound/mt_snd.ko.xz"
		assert_success
		assert_equal "$stderr" ''
		assert_output "$D/kernel/sound/mt_snd.ko.xz"
		run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -d "$ROOT" -S 6.1.0-sim \
			--show-exports "$D/kernel/lib/mt_core.ko.zst"
		assert_success
		assert_equal "$stderr" ''
		assert_output --partial mt_core_fn
	done
}

@test "an empty or absent index is no index to libkmod: no error" {
	: >"$D/modules.builtin.bin"
	rm "$D/modules.builtin.alias.bin"
	run --separate-stderr on_kernel "$MODPROBE" -d "$ROOT" -S 6.1.0-sim --show-depends mt_net
	assert_success
	assert_equal "$stderr" ''
	assert_line --index 2 "insmod $D/kernel/drivers/mt_net.ko "
}

# INDEX_FLIP_STRIDE=1 flips every bit (about 15 minutes here); the default
# flips every 31st bit of each index (about 400 flips), a different phase
# per file.
@test "single-bit flips of every index: no crash, no hang; a refused one is one line and exit 1" {
	needs_check
	run "$top_srcdir/tests/helpers/indexflip.pl" "$D" "${INDEX_FLIP_STRIDE:-31}" 20 $INDEXES \
		-- "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask.sh"
	echo "$output" >&3
	assert_success
	assert_line --regexp '^total: [1-9][0-9]* flips, [1-9][0-9]* refused, [0-9]+ accepted, 0 failures$'
}

# The verdicts of lib/indexcache.c: stat(2) of the five indexes, in a file
# the user owns. The check reads each index whole; a kept verdict reads none.
indexes_read() {
	on_kernel_traced -f -qq -e trace=openat -o "$BATS_TEST_TMPDIR/trace" "$MODINFO" \
		-b "$ROOT" -k 6.1.0-sim -F filename mt_snd >/dev/null 2>&1
	grep -c 'modules\.dep\.bin".*O_NONBLOCK' "$BATS_TEST_TMPDIR/trace" || true
}

@test "a directory that passed is checked once, until any index changes: a verdict file per directory" {
	needs_check
	export MODROT_INDEX_CACHE=$BATS_TEST_TMPDIR/cache
	# Files written within two seconds of a check keep no verdict: their
	# times may not tell the next write.
	run indexes_read
	assert_output 1
	assert_not_exist "$MODROT_INDEX_CACHE"
	sleep 3
	run indexes_read
	assert_output 1
	run ls -A "$MODROT_INDEX_CACHE"
	assert_output --regexp '^index-[0-9a-f]{16}$'
	run stat -c %a "$MODROT_INDEX_CACHE" "$MODROT_INDEX_CACHE/$output"
	assert_output $'700\n600'
	# Kept: no index is checked, and the answer is the intact one.
	run indexes_read
	assert_output 0
	run --separate-stderr ask
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $D/kernel/lib/mt_core.ko.zst "
	# Damaged with its modification time put back: the change time still
	# tells, and the index is checked and refused.
	touch -r "$D/modules.alias.bin" "$BATS_TEST_TMPDIR/stamp"
	spoil version modules.alias.bin >/dev/null
	touch -r "$BATS_TEST_TMPDIR/stamp" "$D/modules.alias.bin"
	refused "modinfo: ERROR: $D/modules.alias.bin is corrupt (run depmod)" \
		"$MODINFO" -b "$ROOT" -k 6.1.0-sim mt_snd
	# A refused directory keeps no verdict, however old its files.
	sleep 3
	refused "modinfo: ERROR: $D/modules.alias.bin is corrupt (run depmod)" \
		"$MODINFO" -b "$ROOT" -k 6.1.0-sim mt_snd
	run indexes_read
	assert_output 1
}

@test "a verdict file others could have written is not trusted, and MODROT_INDEX_CACHE= keeps none" {
	needs_check
	export MODROT_INDEX_CACHE=$BATS_TEST_TMPDIR/cache
	sleep 3
	run indexes_read
	assert_output 1
	local verdict
	verdict=$(ls "$MODROT_INDEX_CACHE"/index-*)
	chmod 0622 "$verdict"
	run indexes_read
	assert_output 1
	chmod 0600 "$verdict"
	chown nobody "$verdict"
	run indexes_read
	assert_output 1
	# Garbage of the right size is a verdict that matches nothing.
	rm -f "$verdict"
	head -c 376 /dev/zero >"$verdict"
	chmod 0600 "$verdict"
	run indexes_read
	assert_output 1
	# Rewritten by that run: kept again.
	run indexes_read
	assert_output 0
	# A directory others can write is not used.
	rm -rf "$MODROT_INDEX_CACHE" && mkdir -m 0777 "$MODROT_INDEX_CACHE"
	run indexes_read
	assert_output 1
	run ls -A "$MODROT_INDEX_CACHE"
	assert_output ''
	export MODROT_INDEX_CACHE=
	run indexes_read
	assert_output 1
	run indexes_read
	assert_output 1
}
