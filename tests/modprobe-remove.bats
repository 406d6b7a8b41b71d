#!/usr/bin/env bats
# modprobe -r: kmod's order (post-softdeps, holders with --remove-holders,
# the module, what it leaves unused, pre-softdeps); on a rot kernel lib's
# in-use rule, not the reference count, says what may go (mounts, bound
# devices), failing closed on an input it cannot read; -w; what each
# unload leaves rotting; --reclaim (-n predicts it); a stock kernel's
# reference count. Loading: modprobe.bats; the rule across its readers:
# inuse.bats.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

# kmod's order: the post-softdep, the module, its dependencies from the
# top of the chain down (so that mt_core, held by mt_bus until mt_bus goes,
# goes too, where kmod 30 leaves it loaded and unused), the pre-softdep.
@test "-r -v says what each unload leaves rotting, then the total" {
	mp mtnet
	run --separate-stderr mp -r -v mtnet
	assert_success
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_bus
rmmod mt_core
rmmod mt_extra"
	[[ $stderr == *"modprobe: mt_net now rots: 2624 bytes stay allocated; 'rmmod --reclaim mt_net' frees them and taints the kernel"* ]]
	[[ $stderr == *"modprobe: 5 modules now rot: 13333 bytes" ]]
	assert_equal "$(rotting_bytes)" 13333
	assert_equal "$(kernel_state | grep -c '^live')" 0
	assert_equal "$(taint)" 0
}

@test "-r -n -v on a rot kernel says what would rot, and how many bytes, and changes nothing" {
	mp mtfs_tools
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r -n -v mtfs_tools
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore"
	[[ $stderr == *"modprobe: mtfs would rot: 3720 bytes would stay allocated"* ]]
	[[ $stderr == *"modprobe: 3 modules would rot: 7637 bytes" ]]
	assert_equal "$(kernel_state)" "$before"
}

@test "-r --reclaim frees what each unload leaves, and reports the taint as rmmod does" {
	mp mtfs_tools
	run --separate-stderr mp -r --reclaim mtfs_tools
	assert_success
	assert_output "mtfs_tools: reclaimed 1 instance, 1920 bytes
mtfs: reclaimed 1 instance, 3720 bytes
mt_fscore: reclaimed 1 instance, 1997 bytes
kernel taint: none -> R (8)"
	assert_equal "$(rotting_count)" 0
	assert_equal "$(taint)" 8
	run "$SIM" ledger "$K" --check
	assert_success
}

@test "-r --reclaim says what keeps a pinned module's instance, exits 1, and -f does not free it" {
	mp mtfs_tools
	"$SIM" pin "$K" mtfs 2
	run --separate-stderr mp -r --reclaim mtfs_tools
	assert_equal "$status" 1
	# mtfs rots pinned, which holds nothing (P6): mt_fscore below it is
	# then unused, and goes too.
	assert_output "mtfs_tools: reclaimed 1 instance, 1920 bytes
mt_fscore: reclaimed 1 instance, 1997 bytes
kernel taint: none -> R (8)"
	assert_equal "$stderr" "modprobe: ERROR: could not reclaim mtfs: 1 rotting instance kept: 2 pins"
	run kernel_state
	assert_output --regexp "^rotting mtfs 3720 0x[0-9a-f]{16} pins=2
taint 8\$"
	run --separate-stderr on_kernel "$RMMOD" --reclaim -f mtfs
	assert_equal "$status" 1
	assert_equal "$stderr" "rmmod: ERROR: could not reclaim mtfs: 1 rotting instance kept: 2 pins"
	assert_equal "$(rotting_count mtfs)" 1
}

@test "-r --reclaim on a stock kernel is refused (exit 3) and unloads nothing" {
	MODE=stock setup
	mp mtnet
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r --reclaim mtnet
	assert_failure 3
	assert_equal "$stderr" "modprobe: ERROR: this kernel has no module rot support: nothing to reclaim"
	assert_equal "$(kernel_state)" "$before"
}

@test "-r of a module whose file system is mounted: in use, named, nothing unloaded" {
	mp mtfs
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mtfs is in use: a mtfs file system is mounted on /srv."
	assert_equal "$(kernel_state)" "$before"
}

@test "-r of a driver with a bound device: in use; after --remove-holders too" {
	mp mt_codec
	run --separate-stderr mp -r --remove-holders mt_codec
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mt_codec is in use: 1 device is bound to its drivers."
	is_live mt_codec
}

