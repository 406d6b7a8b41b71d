#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The modrot.rot collection's own checks: ansible-doc renders every
# module, the documented options are the modules' argument specs,
# ansible-test sanity passes whole and offline, and so do ansible-test
# units.

load /usr/lib/bats/bats-support/load.bash
load /usr/lib/bats/bats-assert/load.bash
load helpers/packages

COLLECTIONS=$top_srcdir/ansible
MODULES="modrot_facts modrot_reap modrot_probe"

# ansible-test sanity runs validate-modules, pylint, pep8, yamllint,
# ansible-doc, import and runtime-metadata in virtual environments of its
# own, which it would fill with pip from PyPI. ansible/tests/sanity-venvs.py
# makes them beforehand at the paths ansible-test looks for, from Debian's
# packages (pylint, python3-voluptuous, yamllint, python3-pycodestyle...),
# so that the whole of sanity runs offline. Left out: changelog, whose
# antsibull-changelog Debian 12 does not package (tests/ansible-galaxy.bats
# checks changelog.yaml against its config and the modules instead).
SANITY_VENVS="ansible-doc import import.module import.plugin pep8 pylint runtime-metadata validate-modules yamllint"

# ansible-test units runs pytest with --forked and -n in the Python it is
# given (--python-interpreter): no virtual environment and no pip, only
# Debian's pytest, pytest-forked, pytest-xdist and pytest-mock. The tests
# (tests/unit/ in the collection) run every module against a fake host
# that answers module.run_command as the tools would: no program is run.
# How many tests each file holds: the modules' context runs the first
# three, the module_utils context the last.
UNITS="modules/test_modrot_reap=44 modules/test_modrot_probe=32 modules/test_modrot_facts=15
	module_utils/test_modrot_tools=99"

