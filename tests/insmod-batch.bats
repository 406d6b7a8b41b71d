#!/usr/bin/env bats
# insmod --batch: many modules in one process, on threads, in dependency
# order, with mixed outcomes, a summary and JSON records.

load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup_file() {
	# Forty distinct modules; every tenth depends on the one before it.
	"$top_srcdir/tests/fixtures/mkmany.sh" 40 "$BATS_FILE_TMPDIR/many" >/dev/null
}

setup() {
	kernel_new rot
	MANY=$BATS_FILE_TMPDIR/many
}

load_order() { "$SIM" ledger "$K" | awk '$2 == "load" { print $3 }'; }

@test "insmod --batch loads every module and prints one summary line" {
	run --separate-stderr on_kernel "$INSMOD" --batch "$MANY"/*.ko.zst
	assert_success
	assert_equal "$stderr" ""
	assert_output "40 of 40 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(kernel_state | grep -c '^live many')" 40
	"$SIM" ledger "$K" --check
}

@test "insmod --batch loads a module after the batch module it depends on, whatever the order given" {
	# Reverse order: many00009 (which depends on many00008) comes first.
	files=$(ls "$MANY"/*.ko | sort -r)
	# shellcheck disable=SC2086
	run on_kernel "$INSMOD" --batch -j2 $files
	assert_success
	order=$(load_order)
	for dep in 8 18 28 38; do
		first=$(printf 'many%05d' "$dep")
		second=$(printf 'many%05d' $((dep + 1)))
		a=$(echo "$order" | grep -n "^$first\$" | cut -d: -f1)
		b=$(echo "$order" | grep -n "^$second\$" | cut -d: -f1)
		[ "$a" -lt "$b" ] || { echo "$second loaded before $first"; false; }
	done
}

@test "insmod --batch with mixed outcomes reports each failure on one line and loads the rest" {
	run --separate-stderr on_kernel "$INSMOD" -b --batch -j2 "$FIXTURES/alpha.ko" "$FIXTURES/failinit.ko" \
		"$FIXTURES/needsym.ko" "$FIXTURES/badmagic.ko" "$FIXTURES/delta.ko.xz" /dev/null
	assert_equal "$status" 1
	assert_equal "${#stderr_lines[@]}" 4
	assert_line --index 0 "2 of 6 loaded, 1 failed (1 left rot: $(rotting_bytes failinit) bytes), 3 refused before loading, 0 skipped"
	printf '%s\n' "${stderr_lines[@]}" | grep -q "failinit.ko: No such device; its init failed"
	printf '%s\n' "${stderr_lines[@]}" | grep -q "needsym.ko: unknown symbol nobody_exports_this"
	printf '%s\n' "${stderr_lines[@]}" | grep -q "badmagic.ko: built for kernel 6.0.0-other"
	printf '%s\n' "${stderr_lines[@]}" | grep -q "/dev/null: a character device"
	is_live alpha
	is_live delta
	assert_equal "$(rotting_count failinit)" 1
	# Refused modules never reached the kernel.
	assert_equal "$("$SIM" ledger "$K" | awk '$2 == "load" { print $3 }' | sort | paste -sd' ')" "alpha delta failinit"
}

@test "insmod --batch skips the modules that depend on one that failed, so they leave no rot" {
	"$SIM" set "$K" alpha init_errno=5
	run --separate-stderr on_kernel "$INSMOD" -b --batch "$FIXTURES/gamma.ko" "$FIXTURES/beta.ko" "$FIXTURES/alpha.ko"
	assert_equal "$status" 1
	assert_output "0 of 3 loaded, 1 failed (1 left rot: $(rotting_bytes alpha) bytes), 0 refused before loading, 2 skipped"
	printf '%s\n' "${stderr_lines[@]}" | grep -qx "insmod: ERROR: skipped $FIXTURES/beta.ko: it depends on alpha, which was not loaded"
	printf '%s\n' "${stderr_lines[@]}" | grep -qx "insmod: ERROR: skipped $FIXTURES/gamma.ko: it depends on beta, which was not loaded"
	assert_equal "$(rotting_count)" 1
	assert_equal "$(load_order)" alpha
}

@test "insmod --batch -j2 loads the other modules while one module's init runs" {
	# delta's init runs until the test opens the gate, which it does only
	# once the second thread has loaded all the others.
	"$SIM" set "$K" delta init_gate="$BATS_TEST_TMPDIR/go"
	(exec "$SIM" run "$K" -- "$INSMOD" --batch -j2 "$FIXTURES/delta.ko" "$MANY"/*.ko \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err") &
	local batch=$! status=0
	wait_until eval '[ "$(kernel_state | grep -c "^live many.* Live ")" -eq 40 ]'
	kernel_state | grep -q '^live delta .* Loading '
	touch "$BATS_TEST_TMPDIR/go"
	wait "$batch" || status=$?
	assert_equal "$status" 0
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "41 of 41 loaded, 0 failed, 0 refused before loading, 0 skipped"
	is_live delta
	assert_equal "$(kernel_state | grep -c '^live many')" 40
	# Every other module finished its init before delta's init ended.
	after=$("$SIM" ledger "$K" | awk '$2 == "init_free" && $3 == "delta" { d = 1; next } d && $2 == "init_free" && $3 ~ /^many/ { n++ } END { print n + 0 }')
	before=$("$SIM" ledger "$K" | awk '$2 == "init_free" && $3 == "delta" { exit } $2 == "init_free" && $3 ~ /^many/ { n++ } END { print n + 0 }')
	assert_equal "$before $after" "40 0"
	"$SIM" ledger "$K" --check
}

@test "insmod --batch gives the same kernel state with 1, 2 and 4 threads" {
	for j in 1 2 4; do
		kernel_new rot
		run on_kernel "$INSMOD" --batch -j "$j" "$MANY"/*.ko "$FIXTURES/failinit.ko"
		assert_failure 1
		kernel_state | awk '{ print $1, $2, $3, $5 }' | sort > "$BATS_TEST_TMPDIR/state.$j"
		"$SIM" ledger "$K" --check
	done
	diff "$BATS_TEST_TMPDIR/state.1" "$BATS_TEST_TMPDIR/state.2"
	diff "$BATS_TEST_TMPDIR/state.1" "$BATS_TEST_TMPDIR/state.4"
}

@test "insmod --batch -J gives one record per module and a summary" {
	run on_kernel "$INSMOD" --batch -J "$FIXTURES/delta.ko" "$FIXTURES/failinit.ko" "$FIXTURES/needsym.ko"
	assert_failure 1
	echo "$output" | jq -e . >/dev/null
	assert_equal "$(echo "$output" | jq -r '.modules[] | [.name, .result] | join(":")' | paste -sd' ')" \
		"delta:loaded failinit:failed needsym:refused"
	assert_equal "$(echo "$output" | jq -r '.modules[1].error')" ENODEV
	assert_equal "$(echo "$output" | jq '.modules[1].errno')" 19
	assert_equal "$(echo "$output" | jq '.modules[1].rotted_bytes')" "$(rotting_bytes failinit)"
	assert_equal "$(echo "$output" | jq '.modules[2].errno')" 0
	assert_equal "$(echo "$output" | jq -r '.modules[2].error')" ""
	assert_equal "$(echo "$output" | jq '.modules[0].errno')" 0
	assert_equal "$(echo "$output" | jq -c '.summary | [.loaded, .failed, .refused, .rotted]')" "[1,1,1,1]"
}

@test "insmod --from reads files and their parameters from a list, skipping comments" {
	cat > "$BATS_TEST_TMPDIR/list" <<LIST
# the installer's list
$FIXTURES/alpha.ko

$FIXTURES/params.ko count=7 label=seven
LIST
	run on_kernel "$INSMOD" --from "$BATS_TEST_TMPDIR/list"
	assert_success
	assert_output "2 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(on_kernel cat /sys/module/params/parameters/count)" 7
	assert_equal "$(on_kernel cat /sys/module/params/parameters/label)" seven
}

@test "insmod --from a missing list exits 2 and loads nothing" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --from "$BATS_TEST_TMPDIR/nothing"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: could not read the list $BATS_TEST_TMPDIR/nothing: No such file or directory (see 'insmod --help')"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch refuses a module already live and a second copy of a name in the batch" {
	kmod_load delta
	run --separate-stderr on_kernel "$INSMOD" --batch -j1 "$FIXTURES/delta.ko" "$FIXTURES/alpha.ko" "$FIXTURES/alpha.ko.zst"
	# no failure: each name is loaded now, two of them were already
	assert_equal "$status" 5
	assert_equal "$output" "1 of 3 loaded, 0 failed, 0 refused before loading, 0 skipped, 2 loaded already"
	assert_equal "${#stderr_lines[@]}" 2
	printf '%s\n' "${stderr_lines[@]}" | grep -q "delta.ko: Module already loaded (delta is live)"
	printf '%s\n' "${stderr_lines[@]}" | grep -q "alpha.ko.zst: Module already loaded"
	assert_equal "$(kernel_state | grep -c '^live alpha')" 1
}

@test "insmod --batch --check reports each module and loads nothing" {
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --batch --check "$FIXTURES/alpha.ko" "$FIXTURES/beta.ko" "$FIXTURES/needsym.ko"
	assert_equal "$status" 1
	assert_line "$FIXTURES/alpha.ko: ok, alpha would load"
	# beta needs alpha_fn, which alpha (earlier in the batch) offers.
	assert_line "$FIXTURES/beta.ko: ok, beta would load"
	assert_line "2 of 3 would load, 1 refused, 0 skipped"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch --check finds a kallsyms symbol past a read buffer's edge or after an overlong line" {
	ks=$K/root/proc/kallsyms
	before=$(kernel_state)
	run --separate-stderr on_kernel "$INSMOD" --batch --check "$FIXTURES/needsym.ko"
	assert_line "0 of 1 would load, 1 refused, 0 skipped"
	cp "$ks" "$BATS_TEST_TMPDIR/kallsyms"
	sym="ffffffff81234560 T nobody_exports_this"
	# The symbol's line starts 12 bytes before 64 KiB (the scan's buffer) and ends after it.
	fill=$((65536 - 12 - $(stat -c %s "$ks") - 1))
	{ head -c "$fill" /dev/zero | tr '\0' x; echo; echo "$sym"; } >>"$ks"
	assert_equal "$(grep -b -o 'ffffffff81234560' "$ks" | cut -d: -f1)" 65524
	run --separate-stderr on_kernel "$INSMOD" --batch --check "$FIXTURES/needsym.ko"
	assert_success
	assert_line "$FIXTURES/needsym.ko: ok, needsym would load"
	# A line longer than the buffer, then the symbol.
	{ cat "$BATS_TEST_TMPDIR/kallsyms"; printf 'ffffffff81000000 t '; head -c 200000 /dev/zero | tr '\0' y; echo; echo "$sym"; } >"$ks"
	run --separate-stderr on_kernel "$INSMOD" --batch --check "$FIXTURES/needsym.ko"
	assert_success
	assert_line "$FIXTURES/needsym.ko: ok, needsym would load"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch shows a progress bar on a terminal" {
	# Eighty entries, enough for a bar; the kernel refuses the second copy
	# of each name (EEXIST), which is there all the same: no failure.
	run script -qec "'$SIM' run '$K' -- '$INSMOD' --batch -j1 $MANY/*.ko $MANY/*.ko.zst" /dev/null
	assert_failure 5
	assert_output --partial "insmod: loading ["
	assert_output --partial "40 of 80 loaded, 0 failed, 0 refused before loading, 0 skipped, 40 loaded already"
}

@test "insmod --batch usage errors exit 2" {
	run --separate-stderr on_kernel "$INSMOD" --batch -j 0 "$FIXTURES/alpha.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: '0' is not a number of jobs (1 to 1024) (see 'insmod --help')"
	run --separate-stderr on_kernel "$INSMOD" -j 2 "$FIXTURES/alpha.ko"
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: --jobs only makes sense with --batch (see 'insmod --help')"
	assert_equal "$(kernel_state | grep -c '^live')" 0
}

@test "insmod --batch is clean under valgrind with threads" {
	skip_if_sanitized
	valgrind_clean "$INSMOD" --batch -j2 "$MANY"/many0000*.ko.xz "$FIXTURES/failinit.ko" "$FIXTURES/needsym.ko"
	assert_failure 1
}

@test "insmod --from a FIFO, a device, a directory or a huge file exits 2 at once and loads nothing" {
	local t=$BATS_TEST_TMPDIR
	mkfifo "$t/fifo"
	mkdir "$t/dir"
	truncate -s 64G "$t/huge"
	before=$(kernel_state)
	local l
	for l in "$t/fifo:a fifo, not a regular file" "/dev/zero:a character device, not a regular file" \
		"$t/dir:a directory, not a regular file" "$t/huge:too large: more than 16 MiB"; do
		run --separate-stderr timeout 10 "$SIM" run "$K" -- "$INSMOD" --from "${l%%:*}"
		assert_equal "$status" 2
		assert_equal "$stderr" "insmod: ERROR: could not read the list ${l%%:*}: ${l#*:} (see 'insmod --help')"
		assert_equal "$(kernel_state)" "$before"
	done
}

@test "insmod --from - stops reading an endless standard input at 16 MiB, exit 2" {
	before=$(kernel_state)
	run --separate-stderr timeout 20 "$SIM" run "$K" -- "$INSMOD" --from - < /dev/zero
	assert_equal "$status" 2
	assert_equal "$stderr" "insmod: ERROR: could not read the list -: too large: more than 16 MiB (see 'insmod --help')"
	assert_equal "$(kernel_state)" "$before"
}

@test "insmod --batch -- loads files whose names begin with '-': after -- nothing is an option" {
	mkdir "$BATS_TEST_TMPDIR/d"
	cp "$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/d/-f.ko"
	cp "$FIXTURES/alpha.ko" "$BATS_TEST_TMPDIR/d/--alpha.ko"
	cd "$BATS_TEST_TMPDIR/d"
	run --separate-stderr on_kernel "$INSMOD" --batch -- -f.ko --alpha.ko
	assert_success
	assert_output "2 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(kernel_state | awk '$1 == "live" { print $2 }' | sort | tr '\n' ' ')" "alpha delta "
}

# modpost writes depends= from file names: a module that uses snd_pcm says
# depends=snd-pcm.  kmod and the kernel treat '-' and '_' in a name alike.
dashed_fixtures() {
	mkdir -p "$BATS_TEST_TMPDIR/list"
	ln -s "$top_srcdir/tests/fixtures/src" "$BATS_TEST_TMPDIR/list/src"
	cat >"$BATS_TEST_TMPDIR/list/fixtures.list" <<'LIST'
lib-alpha | alpha.c | 1000 | name=lib_alpha
user-beta | beta.c | 2000 | depends=lib-alpha | name=user_beta | alias=pci:v00001AF4d00000000sv*sd*bc*sc*i*
LIST
	"$top_srcdir/tests/fixtures/mkfixtures.sh" "$BATS_TEST_TMPDIR/list" "$BATS_TEST_TMPDIR/dashed" gcc >/dev/null
	DASHED=$BATS_TEST_TMPDIR/dashed
}

@test "insmod --batch loads a dependency named with '-' in depends= before its user" {
	dashed_fixtures
	# The user first: only the dependency edge puts lib_alpha before it.
	run --separate-stderr on_kernel "$INSMOD" --batch -j2 "$DASHED/user-beta.ko" "$DASHED/lib-alpha.ko"
	assert_success
	assert_equal "$stderr" ""
	assert_output "2 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(load_order | paste -sd' ')" "lib_alpha user_beta"
	"$SIM" ledger "$K" --check
}

@test "insmod --match-devices loads the '-'-named dependency of a matching module" {
	dashed_fixtures
	printf 'pci 0000:00:05.0 pci:v00001AF4d00000000sv00001AF4sd00000001bc02sc00i00\n' >"$BATS_TEST_TMPDIR/devices"
	"$SIM" device add "$K" --from "$BATS_TEST_TMPDIR/devices"
	run --separate-stderr on_kernel "$INSMOD" --match-devices "$DASHED/user-beta.ko" "$DASHED/lib-alpha.ko"
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 0 "2 of 2 modules match a present device (or one that does needs them)"
	assert_line --index 1 "2 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped"
	assert_equal "$(load_order | paste -sd' ')" "lib_alpha user_beta"
}
