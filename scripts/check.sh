#!/bin/sh
# The whole test suite: sets up what it needs, builds with warnings as
# errors, runs every test (unit tests and bats suites) on the simulated
# kernel.
#
#   scripts/check.sh                 # build/ with -Werror
#   scripts/check.sh --sanitize      # build-asan/, lib/ and tools/ with ASan+UBSan
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

builddir=build
args="--enable-werror"
if [ "${1:-}" = "--sanitize" ]; then
	builddir=build-asan
	args="--enable-werror --enable-sanitizers"
	shift
fi
# What the suites run besides the build, all installed here before the
# first test (a test only checks it is there: tests/helpers/packages.bash):
# bats' libraries, Debian's kmod and busybox to compare with, the shells
# the completions are tested in, man and groff for the pages, strace and
# valgrind, jq and bc, systemd and acl for the units, Prometheus' promtool
# for the rules, Ansible, yamllint, pylint and what ansible-test sanity's
# virtual environments take from Debian (ansible/tests/sanity-venvs.py)
# for the collection.
# shellcheck disable=SC2086
"$top/scripts/need-packages.sh" bats-assert bats-support bats-file kmod busybox openssl \
	bash-completion zsh fish man-db groff-base strace valgrind jq bc \
	systemd acl prometheus ansible-core ansible python3-yaml python3-pycodestyle yamllint \
	python3-venv pylint python3-voluptuous python3-jinja2
# shellcheck disable=SC2086
builddir=$("$top/scripts/setup.sh" "$builddir" $args)
cd "$builddir"
make -j"$(nproc)" check "$@"
