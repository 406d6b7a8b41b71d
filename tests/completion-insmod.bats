#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# insmod's completions, in the real bash, zsh and fish: options, module
# files and directories, the module's parameters (from Debian's modinfo),
# and files after --verify and --from.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel
load "$top_srcdir/tests/helpers/completion.bash"

# A directory of module files, a text file and a subdirectory.
setup_file()
{
	DIR=$BATS_FILE_TMPDIR/modules
	mkdir -p "$DIR/sub"
	cp "$FIXTURES"/params.ko "$FIXTURES"/params.ko.xz "$FIXTURES"/params.ko.zst \
		"$FIXTURES"/delta.ko "$DIR/"
	touch "$DIR/notes.txt"
	export DIR
}

setup()
{
	cd "$DIR"
	command -v modinfo >/dev/null || skip "no modinfo to read parameters"
}

FILES=$'delta.ko\nparams.ko\nparams.ko.xz\nparams.ko.zst\nsub'
ALL=$'delta.ko\nnotes.txt\nparams.ko\nparams.ko.xz\nparams.ko.zst\nsub'

@test "insmod completes module files and directories, not other files, in bash, zsh and fish" {
	run complete_bash 'insmod '
	assert_success
	assert_output "$FILES"
	run complete_zsh 'insmod '
	assert_success
	assert_output "$FILES"
	run complete_fish 'insmod '
	assert_success
	assert_output "${FILES/sub/sub/}"
}

@test "insmod completes its options" {
	for sh in bash zsh fish; do
		run "complete_$sh" 'insmod --force-'
		assert_success
		assert_output $'--force-modversion\n--force-vermagic'
		run "complete_$sh" 'insmod --ve'
		assert_output $'--verbose\n--verify\n--version'
	done
}

@test "insmod completes the parameters of the module file after it, as name=" {
	run complete_bash 'insmod params.ko.xz '
	assert_output $'count=\nlabel=\nverbose='
	run complete_fish 'insmod params.ko.zst '
	assert_output $'count=\nlabel=\nverbose='
	# zsh adds the = as a suffix, which the harness leaves out.
	run complete_zsh 'insmod params.ko '
	assert_output $'count\nlabel\nverbose'
}

@test "insmod completes a parameter by its prefix, and none for a module without parameters" {
	run complete_bash 'insmod -v params.ko count=1 la'
	assert_output 'label='
	run complete_fish 'insmod params.ko la'
	assert_output 'label='
	run complete_zsh 'insmod params.ko la'
	assert_output 'label'
	for sh in bash zsh fish; do
		run "complete_$sh" 'insmod delta.ko '
		assert_output ''
	done
}

@test "insmod --batch completes module files for every word" {
	run complete_bash 'insmod --batch params.ko d'
	assert_output 'delta.ko'
	run complete_zsh 'insmod --batch params.ko d'
	assert_output 'delta.ko'
	run complete_fish 'insmod --batch params.ko d'
	assert_output 'delta.ko'
}

@test "insmod --verify and --from complete any file or directory" {
	run complete_bash 'insmod --verify '
	assert_output "$ALL"
	run complete_zsh 'insmod --from '
	assert_output "$ALL"
	run complete_fish 'insmod --verify n'
	assert_output 'notes.txt'
	run complete_bash 'insmod --from n'
	assert_output 'notes.txt'
}
