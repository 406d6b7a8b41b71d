#!/usr/bin/env bats
# modprobe on its own: the preflight before the kernel sees anything, what
# rots on a rot kernel (each unload, a failed init, -n -v), --reclaim,
# the in-use rule for -r, exit codes, and nothing changed on bad input.
# Compatibility with kmod's modprobe is modprobe-kmod.bats.

load helpers/tools
load helpers/modtree

bats_require_minimum_version 1.5.0

MODPROBE=$top_builddir/tools/modprobe

setup() {
	kernel_new "${MODE:-rot}"
	modtree_install
}

mp() { on_kernel "$MODPROBE" -C "$MODTREE_CONF" "$@"; }

# A tree with modules preflight refuses, beside the usual ones.
bad_tree() {
	cp "$top_srcdir/tests/fixtures/modtree.spec" "$BATS_TEST_TMPDIR/spec"
	cat >> "$BATS_TEST_TMPDIR/spec" <<'SPEC'
kernel/misc/mt_old.ko      | ko | 600 | vermagic=6.0.0-other | +exports=mt_old_fn
kernel/misc/mt_needsold.ko | ko | 700 | +uses=mt_old_fn | depends=mt_old
kernel/misc/mt_nosym.ko    | xz | 500 | +uses=nobody_exports_this
SPEC
	"$MODTREE" --spec "$BATS_TEST_TMPDIR/spec" "$K/root" >/dev/null 2>&1
}

@test "a plan with a module built for another kernel loads nothing: refused before the kernel saw it" {
	bad_tree
	local before
	before=$(kernel_state)
	run --separate-stderr mp -v mt_needsold
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_old': built for kernel 6.0.0-other, and this kernel is 6.1.0-sim (--force-vermagic loads it anyway); nothing was loaded (the kernel never saw it)"
	assert_equal "$(kernel_state)" "$before"
	run cat "$K/ledger"
	assert_output ''
}

@test "a module with a symbol nobody offers is refused by name, and nothing rots" {
	bad_tree
	run --separate-stderr mp mt_nosym
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_nosym': unknown symbol nobody_exports_this (neither the kernel nor a loaded module offers it); nothing was loaded (the kernel never saw it)"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "--force-vermagic lets the preflight pass and the kernel load it, tainted F" {
	bad_tree
	run mp --force-vermagic mt_needsold
	assert_success
	is_live mt_old
	is_live mt_needsold
	assert_equal "$(( $(taint) & 2 ))" 2
}

@test "a failed init says what it left rotting, and the exit is 1" {
	run --separate-stderr mp mt_fail
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_fail': No such device; its init failed and its 2251 bytes now rot ('rmmod --reclaim mt_fail' frees them)"
	assert_equal "$(rotting_count mt_fail)" 1
	# a second failure is a second instance, told as such
	run --separate-stderr mp mt_fail
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_fail': No such device; its init failed and its 2251 bytes now rot ('rmmod --reclaim mt_fail' frees them)"
	assert_equal "$(rotting_count mt_fail)" 2
}

@test "stock: a failed init is kmod's one line, and nothing rots" {
	MODE=stock setup
	run --separate-stderr mp mt_fail
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_fail': No such device"
	assert_equal "$(kernel_state)" "taint 0"
}

# kmod's order: the post-softdep, the module, its dependencies in load
# order (mt_core is still held by mt_bus when its turn comes, so it stays,
# as with kmod on a stock kernel), the pre-softdep.
@test "-r -v says what each unload leaves rotting, then the total" {
	mp mtnet
	run --separate-stderr mp -r -v mtnet
	assert_success
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_bus
rmmod mt_extra"
	[[ $stderr == *"modprobe: mt_net now rots: 2624 bytes stay allocated; 'rmmod --reclaim mt_net' frees them and taints the kernel"* ]]
	[[ $stderr == *"modprobe: 4 modules now rot: 9226 bytes" ]]
	assert_equal "$(rotting_bytes)" 9226
	is_live mt_core
	assert_equal "$(taint)" 0
}

@test "-r -n -v on a rot kernel says what would rot, and how many bytes, and changes nothing" {
	mp mtfs_tools
	local before
	before=$(kernel_state)
	run --separate-stderr mp -r -n -v mtfs_tools
	assert_success
	assert_output "rmmod mtfs_tools
rmmod mtfs"
	[[ $stderr == *"modprobe: mtfs would rot: 3720 bytes would stay allocated"* ]]
	[[ $stderr == *"modprobe: 2 modules would rot: 5640 bytes" ]]
	assert_equal "$(kernel_state)" "$before"
}

@test "-r --reclaim frees what each unload leaves, and reports the taint as rmmod does" {
	mp mtfs_tools
	run --separate-stderr mp -r --reclaim mtfs_tools
	assert_success
	assert_output "mtfs_tools: reclaimed 1 instance, 1920 bytes
mtfs: reclaimed 1 instance, 3720 bytes
kernel taint: none -> R (8)"
	assert_equal "$(rotting_count)" 0
	assert_equal "$(taint)" 8
	run "$SIM" ledger "$K" --check
	assert_success
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
	assert_equal "$stderr" "modprobe: ERROR: Module mtfs is in use: a mtfs file system is mounted on /srv."
	assert_equal "$(kernel_state)" "$before"
}

@test "-r of a driver with a bound device: in use; after --remove-holders too" {
	mp mt_codec
	run --separate-stderr mp -r --remove-holders mt_codec
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: Module mt_codec is in use: 1 device is bound to its drivers."
	is_live mt_codec
}

