#!/usr/bin/env bats
# rmmod --unused and bound devices: a module whose drivers have a device
# bound is in use (lib's rule), as is what holds it; -n, --reclaim, a stock
# kernel's references, and the usage errors of --unused. Mounts and the
# rule's inputs: rmmod-unused.bats.

load helpers/tools
load helpers/devices

setup_file() { devices_make; }
setup() { devices_machine rot; }

@test "rmmod --unused unloads exactly the modules with no holders and no bound devices" {
	on_kernel "$INSMOD" --batch "$D"/drv0000*.ko "$D/drv00010.ko" "$FIXTURES/alpha.ko" \
		"$FIXTURES/beta.ko" "$FIXTURES/gamma.ko" "$FIXTURES/permanent.ko"
	bytes=$(kernel_state | awk '$1 == "live" && $2 != "drv00000" && $2 != "drv00010" && $2 != "permanent" { s += $3 } END { print s }')
	run --separate-stderr on_kernel "$RMMOD" -b --unused
	assert_success
	assert_output "unloaded 12 unused modules; $bytes bytes now rot"
	# Left: the two drivers with a device, and the permanent module.
	assert_equal "$(kernel_state | awk '$1 == "live" { print $2 }' | sort | paste -sd' ')" "drv00000 drv00010 permanent"
	assert_equal "$(bound_drivers)" "drv00000 drv00010"
	# Each once, holders before what they use.
	order=$("$SIM" ledger "$K" | awk '$2 == "rot" { print $3 }')
	assert_equal "$(echo "$order" | sort | uniq -d)" ""
	assert_equal "$(echo "$order" | grep -nx -e gamma -e beta -e alpha | cut -d: -f2 | paste -sd' ')" "gamma beta alpha"
	"$SIM" ledger "$K" --check
}

@test "rmmod --unused -n lists what it would unload and changes nothing" {
	on_kernel "$INSMOD" --batch "$D/drv00001.ko" "$D/drv00010.ko" "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko"
	before=$(kernel_state)
	ledger=$("$SIM" ledger "$K")
	run on_kernel "$RMMOD" -b --unused -n
	assert_success
	assert_equal "$(printf '%s\n' "${lines[@]:0:3}" | sort | paste -sd' ')" "alpha beta drv00001"
	# beta holds alpha: it comes first.
	[ "$(printf '%s\n' "${lines[@]}" | grep -nx beta | cut -d: -f1)" -lt "$(printf '%s\n' "${lines[@]}" | grep -nx alpha | cut -d: -f1)" ]
	assert_line --index 3 --regexp '^3 unused modules would be unloaded; [0-9]+ bytes would rot$'
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$("$SIM" ledger "$K")" "$ledger"
}

@test "rmmod --unused --reclaim reclaims in the same run and reports the taint" {
	on_kernel "$INSMOD" --batch "$D/drv00001.ko" "$D/drv00002.ko" "$D/drv00010.ko"
	run on_kernel "$RMMOD" -b --unused --reclaim
	assert_success
	assert_line --regexp '^drv0000[12]: reclaimed 1 instance, [0-9]+ bytes$'
	assert_line "unloaded 2 unused modules"
	assert_line "kernel taint: none -> R (8)"
	assert_equal "$(rotting_count)" 0
	is_live drv00010
}

@test "rmmod --unused on a stock kernel keeps modules someone holds a reference to" {
	machine stock
	on_kernel "$INSMOD" --batch "$D/drv00001.ko" "$D/drv00002.ko"
	"$SIM" ref "$K" drv00002 1
	run on_kernel "$RMMOD" --unused
	assert_success
	assert_output "unloaded 1 unused module"
	is_live drv00002
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "free" { print $3 }')" drv00001
}

@test "rmmod --unused with a module name, or with --remove-holders, is a usage error" {
	run --separate-stderr on_kernel "$RMMOD" --unused alpha
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: --unused chooses the modules itself: give no MODULE (see 'rmmod --help')"
	run --separate-stderr on_kernel "$RMMOD" -n alpha
	assert_equal "$status" 2
	assert_equal "$stderr" "rmmod: ERROR: --dry-run only makes sense with --unused (see 'rmmod --help')"
}
