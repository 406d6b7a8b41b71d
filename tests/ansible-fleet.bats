#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The modrot.rot Ansible collection run as a fleet: every host is its own
# simulated kernel, reached by a local connection whose environment points
# the tools at that kernel. Asserts the recap, the tasks' results and each
# kernel's state after the run.

load helpers/tools
load helpers/packages

ANSIBLE_DIR=$top_srcdir/ansible
CEILING=64K
CEILING_BYTES=65536

setup_file() {
	need_packages ansible-core ansible
	F=$BATS_FILE_TMPDIR
	: > "$F/ansible.cfg" # no configuration from the user or the machine
	# name mode live rotting seed nocap
	cat > "$F/hosts.list" <<-HOSTS
		h01 rot 4 0 1 0
		h02 rot 6 3 2 0
		h03 rot 8 6 3 0
		h04 stock 3 0 4 0
		h05 rot 5 4 5 1
		h06 rot 3 1 6 0
		h07 rot 7 5 7 0
	HOSTS
	while read -r name mode live rotting seed nocap; do
		"$SIM" create "$F/$name" --mode "$mode"
		if [ "$rotting" -gt 0 ]; then
			"$SIM" populate "$F/$name" --live "$live" --rotting "$rotting" --seed "$seed"
		else
			"$SIM" populate "$F/$name" --live "$live" --seed "$seed"
		fi
	done < "$F/hosts.list"
	write_inventory "$F/inventory" "$F" < "$F/hosts.list"
}

# write_inventory FILE KERNELS-DIR < hosts.list
write_inventory() {
	local inv=$1 dir=$2 name mode live rotting seed nocap
	{
		echo "[fleet]"
		while read -r name mode live rotting seed nocap; do
			echo "$name modrot_kernel=$dir/$name modrot_nocap=$nocap"
		done
		echo "[fleet:vars]"
		echo "ansible_connection=local"
		echo "ansible_python_interpreter=/usr/bin/python3"
		echo "modrot_env={\"SIMKERNEL_DIR\": \"{{ modrot_kernel }}\", \"LD_PRELOAD\": \"$top_builddir/tests/simkernel/libsimkernel.so\", \"SIMKERNEL_NOCAP\": \"{{ modrot_nocap }}\"}"
		echo "[all:vars]"
		echo "modrot_tools_dir=$top_builddir/tools"
	} > "$inv"
}

# playbook INVENTORY PLAYBOOK [ansible-playbook options]
playbook() {
	local inv=$1 book=$2
	shift 2
	ANSIBLE_COLLECTIONS_PATH=$ANSIBLE_DIR ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
		ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_STDOUT_CALLBACK=default \
		ANSIBLE_LOCAL_TEMP=$BATS_FILE_TMPDIR/ansible-local \
		ANSIBLE_REMOTE_TEMP=$BATS_FILE_TMPDIR/ansible-remote \
		ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg \
		ansible-playbook -i "$inv" "$ANSIBLE_DIR/fleet/$book" "$@"
}

# The recap line of one host, with its counters as "ok=N changed=N ...".
recap() {
	echo "$output" | awk -v h="$1" '$1 == h && $2 == ":" { $1 = $2 = ""; print substr($0, 3) }' |
		tr -s ' ' | sed 's/ $//'
}

assert_recap() {
	local host=$1 want=$2 got
	got=$(recap "$host")
	[[ " $got " == *" $want "* ]] || {
		echo "recap of $host: '$got', expected it to hold '$want'"
		return 1
	}
}

host_state() { "$SIM" state "$BATS_FILE_TMPDIR/$1"; }
host_rot() { host_state "$1" | awk '$1 == "rotting" { s += $3 } END { print s + 0 }'; }
host_taint() { host_state "$1" | awk '$1 == "taint" { print $2 }'; }
hosts_of() { awk -v m="$1" 'm == "" || $2 == m { print $1 }' "$BATS_FILE_TMPDIR/hosts.list"; }

snapshot_states() {
	local h
	for h in $(hosts_of ""); do
		host_state "$h" > "$BATS_FILE_TMPDIR/$h.$1"
	done
}

