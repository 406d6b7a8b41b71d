#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modprobe's completions, in the real bash, zsh and fish, on a simulated
# rot kernel with the generated tree: module names from modules.dep,
# aliases without wildcards from modules.alias and modprobe.d (-C), the
# parameters of the module given, and live modules after -r.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load helpers/modtree
load "$top_srcdir/tests/helpers/completion.bash"

# modinfo (kmod's, for the parameters) lives in sbin
PATH=$PATH:/usr/sbin:/sbin

setup_file() {
	K=$BATS_FILE_TMPDIR/kernel
	"$SIMKERNEL" create "$K" --mode rot
	modtree_install
	"$SIMKERNEL" run "$K" -- /sbin/modprobe -C "$MODTREE_CONF" -a mtnet mt_codec
	export K MODTREE_CONF
}

NAMES='mt_blocked mt_bus mt_codec mt_core mt_dash mt_extra mt_fail mt_fscore mt_inst mt_net mt_perm mt_snd mtblock mtfs mtfs_tools mtnet mtsound'
LIVE='mt_bus mt_codec mt_core mt_dash mt_extra mt_net'

# every option modprobe --help lists
help_options() {
	"$top_builddir/tools/modprobe" --help | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		sed 's/^[ ,]//' | LC_ALL=C sort -u
}

words() { tr '\n' ' ' | sed 's/ $//'; }

@test "bash, zsh and fish complete every option modprobe --help lists" {
	local want
	want=$(help_options)
	run complete_bash 'modprobe -'
	assert_output "$want"
	run complete_fish 'modprobe -'
	assert_output "$want"
	run complete_zsh 'modprobe -'
	assert_output "$want"
}

@test "bash offers module names and aliases without wildcards, from the -C configuration" {
	run complete_on_kernel bash "modprobe -C $MODTREE_CONF mt"
	assert_success
	assert_equal "$(words <<<"$output")" "$NAMES"
}

@test "zsh offers the same names" {
	run complete_on_kernel zsh "modprobe -C $MODTREE_CONF mt"
	assert_success
	assert_equal "$(words <<<"$output")" "$NAMES"
}

@test "fish offers the same names" {
	run complete_on_kernel fish "modprobe -C $MODTREE_CONF mt"
	assert_success
	assert_equal "$(words <<<"$output")" "$NAMES"
}

@test "after the module, each shell offers its parameters" {
	run complete_on_kernel bash "modprobe -C $MODTREE_CONF mt_net "
	assert_equal "$(words <<<"$output")" "ifname= speed="
	# zsh adds the = as a suffix, which the harness leaves out
	run complete_on_kernel zsh "modprobe -C $MODTREE_CONF mt_net "
	assert_equal "$(words <<<"$output")" "ifname speed"
	run complete_on_kernel fish "modprobe -C $MODTREE_CONF mt_net "
	assert_equal "$(words <<<"$output")" "ifname= speed="
}

@test "after -r, each shell offers the live modules" {
	local sh
	for sh in bash zsh fish; do
		run complete_on_kernel "$sh" 'modprobe -r '
		assert_success
		assert_equal "$(words <<<"$output")" "$LIVE"
	done
}
