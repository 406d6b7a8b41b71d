# shellcheck shell=bash
# tests/helpers/untraced.bash: `untraced FUNCTION [ARG...]` runs a function
# without bats' per-command trace. Loaded by helpers/tools and
# helpers/simkernel.
#
# bats runs a DEBUG trap before every command of a test (it keeps the stack
# for the failure message), and functions inherit it under set -T: about
# 0.25 ms of CPU a command, so a loop of 65,536 printf calls takes 15 s of
# CPU in a test, against 0.15 s outside. A function called with functrace
# off does not inherit the trap. Nothing else changes: set -e still ends
# the test at the first failing command, which bats reports at the line
# that called untraced; `local -` puts set -T back on return.
untraced() {
	local -
	set +T
	"$@"
}
