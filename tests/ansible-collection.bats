#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The modrot.rot collection's own checks: ansible-doc renders every
# module, the documented options are the modules' argument specs, and
# ansible-test sanity passes as far as it runs without network.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/packages

COLLECTIONS=$top_srcdir/ansible
MODULES="modrot_facts modrot_reap modrot_probe"

# ansible-test sanity tests that install pinned Python packages from PyPI
# into a virtual environment of their own, so cannot run offline. What
# they check is covered below where Debian has the tool: ansible-doc by
# ansible-doc itself, validate-modules by argspec-vs-doc.py (options
# against argument_spec), pep8 by pycodestyle with ansible-test's line
# length, yamllint by yamllint. Not covered: import, pylint,
# runtime-metadata. changelog (antsibull-changelog lint, from PyPI) is
# covered by tests/ansible-galaxy.bats, which checks changelog.yaml against
# its config and the modules.
NEEDS_NETWORK="ansible-doc changelog import pep8 pylint runtime-metadata validate-modules yamllint"

setup_file() {
	need_packages ansible-core python3-pycodestyle yamllint
}

setup() {
	export ANSIBLE_COLLECTIONS_PATH=$COLLECTIONS ANSIBLE_NOCOLOR=1
	# Importing the modules from the source tree must not write into it.
	export PYTHONDONTWRITEBYTECODE=1
	export ANSIBLE_HOME=$BATS_TEST_TMPDIR/ansible-home
	: > "$BATS_TEST_TMPDIR/ansible.cfg"
	export ANSIBLE_CONFIG=$BATS_TEST_TMPDIR/ansible.cfg
}

@test "ansible-doc lists the three modules and renders each" {
	run ansible-doc -l modrot.rot
	assert_success
	local m
	for m in $MODULES; do
		assert_line --regexp "^modrot\.rot\.$m +[A-Z]"
	done
	for m in $MODULES; do
		run ansible-doc -t module "modrot.rot.$m"
		assert_success
		assert_output --partial "> MODROT.ROT.${m^^}"
		assert_output --partial "tools_dir"
		assert_output --partial "EXAMPLES:"
		assert_output --partial "RETURN VALUES:"
		refute_output --partial "ERROR"
	done
	run ansible-doc -t module modrot.rot.modrot_reap
	assert_output --partial "- ceiling"
	assert_output --partial "- names"
	run ansible-doc -t module modrot.rot.modrot_probe
	assert_output --regexp "choices: \[match_devices, probe_all\]"
}

@test "documented options are the argument specs, and EXAMPLES and RETURN parse" {
	# shellcheck disable=SC2086
	run /usr/bin/python3 "$COLLECTIONS/tests/argspec-vs-doc.py" "$COLLECTIONS" $MODULES
	assert_success
	assert_output ""
}

@test "ansible-test sanity passes (the tests that run without network)" {
	# ansible-test wants the collection at ansible_collections/NS/NAME and
	# writes tests/output inside it: run it on a copy.
	local root=$BATS_TEST_TMPDIR/ansible_collections/modrot
	mkdir -p "$root"
	cp -r "$COLLECTIONS/ansible_collections/modrot/rot" "$root/"
	rm -rf "$root/rot/tests/output"
	local skip=() t
	for t in $NEEDS_NETWORK; do
		skip+=(--skip-test "$t")
	done
	cd "$root/rot"
	run ansible-test sanity --python-interpreter /usr/bin/python3 --python 3.11 "${skip[@]}"
	assert_success
	refute_output --partial "ERROR:"
	# The offline tests did run, those that matter most among them.
	for t in compile future-import-boilerplate metaclass-boilerplate shebang use-argspec-type-path \
		no-get-exception action-plugin-docs empty-init; do
		assert_line --regexp "^Running sanity test \"$t\"( on Python [0-9.]+)?\$"
	done
}

@test "pycodestyle (ansible-test's pep8 settings) and yamllint are clean" {
	run /usr/bin/python3 -m pycodestyle --max-line-length 160 --ignore E402,W503,W504,E741 \
		"$COLLECTIONS/ansible_collections/modrot/rot/plugins" "$COLLECTIONS/tests"
	assert_success
	run yamllint -d '{extends: default, rules: {line-length: {max: 160}, truthy: disable, document-start: disable}}' \
		"$COLLECTIONS/fleet" "$COLLECTIONS/ansible_collections/modrot/rot/meta" \
		"$COLLECTIONS/ansible_collections/modrot/rot/galaxy.yml"
	assert_success
}
