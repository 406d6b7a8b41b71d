#!/usr/bin/env bats
# One JSON schema and one vocabulary for every tool (modrot(7)): one object
# per run, real booleans, [] for empty lists, "" for no taint, the same
# summary members everywhere, every key in modrot(7)'s JSON VOCABULARY and
# tools/cli/json-keys.h, summaries that are the sums of their records, and a
# reason for each refusal; values checked against the simulated kernel.

bats_require_minimum_version 1.5.0

load helpers/tools

INSMOD=$top_builddir/tools/insmod
MODINFO=$top_builddir/tools/modinfo
MAN7=$top_srcdir/man/modrot.7.scd
COMMON='["dry_run","failures","taint_after","taint_after_value","taint_before","taint_before_value"]'

setup() {
	kernel_new rot
}

# The common summary members, with their types, of the JSON in $1.
common_summary() {
	jq -c '.summary | {dry_run, failures, taint_before, taint_before_value, taint_after, taint_after_value}
		| [to_entries[] | .value | type]' <<<"$1"
}

assert_one_document() {
	assert_equal "$(jq -s length <<<"$1")" 1
}

@test "lsmod -J -o name,permanent says what the text output says, as booleans" {
	kmod_load permanent delta
	run --separate-stderr on_kernel "$LSMOD" -o name,permanent -n
	assert_success
	text=$(awk '{ print $1, $2 }' <<<"$output")
	assert_equal "$text" "$(printf 'delta false\npermanent true')"
	run --separate-stderr on_kernel "$LSMOD" -J -o name,permanent
	assert_success
	assert_equal "$(jq -r '.modules[] | "\(.name) \(.permanent)"' <<<"$output")" "$text"
	assert_equal "$(jq -r '[.modules[].permanent | type] | unique | join(",")' <<<"$output")" boolean
	assert_equal "$(kernel_state | awk '$2 == "permanent" { print $NF }')" permanent=1
}

@test "lsmod -J gives every column its type: [] for no holders, \"\" for no taint, no null" {
	kmod_load alpha beta oot
	kmod_unload oot
	run --separate-stderr on_kernel "$LSMOD" -J -o name,size,refcnt,holders,state,address,taints,permanent,devices
	assert_success
	assert_one_document "$output"
	assert_equal "$(jq '[.. | nulls] | length' <<<"$output")" 0
	assert_equal "$(jq -c '[.modules[0] | to_entries[] | .value | type]' <<<"$output")" \
		'["string","number","number","array","string","string","string","boolean","number"]'
	assert_equal "$(jq -c '.modules[] | select(.name == "beta") | .holders' <<<"$output")" '[]'
	assert_equal "$(jq -c '.modules[] | select(.name == "alpha") | .holders' <<<"$output")" '["beta"]'
	assert_equal "$(jq -r '.modules[] | select(.name == "alpha") | .taints' <<<"$output")" ""
	assert_equal "$(jq -r '.modules[] | select(.name == "oot") | "\(.taints) \(.state) \(.bytes)"' <<<"$output")" \
		"O rotting $(rotting_bytes oot)"
	assert_equal "$(jq '.modules[] | select(.name == "alpha") | .bytes' <<<"$output")" "$(live_size alpha)"
}

@test "modrot(7)'s example sums the rotting bytes from lsmod -J" {
	kmod_load delta alpha
	kmod_unload delta alpha
	cmd=$(grep -o "^lsmod -J --rotting .*| jq '.*'\$" "$MAN7")
	[ -n "$cmd" ]
	run --separate-stderr on_kernel bash -c "PATH=$top_builddir/tools:\$PATH; $cmd"
	assert_success
	assert_output "$(rotting_bytes)"
	[ "$output" -gt 0 ]
}

@test "lsmod -J of a kernel with no modules is an empty array" {
	run --separate-stderr on_kernel "$LSMOD" -J
	assert_success
	assert_equal "$(jq -c . <<<"$output")" '{"modules":[]}'
}

