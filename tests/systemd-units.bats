#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd units: systemd-analyze verify passes, make install puts them
# where systemd.pc says, and their commands, run as systemd would run them
# (Environment=, then the EnvironmentFile over it), do their job on the
# simulated kernel.

load helpers/tools
load helpers/packages

UNITS=$top_srcdir/systemd

setup_file() {
	need_packages systemd man-db prometheus
}

# The units as make builds them, with the build tree's tools and a test
# sysconfdir, so that every path they name exists.
test_units() {
	local dir=$BATS_TEST_TMPDIR/units u
	mkdir -p "$dir" "$BATS_TEST_TMPDIR/etc/default"
	for u in modrot-ceiling.service modrot-metrics.service; do
		sed -e "s|@s\?bindir@|$top_builddir/tools|g" -e "s|@sysconfdir@|$BATS_TEST_TMPDIR/etc|g" \
			-e "s|@sysusersdir@|$UNITS/sysusers.d|g" -e "s|@pkgdatadir@|$UNITS|g" \
			-e 's,@\(modreap\|modrot-metrics\)@,\1,g' \
			"$UNITS/$u.in" > "$dir/$u"
	done
	cp "$UNITS/modrot-metrics.timer" "$dir/"
	echo "$dir"
}

# A man tree holding the built pages: verify checks Documentation=man:...
man_tree() {
	local dir=$BATS_TEST_TMPDIR/man
	mkdir -p "$dir/man7" "$dir/man8"
	ln -sf "$top_builddir/man/modreap.8" "$top_builddir/man/modrot-metrics.8" "$dir/man8/"
	ln -sf "$top_builddir/man/modrot.7" "$dir/man7/"
	echo "$dir"
}

# unit_command UNIT: sets the array CMD to the unit's ExecStart, expanded
# as systemd expands it: Environment= first, the EnvironmentFile (if it
# exists) over it.
unit_command() {
	local unit=$1 line file
	local -a assignments
	line=$(sed -n 's/^Environment=//p' "$unit")
	read -r -a assignments <<< "$line"
	file=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
	line=$(sed -n 's/^ExecStart=//p' "$unit")
	# shellcheck disable=SC1090
	CMD=($(env -i "${assignments[@]}" bash -c "set -a; [ ! -f '$file' ] || . '$file'; eval \"printf '%s\\n' $line\""))
}

# make in the build tree, on its own: not a sub-make of the make check
# that runs this suite (its flags would add "Entering directory" lines).
build_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" "$@"
}

@test "systemd-analyze verify passes on the units" {
	local dir man
	dir=$(test_units)
	man=$(man_tree)
	run env MANPATH="$man" systemd-analyze verify "$dir/modrot-ceiling.service" \
		"$dir/modrot-metrics.service" "$dir/modrot-metrics.timer"
	assert_success
	assert_output ""
	# The control: verify does look at the command's path here.
	sed -i "s|$top_builddir/tools/modreap|$BATS_TEST_TMPDIR/missing/modreap|" "$dir/modrot-ceiling.service"
	run env MANPATH="$man" systemd-analyze verify "$dir/modrot-ceiling.service"
	assert_failure
	assert_output --partial "missing/modreap is not executable"
}

