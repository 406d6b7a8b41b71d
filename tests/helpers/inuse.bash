# The suites of the in-use rule (lib/inuse.c) and its readers:
# rmmod-unused.bats, lsmod-inuse.bats, modprobe-remove.bats and inuse.bats
# (the three readers held to one rule). The module tree of helpers/modtree
# on a fresh kernel, kmod's modprobe to load it, and each input of the rule
# spoiled in turn.
#
#   load helpers/tools
#   load helpers/modtree
#   load helpers/inuse
#   setup() { inuse_kernel; }        # MODE=stock setup: a stock kernel
#
# The rot kernel is of rot-abi revision 3 (ABI=4 for revision 4): these
# suites hold the rule where it still guesses from mounts; on revision 4
# it reads pins (tools-rev4.bats).
#
# shellcheck shell=bash

KMOD_MODPROBE=/sbin/modprobe

inuse_kernel() {
	if [ "${MODE:-rot}" = rot ]; then
		kernel_new rot --abi "${ABI:-3}"
	else
		kernel_new "$MODE"
	fi
	modtree_install
}

kmod_probe() { on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" "$@"; }

# Each input of the rule, replaced in turn by what cannot be read as it:
# the rule cannot be evaluated, so its readers unload nothing (fail
# closed) and say which input they could not read.
unreadable() { setpriv --bounding-set=-dac_override,-dac_read_search -- "$@"; }

spoil() { # spoil FILE missing|dir|fifo|zero|huge|noperm
	local f=$1
	rm -rf "$f"
	case $2 in
	missing) ;;
	dir) mkdir "$f" ;;
	fifo) mkfifo "$f" ;;
	zero) ln -s /dev/zero "$f" ;;
	huge) truncate -s 1G "$f" ;;
	noperm) echo 'alias fs-mtfs mtfs' > "$f" && chmod 000 "$f" ;;
	esac
}

reason_of() {
	case $1 in
	missing) echo 'No such file or directory' ;;
	dir) echo 'Is a directory' ;;
	fifo | zero) echo 'not a regular file' ;;
	huge) echo 'File too large' ;;
	noperm) echo 'Permission denied' ;;
	esac
}