@test "fleet: each host's facts are its own kernel's rot, live modules and taint" {
	local F=$BATS_TEST_TMPDIR h
	"$SIM" create "$F/f01" --mode rot
	"$SIM" populate "$F/f01" --live 4 --rotting 6 --seed 21
	"$SIM" run "$F/f01" -- "$MODREAP" -q pop00002 # taint R
	"$SIM" create "$F/f02" --mode stock
	"$SIM" populate "$F/f02" --live 3 --seed 22
	"$SIM" create "$F/f03" --mode rot
	"$SIM" populate "$F/f03" --live 2 --rotting 3 --seed 23
	printf 'f01 rot 0 0 0 0\nf02 stock 0 0 0 0\nf03 rot 0 0 0 1\n' | write_inventory "$F/inventory" "$F"
	cat > "$F/facts.yml" <<-'PLAY'
		- hosts: fleet
		  gather_facts: false
		  environment: "{{ modrot_env }}"
		  tasks:
		    - modrot.rot.modrot_facts:
		        tools_dir: "{{ modrot_tools_dir }}"
		    - ansible.builtin.copy:
		        dest: "{{ facts_dir }}/{{ inventory_hostname }}.json"
		        content: "{{ modrot | to_json }}"
		        mode: "0644"
		      delegate_to: localhost
	PLAY
	mkdir "$F/facts"
	ANSIBLE_COLLECTIONS_PATH=$ANSIBLE_DIR ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg \
		ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home ANSIBLE_NOCOLOR=1 \
		run ansible-playbook -i "$F/inventory" "$F/facts.yml" -e facts_dir="$F/facts"
	assert_success
	for h in f01 f02 f03; do
		local state facts
		state=$("$SIM" state "$F/$h")
		facts=$F/facts/$h.json
		assert_equal "$(jq -r '.rot_bytes' "$facts")" "$(awk '$1 == "rotting" { s += $3 } END { print s + 0 }' <<< "$state")"
		assert_equal "$(jq -r '.rot_instances' "$facts")" "$(grep -c '^rotting ' <<< "$state")"
		assert_equal "$(jq -r '.rotting | map("\(.name) \(.instances) \(.bytes)") | .[]' "$facts" | sort)" \
			"$(awk '$1 == "rotting" { n[$2]++; b[$2] += $3 } END { for (k in n) print k, n[k], b[k] }' <<< "$state" | sort)"
		assert_equal "$(jq -r '.live_modules | sort | join(" ")' "$facts")" \
			"$(awk '$1 == "live" { print $2 }' <<< "$state" | sort | tr '\n' ' ' | sed 's/ $//')"
		assert_equal "$(jq -r '.live_bytes' "$facts")" "$(awk '$1 == "live" { s += $3 } END { print s + 0 }' <<< "$state")"
		assert_equal "$(jq -r '.taint.value' "$facts")" "$(awk '$1 == "taint" { print $2 }' <<< "$state")"
	done
	assert_equal "$(jq -r '[.rot_supported, .taint.letters, .taint.reclaimed] | join(" ")' "$F/facts/f01.json")" "true R true"
	assert_equal "$(jq -r '[.rot_supported, .rot_bytes, (.rotting | length), .taint.letters] | join(" ")' "$F/facts/f02.json")" "false 0 0 none"
	# Without CAP_SYS_MODULE the facts are the same: reading needs no privilege.
	assert_equal "$(jq -r '.rot_supported' "$F/facts/f03.json")" true
}

