#!/bin/sh
# The Debian packages, tested as an administrator would use them:
#
#   scripts/package-test.sh [WORKDIR]          (as root; WORKDIR: build-deb/)
#   PACKAGE_TEST_SUITES="bookworm trixie upgrade"   (the default; any of them)
#   PACKAGE_TEST_CACHE=/var/cache/modrot-package-test  (the Debian roots)
#
#  1. builds the source package and modrot, libmodrot1, libmodrot-dev and
#     modrot-prometheus (dpkg-buildpackage) from a copy of the checkout, on
#     this machine (Debian 12), as version VERSION~deb12u1;
#  2. runs lintian --pedantic on the source and binary packages: any
#     error or warning fails;
#  3. makes a minimal Debian 12 root with kmod and bash-completion
#     (mmdebstrap, from the Debian mirror of /etc/apt/sources.list.d) and
#     records every file of theirs (type, mode, link target, sha256);
#  4. installs the packages there with dpkg; checks that modrot-prometheus
#     installed the rules and the dashboard under /usr/share/modrot as the
#     source tree has them, runs promtool (the root's, or else this
#     machine's) on the installed rules and their unit tests; and checks
#     the diversions:
#     kmod's files moved aside unchanged, modrot's in their place, and
#     still so after kmod is reinstalled;
#  5. runs the installed tools inside the root (chroot) under the
#     simulated kernel of the build tree, checking output and the kernel's
#     state, and comparing lsmod with kmod's; runs kmod's five programs
#     under their .kmod names; builds a program against the installed
#     modrot.h and libmodrot.pc and runs it there too; checks that the
#     postinst made the metrics service's user (_modrot-metrics), runs
#     the installed modrot-metrics as that user into the service's own
#     directory and the service's link command, and that the user can
#     change nothing in node_exporter's textfile directory; and the
#     upgrade from the layout that gave it an ACL entry there;
#  6. removes modrot, checks kmod's files are back byte for byte, installs
#     it again, purges everything and checks again;
#  7. for Debian 13 (kmod in /usr/sbin and /usr/bin): makes a Debian 13
#     root with the build dependencies and lintian, builds the source and
#     binary packages there as VERSION~deb13u1, runs Debian 13's lintian
#     --pedantic on them, and runs 4 to 6 in it;
#  8. the release upgrade ("upgrade"): in a Debian 12 root with the
#     Debian 12 build installed, upgrades kmod to Debian 13's, then the
#     whole root to Debian 13 (apt-get dist-upgrade), then modrot to the
#     Debian 13 build (apt-get install of the .deb files, which fetches
#     the libraries that build needs; `dpkg -V modrot` clean after it),
#     then removes and purges it. After each step it
#     says which of the programs under each name (/sbin, /usr/sbin, /bin,
#     /usr/bin) are modrot's and which kmod's, and checks them, the
#     diversions, `dpkg -V kmod` and that kmod's programs work.
#
# The roots are made once and kept as tarballs in PACKAGE_TEST_CACHE
# (remade after a week, or when what they hold changes), with the .deb
# files the release upgrade downloads.
# Writes WORKDIR/package-test.log (every step, its output and its time)
# and keeps the .deb files in WORKDIR/SUITE; the roots are deleted at the
# end.
# Exits 0 when every check passed. Installs what it needs on a fresh
# Debian 12 machine.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$top/build-deb}
case $work in /*) ;; *) work=$(pwd)/$work ;; esac

if [ "$(id -u)" -ne 0 ]; then
	echo "package-test.sh: needs root (dpkg and chroot in a Debian root)" >&2
	exit 2
fi

suites=${PACKAGE_TEST_SUITES:-bookworm trixie upgrade}
cache=${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}
mkdir -p "$cache"
rm -rf "$work"
mkdir -p "$work"
log=$work/package-test.log
: >"$log"
start=$(date +%s)
step_start=$start
root=

say() { echo "$*" | tee -a "$log"; }
fail() {
	say "FAIL: $*"
	say "package test failed after $(($(date +%s) - start)) s; log: $log"
	exit 1
}
step() {
	now=$(date +%s)
	say "== $* (at $((now - start)) s)"
	step_start=$now
}
done_step() { say "   ok ($(($(date +%s) - step_start)) s)"; }
# run CMD...: its output goes to the log; a failure fails the test
run() {
	echo "\$ $*" >>"$log"
	"$@" >>"$log" 2>&1 || fail "$* (exit $?)"
}
# Nothing stays mounted in the roots (the simulated kernel serves /proc and
# /sys, the builds need neither, and with_proc's mount ends with its
# command), so removing them is safe.
trap 'rm -rf "$work/bookworm/root" "$work/trixie/root" "$work/upgrade/root"' EXIT
trap 'exit 130' INT TERM

step "tools and build dependencies"
"$top/scripts/need-packages.sh" dpkg-dev debhelper fakeroot lintian mmdebstrap \
	debian-archive-keyring binutils gcc libc6-dev pkg-config acl >>"$log" 2>&1 || fail "installing the packaging tools"
# What debian/control asks for, less version bounds and alternatives.
unmet=$(cd "$top" && dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
	sed -e 's/([^)]*)//g' -e 's/|[^ ]*//g' -e 's/:any//g')
# shellcheck disable=SC2086
[ -z "$unmet" ] || "$top/scripts/need-packages.sh" $unmet >>"$log" 2>&1 ||
	fail "installing the build dependencies:$unmet"
# The simulated kernel comes from the build tree (scripts/setup.sh makes it).
sim=$top/build/tests/simkernel
if [ ! -x "$sim/simkernel" ]; then
	"$top/scripts/setup.sh" build >>"$log" 2>&1 || fail "building the simulated kernel"
fi
fixtures=$top/build/tests/fixtures/out
upstream=$(cd "$top" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) bookworm main.*/\2/p' \
	/etc/apt/sources.list 2>/dev/null | head -n1)
[ -n "$mirror" ] || fail "no Debian mirror in /etc/apt/sources.list*"
say "   mirror $mirror"
# The build dependencies, for a root to build in.
builddeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control" | sed -e '1s/^Build-Depends://' \
	-e '/^[A-Z]/d' -e 's/([^)]*)//g' -e 's/|[^,]*//g' -e 's/debhelper-compat/debhelper/' | tr -d ' \n' | sed 's/,$//')
done_step

# The version a build for Debian release N carries: each release gets its
# own build (kmod's paths, the library's dependencies and the versioned
# relations on kmod and libkmod2 are the release's), as VERSION~debNu1,
# which sorts below VERSION and below the next release's build, so that a
# release upgrade upgrades modrot too.
suite_version() {
	case $1 in
	bookworm) echo "$upstream~deb12u1" ;;
	trixie) echo "$upstream~deb13u1" ;;
	esac
}

