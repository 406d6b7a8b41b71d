#!/usr/bin/env bats
# The reclaim lock (lib's rot_reclaim_lock): a file only root can make,
# open or hold, waited for a bounded time, its holder named. Whatever a
# hostile user or a broken system leaves at its place, rmmod --reclaim,
# modprobe -r --reclaim and modreap say so in one line, exit with a defined
# status and change nothing. helpers/tools points MODROT_RECLAIM_LOCK into
# the test's directory.

load helpers/tools

MODPROBE=$top_builddir/tools/modprobe
LOCKDIR=${MODROT_RECLAIM_LOCK%/*}

setup() {
	kernel_new rot
	kmod_load delta
	kmod_unload delta
	assert_equal "$(rotting_count delta)" 1
}

teardown() {
	[ -z "${holder:-}" ] || kill "$holder" 2>/dev/null || :
}

# Every reclaiming run, each reclaiming delta's one rotting instance.
reclaimers() {
	printf '%s\n' "$RMMOD --reclaim delta" "$MODPROBE -r --reclaim delta" "$MODREAP delta"
}

# The kernel is as setup left it: delta rots once, the taint is clean.
unchanged() {
	assert_equal "$(rotting_count delta)" 1
	assert_equal "$(taint)" 0
}

# Holds the lock from another process, as a stuck or hostile run would,
# until the test ends; $holder is its PID.
hold_lock() {
	mkdir -p -m 0700 "$LOCKDIR"
	(exec /usr/bin/python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(120)' "$MODROT_RECLAIM_LOCK" "$BATS_TEST_TMPDIR/held") &
	holder=$!
	wait_until test -e "$BATS_TEST_TMPDIR/held"
}

@test "a reclaim makes the lock's directory 0700 and the lock file 0600, both root's, and reclaims" {
	assert_not_exist "$LOCKDIR"
	run on_kernel "$RMMOD" --reclaim delta
	assert_success
	assert_equal "$(rotting_count delta)" 0
	assert_equal "$(stat -c '%u %a %F' "$LOCKDIR")" "0 700 directory"
	assert_equal "$(stat -c '%u %a %F' "$MODROT_RECLAIM_LOCK")" "0 600 regular empty file"
}

@test "a lock held by another process: each reclaiming tool waits a bounded time, names the holder's PID, exits 1, changes nothing" {
	hold_lock
	while read -r -a cmd; do
		start=$SECONDS
		run --separate-stderr on_kernel "${cmd[@]}"
		assert_equal "$status" 1
		assert_equal "$stderr" "${cmd[0]##*/}: ERROR: the reclaim lock $MODROT_RECLAIM_LOCK is held by PID $holder: gave up after 10 s, nothing done"
		# bounded: the wait is the 10 s it says, not for ever
		(( SECONDS - start >= 9 && SECONDS - start < 60 ))
		unchanged
	done < <(reclaimers)
}

@test "-v says whom it waits for; the run reclaims once the holder lets go" {
	hold_lock
	(exec "$SIM" run "$K" -- "$RMMOD" -v --reclaim delta > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err") &
	rmmod=$!
	wait_until grep -q 'waiting' "$BATS_TEST_TMPDIR/err"
	unchanged
	kill "$holder"
	rc=0
	wait "$rmmod" || rc=$?
	assert_equal "$rc" 0
	run grep waiting "$BATS_TEST_TMPDIR/err"
	assert_output "rmmod: waiting up to 10 s for the reclaim lock $MODROT_RECLAIM_LOCK, held by PID $holder"
	assert_equal "$(rotting_count delta)" 0
}

@test "modreap --watch skips a pass while the lock is held and reclaims once it is let go" {
	hold_lock
	(exec "$SIM" run "$K" -- "$MODREAP" -b --watch --down-to 0 --interval 0.1 \
		> "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err") &
	reaper=$!
	wait_until grep -q 'gave up after 10 s' "$BATS_TEST_TMPDIR/err"
	unchanged
	kill "$holder"
	wait_until eval '[ "$(rotting_count delta)" -eq 0 ]'
	kill -TERM "$reaper"
	rc=0
	wait "$reaper" || rc=$?
	assert_equal "$rc" 143
}

@test "a user other than root can neither make nor take the lock" {
	mkdir -p -m 0700 "$LOCKDIR"
	: > "$MODROT_RECLAIM_LOCK"
	chmod 0600 "$MODROT_RECLAIM_LOCK"
	chmod 0755 "$BATS_TEST_TMPDIR"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c '
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)' "$MODROT_RECLAIM_LOCK"
	assert_failure
	assert_output --partial PermissionError
	rm -r "$LOCKDIR"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir "$LOCKDIR"
	assert_failure
	# and the tools say so, exit 4, and change nothing
	mkdir -p -m 0700 "$LOCKDIR"
	# the simulated kernel is the test's: let the user in to reach it
	chmod -R a+rwX "$K"
	d=$BATS_TEST_TMPDIR
	while [ "$d" != / ]; do
		chmod o+x "$d"
		d=${d%/*}
		d=${d:-/}
	done
	while read -r -a cmd; do
		run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$SIM" run "$K" -- "${cmd[@]}"
		assert_equal "$stderr" "${cmd[0]##*/}: ERROR: cannot take the reclaim lock $MODROT_RECLAIM_LOCK: Permission denied (only root reclaims)"
		assert_equal "$status" 4
		unchanged
	done < <(reclaimers)
}