@test "fleet: facts, the three worst hosts, a reclaim in batches of two; stock and no-capability hosts fail alone" {
	local h rot ranked
	snapshot_states before
	# The three worst, from the kernels themselves.
	ranked=$(for h in $(hosts_of ""); do echo "$h $(host_rot "$h")"; done |
		sort -k2,2nr -k1,1 | head -3)

	run playbook "$BATS_FILE_TMPDIR/inventory" fleet.yml -e modrot_ceiling=$CEILING \
		-e modrot_report="$BATS_FILE_TMPDIR/report"
	echo "$output" > "$BATS_FILE_TMPDIR/first-run.log"
	assert_failure 2 # ansible-playbook: some hosts failed
	assert_equal "$(cat "$BATS_FILE_TMPDIR/report")" "$ranked"

	# Batches of two, in inventory order: one PLAY header per batch.
	assert_equal "$(grep -c '^PLAY \[Reclaim the hosts above the ceiling\]' <<< "$output")" 4

	# Above the ceiling (h02 h03 h07): reclaimed to it, tainted R.
	for h in h02 h03 h07; do
		assert_recap $h "changed=1"
		assert_recap $h "failed=0"
		rot=$(host_rot $h)
		[ "$rot" -le $CEILING_BYTES ] || fail "$h still has $rot bytes rotting"
		[ $(($(host_taint $h) & 8)) -eq 8 ] || fail "$h is not tainted R"
		"$SIM" ledger "$BATS_FILE_TMPDIR/$h" --check > /dev/null
	done
	# Under it (h01 h06): skipped, untouched.
	for h in h01 h06; do
		assert_recap $h "changed=0"
		assert_recap $h "skipped=1"
		assert_equal "$(host_state $h)" "$(cat "$BATS_FILE_TMPDIR/$h.before")"
	done
	# The stock kernel: a failure of its own, exit 3, nothing changed.
	assert_recap h04 "failed=1"
	assert_output --partial 'fatal: [h04]: FAILED!'
	assert_line --regexp '^fatal: \[h04\].*"msg": "modreap failed with exit 3 \(the kernel lacks what was asked for\): this kernel has no module rot support.*"rc": 3'
	assert_equal "$(host_state h04)" "$(cat "$BATS_FILE_TMPDIR/h04.before")"
	# No CAP_SYS_MODULE: exit 4, a permission failure, nothing changed.
	assert_recap h05 "failed=1"
	assert_line --regexp '^fatal: \[h05\].*"msg": "modreap failed with exit 4 \(permission denied.*Operation not permitted.*"rc": 4'
	assert_equal "$(host_state h05)" "$(cat "$BATS_FILE_TMPDIR/h05.before")"
	# h05 (4th) and h07 (7th) are in different batches: h05's batch went on.
	assert_recap h06 "failed=0"
}

@test "fleet: the second run changes nothing" {
	[ -f "$BATS_FILE_TMPDIR/first-run.log" ] || fail "needs the first run"
	snapshot_states second
	run playbook "$BATS_FILE_TMPDIR/inventory" fleet.yml -e modrot_ceiling=$CEILING
	echo "$output" > "$BATS_FILE_TMPDIR/second-run.log"
	assert_failure 2
	local h
	for h in $(hosts_of ""); do
		assert_recap $h "changed=0"
		assert_equal "$(host_state $h)" "$(cat "$BATS_FILE_TMPDIR/$h.second")"
	done
	assert_recap h04 "failed=1"
	assert_recap h05 "failed=1"
	for h in h01 h02 h03 h06 h07; do
		assert_recap $h "failed=0"
	done
}

@test "fleet: --check --diff reports what would be freed and frees nothing" {
	local F=$BATS_TEST_TMPDIR
	"$SIM" create "$F/c01" --mode rot
	"$SIM" populate "$F/c01" --live 5 --rotting 5 --seed 11
	local before rot
	before=$("$SIM" state "$F/c01")
	rot=$("$SIM" state "$F/c01" | awk '$1 == "rotting" { s += $3 } END { print s + 0 }')
	echo "c01 rot 5 5 11 0" | write_inventory "$F/inventory" "$F"
	run playbook "$F/inventory" fleet.yml -e modrot_ceiling=$CEILING --check --diff
	assert_success
	assert_line --regexp '^changed: \[c01\]'
	# The diff: rot and taint before and after.
	assert_output --partial "\"rot_bytes\": $rot,"
	assert_output --partial '+    "taint": "R"'
	assert_equal "$("$SIM" state "$F/c01")" "$before"
}

