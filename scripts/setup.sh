#!/bin/sh
# Brings a fresh Debian 12 machine to a built tree: installs the Debian
# packages the build needs that are missing, bootstraps autotools,
# configures and builds.
#
#   scripts/setup.sh [BUILDDIR [CONFIGURE-ARGS...]]
#
# BUILDDIR defaults to build/, or to the source tree itself when
# ./configure was run there (a tree configured in place cannot also be
# built in a subdirectory). Prints the build directory's path last.
#
# With SETUP_LOG=FILE, each stage (packages, configure, build) is one line
# on standard error and its output goes to FILE; without, the output goes
# to standard error. What only the tests, the benchmarks or the plots use
# is installed by the scripts that use them (scripts/check.sh, bench/).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then
	builddir=$1
	shift
elif [ -f "$top/config.status" ]; then
	builddir=$top
else
	builddir=build
fi
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac
if [ -f "$top/config.status" ] && [ "$(cd "$builddir" 2>/dev/null && pwd)" != "$top" ]; then
	echo "setup.sh: the source tree is configured in place (config.status): build there" \
		"(scripts/setup.sh with no arguments), or run 'make distclean' in it to build in $builddir" >&2
	exit 2
fi

# What configure checks for and make builds with (the fixtures are
# compressed with xz and zstd at build time).
packages="autoconf automake make gcc pkg-config libc6-dev
	libkmod-dev libsmartcols-dev libssl-dev libzstd-dev liblzma-dev libelf-dev
	scdoc bats xz-utils zstd"

log=${SETUP_LOG:-}
if [ -n "$log" ]; then
	mkdir -p "$(dirname "$log")"
	: >"$log"
fi
# stage WHAT CMD...: runs CMD; with SETUP_LOG, one line for the stage and
# its output in the log (and the log's end when it fails).
stage() {
	what=$1
	shift
	if [ -z "$log" ]; then
		"$@" >&2
		return
	fi
	printf 'set-up: %s ... ' "$what" >&2
	if "$@" >>"$log" 2>&1; then
		echo "done" >&2
	else
		rc=$?
		echo "failed (exit $rc); the last lines of $log:" >&2
		tail -n 20 "$log" >&2
		exit "$rc"
	fi
}

# shellcheck disable=SC2086
missing=$("$top/scripts/need-packages.sh" --list $packages)
if [ -n "$missing" ]; then
	# shellcheck disable=SC2086
	stage "installing the Debian packages$(echo " $missing" | tr -s ' \n' ' ')" \
		"$top/scripts/need-packages.sh" $missing
fi

if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
	stage "bootstrapping (autogen.sh)" "$top/autogen.sh"
fi

mkdir -p "$builddir"
cd "$builddir"
# Reconfigure only when configure changed, or when arguments are given that
# differ from the build's (no arguments: any existing build will do).
wanted=$(printf "'%s' " "$@")
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] ||
	{ [ $# -gt 0 ] && [ "$(./config.status --config 2>/dev/null) " != "$wanted" ]; }; then
	stage "configuring $builddir" "$top/configure" "$@"
fi
stage "building (make -j$(nproc))" make -j"$(nproc)"
echo "$builddir"
