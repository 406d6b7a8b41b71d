#!/usr/bin/env bats
# simkernel create --kernel 6.1|6.12: the same modules on a simulated 6.1
# and 6.12 kernel get the SIZE each kernel's module loader gives them
# (tests/simkernel/README.md "Kernels"), and the tools read both alike.
# The expected sizes are worked out here from readelf's section headers,
# not from the simulator's code.

load helpers/tools

# A module with a section of every kind the loader sorts by: text, rodata,
# ro_after_init, __jump_table, data, bss, exit text, and init text, data
# and rodata; laymod fails its init (ENODEV) and so rots with its init.
setup_file() {
	local src=$BATS_FILE_TMPDIR/src rel
	mkdir -p "$src/src"
	cp "$top_srcdir/tests/fixtures/src/fixture.h" "$src/src/"
	cat >"$src/src/layout.c" <<'EOF'
#include "fixture.h"
static const char lay_rodata[5000] __attribute__((used)) = { 2 };
static int lay_rai[300] __attribute__((section(".data..ro_after_init"), used)) = { 3 };
static long lay_jump[6] __attribute__((section("__jump_table"), used, aligned(8))) = { 4 };
static char lay_bss[9000] __attribute__((used));
static int lay_initdata[700] __attribute__((section(".init.data"), used)) = { 5 };
static const char lay_initro[3000] __attribute__((section(".init.rodata"), used)) = { 6 };
static int __init lay_init(void) { return fixture_data[0] + lay_initdata[0] + lay_initro[0]; }
static void __exit lay_exit(void) { fixture_data[0] = 0; }
module_init(lay_init);
module_exit(lay_exit);
EOF
	for rel in 6.1.0-sim 6.12.0-sim; do
		printf '%s\n' "lay | layout.c | 2500 | vermagic=$rel" \
			"layfail | layout.c | 700 | vermagic=$rel | simkernel.init_errno=19" >"$src/fixtures.list"
		sh "$top_srcdir/tests/fixtures/mkfixtures.sh" "$src" "$BATS_FILE_TMPDIR/$rel" "${CC:-cc}"
	done
}

# ko_sizes 6.1|6.12 FILE: "CORE INIT", from `readelf -SW FILE` alone.
# 6.1 is the simulator's model of 6.1 (the allocated sections in file
# order, each at its alignment); 6.12 is __layout_sections(): five passes
# (executable; not writable; ro_after_init; writable; the rest), core
# then init (name starting .init), into seven memory types, each rounded
# up to a page. Both leave out .modinfo, __versions and the first
# .data..percpu, as the kernel does.
ko_sizes() {
	readelf -SW "$2" | awk -v k="$1" '
	function hex(s,   v, i) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	function al(x, a) { return a > 1 ? int((x + a - 1) / a) * a : x }
	function pg(x) { return int((x + 4095) / 4096) * 4096 }
	/^ *\[ *[0-9]+\]/ {
		sub(/^ *\[ *[0-9]+\] */, "")
		if (NF < 9) next
		flg = NF == 10 ? $7 : ""
		if (flg !~ /A/ || $1 == ".modinfo" || $1 == "__versions") next
		if ($1 == ".data..percpu" && !pcpu++) next
		n++; nm[n] = $1; f[n] = flg; s[n] = hex($5); a[n] = $NF
		if (($1 == ".data..ro_after_init" && !rai_seen++) || ($1 == "__jump_table" && !jt_seen++)) rai[n] = 1
	}
	END {
		if (k == "6.1") {
			for (i = 1; i <= n; i++)
				if (nm[i] ~ /^\.init/) ini = al(ini, a[i]) + s[i]; else core = al(core, a[i]) + s[i]
			print core + 0, ini + 0
			exit
		}
		split("text rodata rai data data", ct, " "); split("itext irodata - idata idata", it, " ")
		for (p = 0; p < 2; p++) for (m = 1; m <= 5; m++) for (i = 1; i <= n; i++) {
			if (done[i] || (nm[i] ~ /^\.init/) != p) continue
			if ((m == 1 && f[i] !~ /X/) || (m == 2 && f[i] ~ /W/) || (m == 3 && !rai[i]) || (m == 4 && f[i] !~ /W/)) continue
			t = p ? it[m] : ct[m]
			if (t == "-") continue
			mem[t] = al(mem[t], a[i]) + s[i]; done[i] = 1
		}
		print pg(mem["text"]) + pg(mem["rodata"]) + pg(mem["rai"]) + pg(mem["data"]), pg(mem["itext"]) + pg(mem["irodata"]) + pg(mem["idata"])
	}'
}