@test "-r -w waits for a mount to go, then unloads" {
	mp mtfs
	"$SIM" mount "$K" mtfs
	( sleep 0.3; "$SIM" umount "$K" /mnt/mtfs ) &
	local umount=$!
	run mp -r -w 5000 mtfs
	wait "$umount"
	assert_success
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

@test "a name that resolves to nothing stops the run without -a, not with it" {
	run --separate-stderr mp -r nosuchmodule mtnet
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: Module nosuchmodule not found."
	run --separate-stderr mp -a nosuchmodule mtnet
	assert_failure 1
	is_live mt_net
}

@test "-q says nothing and still fails" {
	run --separate-stderr mp -q nosuchmodule
	assert_failure 1
	assert_equal "$stderr" ''
}

@test "usage errors exit 2 and change nothing" {
	run --separate-stderr "$MODPROBE"
	assert_failure 2
	run --separate-stderr mp --reclaim mtnet
	assert_failure 2
	assert_equal "$stderr" "modprobe: ERROR: --reclaim frees what unloading leaves: it needs -r (see 'modprobe --help')"
	run --separate-stderr mp -w soon -r mtnet
	assert_failure 2
	run --separate-stderr mp --no-such-option mtnet
	assert_failure 2
	assert_equal "$(kernel_state)" "taint 0"
}

@test "without CAP_SYS_MODULE a load exits 4 and loads nothing" {
	run --separate-stderr on_kernel_nocap "$MODPROBE" -C "$MODTREE_CONF" mt_extra
	assert_failure 4
	assert_equal "$(kernel_state)" "taint 0"
}

@test "MODPROBE_OPTIONS come first, as in kmod" {
	MODPROBE_OPTIONS="-v -C $MODTREE_CONF" run on_kernel "$MODPROBE" mt_extra
	assert_success
	assert_output "insmod /lib/modules/6.1.0-sim/kernel/sound/mt_extra.ko "
}

@test "install and remove commands run with MODPROBE_MODULE set" {
	run mp mt_inst
	assert_success
	assert_output "install-command mt_inst"
	run mp -r -v mt_inst
	assert_output "remove /bin/echo remove-command mt_inst
remove-command mt_inst"
}

@test "modprobe is valgrind clean loading and unloading a tree" {
	skip_if_sanitized
	valgrind_clean "$MODPROBE" -C "$MODTREE_CONF" -a mtnet mtsound mt_fail
	valgrind_clean "$MODPROBE" -C "$MODTREE_CONF" -r -v --reclaim -a mtnet mtsound
	valgrind_clean "$MODPROBE" -C "$MODTREE_CONF" -c
}

@test "hostile names: control bytes, a name too long, an empty one: one escaped line each, exit 1, nothing changed" {
	local before
	before=$(kernel_state)
	run --separate-stderr mp $'bad\e[31mname'
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: Module bad\\x1b[31mname not found in directory /lib/modules/6.1.0-sim"
	run --separate-stderr mp -r $'bad\e[31mname'
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not look up module bad\\x1b[31mname: Invalid argument"
	run --separate-stderr mp -r 'x[y'
	assert_failure 1
	run --separate-stderr mp "$(printf 'x%.0s' {1..300})"
	assert_failure 1
	[[ $stderr == "modprobe: ERROR: Module xxxx"*" not found in directory /lib/modules/6.1.0-sim" ]]
	run --separate-stderr mp ''
	assert_failure 1
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_equal "$(kernel_state)" "$before"
}

@test "a parameter the module rejects: the kernel's refusal, nothing loaded, nothing rots" {
	run --separate-stderr mp mt_net speed=fast
	assert_failure 1
	[[ $stderr == "modprobe: ERROR: could not insert 'mt_net': Invalid argument"* ]]
	run is_live mt_net
	assert_failure
	assert_equal "$(rotting_count)" 0
}

@test "-q keeps a rot kernel's notices quiet too" {
	mp mtnet
	run --separate-stderr mp -q -r -v mtnet
	assert_success
	assert_equal "$stderr" ''
}

@test "a module the per-CPU reserve cannot hold is refused before the kernel, as insmod refuses it, and modreap --percpu makes room" {
	cp "$top_srcdir/tests/fixtures/modtree.spec" "$BATS_TEST_TMPDIR/spec"
	echo 'kernel/misc/mt_pcpu.ko | ko | 600 | +percpu=1500' >> "$BATS_TEST_TMPDIR/spec"
	"$MODTREE" --spec "$BATS_TEST_TMPDIR/spec" "$K/root" >/dev/null 2>&1
	for _ in 1 2 3 4 5; do
		run mp mt_pcpu
		assert_success
		run mp -r mt_pcpu
		assert_success
	done
	assert_equal "$(rotting_count mt_pcpu)" 5
	local before
	before=$(kernel_state)
	run --separate-stderr mp mt_pcpu
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_pcpu': its per-CPU data needs 1500 bytes of the per-CPU module reserve, and 692 of 8192 are free, 676 in one piece; rotting instances hold 7500: mt_pcpu (5 instances, 7500 bytes) ('modreap --percpu=1504' reclaims what it takes); nothing was loaded (the kernel never saw it)"
	assert_equal "$(kernel_state)" "$before"
	run on_kernel "$top_builddir/tools/modreap" --percpu=1504
	assert_success
	run mp mt_pcpu
	assert_success
	is_live mt_pcpu
}