# copy_source DIR SUITE: the source tree, from a checkout as git sees it
# (tracked and new files, nothing ignored), from the release tarball as
# make dist copies it, with a changelog entry for the release's build on
# top.
copy_source() {
	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$top" && pwd -P)" ]; then
		mkdir -p "$1"
		(cd "$top" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) |
			tar -C "$1" -xf - || fail "copying the source"
	else
		# the release tarball has no git: the release tree as make dist copies it
		mkdir -p "$(dirname "$1")"
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top/build" \
			distdir distdir="$1" >>"$log" 2>&1 || fail "copying the release tree (make distdir)"
	fi
	[ -f "$1/debian/control" ] || fail "no debian/control in the copy of the source"
	cl=$1/debian/changelog
	{
		printf 'modrot (%s) %s; urgency=medium\n\n' "$(suite_version "$2")" "$2"
		printf '  * Build for Debian %s (%s).\n\n' "$(suite_version "$2" | sed 's/.*~deb\([0-9]*\)u.*/\1/')" "$2"
		# a minute after the entry below it (lintian wants a new date)
		printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$cl" -S Maintainer)" \
			"$(LC_ALL=C date -u -R -d "@$(($(dpkg-parsechangelog -l "$cl" -S Timestamp) + 60))")"
		cat "$cl"
	} >"$cl.new" && mv "$cl.new" "$cl"
}

# make_root SUITE ROOT INCLUDE: a minimal Debian root of SUITE with the
# packages INCLUDE (comma-separated), from the cache when one was made
# from the same list within a week (mmdebstrap's output, downloaded
# .debs kept for reinstalling while diverted).
make_root() {
	key=$(printf '%s\n' "$1" "$3" "$mirror" | sha256sum | cut -c1-16)
	tarball=$cache/$1-$key.tar
	find "$cache" -maxdepth 1 -name "$1-*.tar" -mtime +6 -delete
	if [ -f "$tarball" ]; then
		say "   from the cache: $tarball"
	else
		find "$cache" -maxdepth 1 -name "$1-*.tar" -delete
		# (mmdebstrap chooses its output's format by the name's end)
		run nice -n 10 mmdebstrap --mode=root --variant=minbase --skip=cleanup/apt/cache \
			--include="$3" "$1" "${tarball%.tar}.part.tar" "$mirror"
		mv "${tarball%.tar}.part.tar" "$tarball"
		say "   made and cached: $tarball ($(($(stat -c %s "$tarball") / 1048576)) MiB)"
	fi
	rm -rf "$2"
	mkdir -p "$2"
	tar -C "$2" --numeric-owner -xpf "$tarball" || fail "unpacking $tarball"
}

# libmodrot1 must depend on what libmodrot opens on first use (no
# DT_NEEDED names it: debian/dlopen-depends): the package that holds each
# DYNLIB library where the package was built (CHROOT, or this machine).
check_dlopen_depends() {
	deb=$1 chroot=${2:-}
	deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/ //g')
	for so in $(sed -n 's/^DYNLIB([a-z]*, "\(lib[^"]*\)".*/\1/p' "$top/lib/dynlib.c"); do
		pkg=$(${chroot:+chroot "$chroot"} dpkg-query -S "*/$so" 2>/dev/null | sed -n '1s/:.*//p')
		[ -n "$pkg" ] || fail "no package holds $so"
		echo "$deps" | grep -qx "$pkg" || fail "$(basename "$deb") does not depend on $pkg ($so)"
	done
}

# The four binary packages dpkg-buildpackage left in DIR, each copied
# to $pkgdir and its size said.
collect_debs() {
	version=$(suite_version "$2")
	for p in modrot libmodrot1 libmodrot-dev modrot-prometheus; do
		deb=$1/${p}_${version}_$arch.deb
		[ "$p" = modrot-prometheus ] && deb=$1/${p}_${version}_all.deb
		[ -f "$deb" ] || fail "no $deb"
		cp "$deb" "$pkgdir/"
		say "   $(basename "$deb"): $(stat -c %s "$deb") bytes"
	done
}

step "dpkg-buildpackage -us -uc (Debian 12: source and binaries)"
pkgdir=$work/bookworm
version=$(suite_version bookworm)
src=$pkgdir/src/modrot-$upstream
copy_source "$src" bookworm
(cd "$src" && nice -n 10 dpkg-buildpackage -us -uc) >>"$log" 2>&1 || fail "dpkg-buildpackage"
changes=$pkgdir/src/modrot_${version}_$arch.changes
collect_debs "$pkgdir/src" bookworm
check_dlopen_depends "$pkgdir/libmodrot1_${version}_$arch.deb"
dsc=$pkgdir/src/modrot_$version.dsc
[ -f "$dsc" ] || fail "no $dsc"
say "   $(basename "$dsc"), source $(stat -c %s "$pkgdir/src/modrot_$version.tar.xz") bytes"
tar -tJf "$pkgdir/src/modrot_$version.tar.xz" | grep -Eq '/tests/fuzz/(corpus|regress)/.' &&
	fail "the source package carries the fuzz corpus or regression inputs"
done_step