@test "make install puts the units in systemd.pc's unit directory, overridable, with the configured paths" {
	local dest=$BATS_TEST_TMPDIR/dest unitdir sbindir sysconfdir dir
	unitdir=$(build_make -f Makefile -f - print-systemdsystemunitdir <<< 'print-%: ; @echo $($*)')
	[ -n "$unitdir" ]
	# systemd.pc's, unless configure was given one (make distcheck gives
	# one under its prefix).
	if ! "$top_builddir/config.status" --config | grep -q -- --with-systemdsystemunitdir; then
		assert_equal "$unitdir" "$(pkg-config --variable=systemdsystemunitdir systemd)"
	fi
	run build_make install-systemdsystemunitDATA install-modrotdefaultDATA \
		install-dist_sysusersDATA install-dist_pkgdataDATA DESTDIR="$dest"
	assert_success
	# the metrics user, where systemd-sysusers looks (systemd.pc's
	# directory, unless configured)
	dir=$(build_make -f Makefile -f - print-sysusersdir <<< 'print-%: ; @echo $($*)')
	if ! "$top_builddir/config.status" --config | grep -q -- "--with-sysusersdir"; then
		assert_equal "$dir" "$(pkg-config --variable=sysusersdir systemd)"
	fi
	cmp "$dest$dir/modrot.conf" "$UNITS/sysusers.d/modrot.conf"
	# the link's tmpfiles.d lines, where the unit names them, and nothing
	# in a tmpfiles.d directory, which boot would apply
	dir=$(build_make -f Makefile -f - print-pkgdatadir <<< 'print-%: ; @echo $($*)')
	cmp "$dest$dir/modrot-metrics-link.conf" "$UNITS/modrot-metrics-link.conf"
	run find "$dest" -path '*/tmpfiles.d*'
	assert_output ""
	sbindir=$(build_make -f Makefile -f - print-sbindir <<< 'print-%: ; @echo $($*)')
	sysconfdir=$(build_make -f Makefile -f - print-sysconfdir <<< 'print-%: ; @echo $($*)')
	assert_file_exist "$dest$unitdir/modrot-ceiling.service"
	assert_file_exist "$dest$unitdir/modrot-metrics.service"
	assert_file_exist "$dest$unitdir/modrot-metrics.timer"
	assert_file_exist "$dest$sysconfdir/default/modrot"
	run grep -x "ExecStartPost=+systemd-tmpfiles --create $dir/modrot-metrics-link.conf" \
		"$dest$unitdir/modrot-metrics.service"
	assert_success
	run grep -h '^ExecStart=\|^EnvironmentFile=' "$dest$unitdir/modrot-ceiling.service"
	assert_line "ExecStart=$sbindir/modreap --watch --down-to \${MODROT_CEILING} --interval \${MODROT_INTERVAL}"
	assert_line "EnvironmentFile=-$sysconfdir/default/modrot"
	run grep -l '@[a-z]*@' "$dest$unitdir"/modrot-*
	assert_failure
	# Overridden on the command line.
	run build_make install-systemdsystemunitDATA DESTDIR="$dest" \
		systemdsystemunitdir=/elsewhere/units
	assert_success
	assert_file_exist "$dest/elsewhere/units/modrot-ceiling.service"
}

@test "the ceiling service reclaims down to the ceiling, logs each name, and stops cleanly" {
	kernel_new rot
	"$SIM" populate "$K" --live 10 --rotting 10 --seed 4
	local dir before
	dir=$(test_units)
	printf 'MODROT_CEILING=64K\nMODROT_INTERVAL=0.1\n' > "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$dir/modrot-ceiling.service"
	assert_equal "${CMD[*]}" "$top_builddir/tools/modreap --watch --down-to 64K --interval 0.1"
	before=$(rotting_bytes)
	[ "$before" -gt 65536 ]

	# simkernel run execs the command: $! is modreap itself.
	"$SIM" run "$K" -- "${CMD[@]}" > "$BATS_TEST_TMPDIR/journal" 2>&1 3>&- &
	local pid=$! status=0
	wait_until eval '[ "$(rotting_bytes)" -le 65536 ]'
	wait_passes "$pid" 2 # two passes more, which must free nothing
	kill -TERM "$pid"
	wait "$pid" || status=$?
	# Stopped by SIGTERM: 128 + 15, which the unit counts as success.
	assert_equal "$status" 143
	grep -qx 'SuccessExitStatus=129 130 143' "$dir/modrot-ceiling.service"
	[ "$(rotting_bytes)" -le 65536 ]
	[ $(($(taint) & 8)) -eq 8 ]
	"$SIM" ledger "$K" --check > /dev/null
	# One journal line per name freed, then the total at stop.
	local freed
	freed=$(grep -c ': reclaimed [0-9]* instances\?, [0-9.]*[BKMGTPE]$' "$BATS_TEST_TMPDIR/journal")
	[ "$freed" -ge 1 ]
	run cat "$BATS_TEST_TMPDIR/journal"
	# sizes as lsblk prints them: the journal is read by people
	assert_line --regexp "^total: reclaimed [0-9]+ instances?, $(human_size $((before - $(rotting_bytes)))); $(human_size "$(rotting_bytes)") still rot; kernel taint: none -> R \(8\)\$"
}

