#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# modrot-metrics: the metrics match the simulated kernel, promtool accepts
# them, -o replaces a file atomically, hostile names are escaped; the
# alerting rules pass promtool's checks and their unit tests.

load helpers/tools
load helpers/packages

METRICS=$top_builddir/tools/modrot-metrics
RULES=$top_srcdir/prometheus

setup_file() {
	need_packages prometheus
}

# The value of one sample line, by its exact name and labels.
sample() { awk -v s="$1" '$1 == s { print $2 }' <<< "$output"; }

@test "metrics: per-name rot, totals and taint match the kernel; promtool accepts them" {
	kernel_new rot
	"$SIM" populate "$K" --live 6 --rotting 5 --seed 3
	kmod_load alpha delta
	kmod_unload delta
	on_kernel "$MODREAP" -q pop00001
	run on_kernel "$METRICS"
	assert_success
	local name
	for name in $(kernel_state | awk '$1 == "rotting" { print $2 }' | sort -u); do
		assert_equal "$(sample "modrot_rotting_bytes{name=\"$name\"}")" "$(rotting_bytes "$name")"
		assert_equal "$(sample "modrot_rotting_instances{name=\"$name\"}")" "$(rotting_count "$name")"
	done
	assert_equal "$(grep -c '^modrot_rotting_bytes{' <<< "$output")" \
		"$(kernel_state | awk '$1 == "rotting" { print $2 }' | sort -u | wc -l)"
	assert_equal "$(sample modrot_rot_bytes)" "$(rotting_bytes)"
	assert_equal "$(sample modrot_rot_instances)" "$(rotting_count)"
	assert_equal "$(sample modrot_kernel_rot_supported)" 1
	assert_equal "$(sample modrot_live_modules)" "$(kernel_state | grep -c '^live ')"
	assert_equal "$(sample modrot_live_bytes)" "$(kernel_state | awk '$1 == "live" { s += $3 } END { print s }')"
	assert_equal "$(sample modrot_kernel_taint_mask)" "$(taint)"
	# One series per bit: exactly the bits of the mask are 1.
	local bit letter
	for bit in $(seq 0 18); do
		letter=$(LC_ALL=C awk -v b="$bit" 'BEGIN { print substr("PFSRMBUDAWCIOELKXTN", b + 1, 1) }')
		assert_equal "$(sample "modrot_kernel_taint{bit=\"$bit\",letter=\"$letter\"}")" \
			$((($(taint) >> bit) & 1))
	done
	assert_equal "$(sample 'modrot_kernel_taint{bit="3",letter="R"}')" 1
	run promtool check metrics <<< "$output"
	assert_success
	assert_output ""
}

@test "metrics: the per-CPU reserve, and what each rotting name keeps of it, match /proc/module_percpu" {
	kernel_new rot
	local i
	# pcpu1500 rots twice (3000 bytes a CPU), pcpu512 once, delta (none) once.
	for i in 1 2; do kmod_load pcpu1500 && kmod_unload pcpu1500; done
	kmod_load pcpu512 && kmod_unload pcpu512
	kmod_load delta && kmod_unload delta
	kmod_load pcpu512 # live: takes from the reserve, keeps nothing rotting
	local line
	line=$(on_kernel cat /proc/module_percpu | head -n1) # reserve SIZE free FREE largest LARGEST
	run --separate-stderr on_kernel "$METRICS"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(sample modrot_percpu_reserve_bytes)" "$(awk '{ print $2 }' <<< "$line")"
	assert_equal "$(sample modrot_percpu_reserve_free_bytes)" "$(awk '{ print $4 }' <<< "$line")"
	assert_equal "$(sample modrot_percpu_reserve_largest_free_bytes)" "$(awk '{ print $6 }' <<< "$line")"
	assert_equal "$(sample modrot_percpu_reserve_bytes)" 8192
	assert_equal "$(sample 'modrot_rotting_percpu_bytes{name="pcpu1500"}')" 3000
	assert_equal "$(sample 'modrot_rotting_percpu_bytes{name="pcpu512"}')" 512
	assert_equal "$(grep -c '^modrot_rotting_percpu_bytes{' <<< "$output")" 2 # delta holds none
	assert_equal "$(sample modrot_rot_percpu_bytes)" 3512
	# free = reserve - rotting - the live pcpu512's 512
	assert_equal "$(sample modrot_percpu_reserve_free_bytes)" $((8192 - 3512 - 512))
	run promtool check metrics <<< "$output"
	assert_success
	assert_output ""
}

