# shellcheck shell=bash
# tests/helpers/wait.bash: bounded waits for what another process brings
# about. Loaded by helpers/tools and helpers/simkernel.
#
# A test never sleeps "long enough" and hopes: it waits for the state it
# needs, and holds the simulated kernel where it wants it with a handshake
# (behaviour keys init_gate=PATH and exit_gate=PATH, tests/simkernel/README.md).
# Each wait polls, and gives up after WAIT_BOUND seconds of wall-clock time
# (default 60: far beyond what a machine at load 20 needs, far below bats'
# own timeout), saying what it waited for: a test fails rather than hangs.
#
#   wait_until CMD...        until CMD succeeds
#   wait_syscall PID NR...   until PID is inside system call NR, or one of
#                            several (/proc/PID/syscall, x86-64 numbers);
#                            fails at once if PID ends first
#   wait_sleeping PID        until PID sleeps in nanosleep(2) (the simulated
#                            kernel's waits: a load behind a Loading or
#                            Unloading name, an init or exit held by a gate)
#   wait_passes PID N        until PID, a loop that sleeps between passes,
#                            has ended N more of them

: "${WAIT_BOUND:=60}"

wait_until() {
	local start=$SECONDS
	until "$@"; do
		if ((SECONDS - start >= WAIT_BOUND)); then
			echo "gave up after ${WAIT_BOUND} s waiting for: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

wait_syscall() {
	local pid=$1 start=$SECONDS nr want
	shift
	for (( ; ; )); do
		nr=$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null) || {
			echo "process $pid ended before it entered system call $*" >&2
			return 1
		}
		for want in "$@"; do
			[ "$nr" = "$want" ] && return 0
		done
		if ((SECONDS - start >= WAIT_BOUND)); then
			echo "gave up after ${WAIT_BOUND} s waiting for process $pid to enter system call $* (it is in: $nr)" >&2
			return 1
		fi
		sleep 0.05
	done
}

# nanosleep (35) or clock_nanosleep (230), which glibc's nanosleep() uses
wait_sleeping() {
	wait_syscall "$1" 35 230
}

# wait_passes PID N: until PID, a loop that sleeps in ppoll(2) (271; or
# nanosleep(2)) between its passes (modreap --watch), has ended N more passes. A pass ended when
# PID is seen asleep again having read something (/proc/PID/io syscr)
# since it was last seen asleep: every read after a sleep belongs to a pass
# that began after it, and that pass is over once PID sleeps again.
wait_passes() {
	local pid=$1 n=$2 start=$SECONDS last='' nr reads
	while ((n > 0)); do
		if ! nr=$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null) ||
			! reads=$(awk '$1 == "syscr:" { print $2 }' "/proc/$pid/io" 2>/dev/null); then
			echo "process $pid ended with $n passes still to go" >&2
			return 1
		fi
		if [ "$nr" = 271 ] || [ "$nr" = 35 ] || [ "$nr" = 230 ]; then
			[ -z "$last" ] || [ "$reads" = "$last" ] || n=$((n - 1))
			last=$reads
		fi
		if ((n > 0 && SECONDS - start >= WAIT_BOUND)); then
			echo "gave up after ${WAIT_BOUND} s waiting for process $pid to end $n more passes" >&2
			return 1
		fi
		((n == 0)) || sleep 0.05
	done
}