@test "every modreap mode has the same summary members, with the kernel's taint" {
	kmod_load delta alpha
	kmod_unload delta alpha
	before=$(kernel_state)
	for args in "-J" "-n -a -J" "-J -n delta"; do
		# shellcheck disable=SC2086
		run --separate-stderr on_kernel "$MODREAP" $args
		assert_success
		assert_one_document "$output"
		assert_equal "$(jq -c '.summary | keys | map(select(IN('"$COMMON"'[])))' <<<"$output")" "$COMMON"
		assert_equal "$(common_summary "$output")" '["boolean","number","string","number","string","number"]'
		assert_equal "$(jq '.summary.taint_before_value' <<<"$output")" 0
		assert_equal "$(jq -r '.summary.taint_before' <<<"$output")" ""
	done
	assert_equal "$(jq -c '.summary | [.dry_run, .taint_after, .taint_after_value]' <<<"$output")" '[true,"R",8]'
	assert_equal "$(kernel_state)" "$before"
	run --separate-stderr on_kernel "$MODREAP" -J
	assert_equal "$(jq -c '.summary | [.dry_run, .taint_after, .rotting_names, .rotting_instances, .rotting_bytes]' <<<"$output")" \
		"[false,\"\",2,2,$(rotting_bytes)]"
	run --separate-stderr on_kernel "$MODREAP" -a -J
	assert_success
	assert_equal "$(jq -c '.summary | [.dry_run, .taint_before, .taint_after, .taint_after_value, .rotting_bytes, .failures]' <<<"$output")" \
		"[false,\"\",\"R\",$(taint),0,0]"
	assert_equal "$(jq -c '[.reclaimed[].name] | sort' <<<"$output")" '["alpha","delta"]'
	assert_equal "$(rotting_count)" 0
}

@test "modreap -J with nothing to reclaim gives an empty array, not null" {
	run --separate-stderr on_kernel "$MODREAP" -a -J
	assert_success
	assert_equal "$(jq -c '.reclaimed' <<<"$output")" '[]'
	run --separate-stderr on_kernel "$MODREAP" -J
	assert_equal "$(jq -c '.rotting' <<<"$output")" '[]'
	assert_equal "$(jq '[.. | nulls] | length' <<<"$output")" 0
}

@test "insmod -J has the same summary members, with the taint a module adds" {
	run --separate-stderr on_kernel "$INSMOD" --batch -J "$FIXTURES/oot.ko" "$FIXTURES/delta.ko"
	assert_success
	assert_one_document "$output"
	assert_equal "$(common_summary "$output")" '["boolean","number","string","number","string","number"]'
	assert_equal "$(jq -c '.summary | [.dry_run, .failures, .taint_before, .taint_after, .taint_after_value, .loaded]' <<<"$output")" \
		"[false,0,\"\",\"O\",$(taint),2]"
	is_live oot
	run --separate-stderr on_kernel "$INSMOD" --check -J "$FIXTURES/alpha.ko"
	assert_success
	assert_equal "$(jq -c '.summary | [.dry_run, .ok, .loaded]' <<<"$output")" '[true,1,0]'
	assert_equal "$(jq -c '.modules[0] | [.result, .errno, .error, .message]' <<<"$output")" '["ok",0,"",""]'
}

