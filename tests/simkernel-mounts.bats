#!/usr/bin/env bats
# simkernel: mounts (README.md "Mounts"). A live module provides the file
# system types of its alias=fs-TYPE entries; `simkernel mount` mounts one
# and /proc/mounts shows it. A stock kernel's mount holds a reference on
# the providing module; a rot kernel's pins it (rot-abi.md C3): the pin
# does not stop the unload, and keeps the rotting instance from reclaim
# until umount puts it.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load helpers/modtree

TREE=/lib/modules/6.1.0-sim/kernel/fs

load_mtfs() {
	sim_run "$SYSC" init "$K/root$TREE/mt_fscore.ko"
	sim_run /usr/bin/xz -dc "$K/root$TREE/mtfs.ko.xz" > "$BATS_TEST_TMPDIR/mtfs.ko"
	run sim_run "$SYSC" init "$BATS_TEST_TMPDIR/mtfs.ko"
	assert_output ok
}

@test "mount of a type nobody registered fails and changes nothing" {
	sim_create rot
	modtree_install
	run "$SIMKERNEL" mount "$K" mtfs
	assert_failure 1
	assert_output "simkernel: mount: unknown filesystem type 'mtfs'"
	run sim_run cat /proc/mounts
	refute_output --partial mtfs
}

@test "a live module's fs- alias lets its type mount; /proc/mounts and /proc/self/mounts show it" {
	sim_create rot
	modtree_install
	load_mtfs
	run "$SIMKERNEL" mount "$K" mtfs /dev/vdb /srv
	assert_success
	run sim_run cat /proc/mounts
	assert_line '/dev/vdb /srv mtfs rw,relatime 0 0'
	assert_line '/dev/vda / ext4 rw,relatime 0 0'
	run sim_run cat /proc/self/mounts
	assert_line '/dev/vdb /srv mtfs rw,relatime 0 0'
	run "$SIMKERNEL" mount "$K" mtfs /dev/vdc /srv
	assert_failure 1
	assert_output "simkernel: mount: /srv is already a mount point"
}

@test "built-in types mount without a module; umount removes the line" {
	sim_create rot
	run "$SIMKERNEL" mount "$K" tmpfs tmpfs /mnt/t
	assert_success
	run sim_run cat /proc/mounts
	assert_line 'tmpfs /mnt/t tmpfs rw,relatime 0 0'
	"$SIMKERNEL" umount "$K" /mnt/t
	run sim_run cat /proc/mounts
	refute_line --partial /mnt/t
	run "$SIMKERNEL" umount "$K" /mnt/t
	assert_failure 1
	assert_output "simkernel: umount: /mnt/t: not mounted"
}

@test "stock: a mount holds a reference; the module unloads after umount" {
	sim_create stock
	modtree_install
	load_mtfs
	"$SIMKERNEL" mount "$K" mtfs /dev/vdb /srv
	run sim_state
	assert_line --regexp '^live mtfs .* refcnt=1 '
	run sim_run "$SYSC" delete mtfs 0x800
	assert_output EWOULDBLOCK
	"$SIMKERNEL" umount "$K" /srv
	run sim_run "$SYSC" delete mtfs 0x800
	assert_output ok
}

@test "rot: a mount pins its module; it unloads and rots under it, kept from reclaim until umount (C3, P1, R4)" {
	sim_create rot --abi 3
	modtree_install
	load_mtfs
	"$SIMKERNEL" mount "$K" mtfs /dev/vdb /srv
	run sim_state
	assert_line --regexp '^live mtfs .* refcnt=0 holders=- permanent=0 pins=1$'
	run sim_run awk '$1 == "mtfs" { print $3 }' /proc/modules
	assert_output 0
	run sim_run "$SYSC" delete mtfs 0x800
	assert_output ok
	run sim_run awk '$1 == "mtfs" { print $3 }' /proc/rotting_modules
	assert_output 1
	run sim_run cat /proc/mounts
	assert_line '/dev/vdb /srv mtfs rw,relatime 0 0'
	run sim_run "$SYSC" reclaim -r mtfs 1
	assert_output "EBUSY
freed=0 kept=1 why=pin pins=1 tasks=0 callbacks=0 probes=0 bytes=0 percpu=0"
	"$SIMKERNEL" umount "$K" /srv
	run sim_run awk '$1 == "mtfs" { print $3 }' /proc/rotting_modules
	assert_output 0
	run sim_run "$SYSC" reclaim mtfs
	assert_output ok=1
	sim_ledger_check
}

@test "--abi 2: a mount pins nothing (revision 2 counted no pins)" {
	sim_create rot --abi 2
	modtree_install
	load_mtfs
	"$SIMKERNEL" mount "$K" mtfs /dev/vdb /srv
	run sim_run "$SYSC" delete mtfs 0x800
	assert_output ok
	run sim_state
	assert_line --regexp '^rotting mtfs [0-9]+ 0x[0-9a-f]{16}$'
	"$SIMKERNEL" umount "$K" /srv
	run sim_state
	assert_line --regexp '^rotting mtfs [0-9]+ 0x[0-9a-f]{16}$'
}

