#!/usr/bin/env bats
# rmmod --unused: every live module lib's in-use rule finds unused,
# holders first; a mounted file system's module and what it needs stay; a
# rule that cannot be read unloads nothing (fails closed) and says why.
# Bound devices, -n, --reclaim and usage: rmmod-unused-devices.bats; the
# rule across its readers: inuse.bats.

load helpers/tools
load helpers/modtree
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

@test "rmmod --unused leaves a mounted file system's module and what it needs" {
	kmod_probe mtfs_tools
	"$SIM" mount "$K" mtfs
	run on_kernel "$RMMOD" -b --unused
	assert_success
	assert_output "unloaded 1 unused module; 1920 bytes now rot"
	is_live mtfs
	is_live mt_fscore
	run kernel_state
	assert_line --regexp '^rotting mtfs_tools '
	refute_line --regexp '^rotting mtfs '
}

@test "rmmod --unused unloads the file system's module once it is unmounted" {
	kmod_probe mtfs
	"$SIM" mount "$K" mtfs
	"$SIM" umount "$K" /mnt/mtfs
	run on_kernel "$RMMOD" --unused
	assert_success
	run is_live mtfs
	assert_failure
	run is_live mt_fscore
	assert_failure
}

@test "rmmod --unused fails closed when an input of the rule cannot be read, and names it" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	local input file kind before want code
	for input in /proc/self/mounts /lib/modules/6.1.0-sim/modules.alias; do
		for kind in missing dir fifo zero huge noperm; do
			kernel_new rot --abi 3
			modtree_install
			kmod_probe mtfs_tools
			"$SIM" mount "$K" mtfs /dev/vdb /srv
			spoil "$K/root$input" "$kind"
			before=$(kernel_state)
			code=1
			[ "$kind" = noperm ] && code=4
			want="rmmod: ERROR: cannot tell which modules are unused: could not read $input: $(reason_of "$kind"); nothing unloaded"
			run --separate-stderr unreadable timeout 20 "$SIM" run "$K" -- "$RMMOD" --unused
			if [ "$status" -ne "$code" ] || [ "$stderr" != "$want" ] || [ "$(kernel_state)" != "$before" ]; then
				echo "$input $kind: exit $status (want $code)"
				echo "  stderr: $stderr"
				echo "  want:   $want"
				return 1
			fi
		done
	done
}

# mt_codec with an unreadable drivers directory, and an unused delta. A PHY
# driver named "SMSC LAN8710/LAN8720" makes the real directory unreadable
# (EIO); an unreadable one stands for it here. Sets before: the state
# without delta, which must not change.
unjudgeable_codec() {
	kmod_probe mt_codec
	on_kernel "$top_builddir/tools/insmod" "$FIXTURES/delta.ko"
	chmod 000 "$K/root/sys/module/mt_codec/drivers"
	before=$(kernel_state | grep -v delta)
}

@test "rmmod --unused keeps a module whose drivers cannot be read, says so, and judges the rest" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	local before
	unjudgeable_codec
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" --unused
	assert_success
	assert_equal "$stderr" "rmmod: WARNING: kept 'mt_codec': cannot tell whether it is in use: could not read /sys/module/mt_codec/drivers: Permission denied"
	assert_output --regexp '^unloaded 1 unused module; '
	is_live mt_codec
	run is_live delta
	assert_failure
	# Nothing but delta changed.
	assert_equal "$(kernel_state | grep -v delta)" "$before"
}

@test "rmmod --unused -J: the module it keeps is a kept record with its reason, not a stderr line" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	local before
	unjudgeable_codec
	run --separate-stderr unreadable "$SIM" run "$K" -- "$RMMOD" --unused -J
	assert_success
	assert_equal "$stderr" ""
	local json=$output
	run jq -c '.modules[] | select(.name == "mt_codec") | [.result, .reason, .error, .message]' <<<"$json"
	assert_output '["kept","permission","EACCES","kept '"'"'mt_codec'"'"': cannot tell whether it is in use: could not read /sys/module/mt_codec/drivers: Permission denied"]'
	run jq -c '[.modules[] | select(.result == "unloaded") | .name]' <<<"$json"
	assert_output '["delta"]'
	is_live mt_codec
	run is_live delta
	assert_failure
	assert_equal "$(kernel_state | grep -v delta)" "$before"
}

@test "a driver gone with its entry has no devices: the module is unused" {
	kmod_probe mt_codec
	rm "$K/root/sys/module/mt_codec/drivers/platform:mt_codec"
	run on_kernel "$RMMOD" --unused
	assert_success
	assert_output --regexp '^unloaded 1 unused module; '
	run is_live mt_codec
	assert_failure
}