@test "rmmod -J records each unload, reclaim and failure, with the common summary" {
	kmod_load alpha beta delta
	kmod_unload delta
	delta=$(rotting_bytes delta)
	beta=$(live_size beta)
	run --separate-stderr on_kernel "$RMMOD" -J --reclaim delta beta nosuch
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	assert_one_document "$output"
	assert_equal "$(jq -c '[.modules[] | [.name, .result, .unloaded_bytes, .reclaimed_instances, .reclaimed_bytes]]' <<<"$output")" \
		"[[\"delta\",\"reclaimed\",0,1,$delta],[\"beta\",\"unloaded\",$beta,0,0],[\"beta\",\"reclaimed\",0,1,$beta],[\"nosuch\",\"failed\",0,0,0]]"
	assert_equal "$(jq -c '.modules[3] | [.reason, .errno, .error, .message]' <<<"$output")" \
		'["no_rotting_instances",2,"ENOENT","Module nosuch has no rotting instances and is not currently loaded"]'
	assert_equal "$(common_summary "$output")" '["boolean","number","string","number","string","number"]'
	assert_equal "$(jq -c '.summary | [.dry_run, .failures, .taint_before, .taint_after, .taint_after_value, .unloaded, .unloaded_bytes, .reclaimed_names, .reclaimed_instances, .reclaimed_bytes]' <<<"$output")" \
		"[false,1,\"\",\"R\",$(taint),1,$beta,2,2,$((delta + beta))]"
	assert_equal "$(rotting_count)" 0
	run is_live beta
	assert_failure
	is_live alpha
}

@test "rmmod -J of a refused unload records EPERM and exits 4" {
	kmod_load delta
	run --separate-stderr on_kernel_nocap "$RMMOD" -J delta
	assert_equal "$status" 4
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '.modules[0] | [.name, .result, .reason, .error]' <<<"$output")" '["delta","failed","permission","EPERM"]'
	assert_equal "$(jq -c '.summary | [.failures, .unloaded]' <<<"$output")" '[1,0]'
	is_live delta
}

@test "rmmod --unused -n -J lists what would unload, sums it, and unloads nothing" {
	kmod_load alpha beta delta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --unused -n -J
	assert_success
	assert_equal "$(jq -r '[.modules[] | "\(.name):\(.result)"] | join(" ")' <<<"$output")" \
		"delta:would unload beta:would unload alpha:would unload"
	assert_equal "$(jq -c '.summary | [.dry_run, .unloaded, .unloaded_bytes, .taint_after]' <<<"$output")" \
		"[true,3,$(($(live_size alpha) + $(live_size beta) + $(live_size delta))),\"\"]"
	assert_equal "$(kernel_state)" "$before"
}

# ---- one vocabulary ----

# Every object key of the JSON documents in the files given (one document
# a file, or JSON Lines).
keys_of() { jq -r '[.. | objects | keys[]] | .[]' "$@" | sort -u; }

# The keys modrot(7)'s JSON VOCABULARY documents: every bold word of an
# entry line (one that begins with a bold word) up to its REASONS.
man_keys() {
	awk '/^# JSON VOCABULARY/ { on = 1; next } /^## REASONS/ { on = 0 } on && /^\*[a-z]/' "$MAN7" |
		grep -o '\*[a-z_0-9]*\*' | tr -d '*' | sort -u
}

# The reason tokens modrot(7) documents, and those the source can write.
man_reasons() {
	awk '/^## REASONS/ { on = 1; next } /^# / { on = 0 } on && /^\*[a-z]/' "$MAN7" |
		grep -o '\*[a-z_0-9]*\*' | tr -d '*' | sort -u
}
source_reasons() {
	grep -ho '\(return\|#define REASON_[A-Z_]*\|{ [A-Z0-9_]*,\) "[a-z_]\+"' "$top_srcdir/tools/cli/reasons.c" \
		"$top_srcdir/tools/cli/reasons.h" | cut -d'"' -f2 | sort -u
}

# Runs modreap --watch -J until it has written two pass lines, then stops it
# with SIGHUP; the lines are in $1. SIGHUP at its default: a suite run
# under nohup has it ignored, which modreap rightly keeps (signals.bats).
watch_json() {
	: >"$1"
	(exec env --default-signal=HUP "$SIM" run "$K" -- "$MODREAP" --watch --down-to 0 --interval 0.05 -J >"$1" 2>/dev/null) &
	local pid=$!
	wait_until grep -q '"pass":2,' "$1"
	kill -HUP "$pid"
	local st=0
	wait "$pid" || st=$?
	assert_equal "$st" 129
}

