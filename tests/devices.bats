#!/usr/bin/env bats
# "In use" on a rot kernel: holders and bound devices. lsmod's DEVICES
# column, rmmod --unused, and insmod --match-devices, which loads only what
# a present device needs and so leaves no rot.

load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup_file() {
	# 40 driver modules; drv00000, drv00010, drv00020, drv00030 each match
	# one present device, and three devices match nothing.
	"$top_srcdir/tests/fixtures/mkdrivers.sh" 40 "$BATS_FILE_TMPDIR/drv" "$BATS_FILE_TMPDIR/devices" >/dev/null
}

setup() {
	D=$BATS_FILE_TMPDIR/drv
	machine rot
}

# A kernel with the devices present.
machine() {
	kernel_new "$1"
	"$SIM" device add "$K" --from "$BATS_FILE_TMPDIR/devices"
}

bound_drivers() { "$SIM" device list "$K" | awk '$4 != "-" { print $4 }' | sort | paste -sd' '; }

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

@test "insmod --match-devices loads only the modules a present device needs" {
	run --separate-stderr on_kernel "$INSMOD" --match-devices "$D"/*.ko.zst
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 "4 of 40 modules match a present device (or one that does needs them)"
	assert_line --index 1 "4 of 4 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(kernel_state | awk '$1 == "live" { print $2 }' | sort | paste -sd' ')" \
		"drv00000 drv00010 drv00020 drv00030"
	# Only those four ever reached the kernel.
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "load"' | wc -l)" 4
}

@test "match-first binds the same devices as probe-all, and leaves no rot and no taint" {
	on_kernel "$INSMOD" --batch "$D"/*.ko >/dev/null 2>&1
	on_kernel "$RMMOD" --unused >/dev/null
	probe_all=$(bound_drivers)
	probe_rot=$(rotting_count)

	machine rot
	on_kernel "$INSMOD" --match-devices "$D"/*.ko >/dev/null
	assert_equal "$(bound_drivers)" "$probe_all"
	assert_equal "$probe_rot" 36
	assert_equal "$(rotting_count)" 0
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "rot"' | wc -l)" 0
	assert_equal "$(taint)" 0
	"$SIM" ledger "$K" --check
}

@test "match-first binds the same devices as probe-all on a stock kernel too" {
	machine stock
	on_kernel "$INSMOD" --batch "$D"/*.ko >/dev/null 2>&1
	on_kernel "$RMMOD" --unused >/dev/null
	probe_all=$(bound_drivers)
	machine stock
	on_kernel "$INSMOD" --match-devices "$D"/*.ko >/dev/null
	assert_equal "$(bound_drivers)" "$probe_all"
	assert_equal "$(kernel_state | grep -c '^live')" 4
}

@test "insmod --match-devices also loads what a matching module depends on" {
	# gamma needs beta needs alpha; only gamma is given an alias that matches.
	"$SIM" device add "$K" platform gamma0 platform:gamma_dev
	mkdir -p "$BATS_TEST_TMPDIR/m"
	cp "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko" "$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/m/"
	# Give gamma an alias by rebuilding its .modinfo with one more entry.
	objcopy -O binary --only-section=.modinfo "$FIXTURES/gamma.ko" "$BATS_TEST_TMPDIR/modinfo"
	printf 'alias=platform:gamma_dev\0' >> "$BATS_TEST_TMPDIR/modinfo"
	objcopy --update-section .modinfo="$BATS_TEST_TMPDIR/modinfo" "$FIXTURES/gamma.ko" "$BATS_TEST_TMPDIR/m/gamma.ko"
	run on_kernel "$INSMOD" --match-devices -J "$BATS_TEST_TMPDIR"/m/*.ko
	assert_success
	assert_equal "$(echo "$output" | jq -r '.modules[] | [.name, .result] | join(":")' | sort | paste -sd' ')" \
		"alpha:loaded beta:loaded delta:unmatched gamma:loaded"
	assert_equal "$(echo "$output" | jq '.summary.unmatched')" 1
	assert_equal "$(bound_drivers)" gamma
}