@test "a module whose init fails registers no type" {
	sim_create rot
	modtree_install
	sim_run "$SYSC" init "$K/root$TREE/mt_fscore.ko"
	"$SIMKERNEL" set "$K" mtfs init_errno=19
	sim_run /usr/bin/xz -dc "$K/root$TREE/mtfs.ko.xz" > "$BATS_TEST_TMPDIR/mtfs.ko"
	run sim_run "$SYSC" init "$BATS_TEST_TMPDIR/mtfs.ko"
	assert_output ENODEV
	run "$SIMKERNEL" mount "$K" mtfs
	assert_failure 1
}

# ---- mount namespaces and the processes in them (README.md "Mounts") ----

@test "/proc/self/ns/mnt names the initial namespace; /proc lists the processes made, each with its link and table" {
	sim_create rot
	run sim_run readlink /proc/self/ns/mnt
	assert_output 'mnt:[4026531840]'
	"$SIMKERNEL" process "$K" 4242 --ns ctr
	"$SIMKERNEL" process "$K" 4243 --ns ctr
	"$SIMKERNEL" process "$K" 4244 --ns other
	"$SIMKERNEL" process "$K" 77
	run sim_run sh -c 'ls /proc | grep -x "[0-9]*"'
	assert_output "4242
4243
4244
77"
	run sim_run readlink /proc/4242/ns/mnt /proc/4243/ns/mnt /proc/4244/ns/mnt /proc/77/ns/mnt
	assert_output 'mnt:[4026532200]
mnt:[4026532200]
mnt:[4026532201]
mnt:[4026531840]'
	run sim_run cat /proc/4242/mounts
	assert_output "$(sim_run cat /proc/self/mounts)"
	# the real processes are not there: a PID not made is no process
	run sim_run readlink /proc/1/ns/mnt
	assert_failure
}

@test "mount --ns shows only in that namespace's processes; umount --ns takes it away; both hold the module as any mount" {
	sim_create rot
	modtree_install
	load_mtfs
	"$SIMKERNEL" process "$K" 4242 --ns ctr
	"$SIMKERNEL" process "$K" 77
	run "$SIMKERNEL" mount "$K" --ns ctr mtfs /dev/vdb /srv
	assert_success
	run sim_run cat /proc/4242/mounts
	assert_line '/dev/vdb /srv mtfs rw,relatime 0 0'
	local f
	for f in /proc/mounts /proc/self/mounts /proc/77/mounts; do
		run sim_run cat "$f"
		refute_output --partial mtfs
	done
	# the same target in another namespace is another mount point
	run "$SIMKERNEL" mount "$K" mtfs /dev/vdc /srv
	assert_success
	run "$SIMKERNEL" mount "$K" --ns ctr mtfs /dev/vdd /srv
	assert_failure 1
	assert_output "simkernel: mount: /srv is already a mount point"
	run sim_state
	assert_line --regexp '^live mtfs .* pins=2$'
	# a process that enters ctr later sees what is mounted there
	"$SIMKERNEL" process "$K" 4243 --ns ctr
	run sim_run cat /proc/4243/mounts
	assert_line '/dev/vdb /srv mtfs rw,relatime 0 0'
	"$SIMKERNEL" umount "$K" --ns ctr /srv
	run sim_run cat /proc/4242/mounts /proc/4243/mounts
	refute_output --partial mtfs
	run sim_state
	assert_line --regexp '^live mtfs .* pins=1$'
	run "$SIMKERNEL" umount "$K" --ns ctr /srv
	assert_failure 1
	assert_output "simkernel: umount: /srv: not mounted"
	run "$SIMKERNEL" umount "$K" --ns nosuch /srv
	assert_failure 1
	sim_ledger_check
}

@test "process --exiting leaves what a process caught exiting leaves; --exit takes it away" {
	sim_create rot
	"$SIMKERNEL" process "$K" 10 --ns ctr --exiting link
	"$SIMKERNEL" process "$K" 11 --ns ctr --exiting mounts
	"$SIMKERNEL" process "$K" 12 --ns ctr --exiting empty
	run sim_run readlink /proc/10/ns/mnt
	assert_failure
	run sim_run cat /proc/10/mounts
	assert_failure
	run sim_run readlink /proc/11/ns/mnt
	assert_output 'mnt:[4026532200]'
	run sim_run cat /proc/11/mounts
	assert_failure
	run sim_run cat /proc/12/mounts
	assert_success
	assert_output ''
	"$SIMKERNEL" mount "$K" --ns ctr tmpfs tmpfs /t
	run sim_run cat /proc/12/mounts
	assert_output ''
	"$SIMKERNEL" process "$K" 12 --exit
	run sim_run sh -c 'ls /proc | grep -x "[0-9]*"'
	assert_output "10
11"
	run "$SIMKERNEL" process "$K" 12 --exit
	assert_failure 1
	assert_output "simkernel: process: 12: no such process"
	run "$SIMKERNEL" process "$K" 13 --exiting later
	assert_failure 2
	run "$SIMKERNEL" process "$K" 13 --ns 'a/b'
	assert_failure 1
}
