#!/bin/sh
# The whole test suite, once: sets up what it needs, then runs every test
# (unit tests and bats suites) on the simulated kernel.
#
#   scripts/check.sh                  # every test, once (below)
#   scripts/check.sh --plain [ARGS]   # build/ with -Werror; ARGS go to make
#                                     # check, e.g. TESTS=tests/rmmod.bats
#   scripts/check.sh --sanitize [ARGS]  # the same in build-asan/, lib/ and
#                                     # tools/ with ASan+UBSan
#
# With no option, every test runs once where it checks the most: from the
# release tarball, built with ASan and UBSan (scripts/distcheck.sh, which
# also checks that the tarball carries what the tests use and that no test
# leans on git), then, in build/ with -Werror, the tests that need a build
# without the sanitizers: valgrind's (a test named "... valgrind ...",
# which calls skip_if_sanitized) and the fault-injection sweep
# (tests/faultinject.bats). Those two skip under ASan, so nothing runs
# twice and nothing is left out. Ends with "check: PASS" or "check: FAIL".
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

mode=once
case ${1:-} in
--plain) mode=plain; shift ;;
--sanitize) mode=sanitize; shift ;;
esac
if [ "$mode" = once ] && [ $# -gt 0 ]; then
	echo "check.sh: make's arguments ($*) go with --plain or --sanitize" >&2
	exit 2
fi
# What the suites run besides the build, all installed here before the
# first test (a test only checks it is there: tests/helpers/packages.bash):
# bats' libraries, Debian's kmod and busybox to compare with, the shells
# the completions are tested in, man and groff for the pages, strace and
# valgrind, jq and bc, systemd and acl for the units, Prometheus' promtool
# for the rules, Ansible, yamllint, pylint and what ansible-test sanity's
# virtual environments take from Debian (ansible/tests/sanity-venvs.py)
# for the collection, the pytest plugins ansible-test units runs, and
# nodejs and curl for the dashboard's schema check.
# shellcheck disable=SC2086
"$top/scripts/need-packages.sh" bats-assert bats-support bats-file kmod busybox openssl \
	bash-completion zsh fish man-db groff-base strace valgrind jq bc \
	systemd acl prometheus ansible-core ansible python3-yaml python3-pycodestyle yamllint \
	python3-venv pylint python3-voluptuous python3-jinja2 python3-pytest python3-pytest-forked \
	python3-pytest-xdist python3-pytest-mock nodejs curl
# The npm packages the dashboard's schema check runs (tests/grafana), from
# the npm registry, once: a failed fetch does not stop the suite, and the
# check's tests fail saying why.
if ! "$top/scripts/npm-fetch.sh" "$top/tests/grafana/package-lock.json"; then
	echo "check.sh: the dashboard's schema check will fail: its npm packages could not be fetched" >&2
fi
case $mode in
plain | sanitize)
	builddir=build
	args="--enable-werror"
	if [ "$mode" = sanitize ]; then
		builddir=build-asan
		args="--enable-werror --enable-sanitizers"
	fi
	# shellcheck disable=SC2086
	builddir=$("$top/scripts/setup.sh" "$builddir" $args)
	cd "$builddir"
	exec make -j"$(nproc)" check "$@"
	;;
esac

# Debian 13's kmod and kernel package, which tests/kmod34-oracle.bats
# compares with, downloaded once into package-test.sh's cache (root's, as
# apt's is). --plain and --sanitize use them if they are there.
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo "$top/scripts/debian13-oracle.sh" >&2

status=0
DISTCHECK_SANITIZE=yes "$top/scripts/distcheck.sh" || status=1
builddir=$("$top/scripts/setup.sh" build --enable-werror)
cd "$builddir"
# Only this run's results stay in build/tests (.ci/run counts them).
rm -f tests/*.trs tests/*.log tests/*/*.trs tests/*/*.log
valgrind_files=$(cd "$top" && grep -l '^[[:space:]]*skip_if_sanitized' tests/*.bats | tr '\n' ' ')
make -j"$(nproc)" check TESTS="tests/faultinject.bats" || status=1
make -j"$(nproc)" check TESTS="$valgrind_files" BATS_LOG_FLAGS="--filter valgrind" || status=1
if [ "$status" -eq 0 ]; then echo "check: PASS"; else echo "check: FAIL"; fi
exit "$status"