# Every tool's -J in its main modes, against one kernel, one file a run in $D.
every_tool_json() {
	D=$BATS_TEST_TMPDIR/json
	local keys=$BATS_TEST_TMPDIR/keys sign=$top_srcdir/tests/helpers/sign-module.sh
	mkdir -p "$D"
	"$sign" --make-ca "$keys/ca" >/dev/null
	"$sign" "$keys/ca/key.pem" "$keys/ca/cert.pem" "$FIXTURES/delta.ko" "$keys/signed.ko"
	kmod_load alpha beta params
	kmod_unload params
	# delta unloads pinned below: on rot-abi revision 4 only a module that
	# declares MODULE_ROT_SAFE does (U8); its kprobe is then a reference
	# the kernel names (refs, where)
	"$SIM" set "$K" delta rot_safe=1
	on_kernel "$INSMOD" --batch -J "$FIXTURES/alpha.ko" "$FIXTURES/needsym.ko" \
		"$FIXTURES/failinit.ko" "$FIXTURES/delta.ko" "$FIXTURES/oot.ko" >"$D/insmod-batch" || true
	on_kernel "$INSMOD" --check -J "$FIXTURES/gamma.ko" >"$D/insmod-check"
	on_kernel "$INSMOD" -J "$FIXTURES/gamma.ko" >"$D/insmod"
	on_kernel "$RMMOD" -J gamma nosuch >"$D/rmmod" || true
	"$SIM" pin "$K" delta
	"$SIM" hold "$K" delta kprobe 1
	on_kernel "$RMMOD" -J --reclaim delta >"$D/rmmod-reclaim" || true
	on_kernel "$RMMOD" --unused -n -J >"$D/rmmod-unused"
	on_kernel "$LSMOD" -J >"$D/lsmod"
	on_kernel "$LSMOD" -J --rotting >"$D/lsmod-rotting"
	on_kernel "$LSMOD" -J -o name,size,refcnt,holders,state,address,taints,permanent,devices,percpu,mounts,inuse,pins \
		>"$D/lsmod-columns"
	on_kernel "$MODINFO" -J --verify "$keys/ca/cert.pem" "$FIXTURES/params.ko" "$keys/signed.ko" \
		>"$D/modinfo" 2>/dev/null || true
	on_kernel "$MODREAP" -J >"$D/modreap"
	on_kernel "$MODREAP" -n -a -J >"$D/modreap-dry"
	on_kernel "$MODREAP" -a -J >"$D/modreap-all" 2>/dev/null || true
	kmod_load gamma
	kmod_unload gamma
	watch_json "$D/modreap-watch"
}

@test "tools/cli/json-keys.h holds every key modrot(7)'s JSON VOCABULARY documents, and no other" {
	run bash -c "grep -o '^#define JK_[A-Z0-9_]* \"[a-z_0-9]*\"' '$top_srcdir/tools/cli/json-keys.h' | cut -d'\"' -f2 | sort -u"
	assert_success
	[ "${#lines[@]}" -gt 50 ]
	assert_equal "$output" "$(man_keys)"
}

@test "no tool writes a JSON key but through tools/cli/json-keys.h" {
	run grep -nE 'json_(string|u64|i64|bool|null|open_object|open_array)\([^,]+, "' "$top_srcdir"/tools/*.c "$top_srcdir"/tools/*/*.c
	assert_failure 1
	assert_output ""
	# listings take their keys from the column tables
	run grep -nE '^\s*(\[COL_[A-Z]+\] = )?\{ "[A-Z]+", .*"[a-z]+" \},$' "$top_srcdir"/tools/*.c "$top_srcdir"/tools/*/*.c
	assert_output ""
}

@test "every key every tool writes with -J is in modrot(7)'s vocabulary, and every key there is written" {
	every_tool_json
	for f in "$D"/*; do
		# every file parses; all but --watch's are one document
		jq -e . "$f" >/dev/null
		[[ $f == */modreap-watch ]] || assert_equal "$(jq -s length "$f")" 1
	done
	used=$(keys_of "$D"/insmod* "$D"/rmmod* "$D"/lsmod* "$D"/modinfo "$D"/modreap*)
	assert_equal "$(comm -23 <(echo "$used") <(man_keys))" ""
	assert_equal "$(comm -13 <(echo "$used") <(man_keys))" ""
	# the same quantity is not named twice: none of the old names is left
	for old in size file rot_bytes rot_left percpu percpu_reserve percpu_free percpu_largest \
		instances names refused_instances; do
		run grep -qx "$old" <<<"$used"
		assert_failure
	done
}