# kernel_of 6.1|6.12: a rot kernel of that version in $K, with the modules
# built for its release installed and indexed by Debian's depmod; sets
# REL, KO (lay.ko), CORE, INIT (lay's) and FCORE, FINIT (layfail's).
kernel_of() {
	local v=$1 dir
	REL=$v.0-sim
	kernel_new rot --kernel "$v"
	dir=$K/root/lib/modules/$REL/kernel/misc
	mkdir -p "$dir"
	cp "$BATS_FILE_TMPDIR/$REL/lay.ko" "$BATS_FILE_TMPDIR/$REL/layfail.ko" "$dir/"
	/sbin/depmod -b "$K/root" "$REL" 2>/dev/null # no modules.order here: warned about
	KO=$dir/lay.ko
	read -r CORE INIT < <(ko_sizes "$v" "$KO")
	read -r FCORE FINIT < <(ko_sizes "$v" "$dir/layfail.ko")
}

# the ledger balances, with lay loaded, unloaded and layfail's init failed
sim_ledger_check_k() {
	run "$SIM" ledger "$K" --check
	assert_success
	assert_line "loaded $((CORE + INIT + FCORE + FINIT)) init_freed $INIT freed 0 reclaimed 0 live 0 rotting $((CORE + FCORE + FINIT))"
}

live_size() { on_kernel cat /proc/modules | awk -v m="$1" '$1 == m { print $2 }'; }
rot_sizes() { on_kernel cat /proc/rotting_modules | awk -v m="$1" '$1 == m { print $2 }' | paste -sd' '; }

@test "the expected sizes differ between the kernels: 6.12 pages each memory type" {
	read -r c61 i61 < <(ko_sizes 6.1 "$BATS_FILE_TMPDIR/6.1.0-sim/lay.ko")
	read -r c612 i612 < <(ko_sizes 6.12 "$BATS_FILE_TMPDIR/6.12.0-sim/lay.ko")
	# text, rodata (5000 bytes: two pages), ro_after_init, data (with bss): one area each
	[ "$c612" -ge $((5 * 4096)) ]
	[ $((c612 % 4096)) -eq 0 ] && [ $((i612 % 4096)) -eq 0 ]
	# init text, init rodata, init data: three pages
	assert_equal "$i612" $((3 * 4096))
	[ "$c61" -lt "$c612" ] && [ "$i61" -lt "$i612" ]
}

@test "create --kernel records the kernel and its release; the default stays 6.1" {
	kernel_new rot
	run grep -x -e kernel=6.1 -e release=6.1.0-sim "$K/config"
	assert_equal "${#lines[@]}" 2
	run on_kernel uname -r
	assert_output 6.1.0-sim
	kernel_new rot --kernel 6.12
	run grep -x -e kernel=6.12 -e release=6.12.0-sim "$K/config"
	assert_equal "${#lines[@]}" 2
	run on_kernel uname -r
	assert_output 6.12.0-sim
	run "$SIM" create "$BATS_TEST_TMPDIR/bad" --kernel 6.2
	assert_failure 2
	assert [ ! -e "$BATS_TEST_TMPDIR/bad/state" ]
}

@test "a load, unload and failed init give each kernel's SIZE in /proc, /sys and state" {
	local v
	for v in 6.1 6.12; do
		kernel_of "$v"
		run on_kernel "$KMOD_INSMOD" "$KO"
		assert_success
		assert_equal "$(live_size lay)" "$CORE"
		assert_equal "$(on_kernel cat /sys/module/lay/coresize)" "$CORE"
		assert_equal "$(on_kernel cat /sys/module/lay/initsize)" 0
		run on_kernel "$KMOD_RMMOD" lay
		assert_success
		assert_equal "$(rot_sizes lay)" "$CORE"
		# a failed init rots with its init memory (P3)
		run on_kernel "$KMOD_INSMOD" "$K/root/lib/modules/$REL/kernel/misc/layfail.ko"
		assert_failure
		assert_equal "$(rot_sizes layfail)" "$((FCORE + FINIT))"
		run kernel_state
		assert_line --regexp "^rotting layfail $((FCORE + FINIT)) "
		assert_line --regexp "^rotting lay $CORE "
		sim_ledger_check_k
	done
}

