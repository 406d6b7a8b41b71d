#!/usr/bin/env bats
# The one in-use rule (lib/inuse.c): holders, bound devices, and mounts of
# a file system type the module provides (its fs-TYPE alias); on a stock
# kernel also foreign references. lsmod's MOUNTS and INUSE columns and
# rmmod --unused read it; modprobe -r too (modprobe.bats).

load helpers/tools
load helpers/modtree

KMOD_MODPROBE=/sbin/modprobe

setup() {
	kernel_new "${MODE:-rot}"
	modtree_install
}

kmod_probe() { on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" "$@"; }

@test "lsmod -o mounts,inuse: a mounted type's provider is in use, through its holders too" {
	kmod_probe mtfs_tools
	kmod_probe mt_snd
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	run on_kernel "$LSMOD" -r -n -o name,holders,devices,mounts,inuse
	assert_success
	assert_output "mt_snd  0 0 false
mt_extra  0 0 false
mt_codec mt_snd 1 0 true
mtfs_tools  0 0 false
mtfs mtfs_tools 0 1 true
mt_fscore mtfs 0 0 true"
}

@test "lsmod -J gives mounts as a number and inuse as a boolean" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	run on_kernel "$LSMOD" -J -o name,mounts,inuse
	assert_success
	assert_equal "$(jq -c '.modules[0]' <<<"$output")" '{"name":"mtfs","mounts":1,"inuse":true}'
}

@test "rmmod --unused leaves a mounted file system's module and what it needs" {
	kmod_probe mtfs_tools
	"$SIM" mount "$K" mtfs
	run on_kernel "$RMMOD" --unused
	assert_success
	assert_output "unloaded 1 unused module; 1920 bytes now rot"
	is_live mtfs
	is_live mt_fscore
	run kernel_state
	assert_line --regexp '^rotting mtfs_tools '
	refute_line --regexp '^rotting mtfs '
}

@test "rmmod --unused unloads the file system's module once it is unmounted" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	"$SIM" umount "$K" /mnt/mtfs
	run on_kernel "$RMMOD" --unused
	assert_success
	run is_live mtfs
	assert_failure
	run is_live mt_fscore
	assert_failure
}

@test "without modules.alias no module is known to provide a mounted type" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	rm "$K/root/lib/modules/6.1.0-sim/modules.alias"
	run on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_line 'mtfs 0 false'
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