@test "without a settings file the ceiling is 64M" {
	local dir
	dir=$(test_units)
	rm -f "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$dir/modrot-ceiling.service"
	assert_equal "${CMD[*]}" "$top_builddir/tools/modreap --watch --down-to 64M --interval 10"
	# The shipped settings file changes nothing until edited.
	cp "$UNITS/modrot.default" "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$dir/modrot-ceiling.service"
	assert_equal "${CMD[*]}" "$top_builddir/tools/modreap --watch --down-to 64M --interval 10"
}

@test "a ceiling that is not a size stops the service at once, with exit 2, and no restart" {
	kernel_new rot
	"$SIM" populate "$K" --live 2 --rotting 2 --seed 6
	local dir before
	dir=$(test_units)
	echo 'MODROT_CEILING=lots' > "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$dir/modrot-ceiling.service"
	before=$(kernel_state)
	run on_kernel timeout 10 "${CMD[@]}"
	assert_failure 2
	assert_output --partial "modreap: ERROR: 'lots' is not a size"
	assert_equal "$(kernel_state)" "$before"
	run grep '^RestartPreventExitStatus=' "$dir/modrot-ceiling.service"
	assert_output --regexp '^RestartPreventExitStatus=.*\b2\b'
}

@test "on a kernel without rot support the ceiling service refuses clearly and is not restarted" {
	kernel_new stock
	kmod_load alpha
	local dir before
	dir=$(test_units)
	before=$(kernel_state)
	unit_command "$dir/modrot-ceiling.service"
	run on_kernel timeout 10 "${CMD[@]}"
	assert_failure 3
	assert_output "modreap: ERROR: this kernel has no module rot support (/proc/rotting_modules is missing)"
	run grep '^RestartPreventExitStatus=' "$dir/modrot-ceiling.service"
	assert_output --regexp '^RestartPreventExitStatus=.*\b3\b'
	assert_equal "$(kernel_state)" "$before"
}

# allowed_syscalls UNIT: the system calls the unit's SystemCallFilter=
# lines allow, one a line: the first line's sets, less those of "~" lines.
allowed_syscalls() {
	local line allow=() deny=()
	while read -r line; do
		if [[ $line == "~"* ]]; then
			read -r -a words <<< "${line#\~}"
			deny+=("${words[@]}")
		else
			read -r -a words <<< "$line"
			allow+=("${words[@]}")
		fi
	done < <(sed -n 's/^SystemCallFilter=//p' "$1")
	expand() { local w; for w in "$@"; do
		if [[ $w == @* ]]; then systemd-analyze syscall-filter "$w" | sed -n 's/^    \([a-z_0-9]*\)$/\1/p' |
			grep -v '^$'; else echo "$w"; fi; done | sort -u; }
	expand_all() { local w out; for w in "$@"; do expand "$w"; if [[ $w == @* ]]; then
		systemd-analyze syscall-filter "$w" | sed -n 's/^    \(@[a-z-]*\)$/\1/p' | while read -r g; do
			expand_all "$g"; done; fi; done | sort -u; }
	comm -23 <(expand_all "${allow[@]}") <(expand_all "${deny[@]}")
}

@test "the ceiling service keeps CAP_SYS_MODULE, and nothing takes module syscalls away" {
	# modreap --watch retries a refused reclaim every interval, so a
	# service without the capability would log refusals forever: the
	# bounding set must hold it, ProtectKernelModules= (which drops it
	# and filters delete_module) must not be set, and the system call
	# filter must let the reclaim through.
	run grep -E '^(CapabilityBoundingSet|ProtectKernelModules|User|DynamicUser)=' \
		"$UNITS/modrot-ceiling.service.in"
	assert_output "CapabilityBoundingSet=CAP_SYS_MODULE"
	run allowed_syscalls "$UNITS/modrot-ceiling.service.in"
	assert_line delete_module
	assert_line ioctl
	assert_line openat
	refute_line setrlimit
	# The metrics service needs no module system call at all.
	run allowed_syscalls "$UNITS/modrot-metrics.service.in"
	refute_line delete_module
	refute_line init_module
	assert_line rename
}

