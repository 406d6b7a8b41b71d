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
	# a stock kernel counts its users: no mount table is read (MOUNTS unknown)
	run on_kernel "$LSMOD" -r -n -o name,refcnt,mounts,inuse
	assert_line 'mtfs 1 - true'
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
		kernel_new rot --abi 3
		modtree_install
		M=$K/root$MT
		kmod_probe mtfs_tools
		"$SIM" mount "$K" mtfs /dev/vdb /srv
		eval "$spoil"
		before=$(kernel_state)
		case $tool in
		rmmod) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$RMMOD" --unused ;;
		# mtfs provides the type: its judgement needs every input (mtfs_tools
		# provides none, and is judged without a mount table: tools-rev4.bats)
		modprobe) run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mtfs ;;
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

@test "a driver entry that stays but is no directory (a file, a FIFO, a dangling link) fails closed for its module" {
	local kind d before tool level want
	for kind in file fifo dangling; do
		for tool in rmmod modprobe lsmod; do
			kernel_new rot --abi 3
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
			level=ERROR want=1
			[ "$tool" != modprobe ] || level=FATAL
			# rmmod --unused keeps that module alone, and says so.
			[ "$tool" != rmmod ] || { level="WARNING: kept 'mt_codec'" want=0; }
			if [ "$status" -ne "$want" ] || ! [[ "$stderr" == "$tool: $level"*"mt_codec"*"Not a directory"* ]] ||
				[ "$(kernel_state)" != "$before" ]; then
				echo "$tool, entry a $kind: exit $status (want $want)"
				echo "  stderr: $stderr"
				return 1
			fi
		done
	done
}

@test "a mount with a subtype (mtfs.sub, as fuse.sshfs) is a mount of its type: the provider stays" {
	local f tool
	for tool in rmmod modprobe lsmod; do
		kernel_new rot --abi 3
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

# ---- mounts in other mount namespaces (lib/mntns.c) ----
# A container, a service with PrivateMounts= or an `unshare -m` shell has
# mounts no /proc/self/mounts shows: the rule reads /proc/PID/mounts of one
# process per namespace (simkernel process, tests/simkernel/README.md).

# mtfs_tools (so mtfs and mt_fscore) loaded; process 4242 in namespace
# "ctr", where mtfs is mounted on /srv, and nowhere else.
mounted_in_container() {
	kmod_probe mtfs_tools
	"$SIM" process "$K" 4242 --ns ctr
	"$SIM" mount "$K" --ns ctr mtfs /dev/vdb /srv
	run on_kernel cat /proc/self/mounts
	refute_output --partial mtfs
}

@test "a file system mounted only in another mount namespace keeps its provider in use: lsmod, rmmod --unused, modprobe -r" {
	mounted_in_container
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_success
	assert_output "mtfs_tools 0 false
mtfs 1 true
mt_fscore 0 true"
	run on_kernel "$RMMOD" -b --unused
	assert_success
	assert_output "unloaded 1 unused module; 1920 bytes now rot"
	is_live mtfs
	is_live mt_fscore
	local before
	before=$(kernel_state)
	run on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_output "modprobe: FATAL: Module mtfs is in use: a mtfs file system is mounted on /srv in the mount namespace of process 4242."
	assert_equal "$(kernel_state)" "$before"
	# kmod's modprobe reads the reference count, which a rot kernel keeps at 0
	"$SIM" umount "$K" --ns ctr /srv
	run on_kernel "$RMMOD" --unused
	assert_success
	run is_live mtfs
	assert_failure
}

@test "stock: a mount in another namespace is a reference too; the rule and the count agree" {
	MODE=stock setup
	mounted_in_container
	run on_kernel "$LSMOD" -r -n -o name,refcnt,mounts,inuse
	assert_line 'mtfs 2 - true'
	local before
	before=$(kernel_state)
	run on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_output "modprobe: FATAL: Module mtfs is in use."
	run on_kernel "$RMMOD" --unused
	assert_output "unloaded 1 unused module"
	is_live mtfs
}

@test "each mount namespace is read once, through its first process: the others of it are not opened" {
	mounted_in_container
	"$SIM" process "$K" 4243 --ns ctr
	"$SIM" process "$K" 4244 --ns other
	"$SIM" process "$K" 4245
	local log=$BATS_TEST_TMPDIR/strace
	run on_kernel_traced -f -qq -e trace=openat,open,readlink -o "$log" "$LSMOD" -r -n -o name,inuse
	assert_success
	assert_line 'mtfs true'
	# one readlink per process, one table per namespace: self's (the
	# initial one, which 4245 shares), ctr's through 4242, other's through
	# 4244; each process whose table was read has its link read again
	# after it (its PID may have gone to another process in between)
	run grep -c 'readlink(".*/proc/\(self\|[0-9]*\)/ns/mnt"' "$log"
	assert_output 7
	run grep -o 'open[a-z]*(.*/proc/[a-z0-9]*/mounts"' "$log"
	assert_output --regexp '/proc/self/mounts"
.*/proc/4242/mounts"
.*/proc/4244/mounts"$'
	assert_equal "${#lines[@]}" 3
}

@test "the others of a namespace are not read even when they could not be (the first one stands for it)" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	mounted_in_container
	"$SIM" process "$K" 4243 --ns ctr
	chmod 000 "$K/root/proc/4243/mounts"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$LSMOD" -r -n -o name,inuse
	assert_success
	assert_line 'mtfs true'
}

