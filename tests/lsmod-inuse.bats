#!/usr/bin/env bats
# lsmod's MOUNTS and INUSE columns: lib's in-use rule (holders, bound
# devices, mounts of a type the module provides), and its failing closed.
# DEVICES: lsmod-devices.bats; the rule across its readers: inuse.bats.

load helpers/tools
load helpers/modtree
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

@test "lsmod -o mounts,inuse: a mounted type's provider is in use, through its holders too" {
	kmod_probe mtfs_tools
	kmod_probe mt_snd
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	run on_kernel "$LSMOD" -r -n -o name,holders,devices,mounts,inuse
	assert_success
	assert_output "mt_snd - 0 0 false
mt_extra - 0 0 false
mt_codec mt_snd 1 0 true
mtfs_tools - 0 0 false
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

@test "without any alias index (text or binary) nothing says who provides a mounted type: the column fails closed (issue 32)" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	rm "$K/root/lib/modules/6.1.0-sim/modules.alias" "$K/root/lib/modules/6.1.0-sim/modules.alias.bin"
	run --separate-stderr on_kernel "$LSMOD" -r -n -o name,mounts,inuse
	assert_failure 1
	assert_equal "$stderr" "lsmod: ERROR: cannot tell which modules are in use: could not read /lib/modules/6.1.0-sim/modules.alias: No such file or directory"
	refute_output --partial 'false'
}

@test "lsmod's INUSE column fails closed too, and names the input it could not read" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	rm "$K/root/lib/modules/6.1.0-sim/modules.alias"
	run --separate-stderr on_kernel "$LSMOD" -o name,inuse
	assert_failure 1
	assert_equal "$stderr" "lsmod: ERROR: cannot tell which modules are in use: could not read /lib/modules/6.1.0-sim/modules.alias: No such file or directory"
	refute_output --partial 'false'
}