setup_file() {
	need_packages ansible-core python3-venv python3-pycodestyle yamllint pylint python3-voluptuous python3-jinja2 python3-yaml \
		python3-pytest python3-pytest-forked python3-pytest-xdist python3-pytest-mock
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

@test "ansible-test sanity passes, validate-modules, pylint and the documentation tests among them" {
	# ansible-test wants the collection at ansible_collections/NS/NAME and
	# writes tests/output inside it: run it on a copy. Its environments go
	# under a home of the test's own.
	local root=$BATS_TEST_TMPDIR/ansible_collections/modrot t
	mkdir -p "$root"
	cp -r "$COLLECTIONS/ansible_collections/modrot/rot" "$root/"
	rm -rf "$root/rot/tests/output"
	export HOME=$BATS_TEST_TMPDIR/home
	# shellcheck disable=SC2086
	run /usr/bin/python3 "$COLLECTIONS/tests/sanity-venvs.py" $SANITY_VENVS
	assert_success
	cd "$root/rot"
	run ansible-test sanity --python-interpreter /usr/bin/python3 --python 3.11 --skip-test changelog
	assert_success
	refute_output --partial "ERROR:"
	refute_output --partial "Skipping sanity test"
	refute_output --partial "Installing requirements"
	for t in validate-modules pylint ansible-doc pep8 yamllint runtime-metadata action-plugin-docs \
		compile future-import-boilerplate metaclass-boilerplate shebang use-argspec-type-path \
		no-get-exception empty-init; do
		assert_line --regexp "^Running sanity test \"$t\"( on Python [0-9.]+)?\$"
	done
	assert_line 'Running sanity test "import" on Python 3.11'
}

@test "ansible-test sanity fails a module without the GPLv3 header, with a bad author, or a pylint error" {
	local root=$BATS_TEST_TMPDIR/ansible_collections/modrot m
	mkdir -p "$root"
	cp -r "$COLLECTIONS/ansible_collections/modrot/rot" "$root/"
	rm -rf "$root/rot/tests/output"
	export HOME=$BATS_TEST_TMPDIR/home
	# shellcheck disable=SC2086
	/usr/bin/python3 "$COLLECTIONS/tests/sanity-venvs.py" validate-modules pylint > /dev/null
	m=$root/rot/plugins/modules/modrot_reap.py
	sed -i -e '/GNU General Public License v3.0+/d' -e 's/^  - modrot developers (!UNKNOWN)$/  - modrot developers/' "$m"
	printf '\n\ndef unused():\n    return not_defined_anywhere\n' >> "$m"
	cd "$root/rot"
	run ansible-test sanity --python-interpreter /usr/bin/python3 --python 3.11 --test validate-modules --test pylint
	assert_failure
	assert_line --partial "plugins/modules/modrot_reap.py:0:0: missing-gplv3-license"
	assert_line --partial "plugins/modules/modrot_reap.py:0:0: invalid-documentation: DOCUMENTATION.author"
	assert_line --regexp "plugins/modules/modrot_reap.py:[0-9]+:[0-9]+: undefined-variable"
	refute_output --partial "modrot_facts.py"
}

# copy_collection: the collection where ansible-test wants it
# (ansible_collections/NS/NAME; it writes tests/output inside), under the
# test's own directory; prints the copy's path. HOME goes there too.
copy_collection() {
	local root=$BATS_TEST_TMPDIR/ansible_collections/modrot
	mkdir -p "$root"
	cp -r "$COLLECTIONS/ansible_collections/modrot/rot" "$root/"
	# writable where the tree is not (make distcheck's)
	chmod -R u+w "$root/rot"
	rm -rf "$root/rot/tests/output"
	echo "$root/rot"
}

@test "ansible-test units passes: each module and modrot_tools, offline, without running a program" {
	local copy
	copy=$(copy_collection)
	export HOME=$BATS_TEST_TMPDIR/home
	cd "$copy"
	# -v: pytest names each test it passed
	run timeout 600 ansible-test units -v --python-interpreter /usr/bin/python3 --python 3.11
	assert_success
	refute_output --partial "Installing requirements"
	refute_output --partial "ERROR:"
	refute_output --regexp "(FAILED|ERROR|SKIPPED|XFAIL|XPASS) tests/"
	assert_line 'Unit test modules with Python 3.11'
	assert_line 'Unit test module_utils with Python 3.11'
	local u file count modules=0
	for u in $UNITS; do
		file=${u%=*} count=${u#*=}
		assert_equal "$file $(grep -c "PASSED tests/unit/plugins/$file\.py::" <<< "$output")" "$file $count"
		[ "${file%%/*}" = module_utils ] || modules=$((modules + count))
	done
	assert_line --regexp "^=+ $modules passed in [0-9.]+s =+\$"
	assert_line --regexp "^=+ ${UNITS##*=} passed in [0-9.]+s =+\$"
	# every module has its tests
	for u in $MODULES; do
		[[ " $UNITS " == *" modules/test_$u="* ]]
	done
	# the stand-ins for the tools in the tests' directories were never run
	refute_output --partial "a unit test ran"
}

@test "ansible-test units fails a module that changes on its second run or whose check mode runs insmod" {
	local copy
	copy=$(copy_collection)
	export HOME=$BATS_TEST_TMPDIR/home
	# modrot_reap reports a change whatever modreap freed; modrot_probe's
	# check mode loads for real.
	sed -i "s/^    changed = r\['instances'\] > 0\$/    changed = True/" "$copy/plugins/modules/modrot_reap.py"
	sed -i "s/^        args.append('--check')\$/        pass/" "$copy/plugins/modules/modrot_probe.py"
	grep -q "^    changed = True\$" "$copy/plugins/modules/modrot_reap.py"
	run grep -F "args.append('--check')" "$copy/plugins/modules/modrot_probe.py"
	assert_failure
	cd "$copy"
	run timeout 600 ansible-test units --python-interpreter /usr/bin/python3 --python 3.11 tests/unit/plugins/modules/
	assert_failure
	local f=tests/unit/plugins/modules
	assert_line --regexp "^FAILED $f/test_modrot_reap\.py::test_ceiling_second_run_changes_nothing( |\$)"
	assert_line --regexp "^FAILED $f/test_modrot_reap\.py::test_all_reclaims_everything_then_changes_nothing( |\$)"
	assert_line --regexp "^FAILED $f/test_modrot_probe\.py::test_check_mode_match_devices_predicts_and_changes_nothing( |\$)"
	refute_line --regexp "^FAILED $f/test_modrot_facts\.py"
	# 7 of modrot_reap's (its second runs and idle runs), 4 of modrot_probe's (check mode)
	assert_equal "$(grep -c "^FAILED $f/test_modrot_reap\.py::" <<< "$output")" 7
	assert_equal "$(grep -c "^FAILED $f/test_modrot_probe\.py::" <<< "$output")" 4
	assert_line --regexp "^=+ 11 failed, 80 passed in [0-9.]+s =+\$"
}

@test "pycodestyle (ansible-test's pep8 settings) and yamllint are clean" {
	run /usr/bin/python3 -m pycodestyle --max-line-length 160 --ignore E402,W503,W504,E741 \
		"$COLLECTIONS/ansible_collections/modrot/rot/plugins" "$COLLECTIONS/ansible_collections/modrot/rot/tests" \
		"$COLLECTIONS/tests"
	assert_success
	run yamllint -d '{extends: default, rules: {line-length: {max: 160}, truthy: disable, document-start: disable}}' \
		"$COLLECTIONS/fleet" "$COLLECTIONS/ansible_collections/modrot/rot/meta" \
		"$COLLECTIONS/ansible_collections/modrot/rot/galaxy.yml"
	assert_success
}
