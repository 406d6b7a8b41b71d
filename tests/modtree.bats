#!/usr/bin/env bats
# The generated module tree (tests/helpers/modtree.sh): depmod indexes its
# symbol dependencies, aliases and softdeps, and Debian's kmod modprobe
# loads it under the simulated kernel with the modprobe.d options.

load helpers/tools
load helpers/modtree

KMOD_MODPROBE=/sbin/modprobe

setup() {
	kernel_new rot
	modtree_install
	DIR=$K/root/lib/modules/6.1.0-sim
}

@test "depmod finds the dependencies from the modules' symbols, through compressed files" {
	run grep '^kernel/fs/mtfs_tools.ko.zst:' "$DIR/modules.dep"
	assert_output 'kernel/fs/mtfs_tools.ko.zst: kernel/fs/mtfs.ko.xz kernel/fs/mt_fscore.ko'
	run grep '^kernel/drivers/mt_net.ko:' "$DIR/modules.dep"
	assert_output 'kernel/drivers/mt_net.ko: kernel/drivers/mt_bus.ko.xz kernel/lib/mt_core.ko.zst'
}

@test "the index has the modules' aliases (fs-TYPE too) and softdeps" {
	assert_file_contains "$DIR/modules.alias" '^alias fs-mtfs mtfs$'
	assert_file_contains "$DIR/modules.alias" '^alias platform:mt_codec mt_codec$'
	assert_file_contains "$DIR/modules.softdep" '^softdep mt_snd pre: mt_extra$'
}

@test "kmod's modprobe loads the tree with its options and dependencies" {
	run on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" mtnet
	assert_success
	run kernel_state
	assert_line --regexp '^live mt_net .* holders=- '
	assert_line --regexp '^live mt_bus .* holders=mt_net '
	assert_line --regexp '^live mt_extra '
	assert_line --regexp '^live mt_dash '
	assert_equal "$(cat "$K/root/sys/module/mt_net/parameters/speed")" 100
}
