#!/bin/sh
# make distcheck from a clean copy of the checkout: makes the tarball (which
# must carry every tracked file, see dist-hook in Makefile.am), unpacks it,
# builds it out of tree with -Werror, runs the whole test suite from it,
# installs into and uninstalls from a scratch prefix, and checks that
# make distclean leaves nothing behind. Ends with one line, PASS or FAIL,
# and how long it took.
#
#   scripts/distcheck.sh [BUILDDIR]     # default: build-dist/
#
# DISTCHECK_TESTS="tests/install.bats ..." runs only those tests from the
# tarball (the other phases are unchanged): a quick check of the packaging.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-build-dist}
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac

"$top/scripts/need-packages.sh" autoconf automake make gcc pkg-config git perl >&2
start=$(date +%s)
status=0
(
	set -e
	cd "$top"
	# Always: a Makefile.in older than a fragment it includes would make a
	# tarball of the old lists.
	./autogen.sh
	rm -rf "$builddir"
	mkdir -p "$builddir"
	cd "$builddir"
	"$top/configure" --enable-werror
	if [ -n "${DISTCHECK_TESTS:-}" ]; then
		make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
			TESTS="$DISTCHECK_TESTS"
	else
		make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror
	fi
) > "$builddir.log" 2>&1 || status=1
end=$(date +%s)
if [ "$status" -eq 0 ]; then
	tail -n 4 "$builddir.log"
	echo "distcheck: PASS in $((end - start)) s"
else
	tail -n 40 "$builddir.log"
	echo "distcheck: FAIL in $((end - start)) s (log: $builddir.log)"
fi
exit "$status"
