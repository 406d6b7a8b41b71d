#!/usr/bin/env bats
# A long run told to stop (SIGHUP, SIGINT, SIGTERM) finishes the call in
# flight, starts nothing new, prints what it did, and exits 128 + the
# signal. Inits and exits held by a gate (the simulated kernel's
# init_gate and exit_gate) make the signal land mid-run: each test waits
# until the kernel shows the call in flight, signals, waits until the tool
# has taken the signal, and only then lets the call end.

load helpers/tools

INSMOD=$top_builddir/tools/insmod

setup() {
	kernel_new rot
}

teardown() {
	[ -z "${writer:-}" ] || kill "$writer" 2>/dev/null || :
}

# The stop signals at their default disposition: a suite started with them
# ignored (nohup, a background job of a non-interactive shell) would pass
# that on, and a tool rightly keeps an ignored signal ignored.
DEFAULT_SIGNALS="env --default-signal=HUP,INT,QUIT,TERM"

# Starts a tool on the kernel in the background; $pid is the tool itself
# (env and simkernel run exec it), its output goes to $OUT and $ERR.
start() {
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	(exec $DEFAULT_SIGNALS "$SIM" run "$K" -- "$@" >"$OUT" 2>"$ERR") &
	pid=$!
}

# True while $pid has not exited (a zombie has).
running() {
	case $(ps -o stat= -p "$pid" 2>/dev/null) in
	"" | Z*) return 1 ;;
	esac
}

