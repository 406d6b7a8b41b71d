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
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" \
		-f Makefile -f - print-programs <<'EOF' | tr ' ' '\n' | sed -n 's|^tools/||p' | sort -u
print-programs: ; @printf '%s\n' '$(bin_PROGRAMS) $(sbin_PROGRAMS)'
EOF
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
