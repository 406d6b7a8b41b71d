#!/usr/bin/env bats
# The kernel-file bad-input corpus (tests/badinput/kernel-manifest and
# kernel-scalar-manifest): what the tools do with malformed /proc/modules,
# /proc/rotting_modules, /proc/sys/kernel/tainted and sig_enforce. No
# crash, one line naming the file, the line and what is wrong, a defined
# exit code, and nothing changed.

load helpers/tools
load helpers/badinput
bats_require_minimum_version 1.5.0

INSMOD=$top_builddir/tools/insmod

# A rot kernel with alpha live, its files rendered (so they are not
# rendered again over what a test plants).
setup() {
	kernel_new rot
	kmod_load alpha
	on_kernel cat /proc/modules /proc/rotting_modules /proc/sys/kernel/tainted >/dev/null
	good_modules=$(cat "$K/root/proc/modules")
	good_rotting=$(cat "$K/root/proc/rotting_modules")
}

# Puts the well-formed files back, so that each entry spoils one file only.
restore() {
	plant /proc/modules "${good_modules:+$good_modules\n}"
	plant /proc/rotting_modules "${good_rotting:+$good_rotting\n}"
}


# Each kernel-manifest entry in turn, planted over the well-formed files,
# against each tool that reads the module list; counts them in $n.
refuse_each_list_entry() {
	while IFS= read -r file && IFS= read -r content && IFS= read -r reason; do
		restore
		plant "$file" "$content"
		before=$(kernel_state)
		local why="could not read the module list: $reason"
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD"
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD" -J
		refuses "$content" "lsmod: ERROR: $why" "$LSMOD" -o name,holders
		refuses "$content" "rmmod: ERROR: $why" "$RMMOD" alpha
		refuses "$content" "rmmod: ERROR: $why" "$RMMOD" --reclaim alpha
		refuses "$content" "modreap: ERROR: $why" "$MODREAP" -a
		refuses "$content" "modreap: ERROR: $why" "$MODREAP" -a -J
		refuses "$content" "insmod: ERROR: $why" "$INSMOD" --check "$FIXTURES/delta.ko"
		refuses "$content" "insmod: ERROR: $why" "$INSMOD" "$FIXTURES/delta.ko"
		n=$((n + 1))
	done < <(entries kernel-manifest)
}

@test "every tool refuses each malformed /proc/modules and /proc/rotting_modules line with the file and line" {
	local n=0
	untraced refuse_each_list_entry
	[ "$n" -ge 30 ]
}

@test "lsmod, plain and -J, refuse an address past 64 bits alike" {
	# One parser serves both; an address past 64 bits once passed one of them.
	plant /proc/modules 'a 1 0 - Live 0x1ffffffffffffffff\n'
	run --separate-stderr on_kernel "$LSMOD"
	plain="$status $stderr"
	run --separate-stderr on_kernel "$LSMOD" -J
	assert_equal "$status $stderr" "$plain"
}

@test "a malformed taint mask is a warning naming the file, and the reclaim is still done" {
	kmod_unload alpha
	while IFS= read -r file && IFS= read -r content && IFS= read -r reason; do
		[ "$file" = /proc/sys/kernel/tainted ] || continue
		on_kernel "$KMOD_INSMOD" "$FIXTURES/alpha.ko"
		kmod_unload alpha
		on_kernel cat /proc/sys/kernel/tainted >/dev/null
		plant "$file" "$content"
		run --separate-stderr on_kernel "$MODREAP" -a
		assert_success
		# Read before and after reclaiming; the reclaim re-renders the file
		# only when the taint changes.
		first=${stderr%%$'\n'*}
		assert_equal "$first" "modreap: WARNING: could not read the kernel taint: $reason"
		[ "$stderr" = "$first" ] ||
			assert_equal "$stderr" "$first"$'\n'"modreap: WARNING: could not read the kernel taint after the run: $reason"
		assert_equal "$(rotting_count alpha)" 0
	done < <(entries kernel-scalar-manifest)
}

@test "rmmod --reclaim warns about a malformed taint mask, naming the file" {
	kmod_unload alpha
	on_kernel cat /proc/sys/kernel/tainted >/dev/null
	plant /proc/sys/kernel/tainted '12 13\n'
	run --separate-stderr on_kernel "$RMMOD" --reclaim alpha
	assert_success
	# Read before and after: the reclaim re-renders it only when the taint changes.
	reason="/proc/sys/kernel/tainted line 1: more than one decimal number"
	first=${stderr%%$'\n'*}
	assert_equal "$first" "rmmod: WARNING: could not read the kernel taint: $reason"
	[ "$stderr" = "$first" ] ||
		assert_equal "$stderr" "$first"$'\n'"rmmod: WARNING: could not read the kernel taint after the run: $reason"
	assert_equal "$(rotting_count alpha)" 0
}

