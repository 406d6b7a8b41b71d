#!/usr/bin/env bash
# as-installed.sh LIBDIR COMMAND [ARG...]: runs COMMAND as if the
# libraries in LIBDIR (a make install's lib/) were installed where the
# system looks: in a mount namespace of its own whose /etc/ld.so.cache is
# a copy that also lists LIBDIR (ldconfig -C). A program then finds
# libmodrot.so.1 through the cache, as Debian's package installs it, and
# not through LD_LIBRARY_PATH, whose directory the loader searches for
# every hardware-capability subdirectory first (36 failed calls a
# process on glibc 2.36, which no installed system makes).
# Needs root (unshare -m); otherwise says so and sets LD_LIBRARY_PATH.
set -eu
libdir=${1:?usage: as-installed.sh LIBDIR COMMAND [ARG...]}
shift
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "as-installed.sh: not root: LD_LIBRARY_PATH=$libdir instead of the loader's cache" >&2
	LD_LIBRARY_PATH=$libdir exec "$@"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$libdir" >"$work/ld.so.conf"
ldconfig -C "$work/ld.so.cache" -f "$work/ld.so.conf"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m sh -c 'mount --bind "$1" /etc/ld.so.cache && shift && exec "$@"' sh "$work/ld.so.cache" "$@"
