#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modinfo against Debian's kmod modinfo, byte for byte, on module trees
# that depmod -b has indexed: every option kmod's modinfo has, with and
# without -F, over plain, xz and zstd modules, signed ones, aliases (one
# alias, two modules), parameters, builtin modules, symbol: aliases, paths,
# and names nothing answers to. On a rot kernel modrot adds four fields to
# each module (state, rotting, rotting_bytes, rotting_percpu); that is the
# only difference allowed, and it is checked to be there.

bats_require_minimum_version 1.5.0

load helpers/tools
load helpers/modtree
MODTREE_RELEASE=6.1.0-sim

KMOD_MODINFO=/sbin/modinfo
MODINFO=$top_builddir/tools/modinfo
SIGN=$top_srcdir/tests/helpers/sign-module.sh
RESULTS=$top_builddir/tests/modinfo-kmod.results

# Modules with every kind of .modinfo entry modinfo lays out: repeated
# keys, UTF-8, aliases with dashes and globs, soft dependencies, parameters
# with a type only, a description only, no ':' at all, or named twice, and a
# key longer than the 15 columns kmod pads to (modtree.sh's spec format).
MI_SPEC='kernel/misc/mi_full.ko | ko | 1000 | author=Jane Roe <jane@example.org> | author=Second Author | description=a description in UTF-8: ünïcödé, and a \ backslash | license=GPL v2 | version=1.2.3 | srcversion=0123456789ABCDEF0123456 | firmware=mi/a.bin | firmware=mi/b.bin | alias=pci:v00001AF4d00001000sv*sd*bc*sc*i* | alias=fs-mifs | alias=mi-alias | softdep=pre: mi_dep | import_ns=MI_NS | retpoline=Y
kernel/misc/mi_params.ko | zst | 1100 | parm=a:the a | parmtype=a:int | parmtype=typeonly:charp | parm=textonly:no type given | parm=nocolon | parmtype=b:bool | parm=b:the b | parm=a:a again
kernel/misc/mi_long.ko | xz | 1200 | a_key_longer_than_fifteen=x | description=a long key
kernel/misc/mi_dep.ko | ko | 1300 | description=a soft dependency
kernel/misc/mi_twin1.ko | ko | 1400 | alias=mi-twin | description=first of two with one alias
kernel/misc/mi_twin2.ko | zst | 1500 | alias=mi-twin | description=second of two with one alias
kernel/misc/mi-dash.ko | ko | 1600 | description=a file name with a dash
kernel/misc/mi_bare.ko | ko | 1700 | license= | intree= | depends=
kernel/drivers/alpha.ko | ko | 3000 | description=exports alpha_fn | +exports=alpha_fn
kernel/drivers/params.ko | zst | 1000 | parm=count:how many | parmtype=count:int | parm=label:a label | parmtype=label:charp
kernel/drivers/failinit.ko | ko | 1200 | simkernel.init_errno=19'