# lintian_check CHANGES [ROOT]: lintian --pedantic on the source and
# binary packages of CHANGES, the lintian of ROOT (a Debian root, the
# release the packages are built for) or of this machine: any error,
# warning or pedantic tag fails.
lintian_check() {
	in=${2:+with_proc chroot $2}
	# shellcheck disable=SC2086
	$in lintian --version >>"$log"
	lintian_out=$work/lintian.txt
	lintian_rc=0
	# shellcheck disable=SC2086
	$in lintian --pedantic --fail-on error,warning --display-info "$1" >"$lintian_out" 2>&1 ||
		lintian_rc=$?
	cat "$lintian_out" >>"$log"
	errors=$(grep -c '^E: ' "$lintian_out" || true)
	warnings=$(grep -c '^W: ' "$lintian_out" || true)
	pedantic=$(grep -c '^P: ' "$lintian_out" || true)
	infos=$(grep -c '^I: ' "$lintian_out" || true)
	grep -q '\.dsc$' "${2:-}$1" || fail "$1 has no source package for lintian"
	say "   $($in lintian --version): $errors errors, $warnings warnings, $pedantic pedantic, $infos info (overrides: debian/*.lintian-overrides)"
	if [ "$lintian_rc" -ne 0 ] || [ "$errors" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$pedantic" -ne 0 ]; then
		grep '^[EWP]: ' "$lintian_out" | head -n 20 | tee -a "$log"
		fail "lintian reported errors, warnings or pedantic tags (exit $lintian_rc)"
	fi
}

step "lintian --pedantic (Debian 12's, source and binary packages)"
lintian_check "$changes"
done_step

# Every file kmod and bash-completion own in the root: type, mode, link
# target or checksum, a line each.
manifest() {
	chroot "$root" dpkg-query -L kmod bash-completion | sort -u | while read -r f; do
		p=$root$f
		if [ -L "$p" ]; then
			echo "L $f -> $(readlink "$p")"
		elif [ -d "$p" ]; then
			echo "D $f $(stat -c %a "$p")"
		elif [ -f "$p" ]; then
			echo "F $f $(stat -c %a "$p") $(sha256sum <"$p" | cut -d' ' -f1)"
		else
			echo "? $f missing"
		fi
	done
}

# alias_of PATH: the other name of a program's path on a merged-/usr
# system (/usr/sbin/X for /sbin/X and the other way round)
alias_of() {
	case $1 in
	/usr/bin/* | /usr/sbin/*) echo "${1#/usr}" ;;
	/bin/* | /sbin/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

# The diversions the package says it makes: "PATH DIVERTED" for each
# divert_add of its preinst.
check_diverted() {
	n=0
	while read -r f k; do
		chroot "$root" dpkg-divert --list "$f" | grep -qx "diversion of $f to $k by modrot" ||
			fail "no diversion of $f to $k"
		# kmod's file (or bash-completion's) is kept, unchanged, as k
		was=$(grep -F " $f " "$pkgdir/kmod-before.txt" | head -n1 || true)
		if [ -n "$was" ]; then
			case $was in
			L*) [ "$(readlink "$root$k")" = "${was#* -> }" ] || fail "$k is not kmod's link" ;;
			F*) [ "$(sha256sum <"$root$k" | cut -d' ' -f1)" = "${was##* }" ] ||
				fail "$k is not kmod's file" ;;
			esac
		fi
		# and the path holds modrot's file now: the package ships the
		# path or its alias (/sbin/X for /usr/sbin/X, or the other way
		# round), which on a merged-/usr root is the same file
		pf=$pkgfiles$f
		[ -e "$pf" ] || [ -L "$pf" ] || pf=$pkgfiles$(alias_of "$f")
		[ -e "$pf" ] || [ -L "$pf" ] || fail "modrot ships neither $f nor $(alias_of "$f")"
		if [ -L "$pf" ]; then
			[ "$(readlink "$root$f")" = "$(readlink "$pf")" ] || fail "$f is not modrot's"
		else
			cmp -s "$root$f" "$pf" || fail "$f is not modrot's"
		fi
		n=$((n + 1))
	done <"$expected"
	say "   $n diversions, each of kmod's files kept aside unchanged"
}

# with_proc CMD...: CMD with a /proc mounted in the root, in a mount
# namespace of its own: the mount ends with CMD, so nothing stays mounted
# in the root. systemd-tmpfiles, which the postinst runs, needs /proc.
with_proc() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec "$@"' "$root" "$@"
}

# sim_root: the simulator's preload and guard, and the fixture modules,
# go into the root; its state directory is made from outside and read from
# inside.
sim_root() {
	simdir=$root/opt/simkernel
	mkdir -p "$simdir/fixtures"
	cp "$sim/libsimkernel.so" "$sim/simkernel-guard" "$simdir/"
	cp "$fixtures/alpha.ko" "$fixtures/beta.ko" "$fixtures/delta.ko" "$simdir/fixtures/"
	run "$sim/simkernel" create "$simdir/k" --mode rot
}

# in_root CMD...: CMD inside the root, on the simulated kernel
in_root() {
	chroot "$root" /opt/simkernel/simkernel-guard /usr/bin/env \
		SIMKERNEL_DIR=/opt/simkernel/k LD_PRELOAD=/opt/simkernel/libsimkernel.so "$@"
}
state() { "$sim/simkernel" state "$simdir/k"; }
# expect_ok CMD...: runs CMD in the root, logs it; fails unless it exits 0
expect_ok() {
	echo "\$ $*" >>"$log"
	out=$(in_root "$@" 2>&1) || fail "$* exited $?: $out"
	echo "$out" >>"$log"
}

# as_metrics_user UID GID [FILE]: the installed modrot-metrics, in the root
# on the simulated kernel, as the service runs it: as UID:GID, no pointer
# visible; into FILE (the unit's MODROT_METRICS_FILE).
as_metrics_user() {
	echo "\$ (as $1:$2) $B/modrot-metrics -o ${3:-$metrics_file}" >>"$log"
	chroot --userspec="$1:$2" --groups="$2" "$root" /opt/simkernel/simkernel-guard /usr/bin/env \
		SIMKERNEL_DIR=/opt/simkernel/k SIMKERNEL_NOCAP=1 LD_PRELOAD=/opt/simkernel/libsimkernel.so \
		"$B/modrot-metrics" -o "${3:-$metrics_file}"
}

# check_metrics_user USR: the postinst made the service's user
# (sysusers.d); the installed modrot-metrics writes, as that user, in the
# service's own directory (made here as systemd makes it from
# StateDirectory=); the service's ExecStartPost command (root's) links it
# into node_exporter's textfile directory, where node_exporter's user
# reads it and the metrics user can change nothing. Then the upgrade from
# the layout that gave the user an ACL entry on that directory: the
# postinst takes the entry away (where setfacl is), and the link replaces
# the file that layout left.
check_metrics_user() {
	unit=$root$1/lib/systemd/system/modrot-metrics.service
	user=$(sed -n 's/^User=//p' "$unit")
	[ "$user" = _modrot-metrics ] || fail "modrot-metrics.service runs as '$user'"
	entry=$(chroot "$root" getent passwd "$user") || fail "no user $user after install"
	echo "$entry" >>"$log"
	uid=$(echo "$entry" | cut -d: -f3)
	gid=$(echo "$entry" | cut -d: -f4)
	if [ "$uid" -le 0 ] || [ "$uid" -ge 1000 ]; then fail "$user is not a system user (uid $uid)"; fi
	case $entry in *:/usr/sbin/nologin) ;; *) fail "$user can log in: $entry" ;; esac
	metrics_file=$(sed -n 's/^Environment=MODROT_METRICS_FILE=\([^ ]*\).*/\1/p' "$unit")
	state=/var/lib/$(sed -n 's/^StateDirectory=//p' "$unit")
	[ "$metrics_file" = "$state/modrot.prom" ] || fail "$metrics_file is not in the service's directory $state"
	textdir=/var/lib/prometheus/node-exporter
	link=$textdir/modrot.prom
	# nothing in tmpfiles.d: boot makes no link before there is a file
	[ ! -e "$root/usr/lib/tmpfiles.d/modrot.conf" ] || fail "modrot ships a tmpfiles.d file"
	[ -e "$root$textdir" ] && fail "the install made $textdir"
	install -d -o "$uid" -g "$gid" -m "$(sed -n 's/^StateDirectoryMode=//p' "$unit")" "$root$state"
	# the lazy /proc files, rendered as root for a reader without pointers
	expect_ok SIMKERNEL_NOCAP=1 cat /proc/modules /proc/rotting_modules /proc/module_percpu
	as_metrics_user "$uid" "$gid" >>"$log" 2>&1 || fail "modrot-metrics as $user exited $?"
	[ "$(stat -c '%u %a' "$root$metrics_file")" = "$uid 644" ] || fail "$metrics_file is not $user's, 0644"
	grep -qx 'modrot_kernel_rot_supported 1' "$root$metrics_file" || fail "$metrics_file holds no metrics"
	[ "$(ls -A "$root$state")" = modrot.prom ] || fail "left in $state: $(ls -A "$root$state")"
	post=$(sed -n 's/^ExecStartPost=+//p' "$unit")
	# shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
	run with_proc chroot "$root" $post
	[ "$(stat -c '%u %g %a' "$root$textdir")" = "0 0 755" ] || fail "$textdir is not root's, 0755"
	[ -L "$root$link" ] || fail "$link is not a link"
	[ "$(stat -c %u "$root$link")" = 0 ] || fail "$link is not root's"
	[ "$(readlink "$root$link")" = "$metrics_file" ] || fail "$link names $(readlink "$root$link")"
	chroot --userspec=65534:65534 "$root" cat "$link" >"$work/through-link.prom" ||
		fail "nobody cannot read $link"
	cmp -s "$work/through-link.prom" "$root$metrics_file" || fail "$link does not show $metrics_file"
	# what the metrics user can no longer do there
	echo "other_metric 1" >"$root$textdir/other.prom"
	for try in "touch $textdir/evil.prom" "rm -f $textdir/other.prom" "rm -f $link" \
		"mv $metrics_file $textdir/other.prom" "ln -sf /etc/shadow $textdir/evil.prom"; do
		# shellcheck disable=SC2086 # the words of the command
		chroot --userspec="$uid:$gid" "$root" $try >"$work/try.out" 2>&1 && fail "$user could: $try"
		grep -q 'Permission denied' "$work/try.out" || fail "$try: $(cat "$work/try.out")"
	done
	[ "$(cat "$root$textdir/other.prom")" = "other_metric 1" ] || fail "other.prom changed"
	[ "$(find "$root$textdir" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "modrot.prom other.prom " ] ||
		fail "in $textdir: $(ls -A "$root$textdir")"
	as_metrics_user "$uid" "$gid" "$textdir/other.prom" >"$work/metrics.out" 2>&1 &&
		fail "modrot-metrics wrote in $textdir"
	grep -qx "modrot-metrics: ERROR: could not write $textdir/other.prom: cannot create a file in $textdir: Permission denied" \
		"$work/metrics.out" || fail "writing in $textdir is not one line: $(cat "$work/metrics.out")"
	rm "$root$textdir/other.prom"
	say "   $user (uid $uid) writes ${metrics_file##*/} in $state; root's link in $textdir shows it, which $user cannot change"

	# The earlier layout: the user's ACL entry and its own file in the
	# textfile directory. The upgrade's postinst takes the entry away, if
	# setfacl is in the root, and the next run's link replaces the file.
	rm "$root$link"
	echo old >"$root$link"
	chown "$uid:$gid" "$root$link"
	setfacl -m "u:$uid:rwx,m::rwx" "$root$textdir"
	run with_proc chroot "$root" /var/lib/dpkg/info/modrot.postinst configure 0.0~old
	getfacl -n -p "$root$textdir" >>"$log"
	if [ -x "$root/usr/bin/setfacl" ]; then
		[ -z "$(getfacl -n -p -s "$root$textdir")" ] || fail "the postinst left an ACL on $textdir"
		say "   the upgrade took the ACL entry away"
	else
		getfacl -n -p "$root$textdir" | grep -qx "user:$uid:rwx" || fail "the postinst without setfacl changed the ACL"
		say "   without setfacl in the root, the upgrade left the ACL entry (as README.Debian says)"
		setfacl -b "$root$textdir"
	fi
	[ "$(cat "$root$link")" = old ] || fail "the postinst changed $link"
	# shellcheck disable=SC2086
	run with_proc chroot "$root" $post
	[ "$(readlink "$root$link")" = "$metrics_file" ] || fail "the old $link stays"
	chroot --userspec="$uid:$gid" "$root" touch "$textdir/evil.prom" 2>/dev/null && fail "$user writes in $textdir after the upgrade"
	[ "$(ls -A "$root$textdir")" = modrot.prom ] || fail "in $textdir: $(ls -A "$root$textdir")"
}

# check_prometheus: modrot-prometheus installs the rules, their unit tests
# and the dashboard as the source tree has them, and the provisioning file
# naming where the dashboard is; promtool (the root's, or else this
# machine's) checks the installed rules and runs their tests where they
# are installed.
check_prometheus() {
	run chroot "$root" dpkg -i "/tmp/debs/modrot-prometheus_${version}_all.deb"
	share=/usr/share/modrot
	for f in prometheus/modrot-alerts.yml prometheus/modrot-alerts.test.yml grafana/modrot-dashboard.json; do
		cmp -s "$top/prometheus/${f#prometheus/}" "$root$share/$f" ||
			fail "$share/$f is not the source tree's prometheus/${f#prometheus/}"
	done
	prov=$root$share/grafana/modrot-dashboards.yml
	[ "$(sed -n 's/^ *path: //p' "$prov")" = "$share/grafana" ] ||
		fail "the provisioning file does not name $share/grafana: $(grep path: "$prov")"
	[ "$(diff "$top/prometheus/grafana/modrot-dashboards.yml" "$prov" | grep -c '^[<>]')" -eq 2 ] ||
		fail "the provisioning file differs from the source tree's beyond its path"
	chroot "$root" dpkg-query -L modrot-prometheus | grep "^$share/." | sort >"$work/prometheus-files.txt"
	cat "$work/prometheus-files.txt" >>"$log"
	[ "$(grep -c '\.[a-z]*$' "$work/prometheus-files.txt")" -eq 4 ] ||
		fail "modrot-prometheus does not ship the four files under $share"
	if [ -x "$root/usr/bin/promtool" ]; then
		promtool_where="the root's"
		# prom_in DIR ARGS...: promtool ARGS run in DIR
		# shellcheck disable=SC2016 # expanded by the inner sh
		prom_in() { chroot "$root" sh -c 'cd "$0" && exec promtool "$@"' "$@"; }
	elif command -v promtool >/dev/null; then
		promtool_where="this machine's"
		prom_in() { (d=$1 && shift && cd "$root$d" && promtool "$@"); }
	else
		promtool_where=
	fi
	if [ -n "$promtool_where" ]; then
		echo "\$ promtool check rules; promtool test rules ($promtool_where)" >>"$log"
		pout=$(prom_in "$share/prometheus" check rules modrot-alerts.yml 2>&1) ||
			fail "promtool check rules on the installed rules: $pout"
		echo "$pout" >>"$log"
		echo "$pout" | grep -q 'SUCCESS: [1-9][0-9]* rules found' || fail "promtool found no rules: $pout"
		pout=$(prom_in "$share/prometheus" test rules modrot-alerts.test.yml 2>&1) ||
			fail "promtool test rules on the installed rules: $pout"
		echo "$pout" >>"$log"
		say "   $share/prometheus and $share/grafana as in the source tree; $promtool_where promtool:" \
			"$(echo "$pout" | grep -c SUCCESS) unit test file passed, rules checked"
	else
		say "   $share/prometheus and $share/grafana as in the source tree;" \
			"NOT CHECKED by promtool (neither the root nor this machine has it)"
	fi
}

# expected_diversions DEB: "PATH DIVERTED" for each divert_add of the
# package's preinst
expected_diversions() {
	dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./preinst |
		sed -n 's/^[[:space:]]*divert_add \(\/[^ ]*\) \(\/[^ ]*\)$/\1 \2/p'
}

# test_root SUITE USR: steps 4 to 6 in $root, with the packages in $out;
# USR is /usr when kmod's programs are in /usr/sbin and /usr/bin.
test_root() {
	suite=$1
	version=$(suite_version "$suite")
	S=$2/sbin B=$2/bin
	manifest >"$pkgdir/kmod-before.txt"
	say "   kmod and bash-completion: $(wc -l <"$pkgdir/kmod-before.txt") paths recorded"
	grep -q "^L $S/insmod -> " "$pkgdir/kmod-before.txt" || fail "kmod's $S/insmod not in the root"

	step "$suite: install the packages"
	mkdir -p "$root/tmp/debs"
	cp "$pkgdir"/*.deb "$root/tmp/debs/"
	run with_proc chroot "$root" dpkg -i "/tmp/debs/modrot_${version}_$arch.deb" \
		"/tmp/debs/libmodrot1_${version}_$arch.deb" "/tmp/debs/libmodrot-dev_${version}_$arch.deb"
	done_step

	step "$suite: modrot-prometheus: the rules and the dashboard"
	check_prometheus
	done_step

	expected=$pkgdir/diversions.txt
	expected_diversions "$pkgdir/modrot_${version}_$arch.deb" >"$expected"
	[ -s "$expected" ] || fail "the preinst diverts nothing"
	pkgfiles=$pkgdir/modrot-files
	rm -rf "$pkgfiles"
	dpkg-deb -x "$pkgdir/modrot_${version}_$arch.deb" "$pkgfiles"

	step "$suite: diversions"
	cat "$expected" >>"$log"
	# every name under which Debian 12's or 13's kmod ships a program
	for t in insmod rmmod lsmod modprobe modinfo; do
		for f in "/sbin/$t" "/usr/sbin/$t" /usr/share/man/man8/$t.8.gz; do
			grep -q "^$f " "$expected" || fail "$f is not diverted"
		done
	done
	for f in /bin/lsmod /usr/bin/lsmod /usr/share/bash-completion/completions/rmmod; do
		grep -q "^$f " "$expected" || fail "$f is not diverted"
	done
	grep -q "^/usr/sbin/rmmod /usr/sbin/rmmod.distrib\$" "$expected" || fail "/usr/sbin/rmmod's target"
	grep -q "^/sbin/rmmod /sbin/rmmod.usr-is-merged\$" "$expected" || fail "/sbin/rmmod's target"
	grep -q "^\(/usr\)\{0,1\}/sbin/depmod " "$expected" && fail "kmod's depmod is diverted"
	check_diverted
	file=$(readlink -f "$root$S/rmmod")
	readelf -d "$file" | grep -q 'NEEDED.*\[libmodrot\.so\.1\]' || fail "rmmod does not use libmodrot.so.1"
	zcat "$root/usr/share/man/man8/rmmod.8.gz" | grep -q 'rot' || fail "rmmod.8 is not modrot's"
	done_step

	step "$suite: reinstall kmod while diverted"
	kmod_deb=
	for d in "$root"/var/cache/apt/archives/kmod_*.deb; do [ -f "$d" ] && kmod_deb=${d#"$root"}; done
	[ -n "$kmod_deb" ] || fail "kmod's .deb is not in the root's cache"
	run chroot "$root" dpkg -i "$kmod_deb"
	check_diverted
	done_step

	step "$suite: the installed tools under the simulated kernel"
	sim_root
	expect_ok "$S/insmod" /opt/simkernel/fixtures/alpha.ko
	expect_ok insmod /opt/simkernel/fixtures/beta.ko
	expect_ok "$S/insmod" /opt/simkernel/fixtures/delta.ko
	state | grep -q '^live alpha ' || fail "alpha not live after insmod"
	state | grep -q '^live beta .* holders=- ' || fail "beta not live after insmod"
	expect_ok "$B/lsmod"
	ours=$out
	expect_ok "$B/kmod" list
	[ "$ours" = "$out" ] || fail "lsmod differs from kmod's"
	expect_ok "$S/lsmod"
	[ "$ours" = "$out" ] || fail "$S/lsmod is not modrot's lsmod"
	echo "$ours" | grep -Eq '^alpha +[0-9]+  0 beta$' || fail "lsmod does not show beta holding alpha"
	in_root "$S/rmmod" alpha >>"$log" 2>&1 && fail "rmmod alpha (held by beta) succeeded"
	state | grep -q '^live alpha ' || fail "alpha gone after a refused rmmod"
	expect_ok rmmod --remove-holders alpha
	state | grep -q '^rotting alpha ' || fail "alpha is not rotting after rmmod"
	state | grep -q '^rotting beta ' || fail "beta is not rotting after rmmod --remove-holders"
	expect_ok lsmod --rotting
	echo "$out" | grep -q '^(alpha) ' || fail "lsmod --rotting does not list alpha"
	expect_ok modreap --all
	state | grep -q '^rotting' && fail "rot left after modreap --all"
	state | grep -q '^taint 0$' && fail "no taint after reclaim"
	expect_ok rmmod -J delta
	echo "$out" | grep -q '"delta"' || fail "rmmod -J does not name delta"
	state | grep -q '^rotting delta ' || fail "delta is not rotting after rmmod -J"
	# A program that knows libmodrot only through the header and .pc
	# that libmodrot-dev installed in the root, linked against the root's
	# library (built inside the root where it has a compiler).
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	if [ -x "$root/usr/bin/cc" ]; then
		cp "$top/tests/install/libmodrot-user.c" "$simdir/"
		# shellcheck disable=SC2016 # expanded in the root
		run chroot "$root" sh -c 'cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags libmodrot) \
			-o /opt/simkernel/libmodrot-user /opt/simkernel/libmodrot-user.c $(pkg-config --libs libmodrot)'
	else
		pc() {
			PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/$multiarch/pkgconfig \
				pkg-config "$@" libmodrot
		}
		cflags=$(pc --cflags) || fail "pkg-config does not find the root's libmodrot.pc"
		libs=$(pc --libs) || fail "pkg-config does not find the root's libmodrot.pc"
		echo "cflags: $cflags; libs: $libs" >>"$log"
		case $libs in *"$root/usr/lib/$multiarch"*) ;; *) fail "libmodrot.pc names no library path in the root" ;; esac
		# shellcheck disable=SC2086
		run cc -std=c11 -Wall -Wextra -Werror $cflags -o "$simdir/libmodrot-user" \
			"$top/tests/install/libmodrot-user.c" $libs -Wl,-rpath-link,"$root/usr/lib/$multiarch"
	fi
	expect_ok "$S/insmod" /opt/simkernel/fixtures/delta.ko
	expect_ok /opt/simkernel/libmodrot-user delta
	echo "$out" | grep -qx 'unload delta: done' || fail "the libmodrot program did not unload delta"
	[ "$(state | grep -c '^rotting delta ')" -eq 2 ] || fail "delta did not rot again"
	say "   a program built from the installed modrot.h and libmodrot.pc ran"
	for t in insmod rmmod lsmod modreap modprobe modinfo; do
		expect_ok "$t" --version
		echo "$out" | grep -q "(modrot)" || fail "$t --version is not modrot's"
	done
	say "   insmod, lsmod (= kmod's output), rmmod, modreap, modprobe, modinfo ran in the root"
	# modprobe links libkmod (and libcrypto first when libkmod links it):
	# every run, a load or not, takes the system's libcrypto, and nothing
	# of modrot's own.
	tree=$simdir/tree/lib/modules/6.1.0-sim
	mkdir -p "$tree/kernel"
	cp "$fixtures/alpha.ko" "$fixtures/beta.ko" "$tree/kernel/"
	run /sbin/depmod -b "$simdir/tree" 6.1.0-sim
	expect_ok env LD_DEBUG=files "$S/modprobe" -d /opt/simkernel/tree -S 6.1.0-sim -D beta
	echo "$out" | grep -q "file=libcrypto.so.3 \[0\];  needed by .*/\(modprobe\|libkmod.so.2\) \[0\]" ||
		fail "modprobe -D did not take libcrypto as its own or libkmod's dependency"
	echo "$out" | grep -q "/modrot/[^ ]*\.so" && fail "modprobe -D loaded a library from modrot/"
	echo "$out" | grep -qx "insmod /opt/simkernel/tree/lib/modules/6.1.0-sim/kernel/beta.ko " ||
		fail "modprobe -D beta did not show beta"
	expect_ok env LD_DEBUG=files "$S/modprobe" -d /opt/simkernel/tree -S 6.1.0-sim alpha
	echo "$out" | grep -q "file=libcrypto.so.3 \[0\];  generating link map" ||
		fail "a modprobe load did not take libcrypto"
	state | grep -q '^live alpha ' || fail "alpha not live after modprobe"
	expect_ok "$S/rmmod" --reclaim alpha
	state | grep -q ' alpha ' && fail "alpha left after rmmod --reclaim"
	say "   modprobe -D and a load took the system's libcrypto"
	done_step

	step "$suite: the metrics service's user, its directory and its link"
	check_metrics_user "$2"
	done_step

	step "$suite: kmod's programs under their .kmod names"
	for t in insmod rmmod modprobe modinfo; do
		expect_ok "$S/$t.kmod" --version
		echo "$out" | grep -q '^kmod version ' || fail "$S/$t.kmod --version is not kmod's: $out"
		expect_ok "$t.kmod" --help
		# kmod's usage: "Usage:", then the name it was called by
		echo "$out" | sed -n 2p | grep -q "^[[:space:]]*$t \[options\]" ||
			fail "$t.kmod --help is not kmod's $t: $out"
	done
	expect_ok "$S/insmod.kmod" /opt/simkernel/fixtures/alpha.ko
	state | grep -q '^live alpha ' || fail "alpha not live after insmod.kmod"
	# kmod's modprobe looks in /lib/modules/RELEASE, which the root has not
	in_root "$S/modprobe.kmod" nosuch >"$work/modprobe.out" 2>&1 && fail "modprobe.kmod nosuch succeeded"
	grep -q '^modprobe: FATAL: Module nosuch not found in directory /lib/modules/' "$work/modprobe.out" ||
		fail "modprobe.kmod nosuch is not kmod's: $(cat "$work/modprobe.out")"
	expect_ok "$S/modinfo.kmod" -F name /opt/simkernel/fixtures/beta.ko
	[ "$out" = beta ] || fail "modinfo.kmod -F name beta.ko said: $out"
	expect_ok "$B/kmod" list
	kmods=$out
	for l in "$B/lsmod.kmod" "$S/lsmod.kmod"; do
		expect_ok "$l"
		[ "$out" = "$kmods" ] || fail "$l is not kmod's lsmod"
	done
	echo "$kmods" | grep -q '^alpha ' || fail "kmod's lsmod does not list alpha"
	expect_ok "$S/rmmod.kmod" alpha
	state | grep -q '^live alpha ' && fail "alpha still live after rmmod.kmod"
	say "   insmod.kmod, rmmod.kmod, lsmod.kmod ($B and $S), modprobe.kmod, modinfo.kmod are kmod's"
	done_step

	step "$suite: remove modrot: kmod's files come back"
	run chroot "$root" dpkg -r modrot
	! chroot "$root" dpkg-divert --list | grep ' by modrot$' || fail "diversions left after remove"
	manifest >"$pkgdir/kmod-after-remove.txt"
	diff -u "$pkgdir/kmod-before.txt" "$pkgdir/kmod-after-remove.txt" >>"$log" ||
		fail "kmod's files differ after remove"
	# delta rots: modrot's lsmod would list it, kmod's does not
	expect_ok lsmod
	echo "$out" | grep -q 'rotting' && fail "lsmod after remove is not kmod's"
	kmods=$out
	expect_ok "$B/kmod" list
	[ "$kmods" = "$out" ] || fail "lsmod after remove is not kmod's"
	say "   $(wc -l <"$pkgdir/kmod-before.txt") paths identical to before"
	done_step

	step "$suite: install again, then purge"
	run with_proc chroot "$root" dpkg -i "/tmp/debs/modrot_${version}_$arch.deb"
	check_diverted
	# what the metrics service left survives a remove, not a purge; the
	# textfile directory is node_exporter's and stays
	[ -L "$root/var/lib/prometheus/node-exporter/modrot.prom" ] || fail "the metrics link did not survive a remove"
	[ -f "$root/var/lib/modrot-metrics/modrot.prom" ] || fail "the metrics file did not survive a remove"
	run chroot "$root" dpkg --purge modrot libmodrot-dev libmodrot1 modrot-prometheus
	[ ! -e "$root/usr/share/modrot" ] || fail "/usr/share/modrot left after purge: $(ls -A "$root/usr/share/modrot")"
	[ ! -e "$root/var/lib/modrot-metrics" ] || fail "/var/lib/modrot-metrics left after purge"
	[ ! -L "$root/var/lib/prometheus/node-exporter/modrot.prom" ] || fail "the metrics link left after purge"
	[ -d "$root/var/lib/prometheus/node-exporter" ] || fail "the purge removed node_exporter's directory"
	! chroot "$root" dpkg-divert --list | grep ' by modrot$' || fail "diversions left after purge"
	manifest >"$pkgdir/kmod-after-purge.txt"
	diff -u "$pkgdir/kmod-before.txt" "$pkgdir/kmod-after-purge.txt" >>"$log" ||
		fail "kmod's files differ after purge"
	leftover=$(cd "$root" && find -L sbin/ bin/ usr/sbin usr/bin usr/share/man/man8 \
		usr/share/bash-completion -name '*.kmod*' -o -name '*.distrib' -o -name 'modreap*' \
		-o -name 'libmodrot*' 2>/dev/null | head -n5)
	[ -z "$leftover" ] || fail "left after purge: $leftover"
	say "   $(wc -l <"$pkgdir/kmod-before.txt") paths identical to before; nothing of modrot left"
	done_step
}

# which_tools EXPECT: says whose program each name of insmod, rmmod,
# lsmod, modprobe and modinfo runs in the root (/sbin, /usr/sbin, and
# /bin, /usr/bin for lsmod), from its --version; fails unless every one is
# EXPECT's (modrot or kmod).
which_tools() {
	mine='' theirs=''
	for p in /sbin/insmod /sbin/rmmod /sbin/lsmod /sbin/modprobe /sbin/modinfo /bin/lsmod \
		/usr/sbin/insmod /usr/sbin/rmmod /usr/sbin/lsmod /usr/sbin/modprobe /usr/sbin/modinfo /usr/bin/lsmod; do
		v=$(in_root "$p" --version 2>&1 | head -n1)
		case $v in
		*"(modrot)"*) mine="$mine $p" ;;
		"kmod version "*) theirs="$theirs $p" ;;
		*) fail "$p --version: $v" ;;
		esac
	done
	say "   modrot's:${mine:- none}"
	say "   kmod's:${theirs:- none}"
	case $1 in
	modrot) [ -z "$theirs" ] || fail "kmod's programs in charge:$theirs" ;;
	kmod) [ -z "$mine" ] || fail "modrot's programs left:$mine" ;;
	esac
}