@test "while its init runs, a module's SIZE is core and init on both kernels" {
	local v loader
	for v in 6.1 6.12; do
		kernel_of "$v"
		# its init runs until the test creates the gate
		"$SIM" set "$K" lay init_gate="$BATS_TEST_TMPDIR/go$v"
		on_kernel "$KMOD_INSMOD" "$KO" &
		loader=$!
		wait_state '^live lay .* Loading '
		assert_equal "$(live_size lay)" "$((CORE + INIT))"
		assert_equal "$(on_kernel cat /sys/module/lay/initsize)" "$INIT"
		touch "$BATS_TEST_TMPDIR/go$v"
		wait "$loader"
		assert_equal "$(live_size lay)" "$CORE"
		assert_equal "$(on_kernel cat /sys/module/lay/initsize)" 0
	done
}

@test "a module of the other kernel's release is refused there, as vermagic says" {
	kernel_new rot --kernel 6.12
	run on_kernel "$top_builddir/tests/simkernel/sysc" finit "$BATS_FILE_TMPDIR/6.1.0-sim/lay.ko"
	assert_output ENOEXEC
	assert_equal "$(kernel_state)" "taint 0"
}

@test "lsmod, modinfo and modprobe run unchanged on both kernels" {
	local v
	for v in 6.1 6.12; do
		kernel_of "$v"
		run on_kernel "$top_builddir/tools/modinfo" -F vermagic lay
		assert_success
		assert_output "$REL SMP preempt mod_unload modversions "
		run on_kernel "$top_builddir/tools/modprobe" lay
		assert_success
		run on_kernel "$LSMOD"
		assert_success
		assert_line --regexp "^lay +$CORE +0 *\$"
		run on_kernel "$LSMOD" -J
		assert_success
		assert_equal "$(jq -r '.modules[] | select(.name == "lay") | .bytes' <<<"$output")" "$CORE"
		run on_kernel "$top_builddir/tools/modprobe" -r lay
		assert_success
		assert_equal "$(rot_sizes lay)" "$CORE"
	done
}

@test "rmmod, rmmod --reclaim and modreap -J report each kernel's SIZE" {
	local v
	for v in 6.1 6.12; do
		kernel_of "$v"
		on_kernel "$KMOD_INSMOD" "$KO"
		run on_kernel "$top_builddir/tools/rmmod" -b -J lay
		assert_success
		on_kernel "$KMOD_INSMOD" "$KO"
		on_kernel "$KMOD_INSMOD" "$K/root/lib/modules/$REL/kernel/misc/layfail.ko" || true
		run on_kernel "$MODREAP" -b -J
		assert_success
		assert_equal "$(jq '.summary.rotting_bytes' <<<"$output")" "$((CORE + FCORE + FINIT))"
		assert_equal "$(jq -r '.rotting[] | select(.name == "lay") | .rotting_bytes' <<<"$output")" "$CORE"
		run on_kernel "$top_builddir/tools/rmmod" -b --reclaim lay
		assert_success
		assert_equal "$(rot_sizes lay)" ""
		run "$SIM" ledger "$K" --check
		assert_success
		assert_line --regexp "^loaded .* reclaimed $((2 * CORE)) live 0 rotting $((FCORE + FINIT))\$"
	done
}

# race_same_file V NAME WANT_WCHAN: two finit_module() calls of one file,
# the second made while the first's init waits at its gate; prints
# "FIRST SECOND" once both have returned. The second is seen waiting
# (its /proc/PID/wchan) before the gate opens: driven, not hoped for.
SYSC=$top_builddir/tests/simkernel/sysc
wchan_is() { [ "$(on_kernel cat "/proc/$1/wchan" 2>/dev/null)" = "$2" ]; }
race_same_file() {
	local name=$1 want=$2 file=$3 d=$BATS_TEST_TMPDIR first second
	rm -f "$d/gate" "$d/pid" "$d/first" "$d/second"
	"$SIM" set "$K" "$name" init_gate="$d/gate"
	on_kernel "$SYSC" finit "$file" >"$d/first" &
	first=$!
	wait_state "^live $name .* Loading "
	on_kernel sh -c 'echo $$ >"$1"; exec "$2" finit "$3"' sh "$d/pid" "$SYSC" "${4:-$file}" >"$d/second" &
	second=$!
	wait_until test -s "$d/pid"
	wait_until wchan_is "$(cat "$d/pid")" "$want"
	touch "$d/gate"
	wait "$first" || true # sysc exits non-zero on an errno; its output says which
	wait "$second" || true
	echo "$(cat "$d/first") $(cat "$d/second")"
}

