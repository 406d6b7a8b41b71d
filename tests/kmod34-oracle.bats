#!/usr/bin/env bats
# Debian 13's kmod 34 as a second oracle for modinfo and modprobe, beside
# the kmod 30 of modinfo-kmod.bats and modprobe-kmod.bats. kmod 34 runs
# from Debian 13's own packages, the root scripts/package-test.sh caches or
# the few that scripts/debian13-oracle.sh does (tests/helpers/kmod34.bash),
# through their own dynamic loader and libraries, under the simulated
# kernel as every tool here does.
#
# The module tree is Debian 13's own when its kernel package is in the
# same cache (scripts/debian13-oracle.sh puts it there:
# linux-image-6.12.*-amd64-unsigned, unpacked with dpkg-deb -x and indexed
# by kmod 34's depmod, as Debian 13 indexes it); otherwise the generated
# tree of tests/fixtures/modtree.spec, indexed by kmod 34's depmod. Each
# test says which on its first line of output. Every module of the tree:
# modinfo (in batches, each batch whose output differs again one module
# at a time) and modprobe -D -a (the same); the option matrix, a process
# a case, on an even sample. Standard output and exit status byte for byte; standard
# error byte for byte for the whole-tree runs, and by its lines' level
# words in the matrix, as the kmod 30 comparisons read it (modrot's words
# are its own, modprobe.8 and modinfo.8).
#
# Differences found and what became of them:
# - kmod 34's depmod writes each index's trie root first, its nodes before
#   their children (kmod 30's writes the root last): modrot's index check
#   refused every index of a kmod 34 tree as corrupt, and read the tree as
#   having none. It now takes either order (lib/modindex.c); the last test
#   checks kmod 34's, with bit flips.
# - kmod 34's modprobe takes a name with a slash as a module file; kmod 30
#   and modrot look it up as a name (documented in modprobe.8; the test
#   "a module file given to modprobe" holds both sides to it).
# - rmmod of a path with no file there: kmod 30 and 34 fail it, modrot
#   unloaded the module of the path's last component. Fixed (tools/rmmod-cmd/rmmod.c).
# - modprobe --show-exports and --show-modversions of a FIFO: kmod 30 and
#   34 wait for ever, and so did modrot. modrot now refuses what is not a
#   regular file (DELIBERATE below, with the other FIFOs kmod waits on).
# - Where kmod 30 and 34 differ on a file (DIFFER_FOLLOWS below), modrot
#   follows kmod 30: the module-file argument of modprobe, and a FIFO as
#   that argument, which kmod 34 then waits on.
#
# Each test appends "kmod34 NAME: N cases, M identical" to
# tests/kmod34-oracle.results in the build tree, and to the file
# MODROT_ORACLE_RESULTS names, if any: CI prints that one, as distcheck
# removes its build tree.

bats_require_minimum_version 1.5.0

load helpers/tools
load helpers/modtree
load helpers/kmod34

MODPROBE=$top_builddir/tools/modprobe
MODINFO=$top_builddir/tools/modinfo
LOOP=$top_srcdir/tests/helpers/kmod34-loop.sh
COMPARE=$top_srcdir/tests/helpers/kmod34-compare.pl
RESULTS=$top_builddir/tests/kmod34-oracle.results

# The newest Debian 13 kernel package in the cache, if any.
debian13_deb() {
	if [ -n "${MODROT_DEBIAN13_KERNEL_DEB:-}" ]; then
		echo "$MODROT_DEBIAN13_KERNEL_DEB"
		return
	fi
	# shellcheck disable=SC2012
	ls "${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}"/linux-image-6.12.*-amd64-unsigned_*.deb \
		2>/dev/null | sort -V | tail -n 1
}

