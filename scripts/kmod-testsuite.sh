#!/bin/sh
# kmod-testsuite.sh [WORKDIR]: kmod's own modprobe and modinfo tests, run
# with modrot's modprobe and modinfo in place of kmod's.
#
# Takes kmod's source as Debian packages it (apt-get source kmod, for
# bookworm: a deb-src entry is added to /etc/apt/sources.list.d when none
# is there), builds its testsuite (its LD_PRELOAD libraries fake the root
# file system, uname, init_module and delete_module; the modules are the
# testsuite's cached ones), then points the two tools the tests execute,
# ABS_TOP_BUILDDIR/tools/modprobe and tools/modinfo, at modrot's build
# (MODROT_BUILDDIR, default build/; scripts/setup.sh makes it). Everything
# runs under the simulated kernel's seccomp guard: no real module syscall.
#
# Prints one line per test (PASS; FAIL with the testsuite's reason and the
# tool's first message; SKIP when kmod's testsuite skips it on this build;
# KNOWN for what Debian's libkmod 30 lacks, with the reason) and last
# "N passed, N failed" (and skips). Exit 1 if any failed. A second run
# reuses WORKDIR's build (default build-kmod-testsuite/).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$top/build-kmod-testsuite}
modrot=${MODROT_BUILDDIR:-$top/build}
case $modrot in /*) ;; *) modrot=$top/$modrot ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Tests kmod 30's testsuite has that Debian's libkmod 30 cannot pass with
# any modprobe: none of its 26 modprobe and 11 modinfo tests needs weakdep
# (kmod 33), so the list is empty for this version; a test named here is
# reported KNOWN with its reason.
known_reason() {
	case $1 in
	*weakdep*) echo "weakdep needs libkmod 33; Debian 12 has libkmod 30" ;;
	*) return 1 ;;
	esac
}

for t in modprobe modinfo; do
	[ -x "$modrot/tools/$t" ] || { echo "kmod-testsuite: no $modrot/tools/$t (run scripts/setup.sh)" >&2; exit 2; }
done
guard=$modrot/tests/simkernel/simkernel-guard
[ -x "$guard" ] || (cd "$modrot" && make -s tests/simkernel/simkernel-guard >&2)

"$top/scripts/need-packages.sh" dpkg-dev autoconf automake libtool pkg-config make gcc \
	libzstd-dev liblzma-dev libssl-dev

# The source, as Debian packages it.
src=$(find "$work" -maxdepth 1 -type d -name 'kmod-*' | head -1)
if [ -z "$src" ]; then
	if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
		! grep -qs '^deb-src' /etc/apt/sources.list; then
		sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm' \
			'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
			$sudo tee /etc/apt/sources.list.d/modrot-deb-src.sources >/dev/null
		$sudo apt-get update -qq >&2
	fi
	(cd "$work" && apt-get source -qq kmod >&2)
	src=$(find "$work" -maxdepth 1 -type d -name 'kmod-*' | head -1)
fi
[ -n "$src" ] || { echo "kmod-testsuite: apt-get source kmod gave no source" >&2; exit 2; }

# kmod built as Debian configures it (zstd, xz, openssl), without its manual
# pages and with the testsuite's cached modules instead of a kernel build.
if [ ! -f "$src/.modrot-built" ]; then
	(
		cd "$src"
		[ -x configure ] || { mkdir -p libkmod/docs && touch libkmod/docs/gtk-doc.make &&
			autoreconf --force --install --symlink; } >&2
		[ -f Makefile ] || ./configure --disable-manpages --disable-test-modules --with-zstd \
			--with-xz --with-openssl --disable-gtk-doc >&2
		make -j2 >&2
		make -j2 check TESTS= >&2
		make rootfs >&2
	)
	touch "$src/.modrot-built"
fi

# The tools the tests execute, now modrot's. kmod's own are kept beside.
for t in modprobe modinfo; do
	if [ ! -e "$src/tools/$t.kmod" ]; then
		mv "$src/tools/$t" "$src/tools/$t.kmod"
	fi
	ln -sf "$modrot/tools/$t" "$src/tools/$t"
done

passed=0 failed=0 skipped=0 known=
for t in modprobe modinfo; do
	log=$work/test-$t.log
	: >"$log"
	tests=$(cd "$src" && "./testsuite/test-$t" -l | sed -n 's/^\t\([^,]*\),.*/\1/p')
	for name in $tests; do
		# Some tests change the rootfs, and the testsuite refuses a dirty one.
		(cd "$src" && make -s rootfs >/dev/null 2>&1)
		rc=0
		(cd "$src" && timeout 120 "$guard" "./testsuite/test-$t" "$name") >"$log.one" 2>&1 || rc=$?
		cat "$log.one" >>"$log"
		if [ "$rc" -eq 0 ] && grep -q 'SKIPPED: ' "$log.one"; then
			echo "SKIP $t $name (the testsuite skips it on this build)"
			skipped=$((skipped + 1))
		elif [ "$rc" -eq 0 ]; then
			echo "PASS $t $name"
			passed=$((passed + 1))
		elif why=$(known_reason "$name"); then
			echo "KNOWN $t $name: $why"
			known="$known $name"
		else
			# The testsuite's own reason, then the tool's first line.
			reason=$(sed 's/\x1b\[[0-9;]*m//g' "$log.one" | grep -m1 'TESTSUITE: ERR:' | sed 's/^TESTSUITE: ERR: //')
			tool=$(grep -m1 -E "^$t: (ERROR|WARNING)" "$log.one" || :)
			echo "FAIL $t $name: ${reason:-exit $rc}${tool:+ ($tool)}"
			failed=$((failed + 1))
		fi
	done
	rm -f "$log.one"
done
if [ -n "$known" ]; then echo "known, not counted:$known"; fi
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