# kmod_intact: dpkg -V kmod finds nothing wrong (through the diversions,
# when modrot is installed), and kmod's programs work: its lsmod lists
# what modrot's lsmod lists, its modinfo reads a module.
kmod_intact() {
	vout=$(chroot "$root" dpkg -V kmod 2>&1) || fail "dpkg -V kmod exited $?: $vout"
	[ -z "$vout" ] || fail "dpkg -V kmod: $vout"
	kv=$(pkg_version kmod)
	expect_ok /usr/bin/kmod list
	echo "$out" | grep -q '^alpha ' || fail "kmod list does not list alpha"
	kmods=$out
	if chroot "$root" dpkg-divert --list | grep -q ' by modrot$'; then
		for t in insmod rmmod modprobe modinfo; do
			expect_ok "/usr/sbin/$t.kmod" --version
			echo "$out" | grep -q "^kmod version ${kv%%[+.-]*}" || fail "/usr/sbin/$t.kmod --version: $out (kmod $kv)"
		done
		# kmod 30's lsmod takes no option, not even --version: it is
		# kmod's when it lists what kmod list lists
		for l in /usr/sbin/lsmod.kmod /usr/bin/lsmod.kmod; do
			expect_ok "$l"
			[ "$out" = "$kmods" ] || fail "$l is not kmod's lsmod: $out"
		done
		expect_ok /usr/sbin/modinfo.kmod -F name /opt/simkernel/fixtures/beta.ko
	else
		expect_ok /usr/sbin/modinfo -F name /opt/simkernel/fixtures/beta.ko
	fi
	[ "$out" = beta ] || fail "kmod's modinfo -F name beta.ko said: $out"
	say "   dpkg -V kmod ($kv): clean; kmod's programs work"
}