@test "insmod refuses to judge signatures when sig_enforce is neither Y nor N" {
	while IFS= read -r file && IFS= read -r content && IFS= read -r reason; do
		[ "$file" = /sys/module/module/parameters/sig_enforce ] || continue
		plant "$file" "$content"
		before=$(kernel_state)
		refuses "$content" "insmod: ERROR: could not read what the kernel enforces: $reason" \
			"$INSMOD" "$FIXTURES/delta.ko"
		refuses "$content" "insmod: ERROR: could not read what the kernel enforces: $reason" \
			"$INSMOD" --check "$FIXTURES/delta.ko"
	done < <(entries kernel-scalar-manifest)
}

@test "2,000 holders fields without trailing commas: a clean refusal, no overflow" {
	seq 2000 | awk '{ printf "m%d 1 0 x Live 0x%x\n", $1, $1 }' > "$K/root/proc/modules.planted"
	mv "$K/root/proc/modules.planted" "$K/root/proc/modules"
	before=$(kernel_state)
	refuses big "lsmod: ERROR: could not read the module list: /proc/modules line 1: the holders field is not \"-\" nor a list ending in a comma" "$LSMOD"
	refuses big "modreap: ERROR: could not read the module list: /proc/modules line 1: the holders field is not \"-\" nor a list ending in a comma" "$MODREAP" -a
}

@test "one module with 65,535 holders lists every one of them once" {
	{
		printf 'hub 1 0 '
		printf 'h%d,' $(seq 65535)
		printf ' Live 0x1000\n'
	} > "$K/root/proc/modules.planted"
	mv "$K/root/proc/modules.planted" "$K/root/proc/modules"
	# How long this takes is measured by bench/lsmod.sh, not asserted here.
	run --separate-stderr on_kernel "$LSMOD" -o name,holders -r -n
	assert_success
	holders=${output#hub }
	assert_equal "$(tr ',' '\n' <<<"$holders" | sort -u | wc -l)" 65535
	assert_equal "$(tr ',' '\n' <<<"$holders" | wc -l)" 65535
	# The order itself (kernfs hash, then name) is checked by tests/unit/snapshot.t.
}

@test "65,536 holders are more than a module can report: refused by name" {
	{
		printf 'hub 1 0 '
		printf 'h%d,' $(seq 65536)
		printf ' Live 0x1000\n'
	} > "$K/root/proc/modules.planted"
	mv "$K/root/proc/modules.planted" "$K/root/proc/modules"
	before=$(kernel_state)
	refuses many "lsmod: ERROR: could not read the module list: /proc/modules line 1: more than 65535 holders" "$LSMOD"
}

@test "insmod --match-devices takes a device's modalias file as one line, whatever it holds" {
	"$top_srcdir/tests/fixtures/mkdrivers.sh" 1 "$BATS_TEST_TMPDIR/drv" "$BATS_TEST_TMPDIR/devices" >/dev/null
	"$SIM" device add "$K" --from "$BATS_TEST_TMPDIR/devices"
	read -r bus id alias _ < <(grep -v '^#' "$BATS_TEST_TMPDIR/devices" | head -1)
	file=/sys/bus/$bus/devices/$id/modalias
	on_kernel cat "$file" >/dev/null
	check() { # check CONTENT MATCHES
		plant "$file" "$1"
		before=$(kernel_state)
		run --separate-stderr on_kernel "$INSMOD" --check --match-devices "$BATS_TEST_TMPDIR/drv/drv00000.ko"
		assert_success
		assert_equal "$stderr" ""
		assert_line "$2 of 1 modules match a present device (or one that does needs them)"
		assert_equal "$(kernel_state)" "$before"
	}
	check "$alias\n" 1
	check "$alias" 1
	check "$alias\nsomething else\n" 1
	check "" 0
	check "\n" 0
	check "\000$alias\n" 0
	check "$(head -c 100000 /dev/zero | tr '\0' 'a')\n" 0
}

@test "the refusals are clean under valgrind" {
	skip_if_sanitized
	plant /proc/modules 'a 1 0 b,c Live 0x1\n'
	before=$(kernel_state)
	valgrind_clean "$LSMOD" -J
	assert_equal "$status" 1
	valgrind_clean "$MODREAP" -a
	assert_equal "$status" 1
	restore
	plant /sys/module/module/parameters/sig_enforce 'maybe\n'
	valgrind_clean "$INSMOD" --check "$FIXTURES/delta.ko"
	assert_equal "$status" 1
	assert_equal "$(kernel_state)" "$before"
}