setup_file() {
	local F=$BATS_FILE_TMPDIR k root=$BATS_FILE_TMPDIR/tree
	local d=$BATS_FILE_TMPDIR/tree/lib/modules/$MODTREE_RELEASE
	# One tree, built once: modinfo's own modules, modprobe's generated tree
	# (tests/fixtures/modtree.spec), signed modules and builtin ones.
	"$SIM" create "$F/rot" --mode rot --builtin mi_builtin,nomodinfo
	"$SIM" create "$F/stock" --mode stock --builtin mi_builtin,nomodinfo
	mkdir -p "$d"
	cp "$F/rot/root/lib/modules/$MODTREE_RELEASE/modules.builtin" "$d/"
	# A builtin module with its .modinfo, and one without (an old kernel's).
	printf 'mi_builtin.description=built in\0mi_builtin.license=GPL\0mi_builtin.parm=opt:an option\0mi_builtin.parmtype=opt:uint\0' \
		> "$d/modules.builtin.modinfo"
	printf '%s\n' "$MI_SPEC" > "$F/mi.spec"
	"$MODTREE" --spec "$F/mi.spec" --conf /dev/null "$root" > /dev/null 2>&1
	cp "$d/modules.order" "$F/mi.order"
	"$MODTREE" --conf /dev/null "$root" > /dev/null 2>&1
	cat "$F/mi.order" >> "$d/modules.order"

	"$SIGN" --make-ca "$F/ca" > /dev/null
	mkdir -p "$d/kernel/signed"
	"$SIGN" "$F/ca/key.pem" "$F/ca/cert.pem" "$FIXTURES/delta.ko" "$d/kernel/signed/sdelta.ko"
	"$SIGN" "$F/ca/key.pem" "$F/ca/cert.pem" "$FIXTURES/alpha.ko" "$d/kernel/signed/skeyid.ko" --keyid
	"$SIGN" "$F/ca/key.pem" "$F/ca/cert.pem" "$FIXTURES/params.ko" "$F/sparams.ko"
	xz --check=crc32 --lzma2=dict=1MiB -c "$F/sparams.ko" > "$d/kernel/signed/sparams.ko.xz"
	depmod -b "$root" "$MODTREE_RELEASE"
	# The same modules as another release's, which no kernel here runs.
	ln -s "$MODTREE_RELEASE" "$root/lib/modules/9.9.9-none"

	printf 'not an ELF file\n' > "$F/garbage.ko"
	mkdir "$F/adir.ko"
	gzip -c "$FIXTURES/delta.ko" > "$F/delta.ko.gz"

	for k in stock rot; do
		cp -a "$d/." "$F/$k/root/lib/modules/$MODTREE_RELEASE/"
	done

	# The rot kernel holds some of these names: live, rotting, or both.
	K=$F/rot
	d=/lib/modules/$MODTREE_RELEASE/kernel
	on_kernel "$KMOD_INSMOD" "$d/drivers/alpha.ko"
	on_kernel "$KMOD_INSMOD" "$d/misc/mi_full.ko"
	on_kernel "$KMOD_RMMOD" mi_full
	on_kernel "$KMOD_INSMOD" "$d/misc/mi_full.ko"
	on_kernel "$KMOD_RMMOD" mi_full
	on_kernel "$KMOD_INSMOD" "$d/drivers/params.ko.zst"
	on_kernel "$KMOD_RMMOD" params
	on_kernel "$KMOD_INSMOD" "$d/drivers/params.ko.zst"
	on_kernel "$KMOD_INSMOD" "$d/misc/mt_fail.ko" || true
	on_kernel "$KMOD_INSMOD" "$d/drivers/failinit.ko" || true
}

# Every option kmod's modinfo has (-k and -b in their own test), alone and
# as -F FIELD, over names, aliases and paths.
option_sets() {
	printf '%s\n' "" "-F author" "-F alias" "-F parm" "-p" "-a" "-d" "-l" "-n" "-0" \
		"-0 -p" "-F filename" "-F name" "-F nosuchfield" "-F signer" "-F signature" \
		"-F a_key_longer_than_fifteen" "-m" "--field=description" "--null --author"
}

arguments() {
	local F=$BATS_FILE_TMPDIR d=/lib/modules/$MODTREE_RELEASE/kernel
	printf '%s\n' mi_full mi_params mi_long mi-dash mi_dash mi_bare \
		alpha params failinit sdelta skeyid \
		sparams mi_builtin nomodinfo nosuch fs-mifs mi_alias mi-twin \
		mt_core mt_net mt_snd mt-dash mt_dash mt_fail fs-mtfs platform:mt_codec \
		'pci:v00001234d00005678sv00000000sd00000000bc02sc00i00' \
		'pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00' symbol:alpha_fn \
		"$d/drivers/mt_bus.ko.xz" "$d/lib/mt_core.ko.zst" "$d/signed/sparams.ko.xz" \
		"$FIXTURES/delta.ko" /nonexistent/x.ko "$F/garbage.ko" "$F/adir.ko" \
		"$F/delta.ko.gz" "alpha nosuch beta"
}