# No file is left under a diversion's target that no diversion names.
no_stray_targets() {
	stray=$(cd "$root/usr" && find sbin bin -name '*.distrib' -o -name '*.usr-is-merged' | sort | while read -r f; do
		chroot "$root" dpkg-divert --list | grep -q " to /usr/$f by \| to /${f} by " || echo "/usr/$f"
	done)
	[ -z "$stray" ] || fail "files at no diversion's target: $stray"
}

# pkg_version PACKAGE: its version installed in the root
pkg_version() { chroot "$root" dpkg-query -W -f "\${Version}" "$1"; }

# apt_root ARGS...: apt-get in the root, from the mirror, with the .deb
# files of earlier runs
apt_root() {
	run with_proc chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
}

# test_upgrade: step 8, the Debian 12 build installed through kmod's and
# the root's upgrade to Debian 13, then the Debian 13 build, removed and
# purged.
test_upgrade() {
	pkgdir=$work/upgrade
	root=$pkgdir/root
	mkdir -p "$pkgdir"
	step "upgrade: a Debian 12 root with the Debian 12 build"
	make_root bookworm "$root" "$bookworm_include"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	mkdir -p "$root/tmp/debs" "$cache/archives"
	cp "$work"/bookworm/*.deb "$work"/trixie/*.deb "$root/tmp/debs/"
	cp "$cache"/archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
	sim_root
	v12=$(suite_version bookworm) v13=$(suite_version trixie)
	run with_proc chroot "$root" dpkg -i "/tmp/debs/modrot_${v12}_$arch.deb" "/tmp/debs/libmodrot1_${v12}_$arch.deb"
	expect_ok /sbin/insmod /opt/simkernel/fixtures/alpha.ko
	which_tools modrot
	kmod_intact
	done_step

	step "upgrade: kmod and libkmod2 from Debian 13, modrot's Debian 12 build installed"
	echo "deb $mirror trixie main" >"$root/etc/apt/sources.list.d/trixie.list"
	apt_root update
	apt_root install -t trixie kmod libkmod2
	chroot "$root" dpkg-query -W kmod | tee -a "$log" | grep -q '	34' || fail "kmod is not Debian 13's"
	chroot "$root" dpkg-divert --list | grep ' by modrot$' | sort >>"$log"
	ls -l "$root"/usr/sbin/*.distrib "$root"/usr/sbin/*.usr-is-merged >>"$log" 2>&1 || true
	which_tools modrot
	kmod_intact
	no_stray_targets
	done_step

	step "upgrade: apt-get dist-upgrade to Debian 13"
	rm "$root/etc/apt/sources.list.d/trixie.list"
	sed -i 's/bookworm/trixie/g' "$root/etc/apt/sources.list"
	cat "$root/etc/apt/sources.list" >>"$log"
	apt_root update
	apt_root dist-upgrade
	grep -q '^VERSION_ID="13"' "$root/etc/os-release" || fail "the root is not Debian 13"
	[ "$(pkg_version modrot)" = "$v12" ] || fail "modrot is not the Debian 12 build"
	which_tools modrot
	kmod_intact
	no_stray_targets
	# the next run downloads nothing it has downloaded before
	rm -f "$cache"/archives/*.deb
	cp "$root"/var/cache/apt/archives/*.deb "$cache/archives/"
	done_step

	step "upgrade: modrot's Debian 13 build over its Debian 12 build"
	# with apt, as an administrator installs .deb files: the Debian 13
	# build's libraries (libelf1t64, ...) are not the ones the release
	# upgrade kept for the Debian 12 build, and apt fetches them
	apt_root install "/tmp/debs/modrot_${v13}_$arch.deb" "/tmp/debs/libmodrot1_${v13}_$arch.deb"
	[ "$(pkg_version modrot)" = "$v13" ] || fail "modrot is not the Debian 13 build"
	# the units moved from /lib to /usr/lib, one directory on a merged-/usr
	# root: removing the old build's paths must not take the new files
	vout=$(chroot "$root" dpkg -V modrot libmodrot1 2>&1) || fail "dpkg -V modrot libmodrot1 exited $?: $vout"
	[ -z "$vout" ] || fail "dpkg -V modrot libmodrot1 after the upgrade: $vout"
	[ -f "$root/usr/lib/systemd/system/modrot-metrics.service" ] || fail "the upgrade lost modrot-metrics.service"
	expected=$pkgdir/diversions.txt
	expected_diversions "$work/trixie/modrot_${v13}_$arch.deb" | sort >"$expected"
	chroot "$root" dpkg-divert --list | sed -n 's/^diversion of \(.*\) to \(.*\) by modrot$/\1 \2/p' | sort >"$pkgdir/diversions-now.txt"
	diff -u "$expected" "$pkgdir/diversions-now.txt" >>"$log" || fail "the diversions are not the Debian 13 build's"
	which_tools modrot
	kmod_intact
	no_stray_targets
	expect_ok /usr/sbin/rmmod alpha
	state | grep -q '^rotting alpha ' || fail "alpha is not rotting after rmmod"
	expect_ok /usr/sbin/insmod /opt/simkernel/fixtures/alpha.ko
	done_step

	step "upgrade: kmod reinstalled under modrot's Debian 13 build"
	apt_root install --reinstall kmod
	vout=$(chroot "$root" dpkg -V modrot 2>&1) || fail "dpkg -V modrot exited $?: $vout"
	[ -z "$vout" ] || fail "dpkg -V modrot after kmod's reinstall: $vout"
	which_tools modrot
	kmod_intact
	done_step

	step "upgrade: remove modrot"
	run chroot "$root" dpkg -r modrot
	! chroot "$root" dpkg-divert --list | grep ' by modrot$' || fail "diversions left after remove"
	which_tools kmod
	kmod_intact
	no_stray_targets
	expect_ok lsmod
	echo "$out" | grep -q '^alpha ' || fail "kmod's lsmod does not list alpha"
	done_step

	step "upgrade: purge"
	run chroot "$root" dpkg --purge modrot libmodrot1
	which_tools kmod
	kmod_intact
	leftover=$(cd "$root" && find usr/sbin usr/bin usr/share/man/man8 usr/share/bash-completion \
		-name '*.kmod*' -o -name '*.distrib' -o -name '*.usr-is-merged' -o -name 'modreap*' 2>/dev/null | head -n5)
	[ -z "$leftover" ] || fail "left after purge: $leftover"
	done_step
	rm -rf "$root"
}

# The packages' own dependencies come in with the root, so that dpkg -i
# needs no network later; bash-completion ships completions modrot
# diverts too; acl, with which the postinst takes away the ACL entry of
# the earlier metrics layout (the Debian 13 root has none: there the
# postinst leaves it). (The downloaded .debs stay in the root, to reinstall kmod
# while diverted.)
bookworm_include=kmod,bash-completion,acl,$(for d in "$work"/bookworm/*.deb; do dpkg-deb -f "$d" Depends; done |
	tr ',' '\n' | sed -e 's/([^)]*)//g' -e 's/|.*//' -e 's/ //g' | grep -v '^$' |
	grep -vx 'modrot\|libmodrot1\|libmodrot-dev' | sort -u | paste -sd, -)

