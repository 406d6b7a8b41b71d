#!/usr/bin/env bats
# simkernel: present devices and driver binding (README.md "Devices").
# A module whose init succeeds binds its driver to every present, unbound
# device whose modalias matches one of its alias= patterns; unloading
# unbinds. Everything is checked through the preload, as tools see it.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/simkernel


# Modules with alias patterns, built once for the file:
#   nic     the virtio network device 1AF4:1000
#   nic2    any virtio device 1AF4:100x (so also 1AF4:1000)
#   multi   PCI UHCI controllers (class 0c03) and USB hubs (interface class 09)
#   renamed a QEMU device, its driver named qemu-bridge by simkernel.driver
#   nomatch a vendor no device has
# and drvNNNNN from mkdrivers.sh with their devices file.
setup_file() {
	local src=$BATS_FILE_TMPDIR/src
	mkdir -p "$src"
	ln -s "$top_srcdir/tests/fixtures/src" "$src/src"
	cat > "$src/fixtures.list" <<'EOF'
nic     | plain.c | 1300 | alias=pci:v00001AF4d00001000sv*sd*bc*sc*i*
nic2    | plain.c | 1400 | alias=pci:v00001AF4d0000100?sv*sd*bc*sc*i*
multi   | plain.c | 1500 | alias=pci:v*d*sv*sd*bc0Csc03i* | alias=usb:v*p*d*dc*dsc*dp*ic09isc*ip*in*
renamed | plain.c | 1600 | alias=pci:v00001B36d00000001sv*sd*bc*sc*i* | simkernel.driver=qemu-bridge
nomatch | plain.c | 1700 | alias=pci:v0000DEADd*sv*sd*bc*sc*i*
EOF
	"$top_srcdir/tests/fixtures/mkfixtures.sh" "$src" "$BATS_FILE_TMPDIR/fx" "${CC:-gcc}"
	"$MKDRIVERS" 30 "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/drv.devices" > /dev/null
}

setup() {
	sim_create rot
	FX=$BATS_FILE_TMPDIR/fx
	DRV=$BATS_FILE_TMPDIR/drv
	add_devices
}

# A small machine: a virtio NIC, a QEMU bridge, a UHCI controller, a USB
# mouse interface and a USB hub interface.
add_devices() {
	"$SIMKERNEL" device add "$K" --from - <<'EOF'
pci 0000:00:03.0 pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
pci 0000:00:04.0 pci:v00001B36d00000001sv00001AF4sd00001100bc06sc04i00
pci 0000:00:1d.0 pci:v00008086d00002934sv00001AF4sd00001100bc0Csc03i00
usb 1-1:1.0 usb:v046DpC52Bd1201dc00dsc00dp00ic03isc01ip02in00
usb 2-0:1.0 usb:v1D6Bp0001d0601dc09dsc00dp00ic09isc00ip00in00
EOF
}

load_fx() {
	run sim_run "$SYSC" finit "$FX/$1.ko"
	assert_output ok
}

unload() {
	run sim_run "$SYSC" delete "$1" 0x800
	assert_output ok
}

# driver of one device, as `device list` has it
driver_of() {
	sim_devices | awk -v bus="$1" -v id="$2" '$1 == bus && $2 == id { print $4 }'
}

# bound devices of a module, counted as a tool does: the symlinks other
# than "module" in each /sys/module/NAME/drivers/*/ directory
bound_count() {
	sim_run bash -c '
		n=0
		for drv in $(ls /sys/module/'"$1"'/drivers 2> /dev/null); do
			for e in $(ls "/sys/module/'"$1"'/drivers/$drv"); do
				[ "$e" != module ] && [ -L "/sys/module/'"$1"'/drivers/$drv/$e" ] && n=$((n + 1))
			done
		done
		echo $n'
}

@test "device add lists present devices in the order they appeared, unbound" {
	run sim_devices
	assert_output "pci 0000:00:03.0 pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00 -
pci 0000:00:04.0 pci:v00001B36d00000001sv00001AF4sd00001100bc06sc04i00 -
pci 0000:00:1d.0 pci:v00008086d00002934sv00001AF4sd00001100bc0Csc03i00 -
usb 1-1:1.0 usb:v046DpC52Bd1201dc00dsc00dp00ic03isc01ip02in00 -
usb 2-0:1.0 usb:v1D6Bp0001d0601dc09dsc00dp00ic09isc00ip00in00 -"
}

