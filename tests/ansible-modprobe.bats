#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# A real client of modprobe: Debian's community.general.modprobe, run by
# ansible-playbook on localhost (connection local) against four simulated
# kernels at once, each a host with its own modprobe first in PATH: kmod's
# and modrot's, on a stock and on a rot kernel. The play loads a module
# with parameters, loads it again (nothing to change), fails to load a
# module whose init fails, one that does not exist and one with a bad
# parameter, and removes the module twice. modrot's results must be
# kmod's on the stock kernel; on the rot kernel, state: absent must leave
# exactly the rot modrot reports.

bats_require_minimum_version 1.5.0

load helpers/tools
load helpers/packages
load helpers/modtree

MODINFO=$top_builddir/tools/modinfo
HOSTS="kmod_stock modrot_stock kmod_rot modrot_rot"

setup_file() {
	need_packages ansible-core ansible
	local F=$BATS_FILE_TMPDIR h
	[ -f /usr/lib/python3/dist-packages/ansible_collections/community/general/plugins/modules/modprobe.py ] ||
		skip "Debian's ansible package ships no community.general.modprobe"
	mkdir -p "$F/bin-kmod" "$F/bin-modrot" "$F/results"
	ln -s /sbin/modprobe "$F/bin-kmod/modprobe"
	ln -s "$top_builddir/tools/modprobe" "$F/bin-modrot/modprobe"
	for h in $HOSTS; do
		K=$F/$h
		"$SIM" create "$K" --mode "${h#*_}"
		modtree_install
	done
	: > "$F/ansible.cfg"
	{
		echo "[sim]"
		for h in $HOSTS; do
			echo "$h sim_dir=$F/$h sim_bin=$F/bin-${h%_*}"
		done
		echo "[sim:vars]"
		echo "ansible_connection=local"
		echo "ansible_python_interpreter=/usr/bin/python3"
		echo "sim_lib=$top_builddir/tests/simkernel/libsimkernel.so"
	} > "$F/inventory"
	cat > "$F/modprobe.yml" <<-'PLAY'
		- hosts: sim
		  gather_facts: false
		  environment:
		    SIMKERNEL_DIR: "{{ sim_dir }}"
		    LD_PRELOAD: "{{ sim_lib }}"
		    PATH: "{{ sim_bin }}:/usr/sbin:/usr/bin:/sbin:/bin"
		  tasks:
		    - name: load with parameters
		      community.general.modprobe: {name: mt_net, state: present, params: "speed=100 ifname=eth9"}
		      register: load
		    - name: the parameter the kernel got
		      ansible.builtin.slurp: {src: /sys/module/mt_net/parameters/speed}
		      register: speed
		    - name: load again
		      community.general.modprobe: {name: mt_net, state: present, params: "speed=100 ifname=eth9"}
		      register: load_again
		    - name: a module whose init fails
		      community.general.modprobe: {name: mt_fail, state: present}
		      register: init_fails
		      ignore_errors: true
		    - name: a module that does not exist
		      community.general.modprobe: {name: mt_nosuch, state: present}
		      register: no_such
		      ignore_errors: true
		    - name: what removing would leave
		      ansible.builtin.command: modprobe -r -n -v mt_net
		      register: dry_run
		      changed_when: false
		    - name: remove
		      community.general.modprobe: {name: mt_net, state: absent}
		      register: remove
		    - name: remove again
		      community.general.modprobe: {name: mt_net, state: absent}
		      register: remove_again
		    - name: a parameter the module refuses
		      community.general.modprobe: {name: mt_net, state: present, params: "speed=fast"}
		      register: bad_param
		      ignore_errors: true
		    - name: keep the results
		      ansible.builtin.copy:
		        dest: "{{ results_dir }}/{{ inventory_hostname }}.json"
		        content: "{{ {'load': load, 'speed': speed.content | b64decode | trim, 'load_again': load_again,
		                      'init_fails': init_fails, 'no_such': no_such, 'dry_run': dry_run,
		                      'remove': remove, 'remove_again': remove_again,
		                      'bad_param': bad_param} | to_json }}"
		        mode: "0644"
	PLAY
	# The same load, twice, as a second run of a playbook: the second changes nothing.
	cat > "$F/load.yml" <<-'PLAY'
		- hosts: sim
		  gather_facts: false
		  environment:
		    SIMKERNEL_DIR: "{{ sim_dir }}"
		    LD_PRELOAD: "{{ sim_lib }}"
		    PATH: "{{ sim_bin }}:/usr/sbin:/usr/bin:/sbin:/bin"
		  tasks:
		    - community.general.modprobe: {name: mt_snd, state: present}
	PLAY
	for h in $HOSTS; do
		"$SIM" state "$F/$h" > "$F/$h.before"
	done
	playbook modprobe.yml > "$F/play.out" 2>&1 || true
	playbook load.yml > "$F/load1.out" 2>&1 || true
	playbook load.yml > "$F/load2.out" 2>&1 || true
}

playbook() {
	local F=$BATS_FILE_TMPDIR
	ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
		ANSIBLE_STDOUT_CALLBACK=default ANSIBLE_LOCAL_TEMP=$F/ansible-local \
		ANSIBLE_REMOTE_TEMP=$F/ansible-remote ANSIBLE_HOME=$F/ansible-home \
		ANSIBLE_CONFIG=$F/ansible.cfg \
		ansible-playbook -i "$F/inventory" "$F/$1" -e results_dir="$F/results"
}

# The recap counters of one host in a playbook's output.
recap() {
	awk -v h="$2" '$1 == h && $2 == ":" { $1 = $2 = ""; print substr($0, 3) }' "$BATS_FILE_TMPDIR/$1" |
		tr -s ' ' | sed 's/ $//'
}

