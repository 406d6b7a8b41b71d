#!/bin/sh
# make distcheck as a packager meets the release: makes the tarball from
# the checkout (which must carry every tracked file, see dist-hook in
# Makefile.am), unpacks it in a new directory outside any git work tree,
# configures it in a subdirectory of the unpacked tree and runs make
# distcheck there. That builds a second copy out of tree with -Werror,
# runs the whole test suite from it, installs into and uninstalls from a
# scratch prefix, and checks that make distclean leaves nothing behind.
# No test can lean on git: there is none above either copy. Ends with one
# line, PASS or FAIL, and how long it took.
#
#   scripts/distcheck.sh [BUILDDIR]     # default: build-dist/
#
# BUILDDIR holds the build that makes the tarball, and BUILDDIR.log the
# output of every step. The unpacked copy goes under $TMPDIR (default
# /tmp), which must not be inside a git work tree, and is removed at the
# end.
#
# DISTCHECK_TESTS="tests/install.bats ..." runs only those tests from the
# tarball (the other phases are unchanged): a quick check of the packaging.
#
# DISTCHECK_SANITIZE=yes builds the tarball's copy with ASan and UBSan
# (--enable-sanitizers), so that one run of the suite checks both the
# tarball and the sanitizers; CI runs it so. The harness's result lines
# (PASS:, FAIL:, SKIP: ...) stay in BUILDDIR.log for counting.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-build-dist}
case $builddir in /*) ;; *) builddir=$top/$builddir ;; esac

"$top/scripts/need-packages.sh" autoconf automake make gcc pkg-config git perl dpkg-dev >&2
# git below answers for the directories, not for a repository named by
# the environment.
unset GIT_DIR GIT_WORK_TREE GIT_CEILING_DIRECTORIES
start=$(date +%s)
status=0
outside=
cleanup() {
	if [ -d "$outside" ]; then
		# make distcheck leaves its copy read-only when it fails
		chmod -R u+w "$outside"
		rm -rf "$outside"
	fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
outside=$(mktemp -d "${TMPDIR:-/tmp}/modrot-distcheck.XXXXXX")
# mktemp makes it private, but some tests run the built tools as a user
# other than root, who must reach them and the simulator's preload.
chmod go+rx "$outside"
(
	set -e
	if git -C "$outside" rev-parse --git-dir > /dev/null 2>&1; then
		echo "distcheck.sh: $outside is inside the git work tree of" \
			"$(git -C "$outside" rev-parse --show-toplevel): set TMPDIR to a directory outside any"
		exit 1
	fi
	cd "$top"
	# Always: a Makefile.in older than a fragment it includes would make a
	# tarball of the old lists.
	./autogen.sh
	rm -rf "$builddir"
	mkdir -p "$builddir"
	cd "$builddir"
	"$top/configure" --enable-werror
	make -j"$(nproc)" dist
	name=$(sed -n 's/^PACKAGE = //p' Makefile)-$(sed -n 's/^VERSION = //p' Makefile)
	tar -C "$outside" -xf "$name.tar.gz"
	src=$outside/$name
	# The archive itself, not only the directory it was made from, holds
	# every tracked file: a tar format that cannot store a name drops the
	# file with a warning, after dist-hook has checked the directory.
	# (dist-hook's list of what is not shipped, from the Makefile)
	if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
		skip=" $(sed -n 's/^DIST_NOT_SHIPPED = //p' Makefile) "
		missing=$(git -C "$top" ls-files | while read -r f; do
			case $skip in *" $f "*) continue ;; esac
			[ -e "$src/$f" ] || echo "$f"
		done)
		# shellcheck disable=SC2086 # the names on one line
		[ -z "$missing" ] || { echo "distcheck.sh: $name.tar.gz lacks tracked files:" $missing; exit 1; }
	fi
	[ ! -e "$src/.git" ] || { echo "distcheck.sh: $name.tar.gz holds .git"; exit 1; }
	echo "distcheck.sh: $name.tar.gz unpacked in $src, outside any git work tree"
	mkdir "$src/build"
	cd "$src/build"
	../configure --enable-werror
	flags=--enable-werror
	[ "${DISTCHECK_SANITIZE:-no}" = no ] || flags="$flags --enable-sanitizers"
	if [ -n "${DISTCHECK_TESTS:-}" ]; then
		make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS="$flags" \
			TESTS="$DISTCHECK_TESTS"
	else
		make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS="$flags"
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