setup_file() {
	local F=$BATS_FILE_TMPDIR deb rel
	kmod34_setup_file
	[ ! -f "$F/kmod34-missing" ] || return 0
	kmod34_skip
	# kmod 34's depmod, by name, for modtree.sh.
	mkdir -p "$F/k34bin"
	printf '#!/bin/sh\nexec "%s" --library-path "%s" --argv0 depmod "%s" "$@"\n' \
		"$KMOD34_LD" "$KMOD34_LIBS" "$KMOD34_BIN" > "$F/k34bin/depmod"
	chmod +x "$F/k34bin/depmod"
	deb=$(debian13_deb)
	mkdir -p "$F/conf"
	if [ -n "$deb" ] && [ -f "$deb" ]; then
		dpkg-deb -x "$deb" "$F/tree"
		# Debian 13's kernel ships its modules in /usr/lib/modules; kmod
		# reads /lib/modules, the same directory on a merged-/usr root.
		ln -s usr/lib "$F/tree/lib"
		rel=$(ls "$F/tree/usr/lib/modules")
		"$F/k34bin/depmod" -b "$F/tree" "$rel"
		echo "Debian 13's tree: $(basename "$deb"), $(wc -l < "$F/tree/lib/modules/$rel/modules.dep") modules" \
			> "$F/tree-kind"
		# A configuration that touches a few of its modules.
		cat > "$F/conf/k34.conf" <<-'EOF'
			alias k34net e1000e
			alias k34fs ext4
			options e1000e debug=2
			options loop max_loop=4
			softdep ext4 pre: crc32c_generic
			blacklist pcspkr
			install k34inst /bin/true
			remove k34inst /bin/true
		EOF
	else
		rel=6.1.0-sim
		PATH=$F/k34bin:$PATH "$MODTREE" "$F/tree" > /dev/null
		cp "$F/tree/etc/modprobe.d/modtree.conf" "$F/conf/"
		echo "the generated tree (tests/fixtures/modtree.spec), $(wc -l < "$F/tree/lib/modules/$rel/modules.dep")" \
			"modules: no Debian 13 kernel package in the cache (scripts/debian13-oracle.sh)" > "$F/tree-kind"
	fi
	echo "$rel" > "$F/release"
	# Every module by name, as modules.dep lists them, and an even sample.
	sed -e 's/:.*//' -e 's,.*/,,' -e 's/\.ko.*//' "$F/tree/lib/modules/$rel/modules.dep" > "$F/names"
	sed 's/:.*//' "$F/tree/lib/modules/$rel/modules.dep" > "$F/files"
	awk -v n="$(wc -l < "$F/names")" 'NR % (n > 15 ? int(n / 15) : 1) == 0' "$F/names" > "$F/sample"
	awk -v n="$(wc -l < "$F/files")" 'NR % (n > 10 ? int(n / 10) : 1) == 0' "$F/files" > "$F/sample-files"
}

# The file options (issue 32, item 7) are compared with kmod 30 on every
# machine, and with kmod 34 too where its root is cached; every other test
# needs kmod 34.
file_options_test() {
	[[ $BATS_TEST_DESCRIPTION == "every option and argument naming a file"* ]]
}

setup() {
	if file_options_test; then
		[ -f "$BATS_FILE_TMPDIR/kmod34-missing" ] || kmod34_skip
		return 0
	fi
	kmod34_skip
	local F=$BATS_FILE_TMPDIR
	REL=$(cat "$F/release")
	CONF=$F/conf
	K=$BATS_TEST_TMPDIR/kernel
	"$SIM" create "$K" --mode stock --kernel 6.12 --release "$REL"
	rm -rf "${K:?}/root/lib/modules/$REL"
	ln -s "$F/tree/lib/modules/$REL" "$K/root/lib/modules/$REL"
	echo "# $(cat "$F/tree-kind")" >&3
}

record() {
	echo "kmod34 $1" >> "$RESULTS"
	echo "kmod34 $1" >> "${MODROT_ORACLE_RESULTS:-/dev/null}"
	echo "# $1" >&3
}

# both_run MODE CASES-FILE TOOL: the cases by kmod 34's TOOL and by
# modrot's, each in one process loop under the simulated kernel; prints
# kmod34-compare.pl's verdict.
both_run() {
	local mode=$1 cases=$2 tool=$3 T=$BATS_TEST_TMPDIR mine
	case $tool in
	modinfo) mine=$MODINFO ;;
	modprobe) mine=$MODPROBE ;;
	esac
	KMOD34 "$tool"
	"$SIM" run "$K" -- "$LOOP" "${kmod34[@]}" < "$cases" > "$T/k.out" 2> "$T/k.err"
	"$SIM" run "$K" -- "$LOOP" "$mine" < "$cases" > "$T/m.out" 2> "$T/m.err"
	"$COMPARE" "$mode" "$T/k.out" "$T/k.err" "$T/m.out" "$T/m.err"
}

