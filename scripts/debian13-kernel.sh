#!/bin/sh
# Puts Debian 13's kernel package (the newest linux-image-6.12.*+deb13-
# amd64-unsigned) into the cache that scripts/package-test.sh keeps its
# Debian roots in, for tests/kmod34-oracle.bats to compare modinfo and
# modprobe with Debian 13's kmod on Debian 13's own module tree. Downloads
# about 110 MB once; nothing is installed, and this machine's apt lists
# are not touched (Debian 13's are read into a directory of their own).
#
#   scripts/debian13-kernel.sh          (PACKAGE_TEST_CACHE as package-test.sh)
set -eu
cache=${PACKAGE_TEST_CACHE:-/var/cache/modrot-package-test}
mirror=${DEBIAN_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/*.sources \
	/etc/apt/sources.list 2>/dev/null | head -n1)}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/sources.list"
set -- -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
	-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root
apt-get "$@" -o DPkg::Lock::Timeout=60 update >/dev/null
pkg=$(apt-cache "$@" search --names-only '^linux-image-6\.12\.[0-9]+\+deb13-amd64-unsigned$' |
	awk '{ print $1 }' | sort -V | tail -n 1)
[ -n "$pkg" ] || { echo "debian13-kernel.sh: no linux-image-6.12 in Debian 13 at $mirror" >&2; exit 1; }
if ls "$cache/${pkg}"_*.deb >/dev/null 2>&1; then
	echo "$(ls "$cache/${pkg}"_*.deb) (cached)"
	exit 0
fi
(cd "$work" && apt-get "$@" download "$pkg" >/dev/null)
# The older packages go: the test takes the newest.
rm -f "$cache"/linux-image-6.12.*-amd64-unsigned_*.deb
mv "$work/${pkg}"_*.deb "$cache/"
ls "$cache/${pkg}"_*.deb
