#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The project's public address and its maintainers' address are written
# once, in configure.ac: what the build makes has configure's values, and
# every copy in a file read without configure (debian/, galaxy.yml, the
# README, the dashboard, the kernel series) is the same, as
# scripts/public-address.sh checks and writes.

load helpers/tools
load helpers/packages

PA=$top_srcdir/scripts/public-address.sh

setup_file() {
	need_packages jq
}

# make_var NAME: the value configure gave NAME in the build's Makefile
make_var() { sed -n "s/^$1 = //p" "$top_builddir/Makefile"; }
# value NAME: public-address.sh's value of NAME, from configure.ac
value() { "$PA" --values | sed -n "s/^$1=//p"; }

@test "public address: configure's values are configure.ac's, and the build's manual, .pc and configure --help have them" {
	local url bugs
	url=$(make_var PACKAGE_URL)
	bugs=$(make_var PACKAGE_BUGREPORT)
	assert_equal "$url" "$(value url)"
	assert_equal "$bugs" "$(value bugs)"
	assert_equal "$(make_var MODROT_MAINTAINER)" "$(value maintainer)"
	# the manual's REPORTING BUGS, from configure, no @...@ left
	make -s -C "$top_builddir" man/modrot.7 lib/libmodrot.pc
	run env MANWIDTH=200 man -l "$top_builddir/man/modrot.7"
	assert_success
	assert_output --partial "Report bugs at <$bugs>. modrot's home page is <$url>."
	run grep -l '@PACKAGE_[A-Z]*@' "$top_builddir"/man/*.[78] "$top_builddir/lib/libmodrot.pc"
	assert_failure
	run grep -x "URL: $url" "$top_builddir/lib/libmodrot.pc"
	assert_success
	run "$top_srcdir/configure" --help
	assert_line "Report bugs to <$bugs>."
	assert_line "modrot home page: <$url>."
}

@test "public address: metrics' modrot_build_info names the home page" {
	kernel_new rot
	run on_kernel "$top_builddir/tools/modrot-metrics"
	assert_success
	assert_line "# HELP modrot_build_info Always 1; the version label is the modrot that wrote these metrics, whose home page is $(make_var PACKAGE_URL)."
}

@test "public address: every copy configure cannot write is configure.ac's, and no other file has the address" {
	run "$PA"
	assert_success
	assert_output "public-address.sh: every copy is configure.ac's: $(value url), $(value maintainer)"
	# each kind of copy is there
	grep -qx "Homepage: $(value url)" "$top_srcdir/debian/control"
	grep -qx "Vcs-Git: $(value vcs_git)" "$top_srcdir/debian/control"
	grep -qx "Maintainer: $(value maintainer)" "$top_srcdir/debian/control"
	grep -qx "Source: $(value url)" "$top_srcdir/debian/copyright"
	grep -qx "issues: $(value bugs)" "$top_srcdir/ansible/ansible_collections/modrot/rot/galaxy.yml"
	run jq -r '.links[].url' "$top_srcdir/prometheus/grafana/modrot-dashboard.json"
	assert_output "$(value url)"
	run dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Maintainer
	assert_output "$(value maintainer)"
}

# A copy of the files public-address.sh reads and writes, in $T.
copy_tree() {
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T"
	(cd "$top_srcdir" && tar -cf - configure.ac README.md scripts/public-address.sh debian/control \
		debian/changelog debian/copyright ansible/ansible_collections/modrot/rot/galaxy.yml \
		prometheus/grafana/modrot-dashboard.json kernel/patches kernel/patches-6.12) | tar -xf - -C "$T"
	run "$T/scripts/public-address.sh"
	assert_success
}

@test "public-address.sh: a copy that differs, is missing, or sits in a file of its own fails the check, by file and line" {
	copy_tree
	local url
	url=$(value url)
	sed -i "s|^Vcs-Browser: .*|Vcs-Browser: https://elsewhere.example/modrot|" "$T/debian/control"
	sed -i '/^issues: /d' "$T/ansible/ansible_collections/modrot/rot/galaxy.yml"
	jq '.links[0].url = "https://elsewhere.example/"' "$T/prometheus/grafana/modrot-dashboard.json" > "$T/d.json"
	mv "$T/d.json" "$T/prometheus/grafana/modrot-dashboard.json"
	sed -i 's/^Signed-off-by: \(.*\)<.*>$/Signed-off-by: \1<someone@elsewhere.example>/' "$T/kernel/patches/0003-"*.patch
	mkdir -p "$T/docs"
	echo "See $url." > "$T/docs/new.md"
	run "$T/scripts/public-address.sh"
	assert_failure 1
	local line
	line=$(grep -n '^Vcs-Browser: ' "$T/debian/control" | cut -d: -f1)
	assert_line "debian/control:$line: 'https://elsewhere.example/modrot', but configure.ac says '$url'"
	assert_line "ansible/ansible_collections/modrot/rot/galaxy.yml: no line 'issues: ...' (configure.ac: $(value bugs))"
	assert_line "prometheus/grafana/modrot-dashboard.json: a link to 'https://elsewhere.example/', but configure.ac says '$url'"
	assert_line --regexp "^kernel/patches/0003-.*\\.patch: author and sign-off .*someone@elsewhere\\.example"
	assert_line "docs/new.md: names $(value host), but is not one of the copies scripts/public-address.sh keeps"
	assert_equal "${#lines[@]}" 5
}

@test "public-address.sh --write: a new address in configure.ac reaches every copy, and nothing else changes" {
	copy_tree
	cp -a "$T" "$BATS_TEST_TMPDIR/before"
	sed -i -e 's|^m4_define(\[modrot_url\], \[.*\])$|m4_define([modrot_url], [https://git.example.org/k/modrot])|' \
		-e 's|^m4_define(\[modrot_maintainer\], \[.*\])$|m4_define([modrot_maintainer], [Kay Roe <kay@example.org>])|' \
		"$T/configure.ac"
	run "$T/scripts/public-address.sh"
	assert_failure 1
	run "$T/scripts/public-address.sh" --write
	assert_success
	run "$T/scripts/public-address.sh"
	assert_success
	assert_output "public-address.sh: every copy is configure.ac's: https://git.example.org/k/modrot, Kay Roe <kay@example.org>"
	run dpkg-parsechangelog -l "$T/debian/changelog" -S Maintainer
	assert_output "Kay Roe <kay@example.org>"
	# every changed line is one of the copies, and only the address changed
	run sh -c 'cd "$1" && diff -r before tree' sh "$BATS_TEST_TMPDIR"
	assert_failure 1
	run sh -c 'cd "$1" && diff -r before tree | grep "^>"' sh "$BATS_TEST_TMPDIR"
	local l
	for l in "${lines[@]}"; do
		[[ $l == *git.example.org/k/modrot* || $l == *kay@example.org* ]] || fail "changed, without the address: $l"
	done
	run sh -c 'cd "$1" && diff -r before tree | grep -c "^>"' sh "$BATS_TEST_TMPDIR"
	# control 4, changelog 1, copyright 1, galaxy.yml 4, README 2,
	# dashboard 1, configure.ac 2, two lines in each of 54 patches
	assert_output $((4 + 1 + 1 + 4 + 2 + 1 + 2 + 2 * $(ls "$T"/kernel/patches*/*.patch | wc -l)))
}
