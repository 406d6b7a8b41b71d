#!/usr/bin/env bats
# lsmod's DEVICES column: the devices bound to each module's drivers, one
# input of the in-use rule (rmmod-unused-devices.bats unloads by it), and
# kmod's default output kept with devices bound.

load helpers/tools
load helpers/devices

setup_file() { devices_make; }
setup() { devices_machine rot; }

@test "lsmod -o devices counts the devices bound to each module's drivers" {
	on_kernel "$INSMOD" --batch "$D/drv00010.ko" "$D/drv00011.ko" "$FIXTURES/bound.ko"
	run on_kernel "$LSMOD" -r -n -o name,devices
	assert_success
	assert_line "drv00010 1"
	assert_line "drv00011 0"
	assert_line "bound 1"
}

@test "lsmod -J gives devices as a number and rotting instances none" {
	on_kernel "$INSMOD" "$D/drv00020.ko"
	on_kernel "$INSMOD" "$D/drv00021.ko"
	on_kernel "$RMMOD" drv00021
	run on_kernel "$LSMOD" -J -o name,state,devices
	assert_success
	assert_equal "$(echo "$output" | jq -c '[.modules[] | [.name, .state, .devices]]')" \
		'[["drv00020","live",1],["drv00021","rotting",0]]'
}

@test "lsmod's default output stays kmod's, byte for byte, with devices bound" {
	machine stock
	on_kernel "$INSMOD" --batch "$D"/drv0000*.ko "$D/drv00010.ko" "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko"
	assert_equal "$(on_kernel "$LSMOD")" "$(on_kernel "$KMOD_LSMOD")"
}