# every_module TOOL OPTIONS...: TOOL OPTIONS NAME for every module of the
# tree, by kmod 34 and by modrot, in batches of 500 names a process (a
# process per module would take most of the time this file may take); a
# batch whose output differs runs again one module at a time, which names
# the modules that differ. Prints those, then "cases N identical M".
every_module() {
	local tool=$1 F=$BATS_FILE_TMPDIR T=$BATS_TEST_TMPDIR chunk n total=0 same=0 out
	shift
	rm -f "$T"/chunk.*
	split -l 500 "$F/names" "$T/chunk."
	for chunk in "$T"/chunk.*; do
		printf '%s %s\t\n' "$*" "$(tr '\n' ' ' < "$chunk")" > "$T/cases"
		out=$(both_run bytes "$T/cases" "$tool") || return
		n=$(wc -l < "$chunk")
		total=$((total + n))
		if [ "$out" = "cases 1 identical 1" ]; then
			same=$((same + n))
			continue
		fi
		sed "s|^|$*\t|" "$chunk" > "$T/cases"
		out=$(both_run bytes "$T/cases" "$tool") || return
		grep -v '^cases ' <<< "$out" || :
		same=$((same + ${out##* }))
	done
	echo "cases $total identical $same"
}

@test "modinfo of every module of the tree: kmod 34's output, status and stderr, byte for byte" {
	local F=$BATS_FILE_TMPDIR state
	state=$("$SIM" state "$K")
	run every_module modinfo
	assert_success
	record "modinfo, every module: ${lines[-1]#cases }"
	assert_output "cases $(wc -l < "$F/names") identical $(wc -l < "$F/names")"
	assert_equal "$("$SIM" state "$K")" "$state"
}

# -D -a prints what -D prints for each name in turn; each name's own
# process is in the option matrix below, for the sample.
@test "modprobe -D -a of every module of the tree: kmod 34's output, status and stderr, byte for byte" {
	local F=$BATS_FILE_TMPDIR state
	state=$("$SIM" state "$K")
	run every_module modprobe -C "$CONF" -D -a
	assert_success
	record "modprobe -D, every module: ${lines[-1]#cases }"
	assert_output "cases $(wc -l < "$F/names") identical $(wc -l < "$F/names")"
	assert_equal "$("$SIM" state "$K")" "$state"
}

# The matrix's arguments: the sample by name, a few of its files by path
# (the tree's, as the simulator serves it), aliases from the tree's own
# modules.alias and modules.symbols, the configuration's, and names that
# resolve to nothing.
matrix_arguments() {
	local F=$BATS_FILE_TMPDIR
	[ "${1:-}" = --no-paths ] || matrix_paths
	cat "$F/sample"
	awk 'NR % 3000 == 1 { print $2 }' "$F/tree/lib/modules/$REL/modules.alias"
	awk 'NR % 3000 == 1 { print $2 }' "$F/tree/lib/modules/$REL/modules.symbols"
	sed -n 's/^alias \([^ ]*\) .*/\1/p' "$CONF"/*.conf | head -n 3
	sed -n 's/^blacklist \([^ ]*\)$/\1/p' "$CONF"/*.conf | head -n 1
	printf '%s\n' nosuchmodule fs-nosuch 'x*'
}

matrix_paths() {
	sed "s|^|/lib/modules/$REL/|" "$BATS_FILE_TMPDIR/sample-files"
	echo /nonexistent/x.ko
}

@test "modinfo's options on a sample of the tree: kmod 34's output and status, its stderr's level words" {
	local T=$BATS_TEST_TMPDIR opts arg
	while IFS= read -r opts; do
		while IFS= read -r arg; do
			printf '%s\t%s\n' "$opts" "$arg"
		done < <(matrix_arguments)
	done < <(printf '%s\n' "" "-F alias" "-p" "-a" "-d" "-n" "-0 -p" "-F nosuchfield" "-F signature" \
		"-m" "--null --author" "-k 9.9.9-none") > "$T/cases"
	run both_run shape "$T/cases" modinfo
	assert_success
	record "modinfo option matrix: ${lines[-1]#cases }"
	assert_output "cases $(wc -l < "$T/cases") identical $(wc -l < "$T/cases")"
}

modprobe_query_options() {
	printf '%s\n' "-D" "-R" "-n -v" "-n -v -i" "-n -v -b" "-n -v --first-time" "-n -q" \
		"-n -v -q" "-D -q" "-n -v -r" "-n -v -a" "-S $REL -D" "-S 9.9.9-none -D"
}

@test "modprobe's queries on a sample of the tree: kmod 34's output and status, its stderr's level words" {
	local T=$BATS_TEST_TMPDIR opts arg f d=/lib/modules/$REL state
	state=$("$SIM" state "$K")
	while IFS= read -r opts; do
		while IFS= read -r arg; do
			printf '%s\t%s\n' "-C $CONF $opts" "$arg"
		done < <(matrix_arguments --no-paths)
	done < <(modprobe_query_options) > "$T/cases"
	while IFS= read -r f; do
		printf '%s\t%s\n' "--show-exports" "$d/$f" "--show-modversions" "$d/$f"
	done < "$BATS_FILE_TMPDIR/sample-files" >> "$T/cases"
	printf '%s\t\n' "-C $CONF -c" "-C $CONF -n -v -a $(tr '\n' ' ' < "$BATS_FILE_TMPDIR/sample")" \
		"-C $CONF -D -a $(head -n 5 "$BATS_FILE_TMPDIR/sample" | tr '\n' ' ')" >> "$T/cases"
	run both_run shape "$T/cases" modprobe
	assert_success
	record "modprobe query matrix: ${lines[-1]#cases }"
	assert_output "cases $(wc -l < "$T/cases") identical $(wc -l < "$T/cases")"
	assert_equal "$("$SIM" state "$K")" "$state"
}

# kmod 34's modprobe takes an argument with a slash as a module file (its
# dependencies still from the tree's modules.dep, by the file's module
# name); kmod 30's looks it up as a name, finds none, and says so, exit 1.
# modrot's modprobe answers as kmod 30's does: Debian 12's kmod is the one
# whose programs modrot replaces and whose scripts it keeps working, and
# loading a file is insmod's job in both. Checked both ways, so that a
# change on either side shows here.
@test "a module file given to modprobe: modrot answers as kmod 30 does, where kmod 34 takes the file" {
	local T=$BATS_TEST_TMPDIR opts arg state
	state=$("$SIM" state "$K")
	while IFS= read -r opts; do
		while IFS= read -r arg; do
			printf '%s\t%s\n' "-C $CONF $opts" "$arg"
		done < <(matrix_paths)
	done < <(modprobe_query_options) > "$T/cases"
	"$SIM" run "$K" -- "$LOOP" /sbin/modprobe < "$T/cases" > "$T/k.out" 2> "$T/k.err"
	"$SIM" run "$K" -- "$LOOP" "$MODPROBE" < "$T/cases" > "$T/m.out" 2> "$T/m.err"
	run "$COMPARE" shape "$T/k.out" "$T/k.err" "$T/m.out" "$T/m.err"
	assert_success
	record "modprobe with a module file, against kmod 30: ${lines[-1]#cases }"
	assert_output "cases $(wc -l < "$T/cases") identical $(wc -l < "$T/cases")"
	# kmod 34 differs on every file of the tree with the options that
	# resolve a module (-r looks the name up in the kernel, as before).
	run both_run shape "$T/cases" modprobe
	assert_success
	local files=$(($(matrix_paths | wc -l) - 1)) differing
	differing=$(grep -c '^exit status 1, kmod.s 0' <<< "$output" || :)
	record "modprobe with a module file, against kmod 34: ${lines[-1]#cases } (the $differing others: kmod 34 takes the file)"
	assert_equal "$differing" "$((files * 12))"
	assert_equal "$((${#lines[@]} - 1))" "$differing"
	assert_equal "$("$SIM" state "$K")" "$state"
}

# ---- Issue 32, item 7: every option and argument that names a file ----
#
# Each case runs by kmod 30 (this machine's /sbin tools), kmod 34 (where
# its root is cached; elsewhere kmod 30 is the one oracle) and modrot,
# each on a fresh simulated kernel holding the generated tree (mt_inst
# loaded, for rmmod), bounded by a timeout (a FIFO may be waited on). The outcome of a run: its exit class (ok, failed, or hung), its
# standard output, and the kernel's state after it, which on a failure
# must be the state before. modrot must have kmod 30's outcome and kmod
# 34's where those two agree, and where they differ, the one of the kmod
# DIFFER_FOLLOWS names, for the reason written there.

# Where kmod 30 and kmod 34 disagree: "CASE|WHICH|why" lines.
DIFFER_FOLLOWS='
modprobe FILE (a module)|kmod 30|kmod 34 loads the file; a name with a slash is a name to modrot, as in the test above
modprobe FILE (FIFO)|kmod 30|kmod 34 opens the FIFO as a module file and waits on it; modrot looks the name up, finds none, exit 1
'

# Where modrot differs from both on purpose: "CASE|why" lines.
DELIBERATE='
insmod FILE (FIFO)|kmod waits on a FIFO for ever (both open and read it); modrot refuses what is not a regular file
modprobe --show-exports (FIFO)|the same: refused, not waited on
modprobe --show-modversions (FIFO)|the same: refused, not waited on
modprobe -C (FIFO) -n -v|kmod waits on a FIFO given as its configuration; modrot reads only regular files and directories there, and refuses the rest
modprobe -C (FIFO)|the same: refused, not waited on
'

fresh_kernel() {
	"$SIM" create "$1" --mode stock >/dev/null
	mkdir -p "$1/root"
	cp -a "$BATS_FILE_TMPDIR/modtree/lib" "$BATS_FILE_TMPDIR/modtree/etc" "$1/root/"
	"$SIM" run "$1" -- /sbin/insmod "$1/root/lib/modules/6.1.0-sim/kernel/misc/mt_inst.ko"
}

# outcome WHO UNREADABLE TOOL ARG...: one run on the case's kernel ($CK,
# made afresh after any run that changed it); prints "CLASS<TAB>stdout
# (escaped)<TAB>changed|unchanged" and keeps the state after in $T/state.WHO.
# UNREADABLE runs the tool without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
# (root reads a file of mode 000), on every side alike.
outcome() {
	local who=$1 nobody=$2 tool=$3 T=$BATS_TEST_TMPDIR before status cmd
	shift 3
	if [ ! -d "$CK" ]; then
		fresh_kernel "$CK"
	fi
	before=$("$SIM" state "$CK")
	case $who in
	kmod30) cmd=("/sbin/$tool") ;;
	kmod34) KMOD34 "$tool"; cmd=("${kmod34[@]}") ;;
	modrot) cmd=("$top_builddir/tools/$tool") ;;
	esac
	if [ "$nobody" = yes ]; then
		cmd=(setpriv --bounding-set=-dac_override,-dac_read_search
			--inh-caps=-dac_override,-dac_read_search "${cmd[@]}")
	fi
	timeout -k 2 4 "$SIM" run "$CK" -- "${cmd[@]}" "$@" < /dev/null > "$T/out.$who" 2> "$T/err.$who"
	status=$?
	"$SIM" state "$CK" > "$T/state.$who"
	local class=failed changed=unchanged
	[ "$status" -ne 0 ] || class=ok
	# timeout's own status, or its KILL: the run was waiting
	[ "$status" -ne 124 ] && [ "$status" -ne 137 ] || class=hung
	if [ "$before" != "$(cat "$T/state.$who")" ]; then
		changed=changed
		rm -rf "$CK"
	fi
	printf '%s\t%s\t%s\n' "$class" "$(od -An -c "$T/out.$who" | tr -s ' \n' ' ' | cut -c1-200)" "$changed"
}

# file_case LABEL UNREADABLE TOOL ARG...: the three runs of one case;
# prints one line, and a line "PROBLEM ..." for each rule it breaks.
file_case() {
	local label=$1 nobody=$2 k30 k34 m follows s30 s34 sm T=$BATS_TEST_TMPDIR
	shift 2
	CK=$T/case-kernel
	rm -rf "$CK"
	k30=$(outcome kmod30 "$nobody" "$@")
	if [ -f "$BATS_FILE_TMPDIR/kmod34-missing" ]; then
		# no kmod 34 here: kmod 30 alone is the oracle
		k34=$k30
		cp "$T/state.kmod30" "$T/state.kmod34"
	else
		k34=$(outcome kmod34 "$nobody" "$@")
	fi
	m=$(outcome modrot "$nobody" "$@")
	s30=$(cat "$T/state.kmod30") s34=$(cat "$T/state.kmod34") sm=$(cat "$T/state.modrot")
	local shown34=not-run
	[ -f "$BATS_FILE_TMPDIR/kmod34-missing" ] || shown34=$(cut -f1,3 --output-delimiter=/ <<< "$k34")
	printf '%-52s kmod 30: %-16s kmod 34: %-16s modrot: %s\n' "$label" "$(cut -f1,3 --output-delimiter=/ <<< "$k30")" \
		"$shown34" "$(cut -f1,3 --output-delimiter=/ <<< "$m")"
	case $(cut -f1,3 <<< "$m") in
	ok*) ;;
	*$'\t'changed) echo "PROBLEM $label: modrot failed and changed the kernel" ;;
	esac
	if [ "$k30" = "$k34" ] && [ "$s30" = "$s34" ]; then
		if [ "$m" != "$k30" ] || [ "$sm" != "$s30" ]; then
			grep -qF "$label|" <<< "$DELIBERATE" ||
				echo "PROBLEM $label: modrot's outcome is not kmod's: $(tr '\t' '|' <<< "$m") vs $(tr '\t' '|' <<< "$k30")"
		fi
		return 0
	fi
	follows=$(grep -F "$label|" <<< "$DIFFER_FOLLOWS" | cut -d'|' -f2)
	case $follows in
	"kmod 30") [ "$m" = "$k30" ] && [ "$sm" = "$s30" ] || echo "PROBLEM $label: modrot does not follow kmod 30" ;;
	"kmod 34") [ "$m" = "$k34" ] && [ "$sm" = "$s34" ] || echo "PROBLEM $label: modrot does not follow kmod 34" ;;
	neither) grep -qF "$label|" <<< "$DELIBERATE" || echo "PROBLEM $label: DIFFER_FOLLOWS says neither, DELIBERATE nothing" ;;
	*) echo "PROBLEM $label: kmod 30 and kmod 34 differ, and DIFFER_FOLLOWS says nothing:" \
		"$(tr '\t' '|' <<< "$k30") vs $(tr '\t' '|' <<< "$k34"); modrot $(tr '\t' '|' <<< "$m")" ;;
	esac
}

# The kinds of file a name can lead to. "unreadable" runs as nobody (root
# reads a file of mode 000), on both sides alike.
make_files() {
	local f=$BATS_TEST_TMPDIR/f
	mkdir -p "$f/dir" "$f/unreadable-dir"
	: > "$f/empty"
	mkfifo "$f/fifo"
	cp "$BATS_FILE_TMPDIR/modtree/etc/modprobe.d/modtree.conf" "$f/unreadable.conf"
	cp "$FIXTURES/alpha.ko" "$f/unreadable.ko"
	cp "$FIXTURES/alpha.ko" "$f/alpha.ko"
	chmod 000 "$f/unreadable.conf" "$f/unreadable.ko" "$f/unreadable-dir"
	FILES=$f
}

# kinds SUFFIX: "LABEL<TAB>PATH<TAB>NOBODY" for each kind of file, SUFFIX
# choosing what the readable one holds (conf or ko).
kinds() {
	local f=$FILES
	printf '%s\t%s\t%s\n' missing "$f/missing" no empty "$f/empty" no directory "$f/dir" no \
		/dev/null /dev/null no FIFO "$f/fifo" no unreadable "$f/unreadable.$1" yes
	case $1 in
	conf) printf '%s\t%s\t%s\n' "the tree's" "$BATS_FILE_TMPDIR/modtree/etc/modprobe.d" no ;;
	ko) printf '%s\t%s\t%s\n' "a module" "$f/alpha.ko" no ;;
	esac
}

dir_kinds() {
	local f=$FILES
	printf '%s\t%s\t%s\n' missing "$f/missing" no "a file" "$f/empty" no /dev/null /dev/null no \
		FIFO "$f/fifo" no "empty directory" "$f/dir" no unreadable "$f/unreadable-dir" yes \
		"the tree's root" "$BATS_FILE_TMPDIR/modtree" no
}

run_file_cases() {
	local label path nobody
	make_files
	while IFS=$'\t' read -r label path nobody; do
		file_case "modprobe -C (${label}) -n -v" "$nobody" modprobe -C "$path" -n -v mt_net
		file_case "modprobe -C (${label})" "$nobody" modprobe -C "$path" mt_net
	done < <(kinds conf)
	while IFS=$'\t' read -r label path nobody; do
		file_case "modprobe -d (${label}) -n -v" "$nobody" modprobe -d "$path" -n -v mt_net
		file_case "modprobe -d (${label})" "$nobody" modprobe -d "$path" mt_net
		file_case "modinfo -b (${label})" "$nobody" modinfo -b "$path" mt_net
	done < <(dir_kinds)
	for v in 9.9.9-none "" ../../.. 6.1.0-sim/kernel; do
		file_case "modprobe -S ($v) -n -v" no modprobe -S "$v" -n -v mt_net
		file_case "modprobe --set-version=($v)" no modprobe "--set-version=$v" mt_net
		file_case "modinfo -k ($v)" no modinfo -k "$v" mt_net
	done
	while IFS=$'\t' read -r label path nobody; do
		file_case "modprobe --show-exports (${label})" "$nobody" modprobe --show-exports "$path"
		file_case "modprobe --show-modversions (${label})" "$nobody" modprobe --show-modversions "$path"
		file_case "modprobe FILE (${label})" "$nobody" modprobe "$path"
		file_case "modinfo FILE (${label})" "$nobody" modinfo "$path"
		file_case "insmod FILE (${label})" "$nobody" insmod "$path"
		file_case "rmmod FILE (${label})" "$nobody" rmmod "$path"
		file_case "lsmod FILE (${label})" "$nobody" lsmod "$path"
	done < <(kinds ko)
	# rmmod takes a module's file for its name, which need not exist.
	file_case "rmmod FILE (a loaded module's name, missing file)" no rmmod "$FILES/missing/mt_inst.ko"
}

@test "every option and argument naming a file, against kmod 30, and kmod 34 where its root is cached: same exit class, output and effect" {
	local F=$BATS_FILE_TMPDIR
	if [ -f "$F/kmod34-missing" ]; then
		record "file options: against kmod 30 only; kmod 34 not compared: $(cat "$F/kmod34-missing")"
	fi
	if [ ! -f "$F/modtree/.done" ]; then
		rm -rf "$F/modtree"
		"$MODTREE" "$F/modtree" > /dev/null
		touch "$F/modtree/.done"
	fi
	run run_file_cases
	echo "$output" | sed 's/^/# /' >&3
	local n
	n=$(grep -vc '^PROBLEM' <<< "$output")
	record "file options: $n cases, $(grep -c '^PROBLEM' <<< "$output" || :) problems"
	refute_line --partial PROBLEM
	assert [ "$n" -ge 97 ]
}

# kmod 34's depmod writes each index's trie root first and every node
# before its children; kmod 30's writes the root last. modrot's index
# check (lib/modindex.c) takes either order, one order a file, and with
# it still every rule: a node's bytes read once, children on one side of
# their parent (no loop), the whole file claimed.
@test "the indexes kmod 34's depmod writes pass modrot's index check; bit flips in them crash nothing" {
	local F=$BATS_FILE_TMPDIR root=$BATS_TEST_TMPDIR/tree34 i ref
	local d=$root/lib/modules/6.1.0-sim
	PATH=$F/k34bin:$PATH "$MODTREE" "$root" > /dev/null
	# Written in pre-order: each root right after the 12-byte header.
	for i in modules.dep.bin modules.alias.bin modules.symbols.bin; do
		ref=$(od -An -tx1 -j8 -N4 "$d/$i" | tr -d ' \n')
		assert_equal "$((0x$ref & 0x0fffffff))" 12
	done
	cat > "$BATS_TEST_TMPDIR/ask.sh" <<-ASK
		"$MODPROBE" -d "$root" -S 6.1.0-sim --show-depends -a mt_net mt_snd mtfs_tools mtblock \
			symbol:mt_core_fn 'pci:v00001234d00005678sv1sd2bc3sc4i5' fs-mtfs; echo status=\$?
		"$MODINFO" -b "$root" -k 6.1.0-sim -F filename mt_snd mtblock mt_core mt_dash; echo status=\$?
	ASK
	run --separate-stderr "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask.sh"
	assert_equal "$stderr" ''
	assert_line --index 0 "insmod $d/kernel/lib/mt_core.ko.zst "
	assert_line "$d/kernel/sound/mt_snd.ko.xz"
	refute_line --partial "status=1"
	# kmod 34 gives the same answers from the same files.
	local mine=$output
	sed -e "s|\"$MODPROBE\"|$KMOD34_LD --library-path $KMOD34_LIBS --argv0 modprobe $KMOD34_BIN|" \
		-e "s|\"$MODINFO\"|$KMOD34_LD --library-path $KMOD34_LIBS --argv0 modinfo $KMOD34_BIN|" \
		"$BATS_TEST_TMPDIR/ask.sh" > "$BATS_TEST_TMPDIR/ask34.sh"
	run --separate-stderr "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask34.sh"
	assert_equal "$output" "$mine"
	# Single-bit flips (every 61st bit): no crash, no hang; a refused index
	# is one error line and exit 1.
	run "$top_srcdir/tests/helpers/indexflip.pl" "$d" 61 20 modules.dep.bin modules.alias.bin \
		modules.symbols.bin modules.builtin.bin modules.builtin.alias.bin \
		-- "$SIM" run "$K" -- sh "$BATS_TEST_TMPDIR/ask.sh"
	echo "$output" >&3
	assert_success
	assert_line --regexp '^total: [1-9][0-9]* flips, [1-9][0-9]* refused, [0-9]+ accepted, 0 failures$'
}

# A Debian 12 build keeps running once kmod is upgraded to Debian 13's
# (scripts/package-test.sh's upgrade suite does it in a root, by hand):
# every tool, built against this machine's libkmod 30, starts with kmod
# 34's libkmod and Debian 13's C library, binding every symbol at start as
# Debian's builds do (-z now). libkmod 34 exports
# kmod_module_new_from_name_lookup under another symbol version than
# libkmod 30 did (tools/cli/kmodlog.h), which modinfo --modname calls.
@test "every tool built against libkmod 30 starts with kmod 34's libkmod, and modinfo --modname answers alike" {
	local t lp=$KMOD34_LIBS:$top_builddir/lib name
	for t in insmod rmmod lsmod modprobe modinfo modreap modrot-metrics; do
		run env LD_BIND_NOW=1 "$KMOD34_LD" --library-path "$lp" "$top_builddir/tools/$t" --version
		assert_success
		assert_output --partial "(modrot)"
	done
	name=$(sed -n 's/^mt_core$/&/p;s/^e1000e$/&/p' "$BATS_FILE_TMPDIR/names" | head -n 1)
	[ -n "$name" ] || name=$(head -n 1 "$BATS_FILE_TMPDIR/names")
	run -0 --separate-stderr "$SIM" run "$K" -- "$MODINFO" --modname "$name"
	local want=$output
	[ -n "$want" ] || fail "modinfo --modname $name printed nothing with libkmod 30"
	run -0 --separate-stderr "$SIM" run "$K" -- env LD_BIND_NOW=1 "$KMOD34_LD" --library-path "$lp" \
		"$MODINFO" --modname "$name"
	assert_output "$want"
	# a name that is only an alias is no module name, with either libkmod
	run -1 --separate-stderr "$SIM" run "$K" -- env LD_BIND_NOW=1 "$KMOD34_LD" --library-path "$lp" \
		"$MODINFO" --modname "no_such_module_anywhere"
	assert_output ''
}
