#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make install, as a packager runs it: the layout of kmod and Debian (what
# changes the kernel in sbin, lsmod in bin), the shared library with its
# header and .pc, completions where each shell looks, everything renamed
# together by --program-prefix, installed programs without the build
# tree's run path, and a program built from the installed header and .pc
# alone, run on the simulated kernel.

load helpers/tools
load helpers/completion

# make in the build tree, not in the make that runs the tests.
build_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" "$@"
}

# The build tree's configuration, installed once into $DEST; and a second
# build, configured as a distribution would with --program-prefix=modrot-,
# installed into $PDEST.
setup_file() {
	export DEST=$BATS_FILE_TMPDIR/dest PDEST=$BATS_FILE_TMPDIR/pdest
	BINDIR=$(make_var "$top_builddir" bindir) SBINDIR=$(make_var "$top_builddir" sbindir)
	LIBDIR=$(make_var "$top_builddir" libdir) INCLUDEDIR=$(make_var "$top_builddir" includedir)
	export BINDIR SBINDIR LIBDIR INCLUDEDIR
	export PBUILD=$BATS_FILE_TMPDIR/pbuild
	build_make install DESTDIR="$DEST" >"$BATS_FILE_TMPDIR/install.log" 2>&1
	mkdir -p "$PBUILD"
	(
		cd "$PBUILD" &&
			"$top_srcdir/configure" --prefix=/usr --sysconfdir=/etc --program-prefix=modrot- \
				--with-zsh-completion-dir=/usr/share/zsh/site-functions &&
			env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j"$(nproc)" install DESTDIR="$PDEST"
	) >"$BATS_FILE_TMPDIR/pbuild.log" 2>&1
}

# Every file and link under a DESTDIR, as absolute paths in the target.
installed() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\.||' | LC_ALL=C sort)
}

