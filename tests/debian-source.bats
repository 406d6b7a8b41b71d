#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# debian/ as a packager reads it, checked without building: what the
# source package leaves out, debian/copyright against the files' own SPDX
# lines, the changelog against what the package diverts, README.Debian
# against the units and /etc/default/modrot. (scripts/package-test.sh
# builds, lints and installs the packages, as root.)

load helpers/tools
load helpers/packages

D=$top_srcdir/debian

# debian/copyright's stanza whose Files: line is exactly $1.
stanza() {
	awk -v f="Files: $1" 'BEGIN { RS = "" } index($0, f "\n") == 1 { print }' "$D/copyright"
}

# The release tree: what `make dist` puts in the tarball, copied by make
# distdir from the build this suite runs in (from the build tree and the
# source tree, whichever layout). Made once for the file; prints its path.
# From a git checkout and from the unpacked tarball alike it is the same
# set of files, and none of a build's own. (From a checkout, make dist's
# hook also fails when a tracked file would be missing from it.)
release_tree() {
	local t=$BATS_FILE_TMPDIR/release
	if [ ! -f "$t.done" ]; then
		rm -rf "$t"
		mkdir -p "$t"
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
			distdir distdir="$t/modrot" > "$t.log" 2>&1 || { cat "$t.log"; return 1; }
		touch "$t.done"
	fi
	echo "$t/modrot"
}

