#!/usr/bin/env bats
# The one in-use rule (lib/inuse.c) held alike by its three readers:
# rmmod --unused, modprobe -r and lsmod's INUSE column see the same mounts
# (every provider of a type, subtypes, fs- patterns), the same stock
# references, and fail closed alike on each input that cannot be read.
# Each reader's own tests: rmmod-unused.bats, modprobe-remove.bats,
# lsmod-inuse.bats.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

# The tree of modtree.spec with mt_extra given one more alias ($1), indexed
# by depmod as the rest: its text and binary index agree.
extra_alias_tree() {
	local spec=$BATS_TEST_TMPDIR/modtree.spec
	sed "s/^\(kernel\/sound\/mt_extra\.ko .*\)\$/\1 | alias=$1/" "$top_srcdir/tests/fixtures/modtree.spec" >"$spec"
	grep -q "alias=$1" "$spec"
	rm -rf "$K/root/lib" && "$MODTREE" --spec "$spec" "$K/root" >/dev/null 2>&1
}

@test "every provider of a mounted type is in use, not only the first in modules.alias" {
	extra_alias_tree fs-mtfs
	grep -qx 'alias fs-mtfs mt_extra' "$K/root/lib/modules/6.1.0-sim/modules.alias"
	kmod_probe mtfs
	kmod_probe mt_extra
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_line 'mt_extra 1 true'
	assert_line 'mtfs 1 true'
	local before
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" -b --unused
	assert_success
	assert_output "unloaded 0 unused modules; 0 bytes now rot"
	assert_equal "$(kernel_state)" "$before"
}

@test "stock: a mount is a reference, and the rule sees it the same" {
	MODE=stock setup
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	run on_kernel "$LSMOD" -r -n -o name,refcnt,mounts,inuse
	assert_line 'mtfs 1 1 true'
	run on_kernel "$RMMOD" --unused
	assert_output "unloaded 0 unused modules"
	is_live mtfs
}

MT=/lib/modules/6.1.0-sim

# Runs each of the rule's three readers on a fresh kernel with mtfs_tools
# (so mtfs and mt_fscore) loaded and mtfs mounted, after `spoil_with CMD`
# (eval'd, K and M set), and checks each fails closed: its own message
# naming the input (WANT, a regex), exit 1, the kernel unchanged.
fails_closed_after() {
	local spoil=$1 want=$2 tool before M level
	for tool in rmmod modprobe lsmod; do
		kernel_new rot
		modtree_install
		M=$K/root$MT
		kmod_probe mtfs_tools
		"$SIM" mount "$K" mtfs /dev/vdb /srv
		eval "$spoil"
		before=$(kernel_state)
		case $tool in
		rmmod) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$RMMOD" --unused ;;
		modprobe) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mtfs_tools ;;
		lsmod) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$LSMOD" -o name,inuse ;;
		esac
		# modprobe warns first of the binary index it reads as missing,
		# and says FATAL of a name it must stop at, as kmod's does
		level=ERROR
		[ "$tool" != modprobe ] || level=FATAL
		if [ "$status" -ne 1 ] || ! [[ "${stderr##*$'\n'}" =~ ^$tool:\ $level:\ .*$want ]] ||
			[ "$(kernel_state)" != "$before" ] || [[ "$output" == *false* ]]; then
			echo "$tool after '$spoil': exit $status (want 1)"
			echo "  stderr: $stderr"
			echo "  want:   $want"
			return 1
		fi
	done
}

@test "a mount table that reads but cannot be the kernel's (empty, a NUL, a line without a type) fails closed" {
	local why='could not read /proc/self/mounts: malformed \(empty, a NUL byte, or a line without a type\)'
	fails_closed_after ': >"$K/root/proc/self/mounts"' "$why"
	fails_closed_after 'printf "proc /proc proc rw 0 0\n\0/dev/vdb /srv mtfs rw 0 0\n" >"$K/root/proc/self/mounts"' "$why"
	fails_closed_after 'printf "proc /proc proc rw 0 0\n/dev/vdb /srv\n" >"$K/root/proc/self/mounts"' "$why"
}