@test "metrics: a rot kernel without /proc/module_percpu has no reserve series, and no warning" {
	kernel_new rot
	kmod_load pcpu512 && kmod_unload pcpu512
	on_kernel cat /proc/module_percpu >/dev/null # rendered now, not again until a change
	rm "$K/root/proc/module_percpu" "$K/root/.nocap/proc/module_percpu"
	run --separate-stderr on_kernel "$METRICS"
	assert_success
	assert_equal "$stderr" ""
	refute_output --partial percpu
	assert_equal "$(sample modrot_rot_instances)" 1
}

@test "metrics: a /proc/module_percpu that cannot be parsed is one warning, exit 1, the rest written" {
	kernel_new rot
	kmod_load pcpu512 && kmod_unload pcpu512
	on_kernel cat /proc/module_percpu >/dev/null
	local f
	for f in "$K/root/proc/module_percpu" "$K/root/.nocap/proc/module_percpu"; do
		[ ! -e "$f" ] || echo "reserve lots" > "$f"
	done
	run --separate-stderr on_kernel "$METRICS"
	assert_failure 1
	assert_equal "$(wc -l <<< "$stderr")" 1
	assert_regex "$stderr" '^modrot-metrics: WARNING: could not read the per-CPU module reserve: .*; its metrics are left out$'
	refute_output --partial percpu
	assert_equal "$(sample modrot_rot_instances)" 1
	assert_equal "$(sample 'modrot_kernel_taint{bit="3",letter="R"}')" 0
}

@test "metrics: a stock kernel reports no rot support and no rot series" {
	kernel_new stock
	kmod_load alpha delta
	run on_kernel "$METRICS"
	assert_success
	assert_equal "$(sample modrot_kernel_rot_supported)" 0
	assert_equal "$(sample modrot_live_modules)" 2
	refute_output --partial "modrot_rot"
	refute_output --partial "percpu"
	run promtool check metrics <<< "$output"
	assert_success
}

@test "metrics: hostile module names are escaped, and promtool accepts them" {
	kernel_new rot
	# failinit under an 8-byte name with a quote, a backslash and a byte
	# that is not UTF-8: its init fails, so it rots under that name.
	/usr/bin/python3 - "$FIXTURES/failinit.ko" "$BATS_TEST_TMPDIR/hostile.ko" <<-'PY'
		import sys
		data = open(sys.argv[1], 'rb').read()
		assert data.count(b'name=failinit') == 1
		open(sys.argv[2], 'wb').write(data.replace(b'name=failinit', b'name=f"\\\xffinit'))
	PY
	run on_kernel "$KMOD_INSMOD" "$BATS_TEST_TMPDIR/hostile.ko"
	assert_failure
	assert_equal "$(rotting_count)" 1
	run on_kernel "$METRICS"
	assert_success
	assert_line 'modrot_rotting_bytes{name="f\"\\\\\\xFFinit"} 2251'
	assert_line 'modrot_rotting_instances{name="f\"\\\\\\xFFinit"} 1'
	run promtool check metrics <<< "$output"
	assert_success
	# The control: the raw name, unescaped, is rejected.
	run promtool check metrics <<< $'# HELP x y\n# TYPE x gauge\nx{name="f"\\\xffinit"} 1\n'
	assert_failure
}

