# A machine with devices present, and the driver modules that match some
# of them (tests/fixtures/mkdrivers.sh), for the suites of "in use" through
# bound devices: lsmod-devices.bats, rmmod-unused-devices.bats,
# insmod-match-devices.bats.
#
#   load helpers/devices
#   setup_file() { devices_make; }
#   setup() { devices_machine rot; }   # $D: the driver modules
#
# shellcheck shell=bash

INSMOD=$top_builddir/tools/insmod

# 40 driver modules; drv00000, drv00010, drv00020, drv00030 each match one
# present device, and three devices match nothing.
devices_make() {
	"$top_srcdir/tests/fixtures/mkdrivers.sh" 40 "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/devices" >/dev/null
}

# A kernel (rot or stock) with the devices present.
machine() {
	kernel_new "$1"
	"$SIM" device add "$K" --from "$BATS_FILE_TMPDIR/devices"
}

devices_machine() {
	D=$BATS_FILE_TMPDIR/drv
	machine "$1"
}

bound_drivers() { "$SIM" device list "$K" | awk '$4 != "-" { print $4 }' | sort | paste -sd' '; }
