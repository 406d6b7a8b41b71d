#!/usr/bin/env bats
# The tools on a rot kernel of rot-abi revision 4 (the simulator's
# default): U8's refusal in rmmod, modprobe -r and rmmod --unused, the
# in-use rule from pins with no mount table read (issue 32 item 1), lsmod's
# PINS column, reclaim refusals naming where the kernel found a reference
# (R11) in words and JSON, and revision 3's siblings of issue 32 (a missing
# module directory, a mount table too large) where the rule still guesses.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { ABI=4 inuse_kernel; }

MT=/lib/modules/6.1.0-sim

# A namespace (process 4242) whose mount table cannot be read at all: too
# large (a sparse 65 MiB file) and then unreadable by mode.
huge_table() {
	"$SIM" process "$K" 4242 --ns big
	truncate -s 65M "$K/root/proc/4242/mounts"
}

@test "rmmod of a pinned module that does not declare MODULE_ROT_SAFE: exit 1, U8's words, -f too; nothing changes" {
	kmod_load delta
	"$SIM" pin "$K" delta 2
	before=$(kernel_state)
	for f in "" -f; do
		run --separate-stderr on_kernel "$RMMOD" $f delta
		assert_equal "$status" 1
		assert_equal "$output" ""
		assert_equal "$stderr" "rmmod: ERROR: Module delta is in use (pinned 2 times) and does not declare MODULE_ROT_SAFE: the kernel will not run its exit while it is used"
		assert_equal "$(kernel_state)" "$before"
	done
	run --separate-stderr on_kernel "$RMMOD" -J delta
	assert_equal "$status" 1
	assert_equal "$(jq -r '.modules[0] | .result + " " + .reason + " " + .error' <<<"$output")" "failed in_use EAGAIN"
	assert_equal "$(taint)" 0
}

@test "rmmod of a pinned module that declares it unloads; its pins follow it into rot" {
	kmod_load rotsafe
	"$SIM" pin "$K" rotsafe
	run --separate-stderr on_kernel "$RMMOD" rotsafe
	assert_success
	assert_equal "$stderr" ""
	run kernel_state
	assert_output --regexp "^rotting rotsafe [0-9]+ 0x[0-9a-f]{16} pins=1
taint 0\$"
}

@test "lsmod: kmod's output is unchanged; -o PINS shows a live module's pins and INUSE follows them" {
	kmod_load delta rotsafe
	"$SIM" pin "$K" delta 3
	run on_kernel "$LSMOD"
	assert_success
	assert_line --index 0 "Module                  Size  Used by"
	assert_line --regexp '^delta +[0-9]+  0$'
	run on_kernel "$LSMOD" -r -n -o name,pins,inuse
	assert_success
	assert_line 'delta 3 true'
	assert_line 'rotsafe 0 false'
	"$SIM" unpin "$K" delta 3
	run on_kernel "$LSMOD" -r -n -o name,pins,inuse
	assert_line 'delta 0 false'
}

@test "revision 4: the rule reads pins and no mount table: a mount table that cannot be read changes nothing" {
	kmod_probe mtfs_tools
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	huge_table
	run on_kernel "$LSMOD" -r -n -o name,pins,inuse
	assert_success
	assert_output "mtfs_tools 0 false
mtfs 1 true
mt_fscore 0 true"
	run --separate-stderr on_kernel "$RMMOD" -b --unused
	assert_success
	assert_equal "$stderr" ""
	assert_output "unloaded 1 unused module; 1920 bytes now rot"
	is_live mtfs
	is_live mt_fscore
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mtfs is in use: pinned 1 time."
	assert_equal "$(kernel_state)" "$before"
	# no module directory is needed either: the kernel tells
	rm -rf "$K/root$MT"
	run on_kernel "$LSMOD" -r -n -o name,inuse
	assert_success
	assert_line 'mtfs true'
	"$SIM" umount "$K" /srv
	run on_kernel "$RMMOD" --unused
	assert_success
	run is_live mtfs
	assert_failure
}

