#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The modrot.rot collection as Galaxy users get it: ansible-galaxy
# collection build, the tarball's contents (licence, changelog in
# antsibull-changelog's format, playbooks, example inventory), installed
# with ansible-galaxy collection install, then its playbook run with the
# shipped inventory on a simulated kernel; and modrot_facts without
# tools_dir, which takes modrot's tools and never kmod's.

load helpers/tools
load helpers/packages

COLLECTION=$top_srcdir/ansible/ansible_collections/modrot/rot

setup_file() {
	need_packages ansible-core python3-yaml
	local F=$BATS_FILE_TMPDIR
	: > "$F/ansible.cfg"
	# Built from a copy: the build must not write into the source tree.
	cp -r "$COLLECTION" "$F/src"
	(cd "$F" && ANSIBLE_CONFIG=$F/ansible.cfg ANSIBLE_HOME=$F/ansible-home \
		ansible-galaxy collection build "$F/src" --output-path "$F/dist") > "$F/build.log" 2>&1
	(cd "$F" && ANSIBLE_CONFIG=$F/ansible.cfg ANSIBLE_HOME=$F/ansible-home \
		ansible-galaxy collection install "$F/dist/modrot-rot-0.1.0.tar.gz" -p "$F/installed") \
		>> "$F/build.log" 2>&1
}

setup() {
	F=$BATS_FILE_TMPDIR
	I=$F/installed/ansible_collections/modrot/rot
	export ANSIBLE_CONFIG=$F/ansible.cfg ANSIBLE_HOME=$BATS_TEST_TMPDIR/ansible-home
	export ANSIBLE_COLLECTIONS_PATH=$F/installed ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
	export ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_STDOUT_CALLBACK=default PYTHONDONTWRITEBYTECODE=1
	export ANSIBLE_LOCAL_TEMP=$BATS_TEST_TMPDIR/ansible-local ANSIBLE_REMOTE_TEMP=$BATS_TEST_TMPDIR/ansible-remote
}

@test "ansible-galaxy collection build makes a tarball with the licence, the changelog, the playbooks and an inventory" {
	run cat "$F/build.log"
	assert_line --partial "Created collection for modrot.rot at $F/dist/modrot-rot-0.1.0.tar.gz"
	run tar -tzf "$F/dist/modrot-rot-0.1.0.tar.gz"
	assert_success
	local f
	for f in MANIFEST.json FILES.json README.md LICENSE CHANGELOG.rst changelogs/changelog.yaml \
		changelogs/config.yaml playbooks/fleet.yml playbooks/probe.yml examples/inventory.ini \
		meta/runtime.yml plugins/modules/modrot_facts.py plugins/module_utils/modrot_tools.py \
		LICENSES/GPL-3.0-or-later.txt; do
		assert_line "$f"
	done
	refute_line --partial __pycache__
	refute_line --regexp '^tests/output'
	run tar -xzOf "$F/dist/modrot-rot-0.1.0.tar.gz" MANIFEST.json
	assert_success
	run python3 -c 'import json, sys; c = json.load(sys.stdin)["collection_info"]; print(c["license"], c["version"])' <<< "$output"
	assert_output "['GPL-2.0-or-later', 'GPL-3.0-or-later'] 0.1.0"
	cmp "$I/LICENSE" "$top_srcdir/COPYING"
	cmp "$I/LICENSES/GPL-3.0-or-later.txt" /usr/share/common-licenses/GPL-3
}

@test "the changelog is in antsibull-changelog's format, names every module, and matches the version" {
	run python3 - "$I" <<-'PY'
		import os, sys, yaml
		d = sys.argv[1]
		galaxy = yaml.safe_load(open(os.path.join(d, "MANIFEST.json")))["collection_info"]
		cfg = yaml.safe_load(open(os.path.join(d, "changelogs/config.yaml")))
		log = yaml.safe_load(open(os.path.join(d, "changelogs/changelog.yaml")))
		for key in ("changes_file", "changes_format", "notesdir", "sections", "prelude_section_name", "title"):
		    assert key in cfg, key
		sections = {s[0] for s in cfg["sections"]} | {cfg["prelude_section_name"]}
		assert "ancestor" in log and isinstance(log["releases"], dict)
		rel = log["releases"][galaxy["version"]]
		assert set(rel["changes"]) <= sections, set(rel["changes"]) - sections
		assert rel["release_date"]
		modules = sorted(f[:-3] for f in os.listdir(os.path.join(d, "plugins/modules")) if f.endswith(".py"))
		assert sorted(m["name"] for m in rel["modules"]) == modules, rel["modules"]
		rst = open(os.path.join(d, "CHANGELOG.rst")).read()
		assert "v%s" % galaxy["version"] in rst
		for m in modules:
		    assert "modrot.rot.%s - " % m in rst, m
		print("ok", galaxy["version"], len(modules))
	PY
	assert_success
	assert_output "ok 0.1.0 3"
}