@test "fleet: probe loads what present devices need, then a ceiling reclaims what failed" {
	local F=$BATS_TEST_TMPDIR
	"$top_srcdir/tests/fixtures/mkdrivers.sh" 12 "$F/drv" "$F/devices" > /dev/null
	cp "$FIXTURES/failinit.ko" "$F/drv/"
	rm -f "$F/drv/"*.xz "$F/drv/"*.zst
	"$SIM" create "$F/p01" --mode rot --devices "$F/devices"
	"$SIM" create "$F/p02" --mode rot --devices "$F/devices"
	printf 'p01 rot 0 0 0 0\np02 rot 0 0 0 0\n' | write_inventory "$F/inventory" "$F"

	run playbook "$F/inventory" probe.yml -e modrot_modules_glob="$F/drv/*.ko" \
		-e modrot_probe_mode=probe_all -e modrot_ceiling=0
	assert_success
	local k
	for k in p01 p02; do
		# drv00000 and drv00010 found their devices and stay; the rest were
		# unloaded (or failed their init) and their rot was reclaimed.
		assert_equal "$("$SIM" state "$F/$k" | awk '$1 == "live" { print $2 }' | sort | tr '\n' ' ')" \
			"drv00000 drv00010 "
		assert_equal "$("$SIM" state "$F/$k" | awk '$1 == "rotting"' | wc -l)" 0
		[ $(($("$SIM" state "$F/$k" | awk '$1 == "taint" { print $2 }') & 8)) -eq 8 ]
		"$SIM" ledger "$F/$k" --check > /dev/null
	done
	assert_line --regexp '"msg": "loaded=drv00000,drv00001,.*drv00011 unloaded=.*drv00001.* reclaimed=[1-9][0-9]*"'

	# match_devices on a fresh kernel loads only the two that match.
	"$SIM" create "$F/p03" --mode rot --devices "$F/devices"
	echo "p03 rot 0 0 0 0" | write_inventory "$F/inventory" "$F"
	run playbook "$F/inventory" probe.yml -e modrot_modules_glob="$F/drv/drv*.ko"
	assert_success
	assert_line --partial '"msg": "loaded=drv00000,drv00010 unloaded= reclaimed=0"'
	assert_equal "$("$SIM" state "$F/p03" | awk '$1 == "live" { print $2 }' | sort | tr '\n' ' ')" \
		"drv00000 drv00010 "

	# match_devices: a matching driver whose init fails fails the task,
	# with insmod's exit code and message; the other one is loaded.
	"$SIM" create "$F/p04" --mode rot --devices "$F/devices"
	"$SIM" set "$F/p04" drv00010 init_errno=19
	echo "p04 rot 0 0 0 0" | write_inventory "$F/inventory" "$F"
	run playbook "$F/inventory" probe.yml -e modrot_modules_glob="$F/drv/drv*.ko"
	assert_failure 2
	assert_line --regexp '^fatal: \[p04\].*"loaded": \["drv00000"\].*"msg": "insmod could not load 1 module\(s\): drv00010: could not insert module .*drv00010.ko: No such device.*"rc": 1'
	assert_equal "$("$SIM" state "$F/p04" | awk '$1 != "taint" { print $1, $2 }' | sort | tr '\n' ' ')" \
		"live drv00000 rotting drv00010 "
}

@test "fleet: reap by name frees what rots; a name with nothing rotting is ok; the same task again changes nothing" {
	local F=$BATS_TEST_TMPDIR
	"$SIM" create "$F/n01" --mode rot
	"$SIM" populate "$F/n01" --live 4 --rotting 4 --seed 31
	local name bytes left
	name=$("$SIM" state "$F/n01" | awk '$1 == "rotting" { print $2; exit }')
	bytes=$("$SIM" state "$F/n01" | awk -v n="$name" '$1 == "rotting" && $2 == n { s += $3 } END { print s }')
	echo "n01 rot 0 0 0 0" | write_inventory "$F/inventory" "$F"
	cat > "$F/reap.yml" <<-PLAY
		- hosts: fleet
		  gather_facts: false
		  environment: "{{ modrot_env }}"
		  tasks:
		    - modrot.rot.modrot_reap:
		        tools_dir: "{{ modrot_tools_dir }}"
		        names: [$name, nosuch]
		      register: reap
		    - ansible.builtin.debug:
		        msg: "changed={{ reap.changed }} bytes={{ reap.bytes }} not_rotting={{ reap.not_rotting | join(',') }}"
	PLAY
	play() {
		ANSIBLE_COLLECTIONS_PATH=$ANSIBLE_DIR ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg \
			ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home ANSIBLE_NOCOLOR=1 \
			run ansible-playbook -i "$F/inventory" "$F/reap.yml" "$@"
	}
	# check mode predicts the change, and changes nothing
	local before
	before=$("$SIM" state "$F/n01")
	play --check
	assert_success
	assert_line --partial "\"msg\": \"changed=True bytes=$bytes not_rotting=nosuch\""
	assert_equal "$("$SIM" state "$F/n01")" "$before"
	play
	assert_success
	assert_line --partial "\"msg\": \"changed=True bytes=$bytes not_rotting=nosuch\""
	assert_line --regexp '^n01 +: ok=2 +changed=1 +unreachable=0 +failed=0'
	assert_equal "$("$SIM" state "$F/n01" | awk -v n="$name" '$1 == "rotting" && $2 == n' | wc -l)" 0
	assert_equal "$(("$("$SIM" state "$F/n01" | awk '$1 == "taint" { print $2 }')" & 8))" 8
	# nothing of either name rots now: ok, no change, in check mode too
	left=$("$SIM" state "$F/n01")
	play --check
	assert_success
	assert_line --partial "\"msg\": \"changed=False bytes=0 not_rotting=$name,nosuch\""
	play
	assert_success
	assert_line --partial "\"msg\": \"changed=False bytes=0 not_rotting=$name,nosuch\""
	assert_line --regexp '^n01 +: ok=2 +changed=0 +unreachable=0 +failed=0'
	assert_equal "$("$SIM" state "$F/n01")" "$left"
	"$SIM" ledger "$F/n01" --check > /dev/null
}