@test "-r -w waits for a mount to go, then unloads" {
	mp mtfs
	"$SIM" mount "$K" mtfs
	# modprobe is seen waiting (asleep between its tries) before the
	# mount goes; -w bounds the wait should it never see it go.
	(exec "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -w 60000 mtfs \
		> "$BATS_TEST_TMPDIR/out" 2>&1) &
	local remover=$! status=0
	wait_sleeping "$remover"
	is_live mtfs
	"$SIM" umount "$K" /mnt/mtfs
	wait "$remover" || status=$?
	assert_equal "$status" 0
	run is_live mtfs
	assert_failure
}

@test "-r -w gives up when the user stays, and says why" {
	mp mtfs
	"$SIM" mount "$K" mtfs
	run --separate-stderr mp -r -w 100 mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not remove 'mtfs': still in use after 100 ms: a mtfs file system is mounted on /mnt/mtfs"
	is_live mtfs
}

@test "-r of any provider of a mounted type is refused, not only of the first in modules.alias" {
	# mt_dash provides fs-mtfs too, after mtfs in depmod's order (the text
	# and the binary index agree, as modprobe checks they do).
	sed 's#^\(kernel/misc/mt-dash.ko .*\)$#\1 | alias=fs-mtfs#' \
		"$top_srcdir/tests/fixtures/modtree.spec" >"$BATS_TEST_TMPDIR/two-providers.spec"
	"$MODTREE" --spec "$BATS_TEST_TMPDIR/two-providers.spec" "$K/root" >/dev/null 2>&1
	run grep fs-mtfs "$K/root/lib/modules/6.1.0-sim/modules.alias"
	assert_output $'alias fs-mtfs mtfs\nalias fs-mtfs mt_dash'
	mp mtfs
	mp mt_dash
	"$SIM" mount "$K" mtfs /dev/vdb /srv
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r mt_dash
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mt_dash is in use: a mtfs file system is mounted on /srv."
	assert_equal "$(kernel_state)" "$before"
}

@test "-r fails closed when an input of the in-use rule cannot be read, and names it" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	local input kind before want code reason target
	for input in /proc/self/mounts /lib/modules/6.1.0-sim/modules.alias; do
		# a mount table is read only to judge a module that provides a
		# type (mtfs); mtfs_tools provides none (issue 32, tools-rev4.bats)
		target=mtfs_tools
		[ "$input" = /proc/self/mounts ] && target=mtfs
		for kind in missing dir fifo zero huge noperm; do
			kernel_new rot --abi 3
			modtree_install
			mp mtfs_tools
			"$SIM" mount "$K" mtfs /dev/vdb /srv
			spoil "$K/root$input" "$kind"
			before=$(kernel_state)
			case $kind in
			missing) reason='No such file or directory' ;;
			dir) reason='Is a directory' ;;
			fifo | zero) reason='not a regular file' ;;
			huge) reason='File too large' ;;
			noperm) reason='Permission denied' ;;
			esac
			code=1
			[ "$kind" = noperm ] && code=4
			want="modprobe: FATAL: could not remove '$target': cannot tell what is in use: could not read $input: $reason; nothing unloaded (-f unloads anyway)"
			# the table is needed by mtfs's own verdict: modprobe's words for a module
			# (exit 1, as for a module's unreadable drivers: the verdict's)
			if [ "$target" = mtfs ]; then
				want="modprobe: FATAL: Module mtfs: cannot tell whether it is in use: could not read $input: $reason; nothing unloaded (-f unloads it anyway)."
				code=1
			fi
			run --separate-stderr unreadable timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r "$target"
			if [ "$status" -ne "$code" ] || [ "$stderr" != "$want" ] || [ "$(kernel_state)" != "$before" ]; then
				echo "$input $kind: exit $status (want $code)"
				echo "  stderr: $stderr"
				echo "  want:   $want"
				return 1
			fi
		done
	done
	# -n too: what it predicts is what the real run would do
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -n -v mtfs_tools
	assert_failure 4
	assert_output ''
}

@test "-r -f unloads although the in-use rule cannot be read" {
	mp mtfs_tools
	spoil "$K/root/proc/self/mounts" dir
	run mp -r -f mtfs_tools
	assert_success
	run is_live mtfs_tools
	assert_failure
}

@test "-r keeps a dependency whose use cannot be judged, says so once, and still succeeds; -n says the same; -q says nothing" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	mp mt_snd
	chmod 000 "$K/root/sys/module/mt_codec/drivers"
	local before want
	want="modprobe: WARNING: kept 'mt_codec', which 'mt_snd' used: cannot tell whether it is in use: could not read /sys/module/mt_codec/drivers: Permission denied"
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -n -v mt_snd
	assert_success
	assert_output "rmmod mt_snd
rmmod mt_extra"
	# said once, among -v's rot lines
	assert_equal "$(grep -cFx "$want" <<<"$stderr")" 1
	assert_equal "$(grep -c 'WARNING' <<<"$stderr")" 1
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mt_snd
	assert_success
	assert_equal "$stderr" "$want"
	run is_live mt_snd
	assert_failure
	# what could not be judged stays
	is_live mt_codec
	mp mt_snd
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -q mt_snd
	assert_success
	assert_equal "$stderr" ""
	is_live mt_codec
}