@test "modreap --watch -J writes one compact line a pass as it ends, and the summary's line last" {
	kmod_load delta alpha
	kmod_unload delta alpha
	rotted=$(rotting_bytes)
	watch_json "$BATS_TEST_TMPDIR/w"
	W=$BATS_TEST_TMPDIR/w
	# one document a line
	assert_equal "$(jq -c . "$W" | wc -l)" "$(wc -l <"$W")"
	assert_equal "$(jq -s '[.[] | select(.pass)] | map(.pass) | . == [range(1; length + 1)]' "$W")" true
	assert_equal "$(tail -n 1 "$W" | jq -c 'keys')" '["reclaimed","summary"]'
	assert_equal "$(jq -s '[.[] | select(.summary)] | length' "$W")" 1
	# the first pass reclaimed it all; the passes add up to the summary
	assert_equal "$(head -n 1 "$W" | jq -c '[.pass, .reclaimed_instances, .reclaimed_bytes, .rotting_bytes, .failures]')" \
		"[1,2,$rotted,0,0]"
	assert_equal "$(jq -s '[.[] | select(.pass) | .reclaimed_bytes] | add' "$W")" \
		"$(tail -n 1 "$W" | jq '.summary.reclaimed_bytes')"
	assert_equal "$(rotting_count)" 0
}