# What a build tree configured with a transform TRANSFORM should install:
# the same list computed from its Makefile's lists of programs, pages and
# completions, so that a new tool is checked without changing this test.
expected_files() {
	local b=$1 p t f
	local bindir sbindir libdir includedir mandir unitdir sysconfdir bashdir zshdir fishdir transform
	local sysusersdir pkgdatadir
	for v in bindir sbindir libdir includedir mandir sysconfdir; do
		printf -v "$v" '%s' "$(make_var "$b" "$v")"
	done
	unitdir=$(make_var "$b" systemdsystemunitdir)
	sysusersdir=$(make_var "$b" sysusersdir)
	pkgdatadir=$(make_var "$b" pkgdatadir)
	bashdir=$(make_var "$b" bashcompletiondir)
	zshdir=$(make_var "$b" zshcompletiondir)
	fishdir=$(make_var "$b" fishcompletiondir)
	transform=$(make_var "$b" transform)
	name() { echo "$1" | sed 's,.*/,,' | sed "$transform"; }
	{
		for p in $(make_var "$b" bin_PROGRAMS); do echo "$bindir/$(name "$p")"; done
		for p in $(make_var "$b" sbin_PROGRAMS); do echo "$sbindir/$(name "$p")"; done
		for p in $(make_var "$b" PROGRAM_MAN_PAGES); do
			f=${p##*/}
			echo "$mandir/man${f##*.}/$(name "${f%.*}").${f##*.}"
		done
		for p in $(make_var "$b" OTHER_MAN_PAGES); do f=${p##*/}; echo "$mandir/man${f##*.}/$f"; done
		for p in $(make_var "$b" COMPLETED_TOOLS); do
			t=$(name "$p")
			echo "$bashdir/$t"
			echo "$zshdir/_$t"
			echo "$fishdir/$t.fish"
		done
		echo "$libdir/libmodrot.so" "$libdir/libmodrot.so.1" "$libdir/libmodrot.so.1.0.0"
		echo "$libdir/pkgconfig/libmodrot.pc" "$includedir/modrot.h"
		echo "$unitdir/modrot-ceiling.service" "$unitdir/modrot-metrics.service"
		echo "$unitdir/modrot-metrics.timer" "$sysconfdir/default/modrot"
		echo "$sysusersdir/modrot.conf" "$pkgdatadir/modrot-metrics-link.conf"
		echo "$pkgdatadir/prometheus/modrot-alerts.yml" "$pkgdatadir/prometheus/modrot-alerts.test.yml"
		echo "$pkgdatadir/grafana/modrot-dashboard.json" "$pkgdatadir/grafana/modrot-dashboards.yml"
	} | tr ' ' '\n' | LC_ALL=C sort
}

@test "make install puts what changes the kernel in sbin and lsmod in bin, as kmod and Debian do" {
	local bindir sbindir
	bindir=$(make_var "$top_builddir" bindir)
	sbindir=$(make_var "$top_builddir" sbindir)
	for t in insmod rmmod modreap; do
		assert_file_executable "$DEST$sbindir/$t"
		assert_file_not_exist "$DEST$bindir/$t"
	done
	assert_file_executable "$DEST$bindir/lsmod"
	assert_file_executable "$DEST$bindir/modrot-metrics"
	assert_file_not_exist "$DEST$sbindir/lsmod"
}

@test "make install installs exactly the programs, pages, completions, library, header, .pc, units, rules and dashboard" {
	run installed "$DEST"
	assert_output "$(expected_files "$top_builddir")"
}

@test "every installed shared object is libmodrot: none carries another project's SONAME" {
	local so soname n=0
	while IFS= read -r so; do
		soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]$/\1/p')
		assert_equal "$so: $soname" "$so: libmodrot.so.1"
		n=$((n + 1))
	done < <(find "$DEST" "$PDEST" -type f -name '*.so*')
	# one library in each of the two trees
	assert_equal "$n" 2
}

@test "make install puts the alerting rules, their tests and the dashboard in pkgdatadir; the provisioning file names where" {
	local pkgdatadir
	pkgdatadir=$(make_var "$top_builddir" pkgdatadir)
	cmp "$top_srcdir/prometheus/modrot-alerts.yml" "$DEST$pkgdatadir/prometheus/modrot-alerts.yml"
	cmp "$top_srcdir/prometheus/grafana/modrot-dashboard.json" "$DEST$pkgdatadir/grafana/modrot-dashboard.json"
	# the one line that differs from the source tree's copy is the path
	run diff "$top_srcdir/prometheus/grafana/modrot-dashboards.yml" "$DEST$pkgdatadir/grafana/modrot-dashboards.yml"
	assert_failure 1
	assert_line --regexp '^> +path: '"$pkgdatadir"'/grafana$'
	[ "$(grep -c '^[<>]' <<< "$output")" -eq 2 ]
	# the rules' unit tests run where they are installed
	cd "$DEST$pkgdatadir/prometheus"
	run promtool test rules modrot-alerts.test.yml
	assert_success
	assert_output --partial SUCCESS
	# and the prefixed build's copy names its own directory
	run grep -E '^ +path: ' "$PDEST/usr/share/modrot/grafana/modrot-dashboards.yml"
	assert_output --regexp '^ +path: /usr/share/modrot/grafana$'
}

@test "completions go to the directories bash-completion.pc, fish.pc and zsh's fpath name" {
	# The prefixed build was given a zsh directory and no other.
	assert_equal "$(make_var "$PBUILD" bashcompletiondir)" \
		"$(pkg-config --variable=completionsdir bash-completion)"
	assert_equal "$(make_var "$PBUILD" fishcompletiondir)" \
		"$(pkg-config --variable=completionsdir fish)"
	assert_equal "$(make_var "$PBUILD" zshcompletiondir)" /usr/share/zsh/site-functions
	# The build tree's zsh directory is one zsh reads, unless it was given
	# one (make distcheck gives each a directory under its prefix).
	if ! "$top_builddir/config.status" --config | grep -q -- --with-zsh-completion-dir; then
		run zsh -fc 'print -rl -- $fpath'
		assert_line "$(make_var "$top_builddir" zshcompletiondir)"
	fi
}

@test "installed programs have no run path and need libmodrot.so.1; the build tree's run from it" {
	local f
	for f in "$DEST$BINDIR"/* "$DEST$SBINDIR"/* "$PDEST"/usr/bin/* "$PDEST"/usr/sbin/*; do
		run readelf -d "$f"
		assert_success
		refute_output --partial RUNPATH
		refute_output --partial RPATH
		assert_output --partial 'Shared library: [libmodrot.so.1]'
	done
	run readelf -d "$top_builddir/tools/rmmod"
	assert_output --partial "Library runpath: [$top_builddir/lib]"
	run readelf -d "$DEST$LIBDIR/libmodrot.so.1.0.0"
	assert_output --partial 'Library soname: [libmodrot.so.1]'
	assert_equal "$(readlink "$DEST$LIBDIR/libmodrot.so.1")" libmodrot.so.1.0.0
	assert_equal "$(readlink "$DEST$LIBDIR/libmodrot.so")" libmodrot.so.1
}

@test "the installed rmmod, with the installed library, unloads a module on the simulated kernel" {
	kernel_new rot
	kmod_load alpha delta
	run env LD_LIBRARY_PATH="$DEST$LIBDIR" "$SIM" run "$K" -- "$DEST$SBINDIR/rmmod" delta
	assert_success
	assert_output ""
	run kernel_state
	assert_line --regexp '^rotting delta '
	assert_line --regexp '^live alpha '
	refute_line --regexp '^live delta '
}

@test "a program built from the installed modrot.h and libmodrot.pc alone lists and unloads on the simulated kernel" {
	local pcdir=$DEST$LIBDIR/pkgconfig cflags libs
	cflags=$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$pcdir" PKG_CONFIG_SYSROOT_DIR="$DEST" \
		pkg-config --cflags libmodrot | sed 's/ *$//')
	libs=$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$pcdir" PKG_CONFIG_SYSROOT_DIR="$DEST" \
		pkg-config --libs libmodrot | sed 's/ *$//')
	assert_equal "$cflags" "-I$DEST$INCLUDEDIR"
	assert_equal "$libs" "-L$DEST$LIBDIR -lmodrot"
	# Strict C11 and the installed header only: nothing from the source tree.
	# A library built with ASan wants a program built with it.
	local san=
	if [ "${MODROT_SANITIZED:-no}" = yes ]; then san=-fsanitize=address,undefined; fi
	run ${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic $san $cflags \
		-o "$BATS_TEST_TMPDIR/user" "$top_srcdir/tests/install/libmodrot-user.c" $libs
	assert_success
	kernel_new rot
	kmod_load alpha beta delta
	run env LD_LIBRARY_PATH="$DEST$LIBDIR" "$SIM" run "$K" -- "$BATS_TEST_TMPDIR/user" delta beta
	assert_success
	assert_output "rot kernel: yes
delta live
beta live
alpha live
unload delta: done
unload beta: done"
	run kernel_state
	assert_line --regexp '^rotting delta '
	assert_line --regexp '^rotting beta '
	assert_line --regexp '^live alpha '
}

@test "--program-prefix renames programs, program pages and completions, and not modrot.7" {
	run installed "$PDEST"
	assert_output "$(expected_files "$PBUILD")"
	assert_file_executable "$PDEST/usr/sbin/modrot-rmmod"
	assert_file_executable "$PDEST/usr/bin/modrot-lsmod"
	assert_file_exist "$PDEST/usr/share/man/man8/modrot-rmmod.8"
	assert_file_exist "$PDEST/usr/share/man/man7/modrot.7"
	assert_file_not_exist "$PDEST/usr/share/man/man7/modrot-modrot.7"
	assert_file_exist "$PDEST/usr/share/bash-completion/completions/modrot-rmmod"
	assert_file_exist "$PDEST/usr/share/zsh/site-functions/_modrot-rmmod"
	assert_file_exist "$PDEST/usr/share/fish/vendor_completions.d/modrot-rmmod.fish"
}

@test "renamed man pages name the renamed programs, kmod's by their own names" {
	local page=$PDEST/usr/share/man/man8/modrot-rmmod.8
	run grep -c '^\.TH "modrot-rmmod" "8"' "$page"
	assert_output 1
	# man breaks lines after a hyphen even with --nh: a name broken as
	# "modrot-" and "lsmod(8)" is joined again before it is looked at.
	run bash -c 'env MANWIDTH=200 man --nh --nj -l "$1" | sed -e ":a" -e "/-\$/{N;s/-\n *\([^ ]\)/-\1/;ba" -e "}"' _ "$page"
	assert_output --partial 'modrot-rmmod - '
	assert_output --partial 'modrot-lsmod(8)'
	assert_output --partial 'modrot-modreap(8)'
	assert_output --partial 'modrot(7)'
	assert_output --partial "kmod's rmmod(8)"
	refute_output --regexp '(^|[^-])\blsmod\(8\)'
	run env MANWIDTH=200 man --nh --nj -l "$PDEST/usr/share/man/man7/modrot.7"
	assert_output --partial 'modrot-insmod(8)'
	refute_output --partial 'modrot-modrot'
}

@test "the units start the renamed programs" {
	run grep -h '^ExecStart=\|^Documentation=' "$PDEST"/lib/systemd/system/modrot-*.service \
		"$PDEST"/usr/lib/systemd/system/modrot-*.service
	assert_line --partial 'ExecStart=/usr/sbin/modrot-modreap --watch'
	assert_line --partial 'ExecStart=/usr/bin/modrot-modrot-metrics -o'
	assert_line 'Documentation=man:modrot-modreap(8) man:modrot(7)'
}

@test "each renamed completion binds, and completes, its installed name in bash, zsh and fish" {
	local t
	export COMPLETION_BASH_DIR=$PDEST/usr/share/bash-completion/completions
	export COMPLETION_ZSH_DIR=$PDEST/usr/share/zsh/site-functions
	export COMPLETION_FISH_DIR=$PDEST/usr/share/fish/vendor_completions.d
	for t in lsmod rmmod modreap insmod modrot-metrics; do
		run bash --norc -c 'source /usr/share/bash-completion/bash_completion; source "$1"; complete -p "modrot-$2"' \
			- "$COMPLETION_BASH_DIR/modrot-$t" "$t"
		assert_success
		assert_output "complete -F _modrot_${t//-/_} modrot-$t"
		run head -n 1 "$COMPLETION_ZSH_DIR/_modrot-$t"
		assert_output "#compdef modrot-$t"
		run grep -c "^complete -c modrot-$t " "$COMPLETION_FISH_DIR/modrot-$t.fish"
		refute_output 0
		run grep -E "^complete -c $t |#compdef $t\$|complete -F [^ ]+ $t\$" \
			"$COMPLETION_BASH_DIR/modrot-$t" "$COMPLETION_ZSH_DIR/_modrot-$t" \
			"$COMPLETION_FISH_DIR/modrot-$t.fish"
		assert_failure
	done
	run complete_bash 'modrot-rmmod --re'
	assert_output --partial -- --reclaim
	run complete_zsh 'modrot-rmmod --re'
	assert_output --partial -- --reclaim
	# fish completes only commands that exist: the installed ones.
	PATH=$PDEST/usr/sbin:$PATH
	run complete_fish 'modrot-rmmod --re'
	assert_output --partial -- --reclaim
}

@test "a renamed bash completion leaves kmod's _rmmod alone" {
	run bash --norc -c 'source /usr/share/bash-completion/completions/rmmod
		before=$(declare -f _rmmod)
		source "$1"
		[ "$before" = "$(declare -f _rmmod)" ] && complete -p rmmod' \
		- "$PDEST/usr/share/bash-completion/completions/modrot-rmmod"
	assert_success
	assert_output 'complete -F _rmmod rmmod'
}

@test "make uninstall removes everything make install put there" {
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PBUILD" uninstall DESTDIR="$PDEST"
	assert_success
	run installed "$PDEST"
	assert_output ""
}