# source_files TREE: builds the source package of TREE with dpkg-source,
# which applies debian/source/options and its own default exclusions, in
# TREE's parent directory, unpacks the tarball it made beside it, and
# prints one line per regular file the package holds, its path inside
# the package, then a tab and "ELF" or "-" for whether it is an ELF file.
source_files() {
	local tree=$1 parent=${1%/*} tarball x=${1%/*}/unpacked version
	version=$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)
	tarball=$parent/$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Source)_${version#*:}.tar.gz
	(cd "$parent" && dpkg-source --compression=gzip --compression-level=1 -b "${tree##*/}") \
		> "$parent/dpkg-source.log" 2>&1 && [ -f "$tarball" ] || { cat "$parent/dpkg-source.log"; return 1; }
	rm -rf "$x"
	mkdir "$x"
	tar -C "$x" -xf "$tarball"
	# one process reads the first bytes of every file (a few hundred)
	tar -tf "$tarball" | (cd "$x" && perl -nle '
		next if -l $_ || ! -f $_;
		open(my $f, "<", $_) or die "$_: $!\n";
		read($f, my $m, 4) // die "$_: $!\n";
		s|^[^/]*/||;
		print $_, "\t", $m eq "\x7fELF" ? "ELF" : "-";')
}

is_elf() { [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

@test "the source package holds no ELF file: the fuzz corpus and regression inputs are left out" {
	run grep -x 'tar-ignore = tests/fuzz/corpus' "$D/source/options"
	assert_success
	run grep -x 'tar-ignore = tests/fuzz/regress' "$D/source/options"
	assert_success
	local tree files
	tree=$(release_tree)
	files=$(source_files "$tree")
	# what dpkg-source packed: the sources, the packaging, the tests
	local f
	for f in configure debian/control debian/source/options lib/modrot.h tools/lsmod.c \
		tests/debian-source.bats tests/fixtures/modtree.spec; do
		grep -qxF "$f	-" <<< "$files" || fail "the source package lacks $f"
	done
	[ "$(wc -l <<< "$files")" -gt 300 ]
	# none of them an ELF file
	run grep $'\tELF$' <<< "$files"
	assert_output ""
	# nothing of the corpus or the regression inputs, which hold ELF
	# files in the release tree
	run grep '^tests/fuzz/\(corpus\|regress\)/' <<< "$files"
	assert_output ""
	local n=0
	for f in "$tree"/tests/fuzz/corpus/*/* "$tree"/tests/fuzz/regress/*/*; do
		! is_elf "$f" || { n=1; break; }
	done
	[ "$n" -gt 0 ]
}

@test "the source package check sees an ELF file planted where the package takes it, and none where it does not" {
	local tree=$BATS_TEST_TMPDIR/planted/modrot elf=$FIXTURES/alpha.ko files
	is_elf "$elf"
	mkdir -p "${tree%/*}"
	cp -a "$(release_tree)" "$tree"
	# where the package takes files: beside the sources, in a directory of
	# its own, under a name that says nothing
	cp "$elf" "$tree/lib/planted.ko"
	mkdir "$tree/kernel/planted"
	cp "$elf" "$tree/kernel/planted/data"
	# where it does not: the corpus (debian/source/options) and an object
	# file (dpkg-source's own default)
	cp "$elf" "$tree/tests/fuzz/corpus/planted"
	cp "$elf" "$tree/tools/planted.o"
	files=$(source_files "$tree" | LC_ALL=C sort)
	run grep $'\tELF$' <<< "$files"
	assert_output $'kernel/planted/data\tELF\nlib/planted.ko\tELF'
	run grep -c 'planted' <<< "$files"
	assert_output 2
}

@test "debian/copyright: kernel files are GPL-2 only as their SPDX lines say, debian/* has its stanza, no address" {
	run stanza 'kernel/modules/*'
	assert_success
	assert_line 'License: GPL-2'
	# every SPDX line under kernel/modules says version 2 only
	run grep -rhoE 'SPDX-License-Identifier: [A-Za-z0-9.+-]+' "$top_srcdir/kernel/modules"
	assert_success
	refute_line --regexp 'GPL-2\.0(\+|-or-later)$'
	run grep -c 'GPL-2.0-only\|GPL-2.0$' <<< "$output"
	[ "$output" -gt 0 ]
	run stanza 'debian/*'
	assert_success
	assert_line --regexp '^License: '
	# the licences named are the ones spelled out
	local l
	for l in $(sed -n 's/^License: //p' "$D/copyright" | sort -u); do
		grep -qx "License: $l" "$D/copyright"
		[ "$(awk -v l="License: $l" 'BEGIN { RS = "" } index($0, l "\n") == 1' "$D/copyright" | wc -l)" -gt 3 ]
	done
	# no template left over; Source is configure.ac's address
	# (tests/public-address.bats)
	run sh -c 'grep -v "^Source: " "$1" | grep -E "@|example|TODO|FIXME|<[^>]*>"' sh "$D/copyright"
	assert_failure
}

@test "debian/changelog names every program the package takes from kmod, and how many" {
	local ours theirs replaced n words
	ours=$(make_var_programs)
	theirs=$(dpkg-query -L kmod | sed -n 's|^.*/s\{0,1\}bin/\([a-z]*\)$|\1|p' | sort -u)
	replaced=$(comm -12 <(echo "$ours") <(echo "$theirs"))
	n=$(wc -l <<< "$replaced")
	words=(zero one two three four five six seven eight nine)
	run dpkg-parsechangelog -l "$D/changelog" -S Changes
	assert_success
	assert_output --partial "${words[$n]} of kmod's programs"
	local t
	for t in $replaced; do assert_output --partial "$t"; done
	assert_output --partial "depmod stays"
}

# The programs make installs (bin_PROGRAMS and sbin_PROGRAMS), a line each.
make_var_programs() {
	{ make_var "$top_builddir" bin_PROGRAMS; make_var "$top_builddir" sbin_PROGRAMS; } |
		tr ' ' '\n' | sed -n 's|^tools/||p' | sort -u
}

@test "README.Debian documents each unit and each setting of /etc/default/modrot" {
	local u v
	for u in "$top_srcdir"/systemd/*.service.in "$top_srcdir"/systemd/*.timer; do
		u=${u##*/}
		grep -qF "${u%.in}" "$D/README.Debian.in" || fail "README.Debian does not name ${u%.in}"
	done
	grep -qF /etc/default/modrot "$D/README.Debian.in"
	for v in $(sed -n 's/^#\{0,1\}\(MODROT_[A-Z_]*\)=.*/\1/p' "$top_srcdir/systemd/modrot.default"); do
		grep -qw "$v" "$D/README.Debian.in" || fail "README.Debian does not name $v"
	done
	[ -n "$v" ]
}

@test "the package ships the metrics user's sysusers.d file where the postinst applies it, the link's lines beside, and takes the old ACL entry away" {
	local user
	user=$(sed -n 's/^User=//p' "$top_srcdir/systemd/modrot-metrics.service.in")
	[ -n "$user" ]
	# dh_installsysusers is in the sequence only from compat 14
	run grep -x ' dh-sequence-installsysusers,' "$D/control"
	assert_success
	run grep -x 'debhelper-compat (= 13),' <(sed 's/^ //' "$D/control")
	assert_success
	# configured to /usr/lib (systemd.pc is no build dependency), and
	# installed; the link's lines in /usr/share/modrot, and nothing in
	# tmpfiles.d, which boot would apply
	run grep -o -- '--with-\(sysusers\|tmpfiles\)dir=[^ ]*' "$D/rules"
	assert_output '--with-sysusersdir=/usr/lib/sysusers.d'
	run grep -x 'usr/lib/sysusers.d\|usr/share/modrot.*\|.*tmpfiles.*' "$D/modrot.install"
	assert_output $'usr/lib/sysusers.d\nusr/share/modrot/modrot-metrics-link.conf'
	# README.Debian names the user, the files, the link and how to see
	# that no ACL entry is left
	grep -qF "$user" "$D/README.Debian.in"
	grep -qF /usr/lib/sysusers.d/modrot.conf "$D/README.Debian.in"
	grep -qF /usr/share/modrot/modrot-metrics-link.conf "$D/README.Debian.in"
	grep -qF /var/lib/modrot-metrics "$D/README.Debian.in"
	grep -qF "getfacl /var/lib/prometheus/node-exporter" "$D/README.Debian.in"
	grep -qx '#DEBHELPER#' "$D/modrot.postinst"
}

@test "modrot-prometheus (Architecture: all) takes the rules and the dashboard make install puts in pkgdatadir; modrot none of them" {
	run awk 'BEGIN { RS = "" } /^Package: modrot-prometheus\n/' "$D/control"
	assert_success
	assert_line 'Architecture: all'
	assert_line 'Multi-Arch: foreign'
	# it serves the monitoring server, which need not run modrot
	refute_line --regexp '^ (modrot|libmodrot1) *(\(|,|$)'
	run cat "$D/modrot-prometheus.install"
	assert_output $'usr/share/modrot/grafana\nusr/share/modrot/prometheus'
	# what make install puts there is the rules, their tests, the dashboard
	# and its provisioning file
	local dest=$BATS_TEST_TMPDIR/dest pkgdatadir
	pkgdatadir=$(make_var "$top_builddir" pkgdatadir)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
		install-data DESTDIR="$dest" > "$BATS_TEST_TMPDIR/install.log" 2>&1
	run sh -c 'cd "$1" && find prometheus grafana -type f | LC_ALL=C sort' sh "$dest$pkgdatadir"
	assert_output $'grafana/modrot-dashboard.json\ngrafana/modrot-dashboards.yml\nprometheus/modrot-alerts.test.yml\nprometheus/modrot-alerts.yml'
	# and nothing else in pkgdatadir but what modrot.install names
	run sh -c 'cd "$1" && find . -maxdepth 1 ! -name . ! -name prometheus ! -name grafana' sh "$dest$pkgdatadir"
	assert_output ./modrot-metrics-link.conf
	grep -qx usr/share/modrot/modrot-metrics-link.conf "$D/modrot.install"
	# its README says where each file goes
	grep -qF rule_files "$D/modrot-prometheus.README.Debian"
	grep -qF /etc/grafana/provisioning/dashboards "$D/modrot-prometheus.README.Debian"
}

# in_textfile_ns SCRIPT: SCRIPT (sh) in a mount namespace with a new tmpfs
# (which holds ACLs) on /var/lib, where /var/lib/prometheus/node-exporter
# is root's, 0755, as prometheus-node-exporter makes it, and with the
# metrics user in /etc/passwd. SCRIPT has D (debian/), MUSER (the user)
# and T (the test's directory).
in_textfile_ns() {
	local user passwd=$BATS_TEST_TMPDIR/passwd
	user=$(sed -n 's/^User=//p' "$top_srcdir/systemd/modrot-metrics.service.in")
	{ grep -v "^$user:" /etc/passwd; echo "$user:x:989:989::/:/usr/sbin/nologin"; } > "$passwd"
	D=$D MUSER=$user T=$BATS_TEST_TMPDIR unshare -m sh -c 'mount -t tmpfs -o mode=0755 none /var/lib &&
		mkdir -m 0755 -p /var/lib/prometheus/node-exporter && mount --bind "$1" /etc/passwd && eval "$2"' \
		sh "$passwd" "$1"
}

@test "on upgrade the postinst takes away the ACL entry earlier builds gave the metrics user, and nothing else" {
	[ "$(id -u)" -eq 0 ] || skip "a mount namespace needs root"
	need_packages acl
	local dir=/var/lib/prometheus/node-exporter
	# An upgrade: the user's entry goes, another user's stays, the mask
	# follows what is left; the directory's owner and files are left.
	run in_textfile_ns 'echo kept > '"$dir"'/other.prom &&
		setfacl -m "u:$MUSER:rwx,u:nobody:r-x,m::rwx" '"$dir"' &&
		sh "$D/modrot.postinst" configure 0.1~deb12u1 && getfacl -p '"$dir"' && cat '"$dir"'/other.prom'
	assert_success
	refute_line --partial "user:_modrot-metrics"
	assert_line "user:nobody:r-x"
	assert_line "mask::r-x"
	assert_line "kept"
	# Its only entry gone, the directory is back to 0755.
	run in_textfile_ns 'setfacl -m "u:$MUSER:rwx,m::rwx" '"$dir"' &&
		sh "$D/modrot.postinst" configure 0.1~deb12u1 && getfacl -p -s '"$dir"' && stat -c "%U %a" '"$dir"
	assert_success
	assert_output "root 755"
	# A first install (no old version) touches nothing; nor does a
	# postinst without setfacl on its PATH.
	run in_textfile_ns 'setfacl -m "u:$MUSER:rwx,m::rwx" '"$dir"' &&
		sh "$D/modrot.postinst" configure "" && mkdir "$T/bin" && ln -s /usr/bin/getfacl "$T/bin/" &&
		PATH=$T/bin /bin/sh "$D/modrot.postinst" configure 0.1~deb12u1 && getfacl -p '"$dir"
	assert_success
	assert_line "user:_modrot-metrics:rwx"
	assert_line "mask::rwx"
	# Without the directory, nothing to do and no failure.
	run in_textfile_ns 'rmdir '"$dir"' && sh "$D/modrot.postinst" configure 0.1~deb12u1 && ls -A /var/lib/prometheus'
	assert_success
	assert_output ""
}

@test "the package build runs no tests and depends on nothing only the tests use; configure takes BATS=/bin/false" {
	local deps
	deps=$(sed -n '/^Build-Depends:/,/^[A-Z][-A-Za-z]*:/p' "$D/control" | sed '1s/^Build-Depends://;$d' |
		tr ',' '\n' | sed 's/([^)]*)//; s/ //g' | grep -v '^$')
	grep -qx debhelper-compat <<< "$deps"
	# what only scripts/check.sh installs for the suite
	local p
	for p in bats bats-assert bats-support bats-file valgrind strace busybox zsh fish jq bc; do
		run grep -qx -- "$p" <<< "$deps"
		assert_failure
	done
	# dh_auto_test does nothing; configure gets a bats that fails loudly
	run sed -n '/^override_dh_auto_test:/,/^$/p' "$D/rules"
	assert_equal "${#lines[@]}" 1
	run grep -E '^\s*dh_auto_configure -- BATS=/bin/false ' "$D/rules"
	assert_success
	# and configure accepts it without looking for bats
	local b=$BATS_TEST_TMPDIR/build
	mkdir "$b"
	(cd "$b" && "$top_srcdir/configure" -q BATS=/bin/false) > "$BATS_TEST_TMPDIR/configure.log" 2>&1
	run grep -x 'BATS = /bin/false' "$b/Makefile"
	assert_success
}

# standin_tree USR: a package build tree whose debian/tmp holds modrot's
# seven programs where debian/rules puts them (USR/bin, USR/sbin), and
# debian/kmod-standin; prints its path.
standin_tree() {
	local w=$BATS_TEST_TMPDIR/pkg$1 t
	mkdir -p "$w/debian/tmp$1/sbin" "$w/debian/tmp$1/bin"
	cp "$D/kmod-standin" "$w/debian/"
	for t in insmod rmmod modprobe modinfo modreap; do touch "$w/debian/tmp$1/sbin/$t"; done
	for t in lsmod modrot-metrics; do touch "$w/debian/tmp$1/bin/$t"; done
	echo "$w"
}

# check_kmod_wrappers DIR SBIN BIN: the NAME.kmod that kmod-standin wrote
# under DIR run kmod's programs, as kmod's, on the simulated kernel.
check_kmod_wrappers() {
	local out=$1 S=$1$2 B=$1$3 t
	run find "$out" -name '*.kmod' -printf '%P\n'
	assert_equal "$(sort <<< "$output" | tr '\n' ' ')" \
		"${3#/}/lsmod.kmod ${2#/}/insmod.kmod ${2#/}/lsmod.kmod ${2#/}/modinfo.kmod ${2#/}/modprobe.kmod ${2#/}/rmmod.kmod "
	for t in insmod rmmod modprobe modinfo; do
		run "$S/$t.kmod" --version
		assert_success
		assert_line --regexp '^kmod version [0-9]+'
		run "$S/$t.kmod" --help
		assert_success
		assert_equal "$(sed -n 2p <<< "$output" | sed 's/^[[:space:]]*//' | cut -d' ' -f1-2)" "$t [options]"
	done
	kernel_new rot
	run on_kernel "$S/insmod.kmod" "$FIXTURES/alpha.ko"
	assert_success
	"$SIM" state "$K" | grep -q '^live alpha '
	run on_kernel "$S/modinfo.kmod" -F name "$FIXTURES/beta.ko"
	assert_output beta
	run on_kernel /bin/kmod list
	local kmods=$output
	for t in "$S/lsmod.kmod" "$B/lsmod.kmod"; do
		run on_kernel "$t"
		assert_output "$kmods"
	done
	assert_line --regexp '^alpha '
	run on_kernel "$S/rmmod.kmod" alpha
	assert_success
	run "$SIM" state "$K"
	refute_line --regexp '^live alpha '
}

@test "kmod's five programs work as NAME.kmod, on Debian 12's layout (/sbin, /bin) and 13's (/usr/sbin, /usr/bin)" {
	local w
	# the control: kmod's binary under a diverted link's name does nothing
	ln -s /bin/kmod "$BATS_TEST_TMPDIR/rmmod.distrib"
	run "$BATS_TEST_TMPDIR/rmmod.distrib" --help
	assert_failure 254
	# Debian 12: this machine's kmod
	w=$(standin_tree "")
	run env -C "$w" debian/kmod-standin replaced
	assert_output "insmod, lsmod, modinfo, modprobe and rmmod"
	env -C "$w" debian/kmod-standin wrappers "$w/out12"
	check_kmod_wrappers "$w/out12" /sbin /bin
	# Debian 13: kmod's files as trixie lists them (its programs under /usr)
	w=$(standin_tree /usr)
	printf '%s\n' /usr/bin/kmod /usr/bin/lsmod /usr/sbin/depmod /usr/sbin/insmod /usr/sbin/lsmod \
		/usr/sbin/modinfo /usr/sbin/modprobe /usr/sbin/rmmod > "$w/kmod.list"
	run env -C "$w" KMOD_FILES="$w/kmod.list" debian/kmod-standin usr
	assert_output /usr
	env -C "$w" KMOD_FILES="$w/kmod.list" debian/kmod-standin wrappers "$w/out13"
	check_kmod_wrappers "$w/out13" /usr/sbin /usr/bin
}

@test "each program is diverted under both its names, /sbin and /usr/sbin, on Debian 12's and 13's layouts alike (DEP 17)" {
	local w l12 l13 t
	w=$(standin_tree "")
	l12=$(env -C "$w" debian/kmod-standin diversions)
	w=$(standin_tree /usr)
	printf '%s\n' /usr/bin/kmod /usr/bin/lsmod /usr/sbin/depmod /usr/sbin/insmod /usr/sbin/lsmod \
		/usr/sbin/modinfo /usr/sbin/modprobe /usr/sbin/rmmod > "$w/kmod.list"
	l13=$(env -C "$w" KMOD_FILES="$w/kmod.list" debian/kmod-standin diversions)
	# the same diversions whichever kmod the package was built beside, so
	# that a build for one release upgrades to the other's without a
	# diversion to move
	assert_equal "$(sort <<< "$l12")" "$(sort <<< "$l13")"
	for t in insmod rmmod lsmod modprobe modinfo; do
		grep -qx "/usr/sbin/$t /usr/sbin/$t.distrib" <<< "$l12"
		grep -qx "/sbin/$t /sbin/$t.usr-is-merged" <<< "$l12"
	done
	grep -qx "/usr/bin/lsmod /usr/bin/lsmod.distrib" <<< "$l12"
	grep -qx "/bin/lsmod /bin/lsmod.usr-is-merged" <<< "$l12"
	run grep -c 'depmod' <<< "$l12"
	assert_output 0
	# no two targets name one file on a merged-/usr system
	run bash -c "sed 's|^[^ ]* /usr/|/|; s|^[^ ]* /|/|' <<< \"\$1\" | sort | uniq -d" _ "$l12"
	assert_output ""
	# the maintainer scripts carry them as the functions they define
	run env -C "$w" KMOD_FILES="$w/kmod.list" debian/kmod-standin divert-add
	assert_line "	divert_add /sbin/rmmod /sbin/rmmod.usr-is-merged"
	assert_line "	divert_add /usr/sbin/rmmod /usr/sbin/rmmod.distrib"
	grep -q '^divert_add()' "$top_srcdir/debian/modrot.preinst"
	grep -q '^divert_remove()' "$top_srcdir/debian/modrot.postrm"
}