# stderr_shape FILE: sets $nlines to its number of lines (newlines, as
# wc -l counts them) and $levels to the level word of each line, in order,
# each but an unterminated last line's followed by a space: FATAL, ERROR,
# WARNING or (none). In bash alone, without a process: two files a case,
# 1,500 cases a kernel.
stderr_shape() {
	local line word more=1
	nlines=0 levels=
	while [ -n "$more" ]; do
		IFS= read -r line || { more=; [ -n "$line" ] || break; }
		if [[ $line =~ ^modinfo:\ (FATAL|ERROR|WARNING):\ .* ]]; then
			# as sed's s/// would: what .* did not match stays
			word=${BASH_REMATCH[1]}${line#"${BASH_REMATCH[0]}"}
		else
			word="(none)"
		fi
		if [ -n "$more" ]; then
			nlines=$((nlines + 1))
			levels+="$word "
		else
			levels+=$word
		fi
	done < "$1"
}

# compare KERNEL-DIR MODE: runs both on every option set and argument;
# prints one line per difference, and the count of cases last.
compare_all() {
	local kdir=$1 mode=$2 F=$BATS_FILE_TMPDIR opts arg cases=0 ks ms nlines levels klines klevels
	local kout=$F/k.out mout=$F/m.out kerr=$F/k.err merr=$F/m.err
	while IFS= read -r opts; do
		while IFS= read -r arg; do
			cases=$((cases + 1))
			# shellcheck disable=SC2086
			"$SIM" run "$kdir" -- "$KMOD_MODINFO" $opts $arg > "$kout" 2> "$kerr" && ks=0 || ks=$?
			# shellcheck disable=SC2086
			"$SIM" run "$kdir" -- "$MODINFO" $opts $arg > "$mout" 2> "$merr" && ms=0 || ms=$?
			if [ "$mode" = rot ]; then
				strip_rot_fields "$opts" "$mout" "$merr" ||
					echo "rot fields missing: modinfo $opts $arg"
			fi
			cmp -s "$kout" "$mout" || echo "stdout differs: modinfo $opts $arg"
			[ "$ks" = "$ms" ] || echo "exit status $ms, kmod's $ks: modinfo $opts $arg"
			# One line on stderr per failure, as kmod (whose words differ),
			# with kmod's level word on each.
			stderr_shape "$kerr"
			klines=$nlines klevels=$levels
			stderr_shape "$merr"
			[ "$klines" = "$nlines" ] ||
				echo "stderr lines $nlines, kmod's $klines: modinfo $opts $arg"
			[ "$klevels" = "$levels" ] ||
				echo "stderr levels $levels, kmod's $klevels: modinfo $opts $arg"
		done < <(arguments)
	done < <(option_sets)
	echo "cases $cases"
}

# Removes the fields modrot adds on a rot kernel (state, rotting,
# rotting_bytes: in that order, after each module's last field) from an
# output, and fails unless every module of a full listing had them, but
# those whose information could not be read (one line on stderr each).
strip_rot_fields() {
	local opts=$1 out=$2 err=$3
	case " $opts " in
	*" -0 "* | *" --null "*)
		perl -0 -i -ne 'print unless /^(state|rotting|rotting_bytes|rotting_percpu)=/' "$out"
		return 0
		;;
	*" -F "* | *" -p "* | *" -a "* | *" -d "* | *" -l "* | *" -n "* | *--field* | *--author*)
		return 0
		;;
	esac
	local modules states
	modules=$(grep -c '^filename:' "$out" || true)
	states=$(grep -cE '^state: +(live|loading|unloading|not loaded|builtin)$' "$out" || true)
	perl -i -ne 'print unless /^(state|rotting|rotting_bytes|rotting_percpu): /' "$out"
	[ "$((modules - $(wc -l < "$err")))" -le "$states" ] && [ "$states" -le "$modules" ]
}

record() {
	echo "$1" >> "$RESULTS"
	echo "$1" >> "${MODROT_ORACLE_RESULTS:-/dev/null}"
	echo "# $1" >&3
}

@test "modinfo prints what kmod's modinfo prints, byte for byte, on a stock kernel" {
	run compare_all "$BATS_FILE_TMPDIR/stock" stock
	assert_success
	local cases
	cases=$(awk '/^cases / { print $2 }' <<< "$output")
	record "modinfo-kmod stock: $cases cases, $((${#lines[@]} - 1)) differences"
	assert [ "$cases" -gt 500 ]
	assert_output "cases $cases"
}

@test "on a rot kernel, modinfo prints kmod's output plus the rot fields (state, rotting, rotting_bytes, rotting_percpu)" {
	run compare_all "$BATS_FILE_TMPDIR/rot" rot
	assert_success
	local cases
	cases=$(awk '/^cases / { print $2 }' <<< "$output")
	record "modinfo-kmod rot: $cases cases, $((${#lines[@]} - 1)) differences beyond the rot fields"
	assert_output "cases $cases"
}

@test "modinfo -b and -k read another root and release as kmod's does" {
	local F=$BATS_FILE_TMPDIR opts arg cases=0 diffs=0
	for opts in "-b $F/tree" "-b $F/tree -k $MODTREE_RELEASE" "-k $MODTREE_RELEASE" \
		"-k 9.9.9-none" "--basedir=$F/tree -F alias" "-b $F/tree -p"; do
		for arg in mi_full mi-twin params sparams mi_builtin nosuch symbol:alpha_fn mt_net; do
			cases=$((cases + 1))
			# The tree is no kernel's: outside the simulator, as an installer
			# reads a target's tree.
			# shellcheck disable=SC2086
			/sbin/modinfo $opts "$arg" > "$F/k.out" 2> /dev/null && ks=0 || ks=$?
			# shellcheck disable=SC2086
			"$MODINFO" $opts "$arg" > "$F/m.out" 2> /dev/null && ms=0 || ms=$?
			if ! cmp -s "$F/k.out" "$F/m.out" || [ "$ks" != "$ms" ]; then
				echo "differs: modinfo $opts $arg"
				diffs=$((diffs + 1))
			fi
		done
	done
	record "modinfo-kmod -b/-k: $cases cases, $diffs differences"
	assert_equal "$diffs" 0
	# And the state of the running kernel is not shown beside another
	# release's modules.
	run on_kernel_rot "$MODINFO" -k 9.9.9-none -b "$F/tree" -F state alpha
	assert_success
	assert_output ''
	run on_kernel_rot "$MODINFO" -k 9.9.9-none -b "$F/tree" -J alpha
	assert_success
	assert_equal "$(jq -c '[.rot, .modules[0].state]' <<< "$output")" '[null,null]'
}