@test "the installed collection's modules and playbooks are found by their names" {
	run ansible-doc -t module modrot.rot.modrot_facts
	assert_success
	assert_output --partial "percpu"
	run ansible-galaxy collection list modrot.rot -p "$F/installed"
	assert_success
	assert_output --regexp 'modrot\.rot +0\.1\.0'
}

@test "the installed fleet playbook runs with the shipped inventory, the tools found in PATH" {
	kernel_new rot
	"$SIM" populate "$K" --live 5 --rotting 6 --seed 11
	kmod_load pcpu512 && kmod_unload pcpu512
	local env
	# The tools found through PATH (no tools_dir), on the simulated kernel.
	env="{\"SIMKERNEL_DIR\": \"$K\", \"LD_PRELOAD\": \"$top_builddir/tests/simkernel/libsimkernel.so\","
	env+=" \"PATH\": \"$top_builddir/tools:/usr/sbin:/usr/bin:/sbin:/bin\"}"
	local before
	before=$(rotting_bytes)
	[ "$before" -gt 65536 ]
	run ansible-playbook -i "$I/examples/inventory.ini" modrot.rot.fleet \
		-e "{\"modrot_env\": $env}" -e modrot_ceiling=64K -e modrot_report="$BATS_TEST_TMPDIR/report"
	assert_success
	assert_output --regexp 'localhost +: ok=4 +changed=2 +unreachable=0 +failed=0'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/report")" "localhost $before"
	[ "$(rotting_bytes)" -le 65536 ]
	[ $(($(taint) & 8)) -eq 8 ]
}

@test "the installed probe playbook without modrot_modules_glob fails saying what to set" {
	run ansible-playbook -i "$I/examples/inventory.ini" modrot.rot.probe
	assert_failure
	assert_output --partial "set modrot_modules_glob to the module files to probe"
}

# facts_on_kernel PATH [module args]: modrot_facts on the simulated kernel
# with PATH, as an ad-hoc task; prints ansible's output.
facts_on_kernel() {
	local path=$1
	shift
	SIMKERNEL_DIR=$K LD_PRELOAD=$top_builddir/tests/simkernel/libsimkernel.so PATH=$path \
		ansible localhost -c local -e ansible_python_interpreter=/usr/bin/python3 \
		-m modrot.rot.modrot_facts "$@"
}

@test "modrot_facts without tools_dir never runs kmod's lsmod: it takes modrot's, or fails naming kmod's" {
	kernel_new rot
	"$SIM" populate "$K" --live 3 --rotting 2 --seed 12
	kmod_load pcpu512 && kmod_unload pcpu512
	local kmod bin=$BATS_TEST_TMPDIR/bin
	kmod=$(command -v kmod)
	mkdir "$bin"
	# kmod's lsmod first in PATH; modrot's further on.
	ln -s "$kmod" "$bin/lsmod"
	ln -s "$kmod" "$bin/modreap" # not kmod's command, but kmod's binary
	run facts_on_kernel "$bin:$top_builddir/tools:/usr/bin:/bin"
	assert_success
	assert_output --partial '"rot_instances": 3'
	assert_output --partial '"reserve": 8192'
	assert_output --partial '"rot_bytes": 512'
	# Only kmod's: the task fails and names what it found.
	run facts_on_kernel "$bin:/usr/bin:/bin"
	assert_failure
	assert_output --partial "found no modrot lsmod, only: $bin/lsmod is kmod's ($(readlink -f "$kmod"))"
	assert_output --partial "install modrot, or set tools_dir"
	refute_output --partial '"rot_instances"'
	# modrot's tools under the names --program-prefix=modrot- gives them
	local pre=$BATS_TEST_TMPDIR/prefixed t
	mkdir "$pre"
	for t in lsmod modreap; do ln -s "$top_builddir/tools/$t" "$pre/modrot-$t"; done
	run facts_on_kernel "$bin:$pre:/usr/bin:/bin"
	assert_success
	assert_output --partial '"rot_instances": 3'
}