@test "fleet: probe with a ceiling: check mode predicts the change; run again, nothing changes and present modules are no failure" {
	local F=$BATS_TEST_TMPDIR before
	"$top_srcdir/tests/fixtures/mkdrivers.sh" 12 "$F/drv" "$F/devices" > /dev/null
	rm -f "$F/drv/"*.xz "$F/drv/"*.zst
	"$SIM" create "$F/q01" --mode rot --devices "$F/devices"
	"$SIM" populate "$F/q01" --live 0 --rotting 2 --seed 43
	echo "q01 rot 0 0 0 0" | write_inventory "$F/inventory" "$F"
	cat > "$F/probe.yml" <<-PLAY
		- hosts: fleet
		  gather_facts: false
		  environment: "{{ modrot_env }}"
		  tasks:
		    - modrot.rot.modrot_probe:
		        tools_dir: "{{ modrot_tools_dir }}"
		        modules: "{{ query('ansible.builtin.fileglob', '$F/drv/drv*.ko') | sort }}"
		        ceiling: "0"
		      register: probe
		    - ansible.builtin.debug:
		        msg: "changed={{ probe.changed }} loaded={{ probe.loaded | join(',') }} present={{ probe.present | join(',') }} reclaimed={{ probe.reclaim.instances }}"
	PLAY
	play() {
		ANSIBLE_COLLECTIONS_PATH=$ANSIBLE_DIR ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg \
			ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home ANSIBLE_NOCOLOR=1 \
			run ansible-playbook -i "$F/inventory" "$F/probe.yml" "$@"
	}
	# first, only the rot: the drivers are loaded by hand, so that the
	# check-mode run has nothing to load and its change is the reclaim alone
	"$SIM" run "$F/q01" -- "$top_builddir/tools/insmod" --batch "$F/drv/drv00000.ko" "$F/drv/drv00010.ko"
	before=$("$SIM" state "$F/q01")
	local rot
	rot=$(awk '$1 == "rotting"' <<< "$before" | wc -l)
	[ "$rot" -gt 0 ]
	play --check
	assert_success
	assert_line --partial '"msg": "changed=True loaded= present=drv00000,drv00010 reclaimed='"$rot"'"'
	assert_equal "$("$SIM" state "$F/q01")" "$before"
	play
	assert_success
	assert_line --partial '"msg": "changed=True loaded= present=drv00000,drv00010 reclaimed='"$rot"'"'
	assert_equal "$("$SIM" state "$F/q01" | awk '$1 == "rotting"' | wc -l)" 0
	# the same task again: nothing to load, nothing to reclaim
	before=$("$SIM" state "$F/q01")
	play --check
	assert_success
	assert_line --partial '"msg": "changed=False loaded= present=drv00000,drv00010 reclaimed=0"'
	play
	assert_success
	assert_line --partial '"msg": "changed=False loaded= present=drv00000,drv00010 reclaimed=0"'
	assert_line --regexp '^q01 +: ok=2 +changed=0 +unreachable=0 +failed=0'
	assert_equal "$("$SIM" state "$F/q01")" "$before"
	"$SIM" ledger "$F/q01" --check > /dev/null
}