@test "a device's modalias and uevent read through the preload, with open and fopen" {
	run sim_run cat /sys/bus/pci/devices/0000:00:03.0/modalias
	assert_output pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
	# GNU sed opens its input with fopen
	run sim_run sed -n p /sys/bus/usb/devices/1-1:1.0/modalias
	assert_output usb:v046DpC52Bd1201dc00dsc00dp00ic03isc01ip02in00
	run sim_run cat /sys/bus/pci/devices/0000:00:03.0/uevent
	assert_output MODALIAS=pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
	run sim_run ls /sys/bus/pci/devices/0000:00:03.0
	assert_output "modalias
uevent"
}

@test "/sys/bus lists the buses, and each bus its devices, in kernfs order" {
	run sim_run ls -f /sys/bus
	assert_equal "$(echo "$output" | tail -n +3)" "$(sim_kernfs_order pci usb)"
	run sim_run ls -f /sys/bus/pci
	assert_equal "$(echo "$output" | tail -n +3)" \
		"$(sim_kernfs_order devices drivers drivers_autoprobe drivers_probe uevent)"
	run sim_run ls -f /sys/bus/pci/devices
	assert_equal "$(echo "$output" | tail -n +3)" "$(sim_kernfs_order 0000:00:03.0 0000:00:04.0 0000:00:1d.0)"
	run sim_run cat /sys/bus/usb/drivers_autoprobe
	assert_output 1
}

@test "device add of a device already present fails and changes nothing" {
	run "$SIMKERNEL" device add "$K" pci 0000:00:03.0 pci:v00001234d00005678sv00000000sd00000000bc00sc00i00
	assert_failure 1
	assert_output --partial 'already present'
	assert_equal "$(sim_devices | grep -c 0000:00:03.0)" 1
	run sim_run cat /sys/bus/pci/devices/0000:00:03.0/modalias
	assert_output pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
}

@test "device add --from adds nothing when one line is bad" {
	printf 'pci 0000:00:05.0 pci:v00001AF4d00001001sv*\npci 0000:00:06.0\n' > "$BATS_TEST_TMPDIR/devs"
	run "$SIMKERNEL" device add "$K" --from "$BATS_TEST_TMPDIR/devs"
	assert_failure 1
	assert_output --partial 'line 2'
	refute_output --partial 0000:00:05.0
	assert_equal "$(sim_devices | wc -l)" 5
	run sim_run ls /sys/bus/pci/devices
	refute_output --partial 0000:00:05.0
}

@test "device add refuses a device name with a slash" {
	run "$SIMKERNEL" device add "$K" pci ../../module pci:v00001AF4d00001000sv00000000sd00000000bc00sc00i00
	assert_failure 1
	assert_equal "$(sim_devices | wc -l)" 5
}

@test "create --devices gives the kernel its devices at once" {
	sim_create stock --devices "$BATS_FILE_TMPDIR/drv.devices"
	assert_equal "$(sim_devices | wc -l)" 6
	run sim_run cat /sys/bus/usb/devices/1-2:1.0/modalias
	assert_output usb:v1D6Bp000Ad0100dc00dsc00dp00ic02isc00ip00in00
}

@test "loading a matching module binds its driver to the device: every link" {
	load_fx nic
	assert_equal "$(driver_of pci 0000:00:03.0)" nic
	run sim_run readlink /sys/bus/pci/devices/0000:00:03.0/driver
	assert_output ../../drivers/nic
	run sim_run readlink /sys/bus/pci/drivers/nic/0000:00:03.0
	assert_output ../../devices/0000:00:03.0
	run sim_run readlink /sys/bus/pci/drivers/nic/module
	assert_output ../../../../module/nic
	run sim_run readlink /sys/module/nic/drivers/pci:nic
	assert_output ../../../bus/pci/drivers/nic
	run sim_run ls /sys/module/nic/drivers
	assert_output pci:nic
	run sim_run cat /sys/bus/pci/devices/0000:00:03.0/uevent
	assert_output "DRIVER=nic
MODALIAS=pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00"
	# through the module's link, to the device and back
	run sim_run cat /sys/module/nic/drivers/pci:nic/0000:00:03.0/modalias
	assert_output pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
	run sim_run ls /sys/module/nic/drivers/pci:nic/0000:00:03.0/driver/module/drivers
	assert_output pci:nic
}

