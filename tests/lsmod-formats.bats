#!/usr/bin/env bats
# Every /proc/modules a Linux kernel prints (kernel/module/procfs.c and,
# before 5.13, kernel/module.c's m_show): a kernel without
# CONFIG_MODULE_UNLOAD ("- -" for the count and the holders), the state
# marks after the taint letters of a module coming or going ("(+)",
# "(OE-)"), [permanent] (an init without exit, as a livepatch may be),
# 2.6's [unsafe] marker and negative counts, addresses hidden by
# kptr_restrict, 32-bit addresses. Each is a fixture in
# tests/fixtures/proc-modules, planted over a stock simulated kernel's
# file; lsmod prints each as kmod's lsmod prints it ("%-19s %8ld  %d" and
# the holders, the count -2 where sysfs has no refcnt file), and
# modrot-metrics and insmod read it too.

load helpers/tools

bats_require_minimum_version 1.5.0

FORMATS=$top_srcdir/tests/fixtures/proc-modules
METRICS=$top_builddir/tools/modrot-metrics

setup() {
	kernel_new stock
	on_kernel cat /proc/modules > /dev/null # rendered once, then planted over
}

plant_format() { cp "$FORMATS/$1.modules" "$K/root/proc/modules"; }

# lsmod FORMAT EXPECTED: lsmod's output on the planted fixture
lsmod_prints() {
	plant_format "$1"
	run --separate-stderr on_kernel "$LSMOD"
	assert_success
	assert_equal "$stderr" ""
	assert_output "$2"
}

@test "a kernel without CONFIG_MODULE_UNLOAD: '- -' read, the count printed as kmod's lsmod prints it (-2)" {
	lsmod_prints unload-n "Module                  Size  Used by
alpha                  16384  -2
beta                   12288  -2"
	run on_kernel "$LSMOD" -J -o NAME,TAINTS
	assert_success
	assert_equal "$(jq -c '[.modules[] | [.name, .taints]]' <<< "$output")" '[["alpha",""],["beta","OE"]]'
}

@test "Loading and Unloading with the state marks after the taint letters: read, the marks not taken for taints" {
	lsmod_prints states-taints "Module                  Size  Used by
alpha                  16384  0
beta                   12288  0
gamma                   8192  1 beta"
	run on_kernel "$LSMOD" -J -o NAME,TAINTS
	assert_success
	assert_equal "$(jq -c '[.modules[] | [.name, .taints]]' <<< "$output")" '[["alpha",""],["beta","OE"],["gamma","P"]]'
}

@test "[permanent] (a livepatch, an init without exit): read, the line kmod's on a stock kernel" {
	lsmod_prints livepatch-permanent "Module                  Size  Used by
livepatch_sample       16384  1
noexit                  8192  0"
	run on_kernel "$LSMOD" -J -o NAME,PERMANENT,TAINTS
	assert_success
	assert_equal "$(jq -c '[.modules[] | [.name, .permanent, .taints]]' <<< "$output")" \
		'[["livepatch_sample",true,"OEK"],["noexit",true,""]]'
}

@test "addresses hidden by kptr_restrict, and 32-bit addresses, are read" {
	lsmod_prints kptr-restricted "Module                  Size  Used by
alpha                  16384  0
beta                   12288  1 alpha"
	lsmod_prints addr-32bit "Module                  Size  Used by
alpha                  16384  0
beta                   12288  1 alpha"
}

@test "Linux 2.6: the [unsafe] marker and a negative count of a module going" {
	lsmod_prints linux-2.6 "Module                  Size  Used by
alpha                  16384  0
beta                   12288  -1"
}

@test "modrot-metrics and insmod read every format" {
	for f in "$FORMATS"/*.modules; do
		plant_format "$(basename "$f" .modules)"
		run --separate-stderr on_kernel "$METRICS"
		assert_success
		assert_equal "$stderr" ""
		# insmod reads the list to tell a name already loaded: alpha is
		run --separate-stderr on_kernel "$top_builddir/tools/insmod" "$FIXTURES/alpha.ko"
		refute_output --partial "could not read the module list"
		[[ $stderr != *"could not read the module list"* ]]
	done
}
