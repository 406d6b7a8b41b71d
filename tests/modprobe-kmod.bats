#!/usr/bin/env bats
# modprobe against Debian's kmod modprobe, under the simulated kernel, on
# the generated tree (tests/fixtures/modtree.spec and .conf, indexed by
# depmod -b). Each test runs a list of cases through both and counts the
# differences: standard output and exit status for the queries (-D, -n -v,
# -c, -R, --show-exports, --show-modversions); standard output, exit status
# and the kernel's whole state after every call of a sequence of loads and
# unloads on a stock kernel. Messages on stderr are modrot's own (one line,
# the module and the reason), but their level words (FATAL, ERROR,
# WARNING) are kmod's, and those are compared. On a rot kernel the
# differences are the documented ones (modprobe.8, "ROT KERNELS").
#
# Each test appends "NAME CASES DIFFERENCES" to $MODPROBE_DIFF_SUMMARY when
# that variable is set (bench/ and the report read it).

load helpers/tools
load helpers/modtree

MODPROBE=$top_builddir/tools/modprobe
KMOD_MODPROBE=/sbin/modprobe

# Every name a user may give: modules, aliases (config and modinfo, with a
# wildcard, fs-TYPE, a modalias a device would send), a blacklisted one,
# one with a dash, and names that resolve to nothing.
NAMES="mt_core mt_bus mt_net mt_codec mt_snd mt_extra mt_fscore mtfs mtfs_tools mt_fail
mt_blocked mt_inst mt_dash mt-dash mt_perm mtnet mtsound fs-mtfs mtblock mtblock-x
pci:v00001234d00005678sv00000001sd00000002bc03sc04i05 platform:mt_codec nosuchmodule fs-nosuch
x[y mt_* mt_ne? mt-net /lib/modules/6.1.0-sim/kernel/drivers/mt_net.ko"

setup() {
	kernel_new "${MODE:-stock}"
	modtree_install
	cases=0
	diffs=0
	difflog=$BATS_TEST_TMPDIR/differences
	: > "$difflog"
}

summary() {
	echo "# $BATS_TEST_DESCRIPTION: $cases cases, $diffs differences" >&3
	[ -z "${MODPROBE_DIFF_SUMMARY:-}" ] ||
		echo "$BATS_TEST_NUMBER $cases $diffs" >> "$MODPROBE_DIFF_SUMMARY"
}

# one call on kernel $1 by modprobe $2: stdout, then the exit status, then
# the level words of its stderr (FATAL, ERROR, WARNING: scripts and log
# filters match on them), each once, in order of the word
call() {
	local k=$1 tool=$2 status
	shift 2
	exec {errfd}> "$BATS_TEST_TMPDIR/call.err"
	"$SIM" run "$k" -- "$tool" -C "$k/root/etc/modprobe.d" "$@" 2>&$errfd
	status=$?
	exec {errfd}>&-
	echo "exit $status"
	echo "levels" $(grep -v "$SAID_WHERE_KMOD_IS_SILENT" "$BATS_TEST_TMPDIR/call.err" |
		sed -En 's/^modprobe: (FATAL|ERROR|WARNING): .*/\1/p' | sort -u)
}

# What modrot says where kmod says nothing (modprobe.8, DIFFERENCES FROM
# KMOD): a name libkmod cannot look up under -r ('[' without ']').
SAID_WHERE_KMOD_IS_SILENT="^modprobe: ERROR: could not look up module x\[y: Invalid argument$"

# a query on one kernel, by both tools; untraced, as a test makes hundreds
compare_query() { untraced compare_query_by_both "$@"; }
compare_query_by_both() {
	local want got
	cases=$((cases + 1))
	want=$(call "$K" "$KMOD_MODPROBE" "$@")
	got=$(call "$K" "$MODPROBE" "$@")
	if [ "$want" != "$got" ]; then
		diffs=$((diffs + 1))
		{ echo "== modprobe $*"; diff <(echo "$want") <(echo "$got") || :; } >> "$difflog"
	fi
}

queries_on_this_kernel() {
	local n
	compare_query -c
	for n in $NAMES; do
		compare_query -D "$n"
		compare_query -R "$n"
		compare_query -n -v "$n"
		compare_query -n -v -i "$n"
		compare_query -n -v -b "$n"
		compare_query -n -v --first-time "$n"
		compare_query -n -v "$n" extra=1 'label=two words'
	done
	compare_query -n -v -a mtnet mtsound mtfs_tools
	compare_query -n -v -a mtnet nosuchmodule mt_core
	compare_query -n -v -q nosuchmodule
	# -q silences -v's actions, from the command line or MODPROBE_OPTIONS;
	# -D still prints them, and five -v after -q are verbose again
	# shellcheck disable=SC2086
	compare_query -a -n -v -q $NAMES
	# shellcheck disable=SC2086
	compare_query -a -n -q -v $NAMES
	# shellcheck disable=SC2086
	MODPROBE_OPTIONS=-q compare_query -a -n -v $NAMES
	# shellcheck disable=SC2086
	MODPROBE_OPTIONS="-v -q" compare_query -a -n $NAMES
	compare_query -n -q -v -v -v -v mtnet
	compare_query -n -q -v -v -v -v -v mtnet
	compare_query -D -q -a mtnet mt_snd
	compare_query -n -v -q -r mtnet
	compare_query -D -a mt_snd mt_net
	local kos
	kos=$(cd "$K/root/lib/modules/6.1.0-sim" && find kernel -name '*.ko*' | sort)
	# the tree's modules were there to compare
	[ "$(wc -w <<< "$kos")" -gt 5 ]
	for f in $kos; do
		compare_query --show-exports "/lib/modules/6.1.0-sim/$f"
		compare_query --show-modversions "/lib/modules/6.1.0-sim/$f"
	done
}

report() {
	summary
	if [ "$diffs" -ne 0 ]; then
		cat "$difflog"
		return 1
	fi
}

@test "queries on a stock kernel with nothing loaded: same output and status as kmod" {
	queries_on_this_kernel
	report
}

@test "queries on a stock kernel with part of the tree loaded: same output and status as kmod" {
	on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -a mt_net mt_snd mtfs
	queries_on_this_kernel
	report
}

@test "queries on a rot kernel: same output and status as kmod" {
	MODE=rot setup
	on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -a mt_bus mt_codec
	queries_on_this_kernel
	report
}

@test "-n -v -r on a stock kernel with the tree loaded: same output and status as kmod" {
	on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -a mtnet mt_snd mtfs_tools mt_inst mt_perm
	for n in $NAMES; do
		# A permanent module: the dry run says what the real run meets
		# (EBUSY), where kmod's says it would unload (the next test).
		[ "$n" = mt_perm ] && continue
		compare_query -n -v -r "$n"
		compare_query -n -v -r --remove-holders "$n"
		compare_query -n -v -r -i "$n"
		compare_query -n -v -r --first-time "$n"
	done
	compare_query -n -v -r -a mt_net mt_codec nosuchmodule mtfs
	# shellcheck disable=SC2086
	compare_query -n -v -r -a -q $NAMES
	# shellcheck disable=SC2086
	MODPROBE_OPTIONS=-q compare_query -n -v -r -a $NAMES
	report
}

@test "documented difference: -n -r of a permanent module says the real run's refusal, where kmod's says it would unload" {
	on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -a mt_perm
	run --separate-stderr on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -n -v -r mt_perm
	assert_success
	assert_output "rmmod mt_perm"
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -n -v -r mt_perm
	assert_equal "$status" 1
	assert_regex "$stderr" "^modprobe: ERROR: .*mt_perm"
	dry=$stderr
	run --separate-stderr on_kernel "$MODPROBE" -C "$MODTREE_CONF" -v -r mt_perm
	assert_equal "$status" 1
	assert_equal "$stderr" "$dry"
	run on_kernel cat /proc/modules
	assert_line --regexp '^mt_perm '
}

# The same sequence of calls on two fresh kernels of the mode given, one
# by each tool: after every call, stdout, status and the kernel's state
# must agree.
sequence() {
	local ka=$BATS_TEST_TMPDIR/ka kb=$BATS_TEST_TMPDIR/kb line want got
	"$SIM" create "$ka" --mode "$1"
	"$SIM" create "$kb" --mode "$1"
	cp -a "$K/root/lib" "$K/root/etc" "$ka/root/"
	cp -a "$K/root/lib" "$K/root/etc" "$kb/root/"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		case $line in
		"differs "*)
			# a documented difference (modprobe.8): run by both, not
			# compared; the line after it brings the states together
			# shellcheck disable=SC2086
			call "$ka" "$KMOD_MODPROBE" ${line#differs } >/dev/null
			# shellcheck disable=SC2086
			call "$kb" "$MODPROBE" ${line#differs } >/dev/null
			continue
			;;
		"sim "*)
			# simkernel SUBCOMMAND DIR ARGS, on both kernels; it must work
			local sub args
			read -r sub args <<<"${line#sim }"
			# shellcheck disable=SC2086
			"$SIM" "$sub" "$ka" $args || return 1
			# shellcheck disable=SC2086
			"$SIM" "$sub" "$kb" $args || return 1
			continue
			;;
		esac
		cases=$((cases + 1))
		# shellcheck disable=SC2086
		want=$(call "$ka" "$KMOD_MODPROBE" $line; "$SIM" state "$ka")
		# shellcheck disable=SC2086
		got=$(call "$kb" "$MODPROBE" $line; "$SIM" state "$kb")
		if [ "$want" != "$got" ]; then
			diffs=$((diffs + 1))
			{ echo "== modprobe $line"; diff <(echo "$want") <(echo "$got") || :; } >> "$difflog"
		fi
	done
}

STOCK_SEQUENCE="
mtnet
mtnet
--first-time mtnet
-v mtsound
differs -r -v mtnet
-r mt_core
-r -v mt_net
-r --first-time mt_net
-v -a mtfs_tools mt_inst mt_dash
differs -r -v mtfs_tools
-r mt_fscore
-r -v mtfs
-r -v mt_inst
-v mt_net speed=7 ifname=x
-r -v --remove-holders mt_core
-v mt_fail
-r mt_fail
-v mtblock-x
-v -b mt_blocked
-v mt_blocked
-r -v mt_blocked
-v mt_perm
-r -v mt_perm
-r -f -v mt_perm
-v mtfs_tools
sim mount mtfs
-r -v mtfs_tools
-r -v mtfs
sim umount /mnt/mtfs
-r -v mtfs
-r -v -a mt_snd mt_dash mt_core nosuchmodule
-v fs-mtfs
-r -v -w 50 mtfs
-q nosuchmodule
-r -q nosuchmodule
-r -v mt_fscore
mt_core
-r x[y mt_core
"

@test "stock: the same sequence of loads and unloads leaves the same state as kmod's, call by call" {
	sequence stock <<<"$STOCK_SEQUENCE"
	report
}

# kmod's level words, where the run ends and where it goes on: a name not
# found or in use ends a run with FATAL, and is a WARNING under -a; a
# remove command that fails is kmod's FATAL too, an install command's
# failure (libkmod's) an ERROR, and no failure of the run when the module
# is only a soft dependency (mt_extra of mt_snd and mt_net). Compared with
# the output, status and state.
LEVELS_SEQUENCE="
nosuchmodule
nosuchmodule mt_core
-a nosuchmodule mt_core
-r nosuchmodule mt_core
-r -a nosuchmodule mt_core
mt_net
-r mt_bus
-r -a mt_bus mt_core
-r mt_fscore
-a mt_fscore mtfs
-r mt_fscore mtfs
-r -a mt_fscore mtfs
mt_fail
-a mt_fail mt_extra
--first-time mt_extra
-a --first-time mt_extra mt_dash
-r --first-time mt_perm mt_extra
-r -a --first-time mt_perm mt_extra
--show-exports /nonexistent.ko
--show-modversions /etc/passwd
-q -r nosuchmodule mt_extra
"

@test "stock: kmod's level words (FATAL, ERROR, WARNING), where the run ends and where -a goes on" {
	printf '%s\n' "remove mt_fscore /bin/false" "install mt_codec /bin/false" \
		"install mt_extra /bin/false" >> "$MODTREE_CONF"
	sequence stock <<<"$LEVELS_SEQUENCE
mt_snd
-a mt_codec mt_core
mtnet
-a mt_dash mt_extra
mt_extra
-q mt_snd
-q mt_extra"
	report
	assert [ "$cases" -ge 20 ]
}

# On a rot kernel the two differ exactly where rot-abi.md says they must:
# kmod tries to unload dependencies that live modules still hold (and
# prints an rmmod line for each), and unloads what bound devices or
# mounts still use. This sequence has no such case, so nothing may differ.
ROT_SEQUENCE="
mtnet
-v mtsound
-r -v mt_extra
-v -a mtfs_tools mt_inst mt_dash
-r -v mt_inst
-r -v mt_dash
-v mt_fail
-v mt_fail
-v mt_perm
-r -v mt_perm
-r -f -v mt_perm
-r --first-time mt_perm
-q nosuchmodule
"

@test "rot: a sequence without in-use dependencies leaves the same state as kmod's" {
	MODE=rot setup
	sequence rot <<<"$ROT_SEQUENCE"
	report
}

# The scenario modrot's modprobe exists for. kmod's -r reads "unused" from
# the refcount, which a rot kernel keeps at 0: on revision 3 it unloads
# mtfs under its mount and mt_codec from under its bound device, and both
# rot. modrot's keeps them, and says what rots. (Revision 4's kernel
# refuses the mounted one itself, U8: tests/tools-rev4.bats.)
rot_scenario() {
	local k=$1 tool=$2
	"$SIM" create "$k" --mode rot --abi 3
	cp -a "$K/root/lib" "$K/root/etc" "$k/root/"
	"$SIM" run "$k" -- "$tool" -C "$k/root/etc/modprobe.d" -a mtfs_tools mt_snd
	"$SIM" mount "$k" mtfs /dev/vdb /srv
}

@test "rot: kmod's modprobe -r unloads a mounted file system's module and a bound driver; modrot's does not" {
	MODE=rot setup
	local ka=$BATS_TEST_TMPDIR/ka kb=$BATS_TEST_TMPDIR/kb
	rot_scenario "$ka" "$KMOD_MODPROBE"
	rot_scenario "$kb" "$MODPROBE"

	run "$SIM" run "$ka" -- "$KMOD_MODPROBE" -C "$ka/root/etc/modprobe.d" -r -v -a mtfs_tools mt_snd
	assert_success
	run "$SIM" state "$ka"
	assert_line --regexp '^rotting mtfs '      # unloaded under /srv
	assert_line --regexp '^rotting mt_codec '  # unloaded with codec.0 bound
	"$SIM" run "$ka" -- cat /proc/mounts | grep -q ' /srv mtfs '

	run "$SIM" run "$kb" -- "$MODPROBE" --bytes -C "$kb/root/etc/modprobe.d" -r -v -a mtfs_tools mt_snd
	assert_success
	assert_output --partial "rmmod mtfs_tools"
	assert_output --partial "mtfs_tools now rots: 1920 bytes stay allocated"
	assert_output --partial "mt_snd now rots: 3328 bytes"
	refute_output --partial "rmmod mtfs"$'\n'
	refute_output --partial "rmmod mt_codec"
	run "$SIM" state "$kb"
	assert_line --regexp '^live mtfs .* holders=- '
	assert_line --regexp '^live mt_fscore .* holders=mtfs '
	assert_line --regexp '^live mt_codec .* holders=- '
	refute_line --regexp '^rotting (mtfs|mt_codec|mt_fscore) '
	run "$SIM" device list "$kb"
	assert_output 'platform codec.0 platform:mt_codec mt_codec'
	cases=1
	diffs=0
	summary
}

# Where the two disagree on purpose; each is in modprobe.8.
@test "documented difference: the bottom of a chain goes too, where kmod leaves it loaded and unused" {
	local ka=$BATS_TEST_TMPDIR/ka kb=$BATS_TEST_TMPDIR/kb
	for k in "$ka" "$kb"; do
		"$SIM" create "$k" --mode stock
		cp -a "$K/root/lib" "$K/root/etc" "$k/root/"
	done
	call "$ka" "$KMOD_MODPROBE" mt_net >/dev/null
	call "$kb" "$MODPROBE" mt_net >/dev/null
	# kmod 30 tries mt_core while mt_bus still holds it, then mt_bus
	run call "$ka" "$KMOD_MODPROBE" -r -v mt_net
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_bus
rmmod mt_extra
exit 0
levels"
	run "$SIM" state "$ka"
	assert_line --regexp '^live mt_core .* refcnt=0 holders=- '
	run call "$kb" "$MODPROBE" -r -v mt_net
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_bus
rmmod mt_core
rmmod mt_extra
exit 0
levels"
	assert_equal "$("$SIM" state "$kb")" "taint 0"
}

@test "documented difference: -n -r -a tells each module once, where kmod repeats a shared softdep" {
	on_kernel "$KMOD_MODPROBE" -C "$MODTREE_CONF" -a mt_net mt_snd
	run call "$K" "$KMOD_MODPROBE" -n -v -r -a mt_net mt_snd
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_extra
rmmod mt_snd
rmmod mt_extra
exit 0
levels"
	run call "$K" "$MODPROBE" -n -v -r -a mt_net mt_snd
	assert_output "rmmod mt_dash
rmmod mt_net
rmmod mt_extra
rmmod mt_snd
exit 0
levels"
}

@test "documented difference: kmod prints rmmod lines for dependencies it only tries" {
	MODE=rot setup
	local ka=$BATS_TEST_TMPDIR/ka kb=$BATS_TEST_TMPDIR/kb
	for k in "$ka" "$kb"; do
		"$SIM" create "$k" --mode rot
		cp -a "$K/root/lib" "$K/root/etc" "$k/root/"
	done
	call "$ka" "$KMOD_MODPROBE" mtfs_tools >/dev/null
	call "$kb" "$MODPROBE" mtfs_tools >/dev/null
	# kmod tries mt_fscore while mtfs still holds it (refcount 0), fails,
	# and leaves it loaded and unused
	run call "$ka" "$KMOD_MODPROBE" -r -v mtfs_tools
	assert_output "rmmod mtfs_tools
rmmod mt_fscore
rmmod mtfs
exit 0
levels ERROR"
	run "$SIM" state "$ka"
	assert_line --regexp '^live mt_fscore '
	# modrot's tries it once mtfs is gone, and unloads it
	run call "$kb" "$MODPROBE" -r -v mtfs_tools
	assert_output "rmmod mtfs_tools
rmmod mtfs
rmmod mt_fscore
exit 0
levels"
	assert_equal "$("$SIM" state "$kb" | grep -c '^live')" 0
	# -w that runs out is not compared: kmod 30's wait loop, timing out,
	# either exits 0 having removed nothing or does not end at all (seen
	# here under load), so it cannot be run as an oracle.
	# modprobe-remove.bats checks modrot's: exit 1, with the reason.
}
