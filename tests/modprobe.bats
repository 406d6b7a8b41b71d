#!/usr/bin/env bats
# modprobe on its own: the preflight before the kernel sees anything, what
# a failed init leaves rotting, exit codes, commands and softdeps, and
# nothing changed on bad input. Removing (-r, the in-use rule, --reclaim):
# modprobe-remove.bats; compatibility with kmod's modprobe:
# modprobe-kmod.bats.

load helpers/tools
load helpers/modtree
load helpers/modprobe
load helpers/inuse

bats_require_minimum_version 1.5.0

setup() { inuse_kernel; }

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

# The plan mt_core, mt_bus, mt_net stops at the step that fails: what
# was loaded before it stays loaded, as with kmod, nothing after it is
# tried, and the one line names the target (kmod's words) and the step.
@test "a dependency whose init fails ends the plan: named, earlier steps loaded, later ones not tried" {
	"$SIM" set "$K" mt_bus init_errno=19
	run --separate-stderr mp -v mt_net
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_net': its dependency 'mt_bus': No such device; its init failed and its 3093 bytes now rot ('rmmod --reclaim mt_bus' frees them)"
	assert_equal "$(grep -c '^insmod ' <<<"$output")" 2
	assert_line --index 1 --regexp '^insmod /lib/modules/6.1.0-sim/kernel/drivers/mt_bus.ko.xz $'
	is_live mt_core
	run is_live mt_net
	assert_failure
	assert_equal "$(rotting_count mt_bus)" 1
	assert_equal "$(rotting_count mt_net)" 0
}