@test "a driver's directory holds bind, unbind, uevent, module and its devices, in kernfs order" {
	load_fx nic
	run sim_run ls -f /sys/module/nic/drivers/pci:nic/
	assert_equal "$(echo "$output" | tail -n +3)" "$(sim_kernfs_order 0000:00:03.0 bind module uevent unbind)"
	for f in bind unbind uevent; do
		run sim_run stat -c %F "/sys/bus/pci/drivers/nic/$f"
		assert_output 'regular empty file'
	done
	run sim_run stat -c %F /sys/bus/pci/drivers/nic/module
	assert_output 'symbolic link'
}

@test "a module's bound devices are the symlinks other than module in its drivers/*/ directories" {
	load_fx multi
	run bound_count multi
	assert_output 2
	run sim_run ls -f /sys/module/multi/drivers
	assert_equal "$(echo "$output" | tail -n +3)" "$(sim_kernfs_order pci:multi usb:multi)"
	run bound_count nic
	assert_output 0
}

@test "a driver binds every matching device, on every bus" {
	load_fx multi
	run sim_devices
	assert_line --index 2 --regexp ' multi$'
	assert_line --index 4 --regexp ' multi$'
	assert_line --index 0 --regexp ' -$'
	assert_line --index 3 --regexp ' -$'
	run sim_run readlink /sys/bus/usb/devices/2-0:1.0/driver
	assert_output ../../drivers/multi
	run sim_run readlink /sys/bus/pci/devices/0000:00:1d.0/driver
	assert_output ../../drivers/multi
}

@test "a module matching no device binds nothing" {
	load_fx nomatch
	run sim_run ls /sys/module/nomatch
	refute_output --partial drivers
	run sim_run ls /sys/bus/pci/drivers /sys/bus/usb/drivers
	assert_output "/sys/bus/pci/drivers:

/sys/bus/usb/drivers:"
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
}

@test "a module without alias patterns binds nothing, whatever devices are present" {
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ok
	run sim_run ls /sys/module/delta
	refute_output --partial drivers
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
}

@test "two modules matching one device: the first loaded keeps it" {
	load_fx nic2
	load_fx nic
	assert_equal "$(driver_of pci 0000:00:03.0)" nic2
	run sim_run ls /sys/module/nic
	refute_output --partial drivers
	run sim_run ls /sys/bus/pci/drivers
	assert_output nic2
	run bound_count nic2
	assert_output 1
}

@test "simkernel.driver names the driver instead of the module" {
	load_fx renamed
	assert_equal "$(driver_of pci 0000:00:04.0)" qemu-bridge
	run sim_run readlink /sys/module/renamed/drivers/pci:qemu-bridge
	assert_output ../../../bus/pci/drivers/qemu-bridge
	run sim_run readlink /sys/bus/pci/drivers/qemu-bridge/module
	assert_output ../../../../module/renamed
}

@test "rot mode: unloading unbinds and removes the driver; the device stays, unbound" {
	load_fx nic
	unload nic
	assert_equal "$(driver_of pci 0000:00:03.0)" -
	run sim_run ls /sys/bus/pci/drivers
	assert_output ''
	run sim_run ls /sys/bus/pci/devices/0000:00:03.0
	assert_output "modalias
uevent"
	run sim_run cat /sys/bus/pci/devices/0000:00:03.0/uevent
	assert_output MODALIAS=pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output nic
	assert_equal "$(ls -A "$K/root/.staging")" ""
}

@test "stock mode: unloading unbinds and removes the driver; the device stays, unbound" {
	sim_create stock
	add_devices
	load_fx multi
	unload multi
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
	run sim_run ls /sys/bus/pci/drivers /sys/bus/usb/drivers
	assert_output "/sys/bus/pci/drivers:

/sys/bus/usb/drivers:"
	run sim_run test -e /sys/bus/usb/devices/2-0:1.0/driver
	assert_failure
	run sim_run cat /sys/bus/usb/devices/2-0:1.0/modalias
	assert_output usb:v1D6Bp0001d0601dc09dsc00dp00ic09isc00ip00in00
}

