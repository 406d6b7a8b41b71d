#!/usr/bin/env bats
# One JSON schema for every tool (modrot(7)): one object per run, real
# booleans, [] for empty lists, "" for no taint, and the same summary
# members everywhere; values checked against the simulated kernel.

load helpers/tools

INSMOD=$top_builddir/tools/insmod
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
	assert_equal "$(jq -r '.modules[] | select(.name == "oot") | "\(.taints) \(.state) \(.size)"' <<<"$output")" \
		"O rotting $(rotting_bytes oot)"
	assert_equal "$(jq '.modules[] | select(.name == "alpha") | .size' <<<"$output")" "$(live_size alpha)"
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
	assert_equal "$(jq -c '.summary | [.dry_run, .taint_after, .names, .instances, .bytes, .rot_left]' <<<"$output")" \
		"[false,\"\",2,2,$(rotting_bytes),$(rotting_bytes)]"
	run --separate-stderr on_kernel "$MODREAP" -a -J
	assert_success
	assert_equal "$(jq -c '.summary | [.dry_run, .taint_before, .taint_after, .taint_after_value, .rot_left, .failures]' <<<"$output")" \
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
	assert_equal "$(jq -c '[.modules[] | [.name, .result, .instances, .bytes]]' <<<"$output")" \
		"[[\"delta\",\"reclaimed\",1,$delta],[\"beta\",\"unloaded\",0,$beta],[\"beta\",\"reclaimed\",1,$beta],[\"nosuch\",\"failed\",0,0]]"
	assert_equal "$(jq -c '.modules[3] | [.errno, .error, .message]' <<<"$output")" \
		'[2,"ENOENT","Module nosuch has no rotting instances and is not currently loaded"]'
	assert_equal "$(common_summary "$output")" '["boolean","number","string","number","string","number"]'
	assert_equal "$(jq -c '.summary | [.dry_run, .failures, .taint_before, .taint_after, .taint_after_value, .unloaded, .reclaimed, .instances, .bytes]' <<<"$output")" \
		"[false,1,\"\",\"R\",$(taint),1,2,2,$((delta + beta))]"
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
	assert_equal "$(jq -c '.modules[0] | [.name, .result, .error]' <<<"$output")" '["delta","failed","EPERM"]'
	assert_equal "$(jq -c '.summary | [.failures, .unloaded]' <<<"$output")" '[1,0]'
	is_live delta
}

@test "rmmod --unused -n -J lists what would unload and unloads nothing" {
	kmod_load alpha beta delta
	before=$(kernel_state)
	run --separate-stderr on_kernel "$RMMOD" --unused -n -J
	assert_success
	assert_equal "$(jq -r '[.modules[] | "\(.name):\(.result)"] | join(" ")' <<<"$output")" \
		"delta:would unload beta:would unload alpha:would unload"
	assert_equal "$(jq -c '.summary | [.dry_run, .unloaded, .taint_after]' <<<"$output")" '[true,0,""]'
	assert_equal "$(kernel_state)" "$before"
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