# The summary members (of $1, the top level when there is no summary) that
# have a record member's name (in array $2), when each is the sum of those.
agreeing_members() {
	jq -e -c --arg a "$2" '.[$a] as $r | (.summary // del(.[$a])) as $s
		| [$s | keys_unsorted[] | select(. as $k | $r | any(has($k)))] as $common
		| if all($common[]; . as $k | $s[$k] == ([$r[][$k]] | add // 0)) then $common else "disagree" end' "$1"
}

@test "each summary is the sum of its records, under the records' names" {
	every_tool_json
	run agreeing_members "$D/rmmod-reclaim" modules
	assert_success
	assert_output '["unloaded_bytes","reclaimed_instances","reclaimed_bytes","kept_instances"]'
	assert_equal "$(jq '.summary.kept_instances' "$D/rmmod-reclaim")" 1
	for f in rmmod rmmod-unused; do
		run agreeing_members "$D/$f" modules
		assert_output '["unloaded_bytes","reclaimed_instances","reclaimed_bytes","kept_instances"]'
	done
	# what the issue saw: an unload's bytes in its record and in the summary
	assert_equal "$(jq -c '[.modules[0].unloaded_bytes, .summary.unloaded_bytes, .summary.unloaded]' "$D/rmmod")" \
		"[$(jq '.modules[] | select(.name == "gamma") | .bytes' "$D/lsmod-rotting"),$(jq '.modules[0].unloaded_bytes' "$D/rmmod"),1]"
	run agreeing_members "$D/insmod-batch" modules
	assert_output '["rotted_bytes"]'
	assert_equal "$(jq -c '.summary | [.files, .loaded, .present, .refused, .failed, .rotted]' "$D/insmod-batch")" '[5,2,1,1,1,1]'
	# each result word is a summary number, the count of records that have it
	assert_equal "$(jq '. as $d | [.modules[].result] as $r | [$r | unique[] | . as $w | ($d.summary[$w] // -1) == ($r | map(select(. == $w)) | length)] | all' "$D/insmod-batch")" true
	run agreeing_members "$D/modreap" rotting
	assert_output '["rotting_instances","rotting_bytes","rotting_percpu_bytes"]'
	for f in modreap-dry modreap-all; do
		run agreeing_members "$D/$f" reclaimed
		assert_output '["reclaimed_instances","reclaimed_bytes","reclaimed_percpu_bytes"]'
	done
	run agreeing_members "$D/modreap-all" reclaimed
	assert_equal "$(jq '.summary | .kept_instances == ([.kept[].kept_instances] | add)' "$D/modreap-all")" true
	assert_equal "$(jq '.summary.kept_instances' "$D/modreap-all")" 1
	assert_equal "$(jq '.summary.rotting_names == (.rotting | length)' "$D/modreap")" true
	assert_equal "$(jq '.summary.reclaimed_names == (.reclaimed | length)' "$D/modreap-all")" true
	# --watch: the first pass reclaimed gamma, the others nothing
	run agreeing_members <(head -n 1 "$D/modreap-watch") reclaimed
	assert_output '["reclaimed_instances","reclaimed_bytes","reclaimed_percpu_bytes"]'
	assert_equal "$(head -n 1 "$D/modreap-watch" | jq -c '[.pass, .reclaimed_names, [.reclaimed[].name]]')" '[1,1,["gamma"]]'
	assert_equal "$(sed -n 2p "$D/modreap-watch" | jq -c '[.pass, .reclaimed, .reclaimed_names, .reclaimed_instances, .reclaimed_bytes]')" '[2,[],0,0,0]'
}

@test "insmod --batch -J tells an already loaded module from an unknown symbol by its result" {
	kmod_load alpha
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --batch -J "$FIXTURES/alpha.ko" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '[.modules[] | [.name, .result, .reason]]' <<<"$output")" \
		'[["alpha","present","already_loaded"],["needsym","refused","unknown_symbol"]]'
	assert_equal "$(kernel_state)" "$before"
}

@test "every refusal and failure carries a reason modrot(7) documents, and each cause its own" {
	every_tool_json
	assert_equal "$(jq -r '.modules[] | "\(.name) \(.result) \(.reason)"' "$D/insmod-batch")" \
"alpha present already_loaded
needsym refused unknown_symbol
failinit failed no_device
delta loaded 
oot loaded "
	assert_equal "$(jq -r '.modules[] | "\(.name) \(.result) \(.reason)"' "$D/rmmod")" \
"gamma unloaded 
nosuch failed not_loaded"
	assert_equal "$(jq -r '.modules[] | "\(.result) \(.reason)"' "$D/rmmod-reclaim")" "unloaded 
failed kept_in_use"
	assert_equal "$(jq -c '[.summary.kept[] | .reason]' "$D/modreap-all")" '["kept_in_use"]'
	# a reason is "" exactly when nothing failed
	assert_equal "$(jq -s '[.[] | .modules[]? | select(.result != null) | select((.reason == "") != (.errno == 0 and (.result | IN("loaded", "ok", "unloaded", "reclaimed", "would unload", "unmatched"))))] | length' "$D"/insmod* "$D"/rmmod*)" 0
	written=$(jq -r '.. | objects | .reason? // empty | select(. != "")' "$D"/insmod* "$D"/rmmod* "$D"/modreap* | sort -u)
	assert_equal "$(comm -23 <(echo "$written") <(man_reasons))" ""
	# what the source can write is documented, and nothing else is
	assert_equal "$(source_reasons)" "$(man_reasons)"
	run --separate-stderr on_kernel_nocap "$RMMOD" -J oot
	assert_equal "$status" 4
	assert_equal "$(jq -r '.modules[0].reason' <<<"$output")" permission
}

@test "the JSON writers are clean under valgrind" {
	skip_if_sanitized
	kmod_load alpha beta delta
	kmod_unload delta
	valgrind_clean "$LSMOD" -J -o name,holders,permanent,taints,devices
	assert_success
	valgrind_clean "$LSMOD" -o name,holders
	assert_success
	valgrind_clean "$RMMOD" -J --reclaim delta nosuch
	assert_equal "$status" 1
	valgrind_clean "$MODREAP" -J
	assert_success
}
