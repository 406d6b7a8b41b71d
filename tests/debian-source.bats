#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# debian/ as a packager reads it, checked without building: what the
# source package leaves out, debian/copyright against the files' own SPDX
# lines, the changelog against what the package diverts, README.Debian
# against the units and /etc/default/modrot. (scripts/package-test.sh
# builds, lints and installs the packages, as root.)

load helpers/tools

D=$top_srcdir/debian

# debian/copyright's stanza whose Files: line is exactly $1.
stanza() {
	awk -v f="Files: $1" 'BEGIN { RS = "" } index($0, f "\n") == 1 { print }' "$D/copyright"
}

@test "the source package holds no ELF file: the fuzz corpus and regression inputs are left out" {
	local f elf=()
	run grep -x 'tar-ignore = tests/fuzz/corpus' "$D/source/options"
	assert_success
	run grep -x 'tar-ignore = tests/fuzz/regress' "$D/source/options"
	assert_success
	cd "$top_srcdir"
	while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in tests/fuzz/corpus/* | tests/fuzz/regress/*) continue ;; esac
		[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" != '177ELF' ] || elf+=("$f")
	done < <(git ls-files 2>/dev/null || find . -type f ! -path './.git/*' | sed 's|^\./||')
	assert_equal "${elf[*]}" ""
	# the control: the corpus holds ELF files, which the check would see
	local n=0
	for f in tests/fuzz/corpus/*/*; do
		[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" != '177ELF' ] || n=$((n + 1))
	done
	[ "$n" -gt 0 ]
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
	run grep -E '@|example|TODO|FIXME|<[^>]*>' "$D/copyright"
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

@test "the package ships the metrics user's sysusers.d and tmpfiles.d files where the postinst applies them" {
	local user
	user=$(sed -n 's/^User=//p' "$top_srcdir/systemd/modrot-metrics.service.in")
	[ -n "$user" ]
	# dh_installsysusers is in the sequence only from compat 14
	run grep -x ' dh-sequence-installsysusers,' "$D/control"
	assert_success
	run grep -x 'debhelper-compat (= 13),' <(sed 's/^ //' "$D/control")
	assert_success
	# configured to /usr/lib (systemd.pc is no build dependency), and installed
	run grep -o -- '--with-\(sysusers\|tmpfiles\)dir=[^ ]*' "$D/rules"
	assert_output $'--with-sysusersdir=/usr/lib/sysusers.d\n--with-tmpfilesdir=/usr/lib/tmpfiles.d'
	run grep -x 'usr/lib/\(sysusers\|tmpfiles\).d' "$D/modrot.install"
	assert_equal "${#lines[@]}" 2
	# README.Debian names the user, the files and how to see the ACL
	grep -qF "$user" "$D/README.Debian.in"
	grep -qF /usr/lib/sysusers.d/modrot.conf "$D/README.Debian.in"
	grep -qF /usr/lib/tmpfiles.d/modrot.conf "$D/README.Debian.in"
	grep -qF "getfacl /var/lib/prometheus/node-exporter" "$D/README.Debian.in"
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