# Debian 13 builds its own packages, in a Debian 13 root: kmod's paths,
# the library's dependencies, the compiler and lintian are its own. What
# they depend on beyond the build dependencies comes in with the root:
# systemd stands for what dh_installsysusers adds to modrot's Depends
# (systemd | systemd-standalone-sysusers | systemd-sysusers), as the first
# alternative does in the Debian 12 root.
case " $suites " in
*" trixie "* | *" upgrade "*)
	pkgdir=$work/trixie
	root=$pkgdir/root
	mkdir -p "$pkgdir"
	step "trixie: a Debian 13 root with kmod, the build dependencies and lintian"
	make_root trixie "$root" "kmod,bash-completion,systemd,build-essential,fakeroot,lintian,$builddeps"
	done_step
	step "trixie: dpkg-buildpackage -us -uc in the Debian 13 root"
	copy_source "$root/build/modrot-$upstream" trixie
	run nice -n 10 chroot "$root" sh -c "cd /build/modrot-$upstream && dpkg-buildpackage -us -uc"
	collect_debs "$root/build" trixie
	check_dlopen_depends "$pkgdir/libmodrot1_${version}_$arch.deb" "$root"
	dpkg-deb -f "$pkgdir/modrot_${version}_$arch.deb" Depends | grep -q 'kmod (>= 34)' ||
		fail "the Debian 13 build does not depend on kmod (>= 34)"
	done_step
	step "trixie: lintian --pedantic (Debian 13's, source and binary packages)"
	lintian_check "/build/modrot_${version}_$arch.changes" "$root"
	done_step
	;;
esac
dpkg-deb -f "$work/bookworm/modrot_$(suite_version bookworm)_$arch.deb" Depends | grep -q 'kmod (>= 30)' ||
	fail "the Debian 12 build does not depend on kmod (>= 30)"

for suite in $suites; do
	case $suite in
	bookworm)
		pkgdir=$work/bookworm
		root=$pkgdir/root
		step "bookworm: a Debian 12 root with kmod"
		make_root bookworm "$root" "$bookworm_include"
		done_step
		test_root bookworm ""
		rm -rf "$root"
		;;
	trixie)
		pkgdir=$work/trixie
		root=$pkgdir/root
		test_root trixie /usr
		rm -rf "$root"
		;;
	upgrade)
		test_upgrade
		;;
	*) fail "unknown suite $suite (bookworm, trixie, upgrade)" ;;
	esac
done

say "package test passed in $(($(date +%s) - start)) s"