on_kernel_rot() { "$SIM" run "$BATS_FILE_TMPDIR/rot" -- "$@"; }

@test "modinfo's rot fields are the simulated kernel's state of each name" {
	local F=$BATS_FILE_TMPDIR state
	state=$("$SIM" state "$F/rot")
	bytes() { awk -v n="$1" '$1 == "rotting" && $2 == n { s += $3 } END { print s + 0 }' <<< "$state"; }
	count() { awk -v n="$1" '$1 == "rotting" && $2 == n { c++ } END { print c + 0 }' <<< "$state"; }
	run on_kernel_rot "$MODINFO" -F state alpha mi_full params failinit mi_builtin mi_dep mt_fail
	assert_success
	assert_output "$(printf 'live\nnot loaded\nlive\nnot loaded\nbuiltin\nnot loaded\nnot loaded')"
	run on_kernel_rot "$MODINFO" -F rotting alpha mi_full params failinit mt_fail
	assert_output "$(printf '0\n2\n1\n1\n1')"
	assert_equal "$(count mi_full) $(count params) $(count failinit) $(count mt_fail)" "2 1 1 1"
	run on_kernel_rot "$MODINFO" -F rotting_bytes mi_full params failinit
	assert_output "$(printf '%s\n%s\n%s' "$(bytes mi_full)" "$(bytes params)" "$(bytes failinit)")"
	assert [ "$(bytes mi_full)" -gt 0 ]
	# Reading changed nothing.
	assert_equal "$("$SIM" state "$F/rot")" "$state"
}

@test "modinfo's bad input: one line each, kmod's exit status 1, and usage errors 2" {
	local F=$BATS_FILE_TMPDIR
	run --separate-stderr on_kernel_rot "$MODINFO" nosuch
	assert_failure 1
	assert_equal "$output" ''
	assert_equal "$stderr" "modinfo: ERROR: module or alias 'nosuch' not found in /lib/modules/$MODTREE_RELEASE"
	run --separate-stderr on_kernel_rot "$MODINFO" -m mi-alias
	assert_failure 1
	assert_equal "$stderr" "modinfo: ERROR: module name 'mi-alias' not found in /lib/modules/$MODTREE_RELEASE"
	run --separate-stderr on_kernel_rot "$MODINFO" "$F/delta.ko.gz"
	assert_failure 1
	assert_equal "$stderr" "modinfo: ERROR: $F/delta.ko.gz: gzip-compressed, and this system's libkmod cannot read gzip"
	# Control bytes in a name reach the terminal escaped.
	run --separate-stderr on_kernel_rot "$MODINFO" "$(printf 'x\033[2Jy')"
	assert_failure 1
	assert_equal "$stderr" "modinfo: ERROR: module or alias 'x\\x1b[2Jy' not found in /lib/modules/$MODTREE_RELEASE"
	# Usage errors: kmod's modinfo exits 1 for these too; modrot's tools 2.
	for args in "" "--no-such-option alpha" "-F" "-J -F author alpha" "-J -0 alpha"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel_rot "$MODINFO" $args
		assert_failure 2
		assert_equal "${#stderr_lines[@]}" 1
		assert_regex "$stderr" '^modinfo: ERROR: '
		assert_equal "$output" ''
	done
	run --separate-stderr on_kernel_rot "$MODINFO" alpha ''
	assert_failure 2
	assert_equal "$stderr" "modinfo: ERROR: an empty module name (see 'modinfo --help')"
	assert_equal "$output" ''
}

@test "modinfo under valgrind: every path of the output, no error and no leak" {
	skip_if_sanitized
	K=$BATS_FILE_TMPDIR/rot
	valgrind_clean "$MODINFO" mi_full mi_params mi-twin sparams mi_builtin nomodinfo nosuch
	assert_equal "$status" 1
	valgrind_clean "$MODINFO" -p -0 mi_params
	assert_success
	valgrind_clean "$MODINFO" -J --verify "$BATS_FILE_TMPDIR/ca/cert.pem" sdelta mi_full mi_builtin
	assert_equal "$status" 1
}