@test "a process that exits during the scan is passed over; the next one of its namespace stands in" {
	mounted_in_container
	# 4242, ctr's first, exits between its link and its table; 4243
	# (ctr too) is read instead. 4240 and 4241 exit at the other two
	# moments, the only processes of namespaces of their own.
	"$SIM" process "$K" 4243 --ns ctr
	"$SIM" process "$K" 4242 --ns ctr --exiting mounts
	"$SIM" process "$K" 4240 --ns gone1 --exiting link
	"$SIM" process "$K" 4241 --ns gone2 --exiting empty
	"$SIM" mount "$K" --ns gone2 mtfs /dev/vdc /x
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_success
	assert_line 'mtfs 1 true'
	on_kernel "$RMMOD" mtfs_tools
	run on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_output "modprobe: FATAL: Module mtfs is in use: a mtfs file system is mounted on /srv in the mount namespace of process 4243."
	# with 4243 gone too, ctr has nobody left: its mount keeps nothing
	"$SIM" process "$K" 4243 --exit
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_success
	assert_line 'mtfs 0 false'
}

# Spoils process 4242's entry (namespace ctr, mtfs mounted there) as $1
# says; the message's input and reason are $2.
spoil_process() {
	local p=$K/root/proc/4242
	case $1 in
	mounts-dir) rm "$p/mounts" && mkdir "$p/mounts" ;;
	mounts-fifo) rm "$p/mounts" && mkfifo "$p/mounts" ;;
	mounts-notype) echo '/dev/vdb /srv' >>"$p/mounts" ;;
	mounts-nul) printf 'x /y mtfs rw 0 0\n\0' >>"$p/mounts" ;;
	mounts-blank) printf '\n\n' >"$p/mounts" ;;
	link-net) ln -sfn 'net:[4026532201]' "$p/ns/mnt" ;;
	link-dir) rm "$p/ns/mnt" && mkdir "$p/ns/mnt" ;;
	esac
}

@test "a namespace whose table or link cannot be read fails closed: rmmod --unused, modprobe -r and lsmod name it, nothing changes" {
	local kind want
	for kind in mounts-dir mounts-fifo mounts-notype mounts-nul mounts-blank link-net link-dir; do
		case $kind in
		mounts-dir) want='could not read /proc/4242/mounts: Is a directory' ;;
		mounts-fifo) want='could not read /proc/4242/mounts: not a regular file' ;;
		mounts-notype | mounts-nul | mounts-blank) want='could not read /proc/4242/mounts: malformed \(empty, a NUL byte, or a line without a type\)' ;;
		link-net) want='could not read /proc/4242/ns/mnt: names no mount namespace \(not mnt:\[INODE\]\)' ;;
		link-dir) want='could not read /proc/4242/ns/mnt: names no mount namespace \(not mnt:\[INODE\]\)' ;;
		esac
		fails_closed_after '"$SIM" process "$K" 4242 --ns ctr && "$SIM" mount "$K" --ns ctr mtfs /dev/vdc /x && spoil_process '"$kind" "$want"
	done
}

