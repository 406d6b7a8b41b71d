#!/usr/bin/env bats
# insmod --match-devices: only the modules a present device needs (and what
# they depend on) are loaded, so probing leaves no rot; it binds what
# loading every driver binds, on rot and stock kernels.

load helpers/tools
load helpers/devices

setup_file() { devices_make; }
setup() { devices_machine rot; }

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