# rot-abi.md L4: on 6.1 the second call loads and waits by name (EEXIST
# once the first went live, EBUSY once its init failed); on 6.12 (since
# 6.6) a finit_module() of the very file another one is loading waits for
# that call and returns its result, and never loads an instance of its own.
@test "L4: a finit_module() of the file another one is loading: 6.1 waits by name, 6.12 takes the first call's result" {
	kernel_of 6.1
	run race_same_file lay load_module "$KO"
	assert_output "ok EEXIST"
	kernel_of 6.12
	run race_same_file lay idempotent_init_module "$KO"
	assert_output "ok ok"
	run kernel_state
	assert_line --regexp '^live lay [0-9]+ .* Live '
	assert_equal "$(kernel_state | grep -c ' lay ')" 1
	# the waiter's wchan is gone once its wait ended
	run on_kernel cat "/proc/$(cat "$BATS_TEST_TMPDIR/pid")/wchan"
	assert_failure
}

@test "L4: the same when the first call's init fails: 6.1 answers EBUSY, 6.12 the init's own error; one instance rots" {
	local v
	for v in 6.1 6.12; do
		kernel_of "$v"
		local file=$K/root/lib/modules/$REL/kernel/misc/layfail.ko want=load_module answer="ENODEV EBUSY"
		[ "$v" = 6.1 ] || want=idempotent_init_module answer="ENODEV ENODEV"
		run race_same_file layfail "$want" "$file"
		assert_output "$answer"
		assert_equal "$(rot_sizes layfail)" "$((FCORE + FINIT))"
		assert_equal "$(kernel_state | grep -c ' layfail ')" 1
	done
}

@test "L4 on 6.12: another file of the same module, or init_module(), still waits by name as on 6.1" {
	kernel_of 6.12
	cp "$KO" "$BATS_TEST_TMPDIR/lay-copy.ko"
	run race_same_file lay load_module "$KO" "$BATS_TEST_TMPDIR/lay-copy.ko"
	assert_output "ok EEXIST"
	on_kernel "$RMMOD" lay
	# init_module() (a buffer, no file) of the same bytes
	local d=$BATS_TEST_TMPDIR
	rm -f "$d/gate" "$d/pid"
	"$SIM" set "$K" lay init_gate="$d/gate"
	on_kernel "$SYSC" finit "$KO" >"$d/first" &
	local first=$!
	wait_state '^live lay .* Loading '
	on_kernel sh -c 'echo $$ >"$1"; exec "$2" init "$3"' sh "$d/pid" "$SYSC" "$KO" >"$d/second" &
	local second=$!
	wait_until test -s "$d/pid"
	wait_until wchan_is "$(cat "$d/pid")" load_module
	touch "$d/gate"
	wait "$first" || true
	wait "$second" || true
	assert_equal "$(cat "$d/first") $(cat "$d/second")" "ok EEXIST"
}

# A signal mid-run: the process of the call being waited for was killed
# before its load ended (on the kernel the first call always completes).
# Its name in DIR/idem holds a pid and no result; a call of the same file
# must not wait for it for ever, and loads as after the first call's end.
@test "L4 on 6.12: a same-file call whose loading process is gone without a result loads instead of waiting for ever" {
	kernel_of 6.12
	sh -c 'exit 0' &
	local dead=$! key
	wait "$dead"
	key=$(printf '%x-%x' "$(stat -c %d "$KO")" "$(stat -c %i "$KO")")
	mkdir -p "$K/idem"
	printf 'pid %s\n' "$dead" >"$K/idem/$key"
	run timeout 60 "$SIM" run "$K" -- "$SYSC" finit "$KO"
	assert_success
	assert_output ok
	run kernel_state
	assert_line --regexp '^live lay [0-9]+ .* Live '
	[ ! -e "$K/idem/$key" ]
}