@test "revision 3: a module that provides no file system type is judged without reading any table (issue 32)" {
	kernel_new rot --abi 3
	modtree_install
	kmod_probe mtfs_tools
	kmod_probe mt_extra
	huge_table
	# mt_extra provides no type: modprobe -r judges it and unloads it
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mt_extra
	assert_success
	assert_equal "$stderr" ""
	run is_live mt_extra
	assert_failure
	# a provider cannot be judged: the table is named, nothing unloads
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mtfs: cannot tell whether it is in use: could not read /proc/4242/mounts: File too large; nothing unloaded (-f unloads it anyway)."
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$RMMOD" --unused
	assert_failure 1
	assert_regex "$stderr" "cannot tell which modules are unused: could not read /proc/4242/mounts: File too large; nothing unloaded"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$LSMOD" -r -n -o name,inuse
	assert_failure 1
	assert_regex "$stderr" "could not read /proc/4242/mounts: File too large"
}

@test "revision 3: a missing module directory is no sign that nothing provides a type: the rule refuses, naming it" {
	kernel_new rot --abi 3
	modtree_install
	kmod_probe mtfs_tools
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	rm -rf "$K/root$MT"
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --unused
	assert_failure 1
	assert_equal "$stderr" "rmmod: ERROR: cannot tell which modules are unused: could not read $MT: No such file or directory; nothing unloaded"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$LSMOD" -o name,inuse
	assert_failure 1
	assert_regex "$stderr" "could not read $MT: No such file or directory"
	refute_output --partial false
}

@test "rmmod --reclaim names where the kernel found the first reference (R11); -J has refs and where" {
	kmod_load delta
	kmod_unload delta
	"$SIM" hold "$K" delta ref 'slab kmalloc-64 object'
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --reclaim delta
	assert_equal "$status" 1
	assert_equal "$output" ""
	assert_equal "$stderr" "rmmod: ERROR: could not reclaim delta: 1 rotting instance kept: 1 reference into it from outside; the first reference is from slab kmalloc-64 object"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$RMMOD" -J --reclaim delta
	assert_equal "$status" 1
	assert_equal "$(jq -c '.modules[] | [.result, .reason, .why, .refs, .where, .callbacks, .probes]' <<<"$output")" \
		'["failed","kept_in_use",["ref"],1,"slab kmalloc-64 object",1,0]'
	assert_equal "$(taint)" 0
	"$SIM" release "$K" delta ref
	run --separate-stderr on_kernel "$RMMOD" -J --reclaim delta
	assert_success
	assert_equal "$(taint)" 8
}

@test "modreap says a rotting user keeps a library (P7); the user goes first, then the library" {
	kmod_load alpha beta
	kmod_unload beta
	kmod_unload alpha
	run --separate-stderr on_kernel "$MODREAP" alpha
	assert_equal "$status" 1
	assert_regex "$stderr" "could not reclaim alpha: 1 rotting instance kept: a rotting module that used it still calls it; the first reference is from rotting user beta"
	run --separate-stderr on_kernel "$MODREAP" beta alpha
	assert_success
	assert_equal "$(kernel_state)" "taint 8"
}

@test "modreap asks a name kept only by its rotting users again after them: any order, and -a, free both" {
	kmod_load alpha beta
	kmod_unload beta
	kmod_unload alpha
	run --separate-stderr on_kernel "$MODREAP" alpha beta
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(kernel_state)" "taint 8"
	kmod_load alpha beta
	kmod_unload beta
	kmod_unload alpha
	run --separate-stderr on_kernel "$MODREAP" -a
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(kernel_state)" "taint 8"
}

@test "modreap of a library whose rotting user it was not asked to reclaim says so once, exit 1" {
	kmod_load alpha beta
	kmod_unload beta
	kmod_unload alpha
	before=$(kernel_state)
	run --separate-stderr on_kernel "$MODREAP" alpha
	assert_equal "$status" 1
	assert_equal "$(grep -c 'could not reclaim alpha' <<<"$stderr")" 1
	assert_equal "$(kernel_state)" "$before"
}
