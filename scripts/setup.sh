#!/bin/sh
# Brings a fresh Debian 12 machine to a built tree: installs the Debian
# packages that are missing, bootstraps autotools, configures and builds.
#
#   scripts/setup.sh [BUILDDIR [CONFIGURE-ARGS...]]
#
# BUILDDIR defaults to build/. Prints the build directory's path last.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-build}
[ $# -gt 0 ] && shift
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac

# Everything the build, the tests, the demo and the benchmarks use.
packages="autoconf automake make gcc pkg-config libc6-dev
	libkmod-dev libsmartcols-dev libssl-dev libzstd-dev liblzma-dev libelf-dev
	scdoc bats bats-assert bats-support bats-file
	kmod busybox xz-utils zstd openssl
	bash-completion zsh fish man-db groff-base
	strace valgrind hyperfine gnuplot-nox jq ltrace bc"

# shellcheck disable=SC2086
"$top/scripts/need-packages.sh" $packages

if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
	"$top/autogen.sh" >&2
fi

mkdir -p "$builddir"
cd "$builddir"
# Reconfigure only when configure changed, or when arguments are given that
# differ from the build's (no arguments: any existing build will do).
wanted=$(printf "'%s' " "$@")
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] ||
	{ [ $# -gt 0 ] && [ "$(./config.status --config 2>/dev/null) " != "$wanted" ]; }; then
	"$top/configure" "$@" >&2
fi
make -j"$(nproc)" >&2
echo "$builddir"
