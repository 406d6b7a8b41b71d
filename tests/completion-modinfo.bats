#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modinfo's completions, in the real bash, zsh and fish: options, the
# module names of the simulated kernel's tree (modules.dep and
# modules.builtin), module files, and the fields -F takes.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load helpers/modtree
load "$top_srcdir/tests/helpers/completion.bash"

setup_file()
{
	K=$BATS_FILE_TMPDIR/kernel
	"$SIMKERNEL" create "$K" --mode rot
	modtree_install
	echo kernel/fs/builtin_fs.ko >> "$K/root/lib/modules/6.1.0-sim/modules.builtin"
	export K
	DIR=$BATS_FILE_TMPDIR/files
	mkdir -p "$DIR/sub"
	cp "$FIXTURES/params.ko" "$FIXTURES/delta.ko.zst" "$DIR/"
	touch "$DIR/notes.txt"
	export DIR
}

NAMES=$'builtin_fs\nmt-dash\nmt_blocked\nmt_bus\nmt_codec\nmt_core\nmt_extra\nmt_fail\nmt_fscore\nmt_inst\nmt_net\nmt_perm\nmt_snd\nmtfs\nmtfs_tools'

@test "modinfo completes every short and long option modinfo --help lists" {
	local want
	# (the pattern that reads --help skips -0, which starts with a digit)
	want=$( (completion_help_options modinfo; echo -0) | LC_ALL=C sort -u)
	run complete_bash 'modinfo -'
	assert_success
	assert_output "$want"
	run complete_zsh 'modinfo --'
	assert_success
	assert_output "$(grep -- '^--' <<< "$want")"
	run complete_fish 'modinfo --'
	assert_success
	assert_output "$(grep -- '^--' <<< "$want")"
}

@test "modinfo offers the module names of the running kernel's tree, builtin ones too" {
	for sh in bash zsh fish; do
		run complete_on_kernel "$sh" 'modinfo '
		assert_success
		assert_output "$NAMES"
	done
	for sh in bash zsh fish; do
		run complete_on_kernel "$sh" 'modinfo mt_c'
		assert_output $'mt_codec\nmt_core'
	done
}

@test "modinfo offers the names of the tree -b and -k name" {
	run complete_bash "modinfo -b $K/root -k 6.1.0-sim mtfs"
	assert_output $'mtfs\nmtfs_tools'
	run complete_zsh "modinfo -b $K/root -k 6.1.0-sim mtfs"
	assert_output $'mtfs\nmtfs_tools'
	run complete_fish "modinfo -b $K/root -k 6.1.0-sim mtfs"
	assert_output $'mtfs\nmtfs_tools'
	run complete_bash "modinfo -b $K/root -k 9.9.9 mt"
	assert_output ''
}

@test "modinfo completes module files for a path" {
	cd "$DIR"
	run complete_bash 'modinfo ./'
	assert_output $'./delta.ko.zst\n./params.ko\n./sub'
	run complete_zsh 'modinfo ./'
	assert_output $'./delta.ko.zst\n./params.ko\n./sub'
	run complete_fish 'modinfo ./'
	assert_output --partial './params.ko'
}

@test "modinfo -F completes the fields, the rot fields among them" {
	for sh in bash zsh fish; do
		run "complete_$sh" 'modinfo -F rot'
		assert_output $'rotting\nrotting_bytes\nrotting_percpu'
		run "complete_$sh" 'modinfo --field s'
		assert_output "$(printf '%s\n' sig_hashalgo sig_id sig_key signature signer softdep srcversion state)"
	done
}