# plant WHAT: puts what a hostile user or a broken system could leave at
# the lock's place.
plant() {
	case $1 in
	symlink)
		mkdir -p -m 0700 "$LOCKDIR"
		ln -s "$BATS_TEST_TMPDIR/target" "$MODROT_RECLAIM_LOCK"
		;;
	dir-symlink)
		mkdir -p -m 0700 "$BATS_TEST_TMPDIR/elsewhere" "${LOCKDIR%/*}"
		ln -s "$BATS_TEST_TMPDIR/elsewhere" "$LOCKDIR"
		;;
	fifo)
		mkdir -p -m 0700 "$LOCKDIR"
		mkfifo -m 0600 "$MODROT_RECLAIM_LOCK"
		;;
	directory)
		mkdir -p -m 0700 "$LOCKDIR" "$MODROT_RECLAIM_LOCK"
		;;
	file-owner)
		mkdir -p -m 0700 "$LOCKDIR"
		install -m 0600 -o nobody /dev/null "$MODROT_RECLAIM_LOCK"
		;;
	file-mode)
		mkdir -p -m 0700 "$LOCKDIR"
		install -m 0644 /dev/null "$MODROT_RECLAIM_LOCK"
		;;
	dir-owner)
		mkdir -p -m 0700 "$LOCKDIR"
		chown nobody "$LOCKDIR"
		;;
	dir-mode)
		mkdir -p "$LOCKDIR"
		chmod 0777 "$LOCKDIR"
		;;
	esac
}

@test "a symbolic link at the lock's path or its directory's: one line, exit 1, nothing made or changed" {
	for what in symlink dir-symlink; do
		rm -rf "$LOCKDIR" "$BATS_TEST_TMPDIR/elsewhere"
		plant "$what"
		while read -r -a cmd; do
			run --separate-stderr on_kernel "${cmd[@]}"
			assert_equal "$status" 1
			assert_equal "$stderr" "${cmd[0]##*/}: ERROR: the reclaim lock $MODROT_RECLAIM_LOCK, or its directory, is a symbolic link: not trusted, nothing done"
			unchanged
			assert_not_exist "$BATS_TEST_TMPDIR/target"
			[ "$what" = symlink ] || [ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
		done < <(reclaimers)
	done
}

@test "a FIFO, a directory, another owner or a mode others may use at the lock's place: one line, exit 1, nothing changed" {
	for what in fifo directory file-owner file-mode dir-owner dir-mode; do
		rm -rf "$LOCKDIR"
		plant "$what"
		before=$(stat -c '%u %a %F' "$LOCKDIR" "$MODROT_RECLAIM_LOCK" 2>&1 || :)
		while read -r -a cmd; do
			run --separate-stderr timeout 60 "$SIM" run "$K" -- "${cmd[@]}"
			assert_equal "$status" 1
			assert_equal "$stderr" "${cmd[0]##*/}: ERROR: the reclaim lock $MODROT_RECLAIM_LOCK is not a root-owned regular file of mode 0600 in a directory only root can write: not trusted, nothing done"
			unchanged
			assert_equal "$(stat -c '%u %a %F' "$LOCKDIR" "$MODROT_RECLAIM_LOCK" 2>&1 || :)" "$before"
		done < <(reclaimers)
	done
}

@test "a missing parent of the lock's directory: one line, exit 1, nothing changed" {
	export MODROT_RECLAIM_LOCK=$BATS_TEST_TMPDIR/none/modrot/reclaim.lock
	while read -r -a cmd; do
		run --separate-stderr on_kernel "${cmd[@]}"
		assert_equal "$status" 1
		assert_equal "$stderr" "${cmd[0]##*/}: ERROR: cannot take the reclaim lock $MODROT_RECLAIM_LOCK: No such file or directory"
		unchanged
		assert_not_exist "$BATS_TEST_TMPDIR/none"
	done < <(reclaimers)
}

@test "runs that do not reclaim take no lock: rmmod, modprobe -r and modreap's report work with the lock held" {
	hold_lock
	run on_kernel "$MODREAP"
	assert_success
	kmod_load alpha
	run on_kernel "$RMMOD" alpha
	assert_success
	unchanged
}