@test "a device freed by an unload stays unbound until a matching module loads" {
	load_fx nic
	load_fx nic2
	unload nic
	# the driver core does not probe live drivers again when one goes
	assert_equal "$(driver_of pci 0000:00:03.0)" -
	unload nic2
	load_fx nic2
	assert_equal "$(driver_of pci 0000:00:03.0)" nic2
	run sim_run readlink /sys/module/nic2/drivers/pci:nic2/0000:00:03.0
	assert_output ../../devices/0000:00:03.0
}

@test "a module whose init fails binds nothing" {
	"$SIMKERNEL" set "$K" nic init_errno=19
	run sim_run "$SYSC" finit "$FX/nic.ko"
	assert_output ENODEV
	assert_equal "$(driver_of pci 0000:00:03.0)" -
	run sim_run ls /sys/bus/pci/drivers
	assert_output ''
	run sim_run cut -d' ' -f1 /proc/rotting_modules
	assert_output nic
}

@test "a slow init binds only once the module is live" {
	# The init waits for the test (init_gate): no window to hit.
	"$SIMKERNEL" set "$K" nic init_gate="$BATS_TEST_TMPDIR/go"
	sim_run "$SYSC" finit "$FX/nic.ko" > "$BATS_TEST_TMPDIR/load.out" &
	local loader=$!
	sim_wait_state '^live nic .* Loading '
	run sim_run cat /sys/module/nic/initstate
	assert_output coming
	assert_equal "$(driver_of pci 0000:00:03.0)" -
	touch "$BATS_TEST_TMPDIR/go"
	wait "$loader"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/load.out")" ok
	assert_equal "$(driver_of pci 0000:00:03.0)" nic
}

@test "reclaim leaves devices alone" {
	load_fx nic
	unload nic
	load_fx nic
	before=$(sim_devices)
	run sim_run "$SYSC" reclaim nic
	assert_output ok=1
	assert_equal "$(sim_devices)" "$before"
	assert_equal "$(driver_of pci 0000:00:03.0)" nic
	run sim_run readlink /sys/bus/pci/devices/0000:00:03.0/driver
	assert_output ../../drivers/nic
}

@test "device=BUS:DRIVER:DEVICE: the module's own device appears bound, and goes with it" {
	run sim_run "$SYSC" finit "$(fixture bound)"
	assert_output ok
	run sim_devices
	assert_line 'platform bound.0 platform:bound_drv bound_drv'
	run sim_run ls /sys/module/bound/drivers/platform:bound_drv
	assert_output "bind
bound.0
module
uevent
unbind"
	run sim_run readlink /sys/module/bound/drivers/platform:bound_drv/bound.0
	assert_output ../../devices/bound.0
	run sim_run readlink /sys/bus/platform/devices/bound.0/driver
	assert_output ../../drivers/bound_drv
	run bound_count bound
	assert_output 1
	run sim_run "$SYSC" delete bound 0x800
	assert_output ok
	run sim_devices
	refute_output --partial bound.0
	run sim_run ls /sys/bus/platform/devices /sys/bus/platform/drivers
	assert_output "/sys/bus/platform/devices:

/sys/bus/platform/drivers:"
}

@test "device= naming a present device binds it, and leaves it present on unload" {
	"$SIMKERNEL" device add "$K" platform serial8250 platform:serial8250
	"$SIMKERNEL" set "$K" delta device=platform:serial:serial8250
	run sim_run "$SYSC" finit "$(fixture delta)"
	assert_output ok
	assert_equal "$(driver_of platform serial8250)" serial
	run sim_run readlink /sys/module/delta/drivers/platform:serial/serial8250
	assert_output ../../devices/serial8250
	run sim_run "$SYSC" delete delta 0x800
	assert_equal "$(driver_of platform serial8250)" -
	run sim_run cat /sys/bus/platform/devices/serial8250/modalias
	assert_output platform:serial8250
}

@test "Debian's kmod insmod, lsmod and rmmod work on a module with bound devices" {
	sim_create stock
	add_devices
	run sim_run insmod "$FX/multi.ko.zst"
	assert_success
	run sim_run lsmod
	assert_success
	assert_line --index 1 --regexp '^multi +[0-9]+ +0$'
	run bound_count multi
	assert_output 2
	run sim_run rmmod multi
	assert_success
	assert_output ''
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
	run sim_run lsmod
	assert_output 'Module                  Size  Used by'
	sim_ledger_check
}

