#!/bin/sh
# need-packages.sh [--list] PACKAGE...
# Installs the Debian packages among PACKAGE... that are not installed yet
# (apt-get update first, sudo when not root). Quiet when nothing is missing.
# With --list, prints them instead, one a line, and installs nothing.
# apt-get waits up to five minutes for the dpkg lock, so that another apt
# running at the same moment (unattended-upgrades, a second setup) delays
# the install rather than failing it.
set -eu
list=false
if [ "${1:-}" = --list ]; then
	list=true
	shift
fi
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
if $list; then
	# shellcheck disable=SC2086
	printf '%s\n' $missing
	exit 0
fi
echo "installing:$missing" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
lock="-o DPkg::Lock::Timeout=300"
# shellcheck disable=SC2086
$sudo apt-get $lock update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get $lock install -y -qq --no-install-recommends $missing >&2
