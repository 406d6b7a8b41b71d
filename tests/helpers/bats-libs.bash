# shellcheck shell=bash
# tests/helpers/bats-libs.bash: Debian's bats-support, bats-assert and
# bats-file. Load with `load helpers/bats-libs`.
#
# bats sources a test file again for each of its tests, and each library's
# own load.bash finds its files with a `$(dirname ...)` apiece: 17
# processes before every test, a quarter of bats' own cost per test. The
# same files are sourced here by a glob, which forks nothing; they only
# define functions, so their order does not matter.
for _bats_lib in bats-support bats-assert bats-file; do
	for _bats_lib_file in "/usr/lib/bats/$_bats_lib/src/"*.bash; do
		# shellcheck source=/dev/null
		source "$_bats_lib_file" || return
	done
done
unset _bats_lib _bats_lib_file