@test "a text modules.alias its binary index does not confirm (emptied, cut short, other text) fails closed" {
	local why="could not read $MT/modules.alias: not what its binary index holds \\(run depmod\\)"
	fails_closed_after ': >"$M/modules.alias"' "$why"
	fails_closed_after 'head -c 40 "$M/modules.alias" >"$M/a" && mv "$M/a" "$M/modules.alias"' "$why"
	fails_closed_after 'grep -v "^alias fs-mtfs " "$M/modules.alias" >"$M/a" && mv "$M/a" "$M/modules.alias"' "$why"
	fails_closed_after ': >"$M/modules.alias.bin"' "$why"
	fails_closed_after 'printf "alias fs-mtfs mtfs\n\0" >>"$M/modules.alias"' 'malformed'
}

@test "a driver entry that stays but is no directory (a file, a FIFO, a dangling link) fails closed" {
	local kind d before tool level
	for kind in file fifo dangling; do
		for tool in rmmod modprobe lsmod; do
			kernel_new rot
			modtree_install
			kmod_probe mt_codec
			d=$K/root/sys/module/mt_codec/drivers/platform:mt_codec
			rm "$d"
			case $kind in
			file) echo x >"$d" ;;
			fifo) mkfifo "$d" ;;
			dangling) ln -s /nonexistent "$d" ;;
			esac
			before=$(kernel_state)
			case $tool in
			rmmod) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$RMMOD" --unused ;;
			modprobe) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mt_codec ;;
			lsmod) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$LSMOD" -o name,devices,inuse ;;
			esac
			level=ERROR
			[ "$tool" != modprobe ] || level=FATAL
			if [ "$status" -ne 1 ] || ! [[ "$stderr" == "$tool: $level: "*"mt_codec"*"Not a directory"* ]] ||
				[ "$(kernel_state)" != "$before" ]; then
				echo "$tool, entry a $kind: exit $status (want 1)"
				echo "  stderr: $stderr"
				return 1
			fi
		done
	done
}

@test "a mount with a subtype (mtfs.sub, as fuse.sshfs) is a mount of its type: the provider stays" {
	local f tool
	for tool in rmmod modprobe lsmod; do
		kernel_new rot
		modtree_install
		kmod_probe mtfs_tools
		for f in "$K/root/proc/mounts" "$K/root/proc/self/mounts"; do
			echo 'srv:/x /srv mtfs.sub rw,relatime 0 0' >>"$f"
		done
		case $tool in
		rmmod)
			run on_kernel "$RMMOD" --unused
			assert_success
			assert_output --regexp '^unloaded 1 unused module; '
			;;
		modprobe)
			run on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs_tools
			assert_success
			;;
		lsmod)
			run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
			assert_success
			assert_line 'mtfs 1 true'
			continue
			;;
		esac
		run is_live mtfs_tools
		assert_failure
		is_live mtfs
		is_live mt_fscore
	done
}

@test "an fs- alias that is a pattern (fs-mt[f]s) provides what it matches, as modprobe resolves it" {
	extra_alias_tree 'fs-mt[f]s'
	kmod_probe mtfs
	kmod_probe mt_extra
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_success
	assert_line 'mt_extra 1 true'
	local before
	before=$(kernel_state)
	run on_kernel "$RMMOD" -b --unused
	assert_success
	assert_output "unloaded 0 unused modules; 0 bytes now rot"
	run on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mt_extra
	assert_failure 1
	assert_output "modprobe: FATAL: Module mt_extra is in use: a mtfs file system is mounted on /srv."
	assert_equal "$(kernel_state)" "$before"
}

@test "modprobe -r and lsmod fail closed as rmmod --unused does on each input missing, a directory, a FIFO, endless or too big" {
	local input kind
	for input in /proc/self/mounts "$MT/modules.alias"; do
		for kind in missing dir fifo zero huge; do
			fails_closed_after "spoil \"\$K/root$input\" $kind" "could not read $input: $(reason_of "$kind")"
		done
	done
}