@test "a process whose namespace link is not ours to read (EACCES) is read through its table; the same table twice counts once" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	mounted_in_container
	"$SIM" process "$K" 4243 --ns ctr
	"$SIM" process "$K" 4244 --ns other
	"$SIM" mount "$K" --ns other mtfs /dev/vdc /y
	chmod 000 "$K/root/proc/4242/ns" "$K/root/proc/4243/ns" "$K/root/proc/4244/ns"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$LSMOD" -r -n -o name,mounts,inuse
	assert_success
	assert_line 'mtfs 2 true'
	local before
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" mtfs_tools
	assert_success
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mtfs is in use: a mtfs file system is mounted on /srv in the mount namespace of process 4242."
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" --unused
	assert_success
	is_live mtfs
}

@test "a namespace's table the caller may not read (EACCES) fails closed, dry runs too; -f overrides it in modprobe -r" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	local input=/proc/4242/mounts before
	mounted_in_container
	chmod 000 "$K/root/proc/4242/mounts"
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" --unused
	assert_failure 4
	assert_equal "$stderr" "rmmod: ERROR: cannot tell which modules are unused: could not read $input: Permission denied; nothing unloaded"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" --unused -n
	assert_failure 4
	assert_equal "$stderr" "rmmod: ERROR: cannot tell which modules are unused: could not read $input: Permission denied; nothing unloaded"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$LSMOD" -o name,inuse
	assert_failure
	assert_equal "$stderr" "lsmod: ERROR: cannot tell which modules are in use: could not read $input: Permission denied"
	# mtfs provides the type, so its judgement needs the table (mtfs_tools,
	# which provides none, is judged without: tools-rev4.bats)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -n mtfs
	assert_failure
	assert_equal "$stderr" "modprobe: FATAL: Module mtfs: cannot tell whether it is in use: could not read $input: Permission denied; nothing unloaded (-f unloads it anyway)."
	assert_equal "$(kernel_state)" "$before"
	# -f: the module named goes; what it leaves, perhaps in use, stays
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -f mtfs_tools
	assert_success
	run is_live mtfs_tools
	assert_failure
	is_live mtfs
	is_live mt_fscore
}

@test "/proc mounted hidepid=2 or 4 (invisible, ptraceable) hides processes from a caller without CAP_SYS_PTRACE, root too: the rule fails closed" {
	command -v setpriv >/dev/null || skip "no setpriv"
	mounted_in_container
	local hide opt before
	for opt in hidepid=2 hidepid=invisible hidepid=ptraceable; do
		sed -i "s|^proc /proc proc rw,|proc /proc proc rw,$opt,|" "$K/root/proc/self/mounts"
		hide="setpriv --reuid=65534 --regid=65534 --clear-groups"
		chmod -R a+rX "$BATS_TEST_TMPDIR"
		local d=$BATS_TEST_TMPDIR
		while [ "${#d}" -gt "${#BATS_RUN_TMPDIR}" ]; do d=${d%/*} && chmod a+x "$d"; done
		on_kernel "$LSMOD" >/dev/null # rendered, for a reader who may not write it
		run --separate-stderr "$SIM" run "$K" -- $hide "$LSMOD" -o name,inuse
		assert_failure
		assert_equal "$stderr" "lsmod: ERROR: cannot tell which modules are in use: could not read /proc: Permission denied"
		before=$(kernel_state)
		run --separate-stderr "$SIM" run "$K" -- $hide "$RMMOD" --unused -n
		assert_failure 4
		assert_equal "$stderr" "rmmod: ERROR: cannot tell which modules are unused: could not read /proc: Permission denied; nothing unloaded"
		assert_equal "$(kernel_state)" "$before"
		# root without CAP_SYS_PTRACE does not see them all either (issue 32)
		run --separate-stderr "$SIM" run "$K" -- setpriv --bounding-set=-sys_ptrace -- "$LSMOD" -o name,inuse
		assert_failure
		assert_equal "$stderr" "lsmod: ERROR: cannot tell which modules are in use: could not read /proc: Permission denied"
		# CAP_SYS_PTRACE sees every process
		run on_kernel "$LSMOD" -r -n -o name,inuse
		assert_success
		assert_line 'mtfs true'
		sed -i "s|,$opt,|,|" "$K/root/proc/self/mounts"
	done
}