@test "the services' commands make only system calls their SystemCallFilter= allows" {
	need_packages strace
	kernel_new rot
	"$SIM" populate "$K" --live 4 --rotting 6 --seed 8
	local dir u
	dir=$(test_units)
	mkdir "$BATS_TEST_TMPDIR/textfile"
	printf 'MODROT_METRICS_FILE=%s\nMODROT_CEILING=64K\nMODROT_INTERVAL=0.1\n' \
		"$BATS_TEST_TMPDIR/textfile/modrot.prom" > "$BATS_TEST_TMPDIR/etc/default/modrot"
	for u in modrot-metrics modrot-ceiling; do
		unit_command "$dir/$u.service"
		# The ceiling's modreap --watch, stopped by SIGTERM after its passes.
		# LeakSanitizer cannot run under ptrace; the traced run does without it.
		ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 \
			run on_kernel timeout -s TERM 2 strace -f -qq -o "$BATS_TEST_TMPDIR/$u.strace" "${CMD[@]}"
		[ "$u" = modrot-metrics ] && assert_success
		sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$BATS_TEST_TMPDIR/$u.strace" | sort -u > "$BATS_TEST_TMPDIR/$u.used"
		[ "$(wc -l < "$BATS_TEST_TMPDIR/$u.used")" -gt 10 ]
		# what the tool called that the filter would refuse (EPERM)
		run comm -23 "$BATS_TEST_TMPDIR/$u.used" <(allowed_syscalls "$dir/$u.service")
		assert_output ""
	done
	[ "$(rotting_bytes)" -le 65536 ] # the ceiling's passes did reclaim
	# The control: a filter without @file-system refuses what the tool uses.
	sed -i 's/^SystemCallFilter=@system-service$/SystemCallFilter=@basic-io/' "$dir/modrot-metrics.service"
	run comm -23 "$BATS_TEST_TMPDIR/modrot-metrics.used" <(allowed_syscalls "$dir/modrot-metrics.service")
	assert_line rename
}

@test "systemd-analyze security rates both services at most 2.5 (OK)" {
	local dir u level
	dir=$(test_units)
	cd "$dir"
	for u in modrot-ceiling.service modrot-metrics.service; do
		run timeout 120 systemd-analyze security --offline=true "$u"
		assert_success
		level=$(sed -n "s/^→ Overall exposure level for $u: \([0-9.]*\) .*/\1/p" <<< "$output")
		[ -n "$level" ]
		echo "$u: $level" >&3
		awk -v l="$level" 'BEGIN { exit !(l <= 2.5) }'
	done
}

@test "the ceiling service is skipped on a kernel without /proc/rotting_modules; the metrics service is not" {
	run grep -x 'ConditionPathExists=/proc/rotting_modules' "$UNITS/modrot-ceiling.service.in"
	assert_success
	run grep '^Condition' "$UNITS/modrot-metrics.service.in"
	assert_failure
	# the path is the one modreap needs: a stock kernel lacks it, a rot kernel has it
	kernel_new stock
	run on_kernel test -e /proc/rotting_modules
	assert_failure
	kernel_new rot
	run on_kernel test -e /proc/rotting_modules
	assert_success
}

# The metrics service's user (sysusers.d), its own directory
# (StateDirectory=) and the lines of the link that shows its file in
# node_exporter's textfile directory (tmpfiles.d lines the service applies
# after each run).
SYSUSERS=$UNITS/sysusers.d/modrot.conf
LINKCONF=$UNITS/modrot-metrics-link.conf
TEXTDIR=/var/lib/prometheus/node-exporter
metrics_user() { sed -n 's/^User=//p' "$UNITS/modrot-metrics.service.in"; }
metrics_default() { sed -n 's/^Environment=MODROT_METRICS_FILE=\([^ ]*\).*/\1/p' "$UNITS/modrot-metrics.service.in"; }
state_dir() { echo "/var/lib/$(sed -n 's/^StateDirectory=//p' "$UNITS/modrot-metrics.service.in")"; }