@test "mkdrivers.sh: with all modules loaded, every tenth binds exactly its device" {
	sim_create rot --devices "$BATS_FILE_TMPDIR/drv.devices"
	for ko in "$DRV"/drv*.ko; do
		sim_run "$SYSC" finit "$ko" > /dev/null
	done
	run sim_devices
	assert_output "pci 0000:00:00.0 pci:v00001AF4d00000000sv00001AF4sd00000001bc02sc00i00 drv00000
usb 1-2:1.0 usb:v1D6Bp000Ad0100dc00dsc00dp00ic02isc00ip00in00 drv00010
usb 1-3:1.0 usb:v1D6Bp0014d0100dc00dsc00dp00ic02isc00ip00in00 drv00020
pci 0000:ff:00.0 pci:v00008086d00001234sv00008086sd00000000bc06sc00i00 -
usb 9-9:1.0 usb:v0000p0000d0000dc00dsc00dp00ic03isc01ip01in00 -
platform serial8250 platform:serial8250 -"
	run sim_run bash -c 'ls -d /sys/module/drv*/drivers'
	assert_output "/sys/module/drv00000/drivers
/sys/module/drv00010/drivers
/sys/module/drv00020/drivers"
}

@test "the ledger balances through binds, unbinds and failed inits" {
	sim_create rot --devices "$BATS_FILE_TMPDIR/drv.devices"
	"$SIMKERNEL" set "$K" drv00020 init_errno=5
	for ko in "$DRV"/drv000[0-2]*.ko; do
		sim_run "$SYSC" finit "$ko" > /dev/null || true
	done
	for m in drv00000 drv00010 drv00015; do
		run sim_run "$SYSC" delete "$m" 0x800
		assert_output ok
	done
	sim_ledger_check
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
	run sim_run "$SYSC" finit "$DRV/drv00010.ko"
	assert_output ok
	assert_equal "$(driver_of usb 1-2:1.0)" drv00010
	sim_ledger_check
}

@test "concurrent loads binding different devices stay consistent" {
	sim_create rot --devices "$BATS_FILE_TMPDIR/drv.devices"
	sim_env
	for w in 0 1 2; do
		for ko in "$DRV"/drv*"$w".ko "$DRV"/drv*"$((w + 3))".ko "$DRV"/drv*"$((w + 6))".ko; do
			"$SYSC" finit "$ko" > /dev/null
		done &
	done
	for ko in "$DRV"/drv*9.ko; do
		"$SYSC" finit "$ko" > /dev/null
	done
	wait
	sim_unenv
	assert_equal "$(sim_state | grep -c '^live drv')" 30
	assert_equal "$(sim_devices | awk '{ print $4 }' | paste -sd' ')" "drv00000 drv00010 drv00020 - - -"
	for m in drv00000 drv00010 drv00020; do
		run bound_count "$m"
		assert_output 1
	done
	run sim_run bash -c 'ls /sys/bus/*/drivers'
	assert_output "/sys/bus/pci/drivers:
drv00000

/sys/bus/platform/drivers:

/sys/bus/usb/drivers:
drv00010
drv00020"
	assert_equal "$(ls -A "$K/root/.staging")" ""
}

@test "threads loading and unloading driver modules at once leave every device unbound" {
	sim_create rot --devices "$BATS_FILE_TMPDIR/drv.devices"
	run sim_run "$top_builddir/tests/simkernel/simthreads" 6 20 "$DRV/drv00000.ko" "$DRV/drv00010.ko" \
		"$DRV/drv00020.ko" "$DRV/drv00001.ko"
	assert_success
	assert_equal "$(sim_state | grep -c '^live')" 0
	assert_equal "$(sim_devices | grep -vc ' -$')" 0
	run sim_run bash -c 'ls /sys/bus/*/drivers/'
	assert_output "/sys/bus/pci/drivers/:

/sys/bus/platform/drivers/:

/sys/bus/usb/drivers/:"
	assert_equal "$(ls -A "$K/root/.staging")" ""
	sim_ledger_check
}