# The tool has taken signal number $1: the handler of a stop signal resets
# to the default as it is taken (SA_RESETHAND), so the signal leaves
# SigCgt then; and every thread sleeps, which the thread that took it does
# again only after its handler ran. An ignored signal is dropped as sent.
# A tool that has ended has nothing left to take.
taken() {
	local cgt t
	running || return 0
	cgt=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$pid/status") || return 1
	(((0x$cgt >> ($1 - 1) & 1) == 0)) || return 1
	for t in /proc/"$pid"/task/*/stat; do
		# the state follows the ") " that ends the command's name
		[ "$(sed 's/.*) //' "$t" | cut -d' ' -f1)" = S ] || return 1
	done
}

# The gate that holds every init and exit set by gate_init and gate_exit:
# stop_with opens it once the tool has the signal.
GATE_NAME=gate
gate_init() {
	local m
	for m in "$@"; do
		"$SIM" set "$K" "$m" init_gate="$BATS_TEST_TMPDIR/$GATE_NAME"
	done
}
gate_exit() {
	local m
	for m in "$@"; do
		"$SIM" set "$K" "$m" exit_gate="$BATS_TEST_TMPDIR/$GATE_NAME"
	done
}

# Sends the signal, waits until the tool has taken it, opens the gate,
# waits for the tool (up to 60 s, then SIGKILL: a tool that ignores the
# signal fails the test instead of hanging the suite), sets $status to
# its exit code.
stop_with() {
	kill "-$1" "$pid"
	wait_until taken "$(kill -l "$1")"
	touch "$BATS_TEST_TMPDIR/$GATE_NAME"
	for _ in $(seq 600); do
		running || break
		sleep 0.1
	done
	if running; then
		echo "the tool still ran 60 s after SIG$1" >&2
		kill -KILL "$pid"
	fi
	status=0
	wait "$pid" || status=$?
}

# Nothing is left half done: no module in Loading or Unloading.
settled() {
	! kernel_state | grep -Eq ' (Loading|Unloading) '
	"$SIM" ledger "$K" --check >/dev/null
}

@test "SIGINT during insmod --batch: the load in flight ends, no other starts, the summary says so, exit 130" {
	gate_init params oot alpha
	start "$INSMOD" --batch -j1 "$FIXTURES/delta.ko" "$FIXTURES/params.ko" \
		"$FIXTURES/oot.ko" "$FIXTURES/alpha.ko"
	wait_state '^live params .* Loading '
	stop_with INT
	[ "$status" -eq 130 ]
	assert_equal "$(cat "$OUT")" "2 of 4 loaded, 0 failed, 0 refused before loading, 0 skipped, 2 not started"
	assert_equal "$(cat "$ERR")" "insmod: ERROR: interrupted by SIGINT: 2 of 4 modules were not started"
	is_live delta
	is_live params
	kernel_state | grep -q '^live params .* Live '
	! kernel_state | grep -Eq '^(live|rotting) (oot|alpha) '
	settled
}

@test "SIGTERM during insmod --batch -J: valid JSON for what was loaded and what was not, exit 143" {
	gate_init delta params oot
	start "$INSMOD" --batch -j1 -J "$FIXTURES/delta.ko" "$FIXTURES/params.ko" "$FIXTURES/oot.ko"
	wait_state '^live delta .* Loading '
	stop_with TERM
	[ "$status" -eq 143 ]
	run jq -r '[.modules[] | .name + "=" + .result] | join(" ")' "$OUT"
	assert_success
	assert_output "delta=loaded params=not_started oot=not_started"
	run jq -c '.summary | {files, loaded, not_started, interrupted}' "$OUT"
	assert_output '{"files":3,"loaded":1,"not_started":2,"interrupted":true}'
	is_live delta
	! kernel_state | grep -Eq '^(live|rotting) (params|oot) '
	settled
}

@test "SIGINT during insmod --batch on two threads: every load started ends, and the summary matches the kernel" {
	gate_init delta params oot alpha permanent
	start "$INSMOD" --batch -j2 -J "$FIXTURES/delta.ko" "$FIXTURES/params.ko" \
		"$FIXTURES/oot.ko" "$FIXTURES/permanent.ko" "$FIXTURES/alpha.ko"
	wait_state ' Loading '
	stop_with INT
	[ "$status" -eq 130 ]
	settled
	# What the report calls loaded is what the kernel has, and nothing else.
	loaded=$(jq -r '.modules[] | select(.result == "loaded") | .name' "$OUT" | sort | paste -sd' ')
	live=$(kernel_state | awk '$1 == "live" { print $2 }' | sort | paste -sd' ')
	assert_equal "$loaded" "$live"
	[ "$(jq '.summary.not_started' "$OUT")" -ge 1 ]
	[ "$(jq '.summary.loaded + .summary.not_started' "$OUT")" -eq 5 ]
}

@test "a single insmod told to stop finishes its load and exits 130" {
	gate_init delta
	start "$INSMOD" "$FIXTURES/delta.ko"
	wait_state '^live delta .* Loading '
	stop_with INT
	[ "$status" -eq 130 ]
	kernel_state | grep -q '^live delta .* Live '
	assert_equal "$(cat "$ERR")" "insmod: ERROR: interrupted by SIGINT: 0 of 1 module was not started"
	settled
}

@test "SIGHUP ends modreap --watch -J, a JSON line a pass, with the summary's line of what it reclaimed, exit 129" {
	kmod_load delta alpha
	kmod_unload delta alpha
	kmod_load delta
	kmod_unload delta
	rotted=$(rotting_bytes)
	start "$MODREAP" --watch --down-to 0 --interval 0.1 -J
	wait_state '^taint 8$'
	wait_until eval '[ "$(rotting_count)" -eq 0 ]'
	stop_with HUP
	[ "$status" -eq 129 ]
	# JSON Lines: one line a pass, then the summary's line, last
	run jq -c 'select(.pass) | .pass' "$OUT"
	assert_success
	assert_equal "${lines[0]}" 1
	assert_equal "$(sed -n '$p' "$OUT" | jq -c 'keys')" '["reclaimed","summary"]'
	assert_equal "$(grep -c . "$OUT")" "$(($(jq -s 'length' "$OUT")))"
	run jq -c 'select(.summary) | [.reclaimed[] | {name, reclaimed_instances}] | sort_by(.name)' "$OUT"
	assert_success
	assert_output '[{"name":"alpha","reclaimed_instances":1},{"name":"delta","reclaimed_instances":2}]'
	[ "$(jq 'select(.summary) | .summary.reclaimed_bytes' "$OUT")" -eq "$rotted" ]
	[ "$(jq 'select(.summary) | .summary.reclaimed_instances' "$OUT")" -eq 3 ]
	# the passes' lines add up to the summary
	[ "$(jq -s '[.[] | select(.pass) | .reclaimed_bytes] | add' "$OUT")" -eq "$rotted" ]
	[ "$(rotting_count)" -eq 0 ]
	[ ! -s "$ERR" ]
	settled
}

@test "SIGINT and SIGTERM end modreap --watch with its summary, exit 130 and 143" {
	for sig in INT TERM; do
		kmod_load delta
		kmod_unload delta
		start "$MODREAP" -b --watch --down-to 0 --interval 0.1
		wait_until eval '[ "$(rotting_count)" -eq 0 ]'
		stop_with "$sig"
		[ "$status" -eq "$([ "$sig" = INT ] && echo 130 || echo 143)" ]
		grep -Eq '^delta: reclaimed 1 instance, [0-9]+ bytes$' "$OUT"
		grep -Eq '^total: reclaimed 1 instance, [0-9]+ bytes; 0 bytes still rot; kernel taint: ' "$OUT"
	done
	settled
}

@test "SIGTERM during rmmod of many modules: the unload in flight ends, the rest stay loaded, exit 143" {
	gate_exit params oot alpha
	kmod_load delta params oot alpha
	start "$RMMOD" delta params oot alpha
	wait_state '^live params .* Unloading '
	stop_with TERM
	[ "$status" -eq 143 ]
	assert_equal "$(cat "$ERR")" "rmmod: ERROR: interrupted by SIGTERM: 2 of 4 modules were not handled"
	! is_live delta
	! is_live params
	[ "$(rotting_count delta)" -eq 1 ]
	[ "$(rotting_count params)" -eq 1 ]
	is_live oot
	is_live alpha
	settled
}

@test "SIGINT during rmmod --unused: the summary counts what was unloaded, exit 130" {
	gate_exit delta params oot
	kmod_load delta params oot
	start "$RMMOD" -b --unused
	wait_state ' Unloading '
	stop_with INT
	[ "$status" -eq 130 ]
	settled
	gone=$((3 - $(kernel_state | grep -c '^live ')))
	[ "$gone" -ge 1 ]
	[ "$gone" -lt 3 ]
	grep -Eq "^unloaded $gone unused modules?; [0-9]+ bytes now rot$" "$OUT"
	grep -q "^rmmod: ERROR: interrupted by SIGINT: stopped unloading unused modules$" "$ERR"
}

@test "a run that ignores SIGHUP (nohup) keeps ignoring it" {
	gate_init delta params
	OUT=$BATS_TEST_TMPDIR/out
	# nohup: HUP ignored from the start, the other stop signals at default.
	(exec env --default-signal=INT,QUIT,TERM --ignore-signal=HUP "$SIM" run "$K" -- "$INSMOD" --batch -j1 "$FIXTURES/delta.ko" \
		"$FIXTURES/params.ko" >"$OUT" 2>&1) &
	pid=$!
	wait_state '^live delta .* Loading '
	stop_with HUP
	[ "$status" -eq 0 ]
	assert_equal "$(cat "$OUT")" "2 of 2 loaded, 0 failed, 0 refused before loading, 0 skipped"
	settled
}

@test "the first SIGTERM ends insmod --from - blocked reading a pipe: one line, exit 143, nothing loaded" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	# A writer that holds the pipe open and never writes (killed below,
	# or by teardown).
	sleep 600 > "$BATS_TEST_TMPDIR/fifo" &
	writer=$!
	before=$(kernel_state)
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	(exec $DEFAULT_SIGNALS "$SIM" run "$K" -- "$INSMOD" --from - \
		< "$BATS_TEST_TMPDIR/fifo" >"$OUT" 2>"$ERR") &
	pid=$!
	# blocked in read(2) of the list on its standard input
	wait_until eval '[ "$(cut -d" " -f1,2 "/proc/$pid/syscall" 2>/dev/null)" = "0 0x0" ]'
	stop_with TERM
	kill "$writer" 2>/dev/null || :
	assert_equal "$status" 143
	assert_equal "$(cat "$ERR")" "insmod: ERROR: interrupted by SIGTERM while reading the list -: no module was loaded"
	assert_equal "$(kernel_state)" "$before"
}