@test "the metrics service runs as its own system user, keeps no capability, and may write only in its own directory" {
	local unit=$UNITS/modrot-metrics.service.in default user
	default=$(metrics_default)
	assert_equal "$default" /var/lib/modrot-metrics/modrot.prom
	assert_equal "$(state_dir)" "${default%/*}"
	user=$(metrics_user)
	# a system user of sysusers.d, named as Debian names new ones
	assert_equal "$user" _modrot-metrics
	run grep -v '^#' "$SYSUSERS"
	assert_output "u $user - \"modrot metrics for node_exporter\" / -"
	# Its own directory, made by systemd (the user's, readable by all), the
	# only place it may write; the link made by root ("+") after a run.
	run grep -E '^(ExecStartPre|ExecStartPost|ReadWritePaths|ReadWriteDirectories|StateDirectory|StateDirectoryMode|LogsDirectory|CacheDirectory|RuntimeDirectory|DynamicUser)=' "$unit"
	assert_output "StateDirectory=modrot-metrics
StateDirectoryMode=0755
ExecStartPost=+systemd-tmpfiles --create @pkgdatadir@/modrot-metrics-link.conf"
	# The link's lines: the textfile directory made when missing, its
	# owner and mode left alone ("-"), and root's link in it to the file.
	# No line gives the user anything there, and none is in a tmpfiles.d
	# directory (boot would make the link before there is a file).
	run grep -v '^#' "$LINKCONF"
	assert_line --index 0 --regexp "^d +$TEXTDIR - - - -\$"
	assert_line --index 1 --regexp "^L\\+ +$TEXTDIR/modrot.prom - - - - $default\$"
	assert_equal "${#lines[@]}" 2
	assert_file_not_exist "$UNITS/tmpfiles.d"
	run grep -x 'ProtectSystem=strict' "$unit"
	assert_success
	run grep -x 'CapabilityBoundingSet=' "$unit"
	assert_success
	run grep -x 'AmbientCapabilities=' "$unit"
	assert_success
	# Under its name the user leaves only a regular file or a directory:
	# no symbolic or hard link, no FIFO.
	local call
	run allowed_syscalls "$unit"
	for call in link linkat symlink symlinkat mknod mknodat; do refute_line "$call"; done
	assert_line rename
	assert_line openat
	# The control: @system-service alone allows them.
	grep -v '^SystemCallFilter=~link ' "$unit" > "$BATS_TEST_TMPDIR/unit"
	run allowed_syscalls "$BATS_TEST_TMPDIR/unit"
	for call in link linkat symlink symlinkat mknod mknodat; do assert_line "$call"; done
}

