#!/bin/sh
# Puts what tests/kmod34-oracle.bats compares against into the cache that
# scripts/package-test.sh keeps its Debian roots in, without making a
# Debian 13 root: Debian 13's kmod 34 with the libraries it runs on, as a
# small tar of just those files (debian13-kmod-VERSION.tar), and Debian
# 13's kernel package (the newest linux-image-6.12.*+deb13-amd64-unsigned,
# about 110 MB), whose module tree the test compares on. Nothing is
# installed, and this machine's apt lists are not touched (Debian 13's are
# read into a directory of their own). Each is downloaded once.
#
#   scripts/debian13-oracle.sh          (PACKAGE_TEST_CACHE as package-test.sh)
set -eu
cache=${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list 2>/dev/null | head -n1)}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/sources.list"
set -- -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
	-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root
apt-get "$@" -o DPkg::Lock::Timeout=60 update >/dev/null

# kmod and what it loads: libkmod, glibc's loader and libc, libcrypto (linked)
# and the decompressors kmod 34 opens by name on first use.
kmod_pkgs="kmod libkmod2 libc6 libssl3t64 liblzma5 libzstd1 zlib1g"
version=$(apt-cache "$@" show kmod | sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$version" ] || { echo "debian13-oracle.sh: no kmod in Debian 13 at $mirror" >&2; exit 1; }
kmod_tar=$cache/debian13-kmod-$version.tar
if [ -f "$kmod_tar" ]; then
	echo "$kmod_tar (cached)"
else
	# shellcheck disable=SC2086 # a list of package names
	(cd "$work/debs" && apt-get "$@" download $kmod_pkgs >/dev/null)
	mkdir "$work/root"
	for deb in "$work"/debs/*.deb; do
		dpkg-deb -x "$deb" "$work/root"
	done
	# Written whole, then renamed: a tar half written is never taken.
	tar -C "$work/root" -cf "$kmod_tar.part" .
	rm -f "$cache"/debian13-kmod-*.tar
	mv "$kmod_tar.part" "$kmod_tar"
	echo "$kmod_tar"
fi

pkg=$(apt-cache "$@" search --names-only '^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$' |
	awk '{ print $1 }' | sort -V | tail -n 1)
[ -n "$pkg" ] || { echo "debian13-oracle.sh: no linux-image-6.12 in Debian 13 at $mirror" >&2; exit 1; }
if ls "$cache/${pkg}"_*.deb >/dev/null 2>&1; then
	echo "$(ls "$cache/${pkg}"_*.deb) (cached)"
	exit 0
fi
(cd "$work" && apt-get "$@" download "$pkg" >/dev/null)
# The older packages go: the test takes the newest.
rm -f "$cache"/linux-image-6.12.*-amd64-unsigned_*.deb
mv "$work/${pkg}"_*.deb "$cache/"
ls "$cache/${pkg}"_*.deb