# run_task F TASK-YAML EXTRA-VARS-JSON: one task of the collection on host
# h01 (a fresh rot kernel in F/h01 with two rotting names), as fleet.yml
# runs its tasks.
run_task() {
	local F=$1
	[ -d "$F/h01" ] || {
		"$SIM" create "$F/h01" --mode rot
		"$SIM" populate "$F/h01" --live 2 --rotting 2 --seed 41
		echo "h01 rot 0 0 0 0" | write_inventory "$F/inventory" "$F"
	}
	cat > "$F/task.yml" <<-PLAY
		- hosts: fleet
		  gather_facts: false
		  environment: "{{ modrot_env }}"
		  tasks:
		    - $2
	PLAY
	ANSIBLE_COLLECTIONS_PATH=$ANSIBLE_DIR ANSIBLE_CONFIG=$BATS_FILE_TMPDIR/ansible.cfg \
		ANSIBLE_HOME=$BATS_FILE_TMPDIR/ansible-home ANSIBLE_NOCOLOR=1 \
		run ansible-playbook -i "$F/inventory" "$F/task.yml" -e "$3"
}

@test "fleet: probe refuses modules that are options or not module files (-f, --foo, a newline) and runs nothing" {
	local F=$BATS_TEST_TMPDIR before item
	for item in '"-f"' '"--foo"' '"--force-vermagic"' '"a\nb.ko"' '"x.ko\u001b[2J"'; do
		run_task "$F" 'modrot.rot.modrot_probe: { tools_dir: "{{ modrot_tools_dir }}", modules: "{{ mods }}", mode: probe_all }' \
			"{\"mods\": [$item, \"$FIXTURES/delta.ko\"]}"
		[ -n "${before:-}" ] || before=$("$SIM" state "$F/h01")
		assert_failure 2
		assert_line --regexp '^fatal: \[h01\].*"msg": "modules: .* is not a module file: '
		refute_output --partial '"loaded"'
		assert_equal "$("$SIM" state "$F/h01")" "$before"
	done
	assert_equal "$("$SIM" state "$F/h01" | awk '$1 == "live" && $2 == "delta"' | wc -l)" 0
}

@test "fleet: probe ends insmod's options before the files: '--foo.ko' is a file, a path with blanks one argument" {
	local F=$BATS_TEST_TMPDIR
	cp "$FIXTURES/delta.ko" "$F/my delta.ko"
	run_task "$F" 'modrot.rot.modrot_probe: { tools_dir: "{{ modrot_tools_dir }}", modules: "{{ mods }}", mode: probe_all }' \
		"{\"mods\": [\"--foo.ko\", \"$F/my delta.ko\"]}"
	assert_failure 2
	# delta, loaded, found nothing and was unloaded again (probe_all).
	assert_line --regexp '^fatal: \[h01\].*"loaded": \["delta"\].*"msg": "insmod could not load 1 module\(s\): --foo.ko: could not read --foo.ko: No such file or directory'
	refute_output --partial 'unknown option'
	refute_output --partial 'options go before'
	"$SIM" ledger "$F/h01" --check > /dev/null
}

@test "fleet: reap refuses names that are options or not module names (-f, --foo, blanks, a newline), freeing nothing" {
	local F=$BATS_TEST_TMPDIR before name item
	for item in '"-f"' '"--all"' '"a b"' '"a\nb"' '"a/b"'; do
		run_task "$F" 'modrot.rot.modrot_reap: { tools_dir: "{{ modrot_tools_dir }}", names: "{{ mods }}" }' \
			"{\"mods\": [$item]}"
		[ -n "${before:-}" ] || before=$("$SIM" state "$F/h01")
		assert_failure 2
		assert_line --regexp '^fatal: \[h01\].*"msg": "names: .* is not a module name: '
		assert_equal "$("$SIM" state "$F/h01")" "$before"
	done
	name=$("$SIM" state "$F/h01" | awk '$1 == "rotting" { print $2; exit }')
	[ -n "$name" ]
}

@test "fleet: a ceiling that is not a size fails probe and reap before any tool runs" {
	local F=$BATS_TEST_TMPDIR before
	run_task "$F" 'modrot.rot.modrot_reap: { tools_dir: "{{ modrot_tools_dir }}", ceiling: "{{ c }}" }' '{"c": "-1"}'
	before=$("$SIM" state "$F/h01")
	assert_failure 2
	assert_line --regexp '"msg": "ceiling: .-1. is not a size such as 16M"'
	run_task "$F" 'modrot.rot.modrot_probe: { tools_dir: "{{ modrot_tools_dir }}", modules: ["'"$FIXTURES/delta.ko"'"], ceiling: "{{ c }}" }' '{"c": "--all"}'
	assert_failure 2
	assert_line --regexp '"msg": "ceiling: .--all. is not a size such as 16M"'
	assert_equal "$("$SIM" state "$F/h01")" "$before"
}
