# shellcheck shell=bash
# Sourced by the kernel scripts (run.sh, bisect.sh, checkpatch.sh,
# layout-check.sh): what makes each kernel, said once.
#
# kernel_series VERSION: sets series (the directory of its patches) and
# fragments (its config fragments, in the order they are merged onto
# tinyconfig); returns 1 for a version there is no series for, and the
# caller says so in its own words.
kernel_series() {
	local dir
	dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	# shellcheck disable=SC2034 # for the caller
	case $1 in
	6.1) series=$dir/patches fragments=("$dir/config.fragment") ;;
	6.12) series=$dir/patches-6.12 fragments=("$dir/config.fragment" "$dir/config-6.12.fragment") ;;
	*) return 1 ;;
	esac
}