@test "metrics: -o replaces the file atomically, readable by all, and leaves no temporary file" {
	kernel_new rot
	"$SIM" populate "$K" --live 3 --rotting 2 --seed 5
	local dir=$BATS_TEST_TMPDIR/textfile
	mkdir "$dir"
	echo "old" > "$dir/modrot.prom"
	local inode
	inode=$(stat -c %i "$dir/modrot.prom")
	run on_kernel "$METRICS" -o "$dir/modrot.prom"
	assert_success
	assert_output ""
	assert_equal "$(ls -A "$dir")" "modrot.prom"
	assert_equal "$(stat -c %a "$dir/modrot.prom")" 644
	[ "$(stat -c %i "$dir/modrot.prom")" != "$inode" ] # renamed in, not rewritten
	run on_kernel "$METRICS"
	assert_equal "$(cat "$dir/modrot.prom")" "$output"
	run promtool check metrics < "$dir/modrot.prom"
	assert_success
}

@test "metrics: -o into a directory that cannot be written fails and changes nothing" {
	kernel_new rot
	local dir=$BATS_TEST_TMPDIR/ro
	mkdir "$dir"
	echo "old" > "$dir/modrot.prom"
	run on_kernel "$METRICS" -o "$dir/missing/modrot.prom"
	assert_failure 1
	assert_output "modrot-metrics: ERROR: could not write $dir/missing/modrot.prom: cannot create a file in $dir/missing: No such file or directory"
	chmod a-w "$dir"
	if [ ! -w "$dir" ]; then # root writes anyway
		run on_kernel "$METRICS" -o "$dir/modrot.prom"
		assert_failure 1
		assert_output --partial "could not write $dir/modrot.prom"
	fi
	chmod u+w "$dir"
	assert_equal "$(cat "$dir/modrot.prom")" "old"
	assert_equal "$(ls -A "$dir")" "modrot.prom"
}

@test "metrics: --ceiling exports the host's ceiling; build_info names the version; promtool accepts them" {
	kernel_new rot
	"$SIM" populate "$K" --live 2 --rotting 2 --seed 3
	run on_kernel "$METRICS" --ceiling 64M
	assert_success
	assert_equal "$(sample modrot_ceiling_bytes)" 67108864
	assert_equal "$(sample "modrot_build_info{version=\"$("$METRICS" --version | awk '{ print $3 }')\"}")" 1
	run promtool check metrics <<< "$output"
	assert_success
	run on_kernel "$METRICS" -c 512K
	assert_equal "$(sample modrot_ceiling_bytes)" 524288
	run on_kernel "$METRICS"
	assert_success
	refute_line --partial modrot_ceiling_bytes
	assert_line --regexp '^modrot_build_info\{version="[^"]+"\} 1$'
	before=$(kernel_state)
	run --separate-stderr on_kernel "$METRICS" --ceiling lots -o "$BATS_TEST_TMPDIR/m.prom"
	assert_equal "$status" 2
	assert_equal "$stderr" "modrot-metrics: ERROR: 'lots' is not a size (64M, 512K, 4096) (see 'modrot-metrics --help')"
	assert_file_not_exist "$BATS_TEST_TMPDIR/m.prom"
	assert_equal "$(kernel_state)" "$before"
}

@test "metrics: usage errors exit 2 and write nothing" {
	kernel_new rot
	run on_kernel "$METRICS" extra
	assert_failure 2
	assert_output "modrot-metrics: ERROR: unexpected argument 'extra' (see 'modrot-metrics --help')"
	run on_kernel "$METRICS" -o ""
	assert_failure 2
	run on_kernel "$METRICS" --bogus
	assert_failure 2
	run on_kernel "$METRICS" -o
	assert_failure 2
}

@test "metrics: a kernel without module support exits 3 and leaves the file alone" {
	# The host kernel here has no module support; the simulator always has.
	[ ! -e /proc/modules ] || skip "this host kernel has /proc/modules"
	echo old > "$BATS_TEST_TMPDIR/modrot.prom"
	run "$METRICS" -o "$BATS_TEST_TMPDIR/modrot.prom"
	assert_failure 3
	assert_output "modrot-metrics: ERROR: this kernel has no module support (/proc/modules is missing)"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/modrot.prom")" old
	assert_equal "$(ls -A "$BATS_TEST_TMPDIR" | grep -c prom)" 1
}