@test "-r fails closed when a module's drivers cannot be read; --remove-holders does not need sysfs' holders" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	mp mt_codec
	chmod 000 "$K/root/sys/module/mt_codec/drivers"
	local before
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mt_codec
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mt_codec: cannot tell whether it is in use: could not read /sys/module/mt_codec/drivers: Permission denied; nothing unloaded (-f unloads it anyway)."
	assert_equal "$(kernel_state)" "$before"
	# the rule's holders come from /proc/modules, and so do --remove-holders':
	# a sysfs holders directory that cannot be read hides none
	kernel_new rot --abi 3
	modtree_install
	mp mtfs_tools
	chmod 000 "$K/root/sys/module/mtfs/holders"
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -v --remove-holders mtfs
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore"
	assert_equal "$(kernel_state | grep -c '^live')" 0
}

@test "-r of a chain unloads the bottom dependency too; -n -v -a X X predicts each unload once" {
	mp mtfs_tools
	run --separate-stderr mp -r -n -v -a mtfs_tools mtfs_tools mtfs
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore"
	[[ $stderr == *"modprobe: 3 modules would rot: 7637 bytes" ]]
	run --separate-stderr mp -r -v -a mtfs_tools mtfs_tools mtfs
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore"
	[[ $stderr == *"modprobe: 3 modules now rot: 7637 bytes" ]]
	assert_equal "$(rotting_bytes)" 7637
	assert_equal "$(kernel_state | grep -c '^live')" 0
}

@test "stock: -r of a chain unloads the bottom dependency too" {
	MODE=stock setup
	mp mtnet
	run mp -r mtnet
	assert_success
	assert_equal "$(kernel_state)" "taint 0"
}

@test "-r --reclaim of a name that only rots frees what rots (-n predicts it), once with -a X X" {
	mp mt_fail || true
	mp mt_fail || true
	mp mtfs
	mp -r mtfs
	assert_equal "$(rotting_count mt_fail)" 2
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r -n --reclaim -a mt_fail mt_fail mtfs
	assert_success
	assert_output "mt_fail: would reclaim 2 instances, 4502 bytes
mtfs: would reclaim 1 instance, 3720 bytes
kernel taint would go: none -> R (8)"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr mp -r --reclaim -a mt_fail mt_fail mtfs
	assert_success
	assert_output "mt_fail: reclaimed 2 instances, 4502 bytes
mtfs: reclaimed 1 instance, 3720 bytes
kernel taint: none -> R (8)"
	assert_equal "$(rotting_count mt_fail)" 0
	assert_equal "$(rotting_count mtfs)" 0
	assert_equal "$(rotting_count mt_fscore)" 1
	run "$SIM" ledger "$K" --check
	assert_success
}

@test "-r -w fails closed too: an input unreadable while it waits is no sign the user is gone" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	mp mt_codec
	chmod 000 "$K/root/sys/module/mt_codec/drivers"
	local before
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -w 100 mt_codec
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not remove 'mt_codec': cannot tell whether it is in use after 100 ms: could not read /sys/module/mt_codec/drivers: Permission denied; not unloaded (-f unloads it anyway)"
	assert_equal "$(kernel_state)" "$before"
}

@test "stock: a reference count that cannot be read is not 0: nothing unloaded without -f (kmod unloads)" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	MODE=stock setup
	mp mt_extra
	chmod 000 "$K/root/sys/module/mt_extra/refcnt"
	local before
	before=$(kernel_state)
	run --separate-stderr unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r mt_extra
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module mt_extra: cannot tell whether it is in use: could not read /sys/module/mt_extra/refcnt: Permission denied; nothing unloaded (-f unloads it anyway)."
	assert_equal "$(kernel_state)" "$before"
	run unreadable "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -r -f mt_extra
	assert_success
	assert_equal "$(kernel_state)" "taint 0"
}

@test "-r -n --reclaim predicts every instance the real run reclaims, those that rotted before too" {
	mp mt_extra
	mp -r mt_extra
	mp mt_extra
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r -n --reclaim -a mt_extra mt_extra
	assert_success
	assert_output "mt_extra: would reclaim 2 instances, 3584 bytes
kernel taint would go: none -> R (8)"
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr mp -r --reclaim -a mt_extra mt_extra
	assert_success
	assert_output "mt_extra: reclaimed 2 instances, 3584 bytes
kernel taint: none -> R (8)"
	assert_equal "$(rotting_count)" 0
}

@test "-r of a builtin module: kmod's words, FATAL (WARNING with -a), exit 1, nothing changed" {
	kernel_new rot --abi 3 --builtin ext4
	# the tree over the kernel's modules.builtin (modtree_install brings an empty one)
	"$MODTREE" "$K/root" >/dev/null 2>&1
	grep -qx 'kernel/builtin/ext4.ko' "$K/root/lib/modules/6.1.0-sim/modules.builtin"
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r ext4
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module ext4 is builtin."
	run --separate-stderr mp -r -a ext4 mtfs
	assert_failure 1
	assert_equal "$stderr" "modprobe: WARNING: Module ext4 is builtin."
	assert_equal "$(kernel_state)" "$before"
	# kmod's modprobe words it the same
	run --separate-stderr on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -r ext4
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module ext4 is builtin."
}
