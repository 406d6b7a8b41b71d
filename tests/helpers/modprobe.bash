# modrot's modprobe on the module tree of helpers/modtree, for
# modprobe.bats, modprobe-remove.bats and inuse.bats.
#
# shellcheck shell=bash

MODPROBE=$top_builddir/tools/modprobe

# --bytes: the exact bytes, to hold against the simulator's
mp() { on_kernel "$MODPROBE" --bytes -C "$MODTREE_CONF" "$@"; }