@test "metrics: valgrind finds no error or leak" {
	skip_if_sanitized
	kernel_new rot
	"$SIM" populate "$K" --live 3 --rotting 3 --seed 9
	valgrind_clean "$METRICS"
	assert_success
	valgrind_clean "$METRICS" -o "$BATS_TEST_TMPDIR/m.prom"
	assert_success
}

@test "metrics: modrot-metrics.8 renders, without warnings, and documents every option and exit status" {
	local page=$top_builddir/man/modrot-metrics.8
	run bash -c "LC_ALL=C.UTF-8 groff -t -man -Tutf8 -ww -z '$page' 2>&1"
	assert_output ""
	run bash -c "LC_ALL=C.UTF-8 MANWIDTH=80 man --nh --nj -l '$page' | col -b"
	assert_line --regexp '^ +modrot-metrics - the kernel.s module rot as Prometheus metrics'
	local opt
	for opt in $("$METRICS" --help | grep -oE -- '--[a-z-]+' | sort -u); do
		assert_line --regexp "(^| )$opt( |,|$)"
	done
	for opt in 0 1 2 3; do
		assert_line --regexp "^ +$opt\$"
	done
}

@test "alerting rules: promtool check rules and promtool test rules pass" {
	run promtool check rules "$RULES/modrot-alerts.yml"
	assert_success
	assert_output --partial "SUCCESS: 6 rules found"
	# each host's own ceiling, no figure written into a rule; every alert
	# says where its runbook is
	run grep -c 'runbook_url: "man:' "$RULES/modrot-alerts.yml"
	assert_output 6
	run grep -E 'expr:.*[0-9]+ *\* *1024' "$RULES/modrot-alerts.yml"
	assert_failure
	cd "$RULES"
	run promtool test rules modrot-alerts.test.yml
	assert_success
	assert_output --partial "SUCCESS"
}

@test "grafana dashboard: valid JSON, provisioned from a file; every expression parses and names metrics modrot-metrics writes" {
	kernel_new rot
	kmod_load pcpu512 && kmod_unload pcpu512 # every family is written: rot and the reserve
	run on_kernel "$METRICS"
	assert_success
	grep '^# TYPE ' <<< "$output" | awk '{ print $3 }' | sort -u > "$BATS_TEST_TMPDIR/families"
	run /usr/bin/python3 - "$RULES/grafana/modrot-dashboard.json" "$RULES/grafana/modrot-dashboards.yml" \
		"$BATS_TEST_TMPDIR/families" "$BATS_TEST_TMPDIR/exprs.yml" <<-'PY'
		import json, re, sys, yaml
		dash = json.load(open(sys.argv[1]))
		prov = yaml.safe_load(open(sys.argv[2]))
		families = set(open(sys.argv[3]).read().split())
		p = prov["providers"][0]
		assert prov["apiVersion"] == 1 and p["type"] == "file" and p["options"]["path"], prov
		assert dash["uid"] and dash["title"]
		exprs = [t["expr"] for panel in dash["panels"] for t in panel["targets"]]
		exprs += [v["query"]["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
		names = set()
		for e in exprs:
		    names |= set(re.findall(r"\b((?:modrot|node)_[a-z0-9_]+)", e))
		# node_exporter's own: the textfile collector's modification time
		foreign = {"node_textfile_mtime_seconds"}
		missing = sorted(names - families - foreign)
		assert not missing, "not written by modrot-metrics: %s" % missing
		# what the dashboard is for: rot bytes, the reserve, the taint, per host
		for want in ("modrot_rot_bytes", "modrot_percpu_reserve_free_bytes", "modrot_kernel_taint"):
		    assert want in names, want
		for panel in dash["panels"]:
		    for t in panel["targets"]:
		        assert 'instance=~"$instance"' in t["expr"] and "{{instance}}" in t["legendFormat"], t
		# PromQL syntax, checked by promtool as recording rules
		rules = [{"record": "dashboard:expr%d" % i, "expr": e.replace("$instance", ".*")}
		         for i, e in enumerate(exprs) if not e.startswith("label_values(")]
		yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[4], "w"))
		print("%d expressions, %d metrics" % (len(exprs), len(names)))
	PY
	assert_success
	assert_output --regexp '^[0-9]+ expressions, [0-9]+ metrics$'
	run promtool check rules "$BATS_TEST_TMPDIR/exprs.yml"
	assert_success
	# the control: a misspelt metric is caught
	sed 's/modrot_rot_bytes/modrot_rot_byte/' "$RULES/grafana/modrot-dashboard.json" > "$BATS_TEST_TMPDIR/bad.json"
	run /usr/bin/python3 -c '
import json, re, sys
names = set(re.findall(r"\b(modrot_[a-z0-9_]+)", open(sys.argv[1]).read()))
sys.exit(1 if names - set(open(sys.argv[2]).read().split()) else 0)' "$BATS_TEST_TMPDIR/bad.json" "$BATS_TEST_TMPDIR/families"
	assert_failure 1
}