@test "stock: a failed init is kmod's one line, and nothing rots" {
	MODE=stock setup
	run --separate-stderr mp mt_fail
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_fail': No such device"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "a name that resolves to nothing stops the run without -a (FATAL), not with it (WARNING)" {
	mp mtnet
	run --separate-stderr mp -r nosuchmodule mtnet
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: Module nosuchmodule not found."
	is_live mt_net
	run --separate-stderr mp -r -a nosuchmodule mtnet
	assert_failure 1
	assert_equal "$stderr" "modprobe: WARNING: Module nosuchmodule not found."
	run is_live mt_net
	assert_failure
	run --separate-stderr mp -a nosuchmodule mtnet
	assert_failure 1
	assert_equal "$stderr" "modprobe: WARNING: Module nosuchmodule not found in directory /lib/modules/6.1.0-sim"
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
	assert_equal "$stderr" "modprobe: FATAL: Module bad\\x1b[31mname not found in directory /lib/modules/6.1.0-sim"
	run --separate-stderr mp -r $'bad\e[31mname'
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not look up module bad\\x1b[31mname: Invalid argument"
	run --separate-stderr mp -r 'x[y'
	assert_failure 1
	run --separate-stderr mp "$(printf 'x%.0s' {1..300})"
	assert_failure 1
	[[ $stderr == "modprobe: FATAL: Module xxxx"*" not found in directory /lib/modules/6.1.0-sim" ]]
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

@test "-q silences -n -v's actions and libkmod's own lines, from the command line or MODPROBE_OPTIONS; five -v after it are verbose again, as kmod's" {
	local before
	printf 'bogus\033]0;title\007 x\nalias\n' > "$BATS_TEST_TMPDIR/bad.conf"
	bad() { on_kernel "$MODPROBE" -C "$MODTREE_CONF" -C "$BATS_TEST_TMPDIR/bad.conf" "$@"; }
	before=$(kernel_state)
	# without -q: libkmod's lines, sanitised, with modrot's prefix
	run --separate-stderr bad -n -v -a mtnet mtsound
	assert_success
	assert_equal "${#lines[@]}" 8
	assert_equal "$stderr" "modprobe: ERROR: libkmod: kmod_config_parse: $BATS_TEST_TMPDIR/bad.conf line 1: ignoring bad line starting with 'bogus\x1b]0;title\x07'
modprobe: ERROR: libkmod: kmod_config_parse: $BATS_TEST_TMPDIR/bad.conf line 2: ignoring bad line starting with 'alias'"
	for args in "-n -v -q" "-n -q -v" "-q -n -v -v -v -v"; do
		# shellcheck disable=SC2086
		run --separate-stderr bad $args -a mtnet mtsound nosuchmodule
		assert_failure 1
		assert_equal "$output" ''
		assert_equal "$stderr" ''
		# shellcheck disable=SC2086
		MODPROBE_OPTIONS=-q run --separate-stderr bad ${args/-q/} -a mtnet mtsound nosuchmodule
		assert_failure 1
		assert_equal "$output" ''
		assert_equal "$stderr" ''
	done
	run --separate-stderr bad -n -q -v -v -v -v -v -a mtnet mtsound
	assert_success
	assert_equal "${#lines[@]}" 8
	assert_equal "${#stderr_lines[@]}" 2
	# -D prints what it is asked for, -q or not
	run --separate-stderr bad -D -q mtnet
	assert_success
	assert_equal "${#lines[@]}" 5
	assert_equal "$stderr" ''
	assert_equal "$(kernel_state)" "$before"
	# and a real load under -q loads, silently
	MODPROBE_OPTIONS=-q run --separate-stderr bad -v mtnet
	assert_success
	assert_equal "$output$stderr" ''
	is_live mt_net
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

@test "softdep loops (a module on itself, a cycle) are followed once, with a warning, and not to a crash" {
	cat > "$BATS_TEST_TMPDIR/loop.conf" <<'CONF'
softdep mt_extra post: mt_extra
softdep mt_inst post: mt_perm
softdep mt_perm post: mt_blocked
softdep mt_blocked post: mt_inst
CONF
	lp() { on_kernel "$MODPROBE" -C "$BATS_TEST_TMPDIR/loop.conf" "$@"; }
	run lp mt_extra
	assert_success
	run lp mt_inst
	assert_success
	is_live mt_blocked
	run --separate-stderr lp -r mt_extra
	assert_success
	assert_equal "$stderr" "modprobe: WARNING: softdep loop mt_extra -> mt_extra: not following it back to mt_extra"
	run is_live mt_extra
	assert_failure
	run --separate-stderr lp -r -f mt_inst
	assert_success
	assert_equal "$stderr" "modprobe: WARNING: softdep loop mt_inst -> mt_perm -> mt_blocked -> mt_inst: not following it back to mt_inst"
	assert_equal "$(kernel_state | grep -c '^live')" 0
}

@test "a name of thousands of bytes in brackets never reaches libkmod: one line from each tool, nothing changed" {
	local long want before
	long="x[$(printf 'a%.0s' {1..5000})]"
	want="Module x[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... is no module name or alias: 5003 bytes, and an alias has at most 2047"
	mp mt_extra
	before=$(kernel_state)
	for args in "" "-r" "-R" "-D" "-n -v" "-r -n -v"; do
		# shellcheck disable=SC2086
		run --separate-stderr mp $args "$long"
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" "modprobe: FATAL: $want"
	done
	# with -a the others are still done, as kmod does for any failure,
	# and the failure is kmod's WARNING
	run --separate-stderr mp -a "$long" mt_core
	assert_failure 1
	assert_equal "$stderr" "modprobe: WARNING: $want"
	is_live mt_core
	on_kernel "$MODPROBE" -C "$MODTREE_CONF" -r mt_core
	before=$(kernel_state)
	for args in "" "-n" "-F name"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$top_builddir/tools/modinfo" $args "$long"
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" "modinfo: ERROR: 'x[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is no module name or alias: 5003 bytes, and an alias has at most 2047"
	done
	run --separate-stderr on_kernel "$RMMOD" "$long"
	assert_failure 2
	assert_equal "$(wc -l <<<"$stderr")" 1
	run --separate-stderr on_kernel "$top_builddir/tools/insmod" "$long"
	assert_failure 1
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_equal "$(kernel_state)" "$before"
}

@test "an install command that runs modprobe on its own module stops at 8 levels, with a clear line, exit 1" {
	echo "install mt_inst $MODPROBE mt_inst" > "$BATS_TEST_TMPDIR/self.conf"
	run --separate-stderr on_kernel "$MODPROBE" -C "$BATS_TEST_TMPDIR/self.conf" mt_inst
	assert_failure 1
	assert_equal "${stderr_lines[0]}" "modprobe: ERROR: install and remove commands run modprobe 8 levels deep (one that runs modprobe on its own module needs -i): not going deeper"
	assert_equal "${#stderr_lines[@]}" 9 # then each of the 8 levels above: its command failed
	assert_equal "${stderr_lines[8]}" "modprobe: ERROR: Error running install command for mt_inst: exit status 1"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "MODPROBE_OPTIONS reach a nested modprobe once, not doubled, with -C quoted; a path that cannot be passed is refused" {
	local dir="$BATS_TEST_TMPDIR/it's here"
	mkdir -p "$dir"
	# the outer modprobe loads mt_inst by its install command, which runs
	# modprobe on mt_extra, whose install command runs modprobe -i
	cat > "$dir/nest.conf" <<CONF
install mt_inst echo "1:\$MODPROBE_OPTIONS"; $MODPROBE mt_extra
install mt_extra echo "2:\$MODPROBE_OPTIONS"; $MODPROBE -i mt_extra
CONF
	run --separate-stderr on_kernel "$MODPROBE" -q -C "$dir/nest.conf" mt_inst
	assert_success
	assert_output "1:-q -C \"$dir/nest.conf\"
2:-q -C \"$dir/nest.conf\""
	is_live mt_extra
	run --separate-stderr on_kernel "$MODPROBE" -C "$BATS_TEST_TMPDIR/a'b\"c" mt_extra
	assert_failure 2
	assert_equal "$stderr" "modprobe: ERROR: -C $BATS_TEST_TMPDIR/a'b\"c: a path with both kinds of quote, or a newline, cannot be passed on to install commands in MODPROBE_OPTIONS (see 'modprobe --help')"
}

@test "an install or remove command killed by a signal fails (exit 1) and names the signal; one exiting non-zero says its status" {
	cat > "$BATS_TEST_TMPDIR/sig.conf" <<'CONF'
install mt_inst kill -KILL $$
remove mt_inst kill -TERM $$
install mt_extra exit 3
CONF
	sp() { on_kernel "$MODPROBE" -C "$BATS_TEST_TMPDIR/sig.conf" "$@"; }
	run --separate-stderr sp mt_inst
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: the install command of mt_inst was killed by signal 9 (SIGKILL: Killed)"
	run --separate-stderr sp mt_extra
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: Error running install command for mt_extra: exit status 3"
	run --separate-stderr sp -r mt_inst
	assert_failure 1
	assert_equal "$stderr" "modprobe: FATAL: the remove command of mt_inst was killed by signal 15 (SIGTERM: Terminated)"
	assert_equal "$(kernel_state)" "taint 0"
}

@test "-c whose index dump cannot be written (ENOSPC, a file size limit) exits 1 with one line, not 0 cut mid-line" {
	cp "$top_srcdir/tests/fixtures/modtree.spec" "$BATS_TEST_TMPDIR/spec"
	{
		printf 'kernel/misc/mt_many.ko | ko | 500'
		for i in $(seq 60); do printf ' | alias=mt-many-alias-number-%03d' "$i"; done
		echo
	} >> "$BATS_TEST_TMPDIR/spec"
	"$MODTREE" --spec "$BATS_TEST_TMPDIR/spec" "$K/root" >/dev/null 2>&1
	run --separate-stderr mp -c
	assert_success
	[ "${#output}" -gt 2048 ]
	# the configuration fits in 1024 bytes, the indexes do not
	run --separate-stderr bash -c 'ulimit -f 1; trap "" XFSZ; "$@" > "$0"' "$BATS_TEST_TMPDIR/out" \
		"$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -c
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not write to standard output: File too large"
	run --separate-stderr bash -c '"$@" > /dev/full' _ "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" -c
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not write to standard output: No space left on device"
}

@test "/proc/kallsyms that cannot be read: modprobe does as insmod, loading without it or saying why not, never a silent exit 0" {
	local kind
	for kind in missing noperm; do
		kernel_new rot
		modtree_install
		if [ "$kind" = missing ]; then rm "$K/root/proc/kallsyms"; else chmod 000 "$K/root/proc/kallsyms"; fi
		# no kallsyms (CONFIG_KALLSYMS off, a restricted reader): the kernel checks symbols itself
		run --separate-stderr setpriv --bounding-set=-dac_override,-dac_read_search -- \
			"$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" mtnet
		assert_success
		assert_equal "$stderr" ''
		is_live mt_net
		is_live mt_core
	done
	# any other read error: nothing loaded, and said, as insmod says it
	kernel_new rot
	modtree_install
	rm "$K/root/proc/kallsyms"
	mkdir "$K/root/proc/kallsyms"
	run --separate-stderr mp mtnet
	assert_failure 1
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mt_net': could not read the kernel's symbols (/proc/kallsyms): Is a directory; nothing was loaded"
	assert_equal "$(kernel_state)" "taint 0"
	run --separate-stderr on_kernel "$top_builddir/tools/insmod" "$K/root/lib/modules/6.1.0-sim/kernel/sound/mt_extra.ko"
	assert_failure 1
	assert_equal "$stderr" "insmod: ERROR: could not read the kernel's symbols: Is a directory"
}

# An install command of an earlier step of the plan (a pre-softdep, run
# after the module's dependencies and before the module) replaces the
# module's file after the preflight checked it, with mt_fail, whose init
# fails and would rot. modprobe loads the image it checked, never the path
# again: the kernel gets the module that was checked, plain, xz or zstd,
# of the same size as in a run where nothing replaced it.
@test "a module file replaced between the preflight and its load: the kernel gets the image checked, plain, xz and zstd" {
	local target evil conf name want dir=/lib/modules/6.1.0-sim/kernel/fs
	for target in mt_fscore.ko mtfs.ko.xz mtfs_tools.ko.zst; do
		name=${target%%.*}
		kernel_new rot
		modtree_install
		run on_kernel "$MODPROBE" -C "$MODTREE_CONF" "$name"
		assert_success
		want=$(kernel_state | awk -v n="$name" '$1 == "live" && $2 == n { print $1, $2, $3 }')
		[ -n "$want" ]
		kernel_new rot
		modtree_install
		evil=$BATS_TEST_TMPDIR/evil-$target
		case $target in
		*.xz) xz -c "$K/root/lib/modules/6.1.0-sim/kernel/misc/mt_fail.ko" >"$evil" ;;
		*.zst) zstd -q -c "$K/root/lib/modules/6.1.0-sim/kernel/misc/mt_fail.ko" >"$evil" ;;
		*) cp "$K/root/lib/modules/6.1.0-sim/kernel/misc/mt_fail.ko" "$evil" ;;
		esac
		conf=$BATS_TEST_TMPDIR/swap.conf
		cat >"$conf" <<-CONF
			softdep $name pre: mt_extra
			install mt_extra cp $evil $K/root$dir/$target && $MODPROBE -C $conf --ignore-install mt_extra
		CONF
		run --separate-stderr on_kernel "$MODPROBE" -C "$conf" "$name"
		assert_success
		assert_equal "$stderr" ''
		cmp -s "$evil" "$K/root$dir/$target" # the file was replaced
		run kernel_state
		refute_output --partial mt_fail
		assert_line --regexp '^live mt_extra '
		assert_equal "$(kernel_state | awk -v n="$name" '$1 == "live" && $2 == n { print $1, $2, $3 }')" "$want"
		assert_equal "$(rotting_count)" 0
	done
}

@test "a module file rewritten with the same image (recompressed) between the checks loads" {
	local conf=$BATS_TEST_TMPDIR/same.conf f=$K/root/lib/modules/6.1.0-sim/kernel/fs/mtfs_tools.ko.zst
	zstd -q -d -c "$f" | xz -c >"$BATS_TEST_TMPDIR/same.xz"
	zstd -q -d -c "$f" | zstd -q -19 -c >"$BATS_TEST_TMPDIR/same.zst"
	cat >"$conf" <<-CONF
		softdep mtfs_tools pre: mt_extra
		install mt_extra cp $BATS_TEST_TMPDIR/same.zst $f && $MODPROBE -C $conf --ignore-install mt_extra
	CONF
	run on_kernel "$MODPROBE" -C "$conf" mtfs_tools
	assert_success
	assert_output ''
	is_live mtfs_tools
}

# The kernel gets the bytes the preflight read, by construction: after
# that one read, the module's path is never opened again. A plain load is
# init_module() of that image (no descriptor: nothing else is opened); a
# forced one goes through libkmod, which strips what the force skips, from
# that image in a memory file that it opens by its /proc/self/fd path.
# Told by the trace of every open, libkmod's included.
@test "modprobe opens a module's file once, to check it, and loads what it read: plain and forced" {
	command -v strace >/dev/null || skip "no strace"
	local log=$BATS_TEST_TMPDIR/strace f=/lib/modules/6.1.0-sim/kernel/fs/mt_fscore.ko force fd
	for force in '' -f; do
		kernel_new rot
		modtree_install
		run on_kernel_traced -f -qq -e trace=openat,open,memfd_create -o "$log" \
			"$MODPROBE" $force -C "$MODTREE_CONF" mt_fscore
		assert_success
		is_live mt_fscore
		run grep -c "open[a-z]*(.*$f\"" "$log"
		assert_output 1
		run grep -c 'memfd_create(' "$log"
		if [ -z "$force" ]; then
			assert_output 0
		else
			assert_output 1
			fd=$(sed -n 's/.*memfd_create("module", MFD_CLOEXEC) = \([0-9]*\)$/\1/p' "$log")
			run grep -c "open[a-z]*(.*\"/proc/self/fd/$fd\"" "$log"
			assert_output 1
			assert_equal "$(taint)" 2 # F: a forced load
		fi
	done
}

@test "a decompression bomb in the tree is refused in bounded memory, nothing loaded" {
	local cap='' before
	[ "$MODROT_SANITIZED" = no ] && cap='ulimit -v 400000;'
	head -c 600M /dev/zero | zstd -q -1 -c >"$K/root/lib/modules/6.1.0-sim/kernel/fs/mtfs_tools.ko.zst"
	before=$(kernel_state)
	run --separate-stderr bash -c "$cap"' "$@"' bash timeout 60 "$SIM" run "$K" -- "$MODPROBE" -C "$MODTREE_CONF" mtfs_tools
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "modprobe: ERROR: could not insert 'mtfs_tools': larger than 512 MiB, more than any module; nothing was loaded (the kernel never saw it)"
	assert_equal "$(kernel_state)" "$before"
}

# /dev/null reads as an empty file, as kmod reads it: -C /dev/null is an
# empty configuration, and a NAME.conf linked to it is masked. kmod's
# modprobe beside ours, on twin kernels: the same answer and the same kernel.
@test "-C /dev/null is an empty configuration, and a .conf linked to /dev/null is masked, as kmod reads them" {
	local d=$BATS_TEST_TMPDIR/conf
	mkdir "$d"
	echo 'options mt_extra x=1' > "$d/ok.conf"
	ln -s /dev/null "$d/masked.conf"
	for conf in /dev/null "$d"; do
		run --separate-stderr on_kernel "$MODPROBE" -C "$conf" mt_extra
		assert_success
		assert_equal "$stderr" ""
		is_live mt_extra
		on_kernel "$MODPROBE" -C "$conf" -r mt_extra
		run is_live mt_extra
		assert_failure
		# kmod 30 takes both too
		run --separate-stderr on_kernel "$KMOD_MODPROBE" -C "$conf" mt_extra
		assert_success
		is_live mt_extra
		on_kernel "$KMOD_MODPROBE" -C "$conf" -r mt_extra
	done
	# -c shows what was read: nothing from /dev/null
	run --separate-stderr on_kernel "$MODPROBE" -C /dev/null -c
	assert_success
	refute_output --partial "options mt_extra"
	run --separate-stderr on_kernel "$MODPROBE" -C "$d" -c
	assert_success
	assert_output --partial "options mt_extra x=1"
}

# libkmod reads every NAME.conf of a configuration directory to its end:
# kmod's modprobe waits on a FIFO there for ever and reads /dev/zero until
# memory runs out. Refused before libkmod sees them, whether named by -C,
# found in a -C directory, or passed down in MODPROBE_OPTIONS.
@test "-C naming, or a -C directory holding, a FIFO or a device is refused before libkmod reads it" {
	local d=$BATS_TEST_TMPDIR/conf before kind
	before=$(kernel_state)
	for kind in fifo zero; do
		rm -rf "$d" && mkdir "$d"
		echo 'options mt_extra x=1' >"$d/ok.conf"
		case $kind in
		fifo) mkfifo "$d/bad.conf" ;;
		zero) ln -s /dev/zero "$d/bad.conf" ;;
		esac
		local what='a fifo'
		[ "$kind" = zero ] && what='a character device'
		run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$d" mt_extra
		assert_failure 1
		assert_equal "$stderr" "modprobe: ERROR: $d/bad.conf: $what, not a configuration file; nothing done"
		run --separate-stderr timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$d/bad.conf" mt_extra
		assert_failure 2
		assert_equal "$stderr" "modprobe: ERROR: -C $d/bad.conf: $what, not a configuration file or directory"
		run --separate-stderr timeout 20 "$SIM" run "$K" -- env MODPROBE_OPTIONS="-C $d" "$MODPROBE" -r mt_extra
		assert_failure 1
		assert_equal "$stderr" "modprobe: ERROR: $d/bad.conf: $what, not a configuration file; nothing done"
		assert_equal "$(kernel_state)" "$before"
	done
	# what libkmod does not read (no .conf, a dot file) is no concern
	rm "$d/bad.conf"
	mkfifo "$d/README" "$d/.hidden.conf"
	run timeout 20 "$SIM" run "$K" -- "$MODPROBE" -C "$d" mt_extra
	assert_success
	is_live mt_extra
}
