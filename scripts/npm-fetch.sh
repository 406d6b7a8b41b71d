#!/bin/sh
# npm-fetch.sh: the packages an npm lockfile pins, fetched from the npm
# registry and unpacked as npm ci would lay them out, without npm: curl
# fetches each tarball, openssl checks it against the lockfile's
# integrity hash, tar unpacks it. Debian's nodejs then runs them. Every
# quirk of npm's lockfile and registry that the project meets is here.
#
#   scripts/npm-fetch.sh LOCKFILE           fetch (once: kept in the cache)
#   scripts/npm-fetch.sh --dir LOCKFILE     print the directory that holds
#                                           (or will hold) node_modules/
#   scripts/npm-fetch.sh --check LOCKFILE   exit 0 when fetched; else say
#                                           why on standard error, exit 1
#
# The cache is $MODROT_NPM_CACHE, else /var/cache/modrot-npm for root and
# ${XDG_CACHE_HOME:-~/.cache}/modrot-npm for anyone else; one directory
# per lockfile, named after its SHA-256, so a changed pin is a new fetch
# and an old one is never half replaced. A failed fetch leaves its reason
# in KEY.failed beside it, which --check repeats.
#
# Why not npm: Debian 12's npm package (9.2) brings about 380 packages
# with it, and conflicts with the NodeSource nodejs some machines carry;
# the lockfile is what npm would follow, and npm itself is only needed to
# change a pin (tests/grafana/README.md).
#
# The lockfile must be npm's version 2 or 3. Each entry under "packages"
# (but the root, "") is fetched from its "resolved" address, or, when npm
# was set to leave registry addresses out (omit-lockfile-registry-resolved),
# from the registry's usual one for its name and version; its "integrity"
# must be sha512. Install scripts are not run: a lockfile that names a
# package with one (hasInstallScript) is refused, as are links and
# bundled dependencies. Every download has a time limit (curl --max-time).
set -eu

mode=fetch
case ${1:-} in
--dir) mode=dir; shift ;;
--check) mode=check; shift ;;
esac
if [ $# -ne 1 ]; then
	echo "usage: npm-fetch.sh [--dir | --check] LOCKFILE" >&2
	exit 2
fi
lock=$1
[ -f "$lock" ] || { echo "npm-fetch.sh: no lockfile $lock" >&2; exit 2; }

registry=https://registry.npmjs.org
if [ -n "${MODROT_NPM_CACHE:-}" ]; then
	cache=$MODROT_NPM_CACHE
elif [ "$(id -u)" -eq 0 ]; then
	cache=/var/cache/modrot-npm
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/modrot-npm
fi
key=$(sha256sum "$lock" | cut -c1-16)
dest=$cache/$key
stamp=$dest/.fetched

case $mode in
dir)
	echo "$dest"
	exit 0
	;;
check)
	[ -f "$stamp" ] && exit 0
	if [ -f "$cache/$key.failed" ]; then
		echo "the npm packages $lock pins were not fetched into $dest: $(cat "$cache/$key.failed")" >&2
	else
		echo "the npm packages $lock pins were never fetched into $dest (scripts/check.sh fetches them: scripts/npm-fetch.sh $lock)" >&2
	fi
	exit 1
	;;
esac

[ -f "$stamp" ] && exit 0
for tool in jq curl openssl tar; do
	command -v "$tool" > /dev/null || {
		echo "npm-fetch.sh: needs $tool (scripts/need-packages.sh jq curl openssl tar)" >&2
		exit 2
	}
done
mkdir -p "$cache"
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

fail() {
	echo "$*" > "$cache/$key.failed"
	echo "npm-fetch.sh: $*" >&2
	exit 1
}

version=$(jq -r '.lockfileVersion' "$lock")
case $version in 2 | 3) ;; *) fail "$lock: lockfileVersion $version (only npm's 2 and 3 are read)" ;; esac
refused=$(jq -r '.packages | to_entries[] | select(.key != "")
	| select(.value.hasInstallScript or .value.link or .value.inBundle or (.value.bundleDependencies // empty))
	| .key' "$lock")
[ -z "$refused" ] || fail "$lock: install scripts, links or bundled packages, which this does not handle: $refused"

# path version resolved integrity, one package a line
jq -r '.packages | to_entries[] | select(.key != "")
	| [.key, .value.version, (.value.resolved // ""), (.value.integrity // "")] | @tsv' "$lock" > "$work/list"
[ -s "$work/list" ] || fail "$lock names no package"
n=0
while IFS="$(printf '\t')" read -r path ver url integrity; do
	name=${path##*node_modules/}
	case $integrity in
	sha512-*) ;;
	*) fail "$path: integrity '$integrity' is not sha512" ;;
	esac
	# the registry's address for a tarball: @scope/name/-/name-VERSION.tgz
	[ -n "$url" ] || url=$registry/$name/-/${name##*/}-$ver.tgz
	tgz=$work/pkg.tgz
	err=$(curl --fail --silent --show-error --location --proto '=https' \
		--connect-timeout 20 --max-time 120 --retry 2 -o "$tgz" "$url" 2>&1) ||
		fail "$url: $(echo "$err" | head -n 1)"
	got=sha512-$(openssl dgst -sha512 -binary "$tgz" | openssl base64 -A)
	[ "$got" = "$integrity" ] || fail "$url: integrity $got, but $lock says $integrity"
	# npm's tarballs hold one top directory, usually package/
	mkdir -p "$work/tree/$path"
	tar -xzf "$tgz" -C "$work/tree/$path" --strip-components=1 --no-same-owner --no-same-permissions ||
		fail "$url: tar could not unpack it"
	echo "$name@$ver" >> "$work/tree/.fetched.tmp"
	n=$((n + 1))
done < "$work/list"

mv "$work/tree/.fetched.tmp" "$work/tree/.fetched"
# whole or not at all; a second fetch of the same lockfile running at the
# same time may have put its copy there first
if [ ! -f "$stamp" ]; then
	rm -rf "$dest"
	mv -T "$work/tree" "$dest" 2> /dev/null || [ -f "$stamp" ] || fail "could not move the packages into $dest"
fi
rm -f "$cache/$key.failed"
echo "npm-fetch.sh: $n packages $lock pins, in $dest" >&2