# Grafana's own schema for the dashboard: @grafana/schema's types, checked
# by tsc in strict mode, both at the versions tests/grafana pins, fetched
# by scripts/check.sh (tests/grafana/README.md).
SCHEMA_CHECK=$top_srcdir/tests/grafana/check-dashboard.sh
pinned() { jq -r --arg p "$1" '.devDependencies[$p]' "$top_srcdir/tests/grafana/package.json"; }

@test "grafana dashboard: conforms to Grafana's published dashboard schema (@grafana/schema, tsc --strict)" {
	need_packages nodejs
	run "$SCHEMA_CHECK" "$RULES/grafana/modrot-dashboard.json"
	assert_success
	assert_output "$RULES/grafana/modrot-dashboard.json: conforms to Grafana's dashboard schema (@grafana/schema $(pinned @grafana/schema), tsc $(pinned typescript) --strict)"
}

@test "grafana dashboard schema check: a wrong-typed field, an unknown key, a misspelt value or a missing one each fail it, at its line" {
	need_packages nodejs
	local d=$BATS_TEST_TMPDIR f line
	# each broken copy: jq's edit, and the text of the line the error names
	local -a edits=(
		'.panels[0].gridPos.w = "12"' '"w": "12"'
		'.panels[1].title = 2' '"title": 2'
		'.panels[0].options.legend.displayMode = "tabel"' '"displayMode": "tabel"'
		'.panels[0].fieldConfig.defaults.custom = {"lineWidht": 2}' '"lineWidht": 2'
		'.panels[2].fieldConfig.defaults.mappings[0].type = "valu"' '"type": "valu"'
		'.panels[3].titel = "x"' '"titel": "x"'
		'.panels[4].targets[0].expr = 1' '"expr": 1'
		'.templating.list[1].refresh = 9' '"refresh": 9'
		'.panels[5].type = "graph"' '"type": "graph"'
		'.refesh = "1m"' '"refesh": "1m"'
	)
	jq . "$RULES/grafana/modrot-dashboard.json" > "$d/good.json"
	jq 'del(.panels[0].targets[0].refId)' "$RULES/grafana/modrot-dashboard.json" > "$d/bad-norefid.json"
	local i
	for ((i = 0; i < ${#edits[@]}; i += 2)); do
		jq "${edits[i]}" "$RULES/grafana/modrot-dashboard.json" > "$d/bad$i.json"
		grep -qF "${edits[i + 1]}" "$d/bad$i.json"
	done
	printf '{"title": "x", "schemaVersion": 39,}\n' > "$d/notjson.json"
	run "$SCHEMA_CHECK" "$d/notjson.json"
	assert_failure 1
	assert_output --regexp "^$d/notjson.json: not JSON: "
	run "$SCHEMA_CHECK" "$d/good.json" "$d"/bad*.json
	assert_failure 1
	refute_output --partial good.json
	for ((i = 0; i < ${#edits[@]}; i += 2)); do
		f=$d/bad$i.json
		line=$(grep -nF "${edits[i + 1]}" "$f" | cut -d: -f1)
		assert_line --regexp "^$f\\($line,[0-9]+\\): error TS[0-9]+: "
	done
	assert_line --regexp "^$d/bad-norefid.json\\([0-9]+,[0-9]+\\): error TS[0-9]+: Property 'refId' is missing"
	run grep -c ': error TS' <<< "$output"
	assert_output $((${#edits[@]} / 2 + 1))
}

@test "metrics: two names that escaped alike (a byte 0xff and the text \\xFF) are two series" {
	kernel_new rot
	/usr/bin/python3 - "$FIXTURES/failinit.ko" "$BATS_TEST_TMPDIR" <<-'PY'
		import sys
		data = open(sys.argv[1], 'rb').read()
		open(sys.argv[2] + '/text.ko', 'wb').write(data.replace(b'name=failinit\0', b'name=f\\xFFnit\0'))
		open(sys.argv[2] + '/byte.ko', 'wb').write(data.replace(b'name=failinit\0', b'name=f\xffnit\0\0\0\0'))
	PY
	on_kernel "$KMOD_INSMOD" "$BATS_TEST_TMPDIR/text.ko" 2>/dev/null || :
	on_kernel "$KMOD_INSMOD" "$BATS_TEST_TMPDIR/byte.ko" 2>/dev/null || :
	assert_equal "$(rotting_count)" 2
	run on_kernel "$METRICS"
	assert_success
	assert_line 'modrot_rotting_instances{name="f\\\\xFFnit"} 1'
	assert_line 'modrot_rotting_instances{name="f\\xFFnit"} 1'
	assert_equal "$(grep -c '^modrot_rotting_instances{' <<< "$output")" 2
	run promtool check metrics <<< "$output"
	assert_success
}

@test "metrics: -o refuses a FIFO, a device, a directory and links to them: one line, exit 1, nothing written" {
	kernel_new rot
	local t=$BATS_TEST_TMPDIR/textfile
	mkdir "$t"
	mkfifo "$t/fifo.prom"
	mkdir "$t/dir.prom"
	ln -s /dev/null "$t/null.prom"
	ln -s "$t/fifo.prom" "$t/tofifo.prom"
	local before
	before=$(ls -lA "$t")
	local target
	for target in "$t/fifo.prom:a fifo" /dev/null:"a character device" "$t/dir.prom:a directory" \
		"$t/null.prom:a character device" "$t/tofifo.prom:a fifo"; do
		run --separate-stderr timeout 10 "$SIM" run "$K" -- "$METRICS" -o "${target%%:*}"
		assert_equal "$status" 1
		assert_equal "$stderr" "modrot-metrics: ERROR: could not write ${target%%:*}: ${target#*:}, not a regular file"
		assert_output ""
	done
	assert_equal "$(ls -lA "$t")" "$before"
	[ -p "$t/fifo.prom" ] && [ -L "$t/null.prom" ] && [ -c /dev/null ]
}

@test "metrics: -o writes a 250-byte file name, its temporary name cut to fit NAME_MAX" {
	kernel_new rot
	local dir=$BATS_TEST_TMPDIR/textfile name
	mkdir "$dir"
	name=$(printf 'm%.0s' $(seq 245)).prom
	run --separate-stderr on_kernel "$METRICS" -o "$dir/$name"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(ls -A "$dir")" "$name"
	run on_kernel "$METRICS"
	assert_equal "$(cat "$dir/$name")" "$output"
}

@test "metrics: a full standard output is one line with its errno, exit 1" {
	kernel_new rot
	"$SIM" populate "$K" --live 3 --rotting 2 --seed 5
	run --separate-stderr on_kernel sh -c '"$@" > /dev/full' sh "$METRICS"
	assert_equal "$status" 1
	assert_equal "$stderr" "modrot-metrics: ERROR: could not write to standard output: No space left on device"
	run --separate-stderr on_kernel sh -c '"$@" >&-' sh "$METRICS"
	assert_equal "$status" 1
	assert_equal "$stderr" "modrot-metrics: ERROR: could not write to standard output: Bad file descriptor"
}