# traversable: every directory above the test's own may be passed through
# by another user (bats makes its run directory 0700).
traversable() {
	local d=$BATS_TEST_TMPDIR
	while [ "$d" != / ]; do
		[ -n "$(find "$d" -maxdepth 0 -perm -o+x)" ] || chmod o+x "$d"
		d=${d%/*}
		d=${d:-/}
	done
}

# metrics_root ROOT: makes ROOT as a package install and systemd make it:
# the sysusers.d file under /usr/lib, systemd-sysusers run on it (over a
# copy of this system's users less the metrics user, so that no id is
# taken twice and the user is made), and the service's StateDirectory=
# as systemd makes it, the user's, of StateDirectoryMode=.
metrics_root() {
	local root=$1 f uid gid mode
	mkdir -p "$root/etc" "$root/usr/lib/sysusers.d"
	for f in passwd group; do
		grep -v "^$(metrics_user):" "/etc/$f" > "$root/etc/$f" || return
	done
	cp "$SYSUSERS" "$root/usr/lib/sysusers.d/modrot.conf"
	systemd-sysusers --root="$root" modrot.conf
	uid=$(awk -F: -v u="$(metrics_user)" '$1 == u { print $3 }' "$root/etc/passwd")
	gid=$(awk -F: -v u="$(metrics_user)" '$1 == u { print $4 }' "$root/etc/passwd")
	mode=$(sed -n 's/^StateDirectoryMode=//p' "$UNITS/modrot-metrics.service.in")
	install -d -o "$uid" -g "$gid" -m "$mode" "$root$(state_dir)"
}

# post_run ROOT UNIT: the service's ExecStartPost command, as root, on ROOT.
post_run() {
	local root=$1 post
	post=$(sed -n 's/^ExecStartPost=+//p' "$2")
	read -r -a post <<< "$post"
	"${post[0]}" --root="$root" "${post[@]:1}"
}

# metrics_ids ROOT: "UID GID" of ROOT's metrics user
metrics_ids() {
	awk -F: -v u="$(metrics_user)" '$1 == u { print $3, $4 }' "$1/etc/passwd"
}

# as_metrics_user ROOT CMD...: CMD on the kernel as the service runs it:
# as ROOT's metrics user, no capability, UMask=0077, no pointer visible.
as_metrics_user() {
	local root=$1 ids
	shift
	read -r -a ids <<< "$(metrics_ids "$root")"
	[ -n "${ids[0]}" ] && [ "${ids[0]}" -ne 0 ] || return 99
	(umask 0077 && exec "$SIM" run "$K" --nocap -- setpriv --reuid="${ids[0]}" --regid="${ids[1]}" \
		--clear-groups --inh-caps=-all --no-new-privs "$@")
}

# as_node_exporter ROOT CMD...: CMD as node_exporter's textfile collector
# reads: as another unprivileged user (nobody), with ROOT's /var in the
# place of this system's, so that the link's absolute target resolves.
as_node_exporter() {
	unshare -m sh -c 'mount --bind "$1/var" /var && shift && exec setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=-all "$@"' sh "$@"
}

# What a hostile metrics user tries in the textfile directory DIR, from
# its own directory OWN: each system call's errno name, or "ok".
HOSTILE='
import errno, os, sys
d, own = sys.argv[1], sys.argv[2]
def attempt(name, f):
    try:
        f()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
mine = os.path.join(own, "mine.prom")
os.close(os.open(mine, os.O_CREAT | os.O_WRONLY, 0o644))
attempt("create", lambda: os.close(os.open(os.path.join(d, "evil.prom"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)))
attempt("write-other", lambda: os.close(os.open(os.path.join(d, "other.prom"), os.O_WRONLY)))
attempt("rename-over-other", lambda: os.rename(mine, os.path.join(d, "other.prom")))
attempt("rename-over-link", lambda: os.rename(mine, os.path.join(d, "modrot.prom")))
attempt("rename-other-away", lambda: os.rename(os.path.join(d, "other.prom"), os.path.join(d, "gone.prom")))
attempt("unlink-other", lambda: os.unlink(os.path.join(d, "other.prom")))
attempt("unlink-link", lambda: os.unlink(os.path.join(d, "modrot.prom")))
attempt("symlink", lambda: os.symlink("/etc/shadow", os.path.join(d, "evil.prom")))
attempt("mkdir", lambda: os.mkdir(os.path.join(d, "evil.prom")))
os.unlink(mine)
'

@test "as its user, the metrics service writes only in its own directory; root's link shows the file to node_exporter; the textfile directory is out of the user's reach" {
	[ "$(id -u)" -eq 0 ] || skip "running as another user needs root (setpriv, unshare)"
	need_packages acl python3
	kernel_new rot
	"$SIM" populate "$K" --live 4 --rotting 3 --seed 8
	traversable
	local root=$BATS_TEST_TMPDIR/root units user uid gid state textdir link before expected inode
	user=$(metrics_user)
	units=$(test_units)
	state=$root$(state_dir)
	textdir=$root$TEXTDIR
	link=$textdir/modrot.prom

	run metrics_root "$root"
	assert_success
	assert_output --partial "Creating user '$user'"
	read -r uid gid <<< "$(metrics_ids "$root")"
	[ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] # a system user
	assert_equal "$(stat -c '%u %g %a' "$state")" "$uid $gid 755"
	assert_file_not_exist "$textdir"

	# The run, as the user, into its own directory.
	echo "MODROT_METRICS_FILE=$root$(metrics_default)" > "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$units/modrot-metrics.service"
	on_kernel_nocap cat /proc/modules /proc/rotting_modules /proc/module_percpu > /dev/null # rendered
	# the user has no capability
	run as_metrics_user "$root" grep '^CapEff:' /proc/self/status
	assert_output --regexp '^CapEff:[[:space:]]+0+$'
	before=$(kernel_state)
	run as_metrics_user "$root" "${CMD[@]}"
	assert_success
	assert_output ""
	# the ceiling service's default ceiling, exported for the alert
	expected=$(on_kernel_nocap "$top_builddir/tools/modrot-metrics" --ceiling 64M)
	assert_equal "$(cat "$state/modrot.prom")" "$expected"
	grep -qx 'modrot_ceiling_bytes 67108864' "$state/modrot.prom"
	# the user's file, readable by node_exporter's user; no temporary left
	assert_equal "$(stat -c '%u %a' "$state/modrot.prom")" "$uid 644"
	assert_equal "$(ls -A "$state")" modrot.prom

	# Then root's link: the textfile directory made as
	# prometheus-node-exporter makes it (root's, 0755, no ACL), holding
	# only root's link to the file.
	run post_run "$root" "$units/modrot-metrics.service"
	assert_success
	assert_equal "$(stat -c '%U %G %a' "$textdir")" "root root 755"
	run getfacl -s -p "$textdir"
	assert_output ""
	[ -L "$link" ]
	assert_equal "$(stat -c '%U %G' "$link")" "root root"
	assert_equal "$(readlink "$link")" "$(metrics_default)"
	assert_equal "$(ls -A "$textdir")" modrot.prom
	# node_exporter's user reads the metrics through it
	run as_node_exporter "$root" cat "$TEXTDIR/modrot.prom"
	assert_success
	assert_equal "$output" "$expected"
	run as_node_exporter "$root" readlink -e "$TEXTDIR/modrot.prom"
	assert_output "$(metrics_default)"

	# The hostile user: with another collector's file in the directory,
	# it can create, replace, rename, delete or write nothing there.
	printf 'other_metric 1\n' > "$textdir/other.prom"
	chmod 0644 "$textdir/other.prom"
	inode=$(stat -c %i "$link")
	run env -i PATH=/usr/bin:/bin setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all \
		/usr/bin/python3 -c "$HOSTILE" "$textdir" "$state"
	assert_success
	assert_output "create EACCES
write-other EACCES
rename-over-other EACCES
rename-over-link EACCES
rename-other-away EACCES
unlink-other EACCES
unlink-link EACCES
symlink EACCES
mkdir EACCES"
	assert_equal "$(cat "$textdir/other.prom")" "other_metric 1"
	assert_equal "$(stat -c '%U %a' "$textdir/other.prom")" "root 644"
	assert_equal "$(ls -A "$textdir")" "modrot.prom
other.prom"
	assert_equal "$(stat -c %i "$link")" "$inode"
	assert_equal "$(ls -A "$state")" modrot.prom
	# The tool itself, pointed at the textfile directory: one line, exit 1,
	# nothing there changed.
	echo "MODROT_METRICS_FILE=$textdir/other.prom" > "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$units/modrot-metrics.service"
	run as_metrics_user "$root" "${CMD[@]}"
	assert_failure 1
	assert_output "modrot-metrics: ERROR: could not write $textdir/other.prom: cannot create a file in $textdir: Permission denied"
	assert_equal "$(cat "$textdir/other.prom")" "other_metric 1"
	assert_equal "$(ls -A "$textdir")" "modrot.prom
other.prom"

	# The next runs: a right link is left as it is; the file its
	# collector left in the earlier layout (a regular file, the user's)
	# gives way to the link; a directory someone else owns stays theirs.
	run post_run "$root" "$units/modrot-metrics.service"
	assert_success
	assert_equal "$(stat -c %i "$link")" "$inode"
	rm "$link"
	echo old > "$link"
	chown "$uid:$gid" "$link"
	chown 65534:65534 "$textdir"
	chmod 0750 "$textdir"
	run post_run "$root" "$units/modrot-metrics.service"
	assert_success
	[ -L "$link" ]
	assert_equal "$(stat -c '%U %G' "$link")" "root root"
	assert_equal "$(readlink "$link")" "$(metrics_default)"
	assert_equal "$(stat -c '%u %g %a' "$textdir")" "65534 65534 750"
	run as_node_exporter "$root" cat "$TEXTDIR/modrot.prom"
	assert_success
	assert_equal "$output" "$expected"
	assert_equal "$(kernel_state)" "$before"
}

@test "the metrics service writes the configured file, and promtool accepts it" {
	kernel_new rot
	"$SIM" populate "$K" --live 4 --rotting 3 --seed 8
	local dir
	dir=$(test_units)
	mkdir "$BATS_TEST_TMPDIR/textfile"
	echo "MODROT_METRICS_FILE=$BATS_TEST_TMPDIR/textfile/modrot.prom" > "$BATS_TEST_TMPDIR/etc/default/modrot"
	unit_command "$dir/modrot-metrics.service"
	run on_kernel "${CMD[@]}"
	assert_success
	run promtool check metrics < "$BATS_TEST_TMPDIR/textfile/modrot.prom"
	assert_success
	assert_equal "$(awk '$1 == "modrot_rot_bytes" { print $2 }' "$BATS_TEST_TMPDIR/textfile/modrot.prom")" "$(rotting_bytes)"
}