result() { jq -c "$2" "$BATS_FILE_TMPDIR/results/$1.json"; }

# What each task did, as changed/failed/rc, comparable across hosts.
outcomes() {
	result "$1" '[.load, .load_again, .init_fails, .no_such, .remove, .remove_again, .bad_param
		| [.changed, (.failed // false), (.rc // 0)]]'
}

state_of() { "$SIM" state "$BATS_FILE_TMPDIR/$1"; }

@test "the playbook ran on all four kernels; the recaps" {
	local h
	for h in $HOSTS; do
		echo "# $h: $(recap play.out "$h")" >&3
		echo "# $h second run of a load: $(recap load1.out "$h") / then: $(recap load2.out "$h")" >&3
		assert [ -f "$BATS_FILE_TMPDIR/results/$h.json" ]
	done
	# 10 tasks; 3 failures ignored; changed: the load, the first remove and
	# the copy of the results.
	assert_equal "$(recap play.out modrot_stock)" \
		"ok=10 changed=3 unreachable=0 failed=0 skipped=0 rescued=0 ignored=3"
	assert_equal "$(recap play.out modrot_rot)" "$(recap play.out modrot_stock)"
	assert_equal "$(recap play.out kmod_stock)" "$(recap play.out modrot_stock)"
}

@test "modprobe under Ansible loads with parameters, is idempotent, removes, and reports failures" {
	local h
	for h in modrot_stock modrot_rot; do
		assert_equal "$(result "$h" '[.load.changed, .speed, .load_again.changed]')" '[true,"100",false]'
		assert_equal "$(result "$h" '[.remove.changed, .remove_again.changed]')" '[true,false]'
		# Each failure is reported: failed, modprobe's exit status, and its one line naming the module.
		assert_equal "$(result "$h" '[.init_fails.failed, .init_fails.rc, .no_such.failed, .no_such.rc, .bad_param.failed, .bad_param.rc]')" \
			'[true,1,true,1,true,1]'
		assert_regex "$(result "$h" .init_fails.msg)" 'mt_fail'
		assert_regex "$(result "$h" .no_such.msg)" 'mt_nosuch'
		assert_regex "$(result "$h" .bad_param.msg)" 'mt_net'
		# A second run of a playbook that loads changes nothing.
		assert_regex "$(recap load1.out "$h")" '^ok=1 changed=1 '
		assert_regex "$(recap load2.out "$h")" '^ok=1 changed=0 '
	done
}

@test "on a stock kernel, modrot's modprobe gives Ansible kmod's results and leaves kmod's state" {
	assert_equal "$(outcomes modrot_stock)" "$(outcomes kmod_stock)"
	assert_equal "$(result modrot_stock .speed)" "$(result kmod_stock .speed)"
	# the same modules, with other addresses: modrot's removal of mt_net
	# also unloaded mt_core, the bottom of the chain kmod 30 leaves loaded
	# and unused (modprobe.8), and a later load brought it back
	assert_equal "$(state_of modrot_stock | awk '{ $4 = "" } 1')" "$(state_of kmod_stock | awk '{ $4 = "" } 1')"
	# And on a rot kernel the same results as on the stock one.
	assert_equal "$(outcomes modrot_rot)" "$(outcomes kmod_stock)"
}

@test "on a rot kernel, state: absent leaves exactly the rot modrot reports" {
	local F=$BATS_FILE_TMPDIR name bytes total=0 predicted
	# What modrot's dry run said removing mt_net would leave, name by name...
	# (sizes as lsblk prints them: modprobe -n -v is read by people)
	predicted=$(result modrot_rot '.dry_run.stderr_lines[]' | sed -n 's/^"modprobe: \([^ ]*\) would rot: \([0-9.]*[BKMGTPE]\) would stay allocated.*/\1 \2/p')
	assert [ -n "$predicted" ]
	# ...is what rots now, less what the failed init left (mt_fail, reported
	# by its own failure) and the rot the bad parameter's dependency load
	# did not add (a failure before init leaves none).
	local rotting
	rotting=$(state_of modrot_rot | awk '$1 == "rotting" && $2 != "mt_fail" { print $2, $3 }' | LC_ALL=C sort)
	assert_equal "$(while read -r name bytes; do echo "$name $(human_size "$bytes")"; done <<< "$rotting")" \
		"$(LC_ALL=C sort <<< "$predicted")"
	# modinfo, reading the kernel, reports the same rot for each name.
	while read -r name bytes; do
		run "$SIM" run "$F/modrot_rot" -- "$MODINFO" -F rotting_bytes "$name"
		assert_output "$bytes"
		total=$((total + bytes))
	done <<< "$rotting"
	assert_regex "$(result modrot_rot '.dry_run.stderr')" "modules would rot: $(human_size "$total")"
	assert [ "$total" -gt 0 ]
	# The failed init rotted once, and was reported.
	run "$SIM" run "$F/modrot_rot" -- "$MODINFO" -F rotting mt_fail
	assert_output 1
	assert_regex "$(result modrot_rot .init_fails.msg)" "now rot"
	# kmod's modprobe left the same rot on its rot kernel, and said nothing
	# of it, but for mt_core: the bottom of the chain, which kmod 30 leaves
	# loaded and unused (modprobe.8)
	assert_equal "$(state_of kmod_rot | awk '$1 == "rotting" { print $2, $3 }' | LC_ALL=C sort)" \
		"$(state_of modrot_rot | awk '$1 == "rotting" && $2 != "mt_core" { print $2, $3 }' | LC_ALL=C sort)"
	refute_regex "$(result kmod_rot '.init_fails.msg')" "rot"
}
