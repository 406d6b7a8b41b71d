# Sourced by every scenario.  Runs under busybox sh in the qemu guest
# (SIDE=real) and under dash on the host inside the simulated kernel
# (SIDE=sim); the same rows run on both and kernel/run.sh compares them.
#
# The caller exports: SIDE (real|sim), SIMDIR (sim: the simulated kernel),
# MODDIR (test modules: alpha.ko ...),
# ROTCTL (the syscall helper), LSMOD, RMMOD, MODREAP (the suite's tools)
# and optionally LOADER (the suite's insmod: "$LOADER FILE" loads), and
# KSERIES (6.1 or 6.12, the kernel whose rows those are: the few that
# differ by kernel expect its answer; 6.1 when unset).
#
# A row prints one line:  ROW <tab> ID <tab> EXPECTED <tab> ACTUAL <tab> WHAT
# EXPECTED is what rot-abi.md says ("*": no fixed text, the two kernels
# must agree); run.sh puts each side's ACTUAL beside it.

KSERIES=${KSERIES:-6.1}

row() { # ID EXPECTED ACTUAL WHAT
	printf 'ROW\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4"
}

note() {
	printf 'NOTE\t%s\n' "$*"
}

# The helper without CAP_SYS_MODULE.  The simulated kernel reads the
# capability from its environment; the real one from the process.
rotctl_nocap() {
	if [ "$SIDE" = sim ]; then
		SIMKERNEL_NOCAP=1 $ROTCTL "$@"
	else
		$ROTCTL nocap "$@"
	fi
}

# sk COMMAND ARGS... (SIDE=sim): simkernel COMMAND on this kernel, as
# `simkernel pin NAME` or `simkernel hold NAME ref WHERE`; the driver is
# $SIMKERNEL, or the one beside the simulator's preload.
sk() {
	simk=${SIMKERNEL:-}
	if [ -z "$simk" ]; then
		simk=${LD_PRELOAD%%:*}
		simk=${simk%/*}/simkernel
	fi
	c=$1
	shift
	"$simk" "$c" "$SIMKERNEL_DIR" "$@"
}

# wheel_where ROTCTL-WHY-OUTPUT: the reply with where=wheel for a timer
# the scan reaches through the timer wheel.  The word that points at the
# timer is its bucket's head (per-CPU data) or the link of the timer
# queued before it in the same bucket, which may be any timer of the
# kernel's, in a slab object or in kernel or module data: which one comes
# first is timing, not the rule.  The log line still names the place.
wheel_where() {
	echo "$1" | sed -E 's/ where=(per-CPU|slab|kernel|module|rotting|vmalloc|page)$/ where=wheel/'
}

# load_raw NAME [PARAMS]: finit_module once, print ok or the errno name.
# Never busybox insmod: it retries a failed finit with init_module, so a
# failed init would rot twice.
load_raw() {
	$ROTCTL load "$MODDIR/$1.ko" ${2:+"$2"}
}

# load NAME [PARAMS]: as a user would, with the suite's insmod when there
# is one (prints ok, or rc=N), else as load_raw.
load() {
	if [ -n "${LOADER:-}" ]; then
		# shellcheck disable=SC2086 # PARAM=VALUE words, as insmod takes them
		if $LOADER "$MODDIR/$1.ko" ${2:-} >/dev/null 2>&1; then echo ok; else echo "rc=$?"; fi
	else
		$ROTCTL load "$MODDIR/$1.ko" ${2:+"$2"}
	fi
}

rotting_count() { # NAME
	awk -v n="$1" '$1 == n { c++ } END { print c + 0 }' /proc/rotting_modules
}

rotting_total() {
	awk 'END { print NR }' /proc/rotting_modules
}

live_state() { # NAME -> Live/Loading/Unloading/none
	awk -v n="$1" '$1 == n { s = $5 } END { print s ? s : "none" }' /proc/modules
}

live_field() { # NAME FIELD
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' /proc/modules
}

sysfs_dir() { # NAME -> yes/no
	if [ -d "/sys/module/$1" ]; then echo yes; else echo no; fi
}

taint_r() { # 1 if the kernel carries taint R (bit 3)
	echo $(( ($(cat /proc/sys/kernel/tainted) >> 3) & 1 ))
}

# Every rotting address unique (ADDRESS is field 6).
rotting_addresses_unique() {
	if [ "$(awk '{ print $6 }' /proc/rotting_modules | sort | uniq -d | wc -l)" -eq 0 ]; then
		echo unique
	else
		echo duplicated
	fi
}

# Every /proc/rotting_modules line in rot-abi.md's format.
rotting_format() {
	bad=$(grep -Evc '^[a-z0-9_]+ [0-9]+ [0-9]+ \[rotting\], Rotting 0x[0-9a-f]{16}( \([A-Z]+\))?$' \
		/proc/rotting_modules)
	if [ "$bad" -eq 0 ]; then echo format-ok; else echo "format-bad:$bad"; fi
}

# Run a tool, give its exit status.
rc() {
	"$@" >/dev/null 2>&1
	echo "rc=$?"
}

# Wait until NAME shows STATE in /proc/modules (at most about 10 s).
# Handshakes with a test module, so that no row depends on how slow the
# guest or the host is.  gate NAME init|exit prints the load parameters
# that make NAME's init (or its exit) wait until open_gate NAME; on the
# simulator the wait is a behaviour of the fixture (init_gate=, exit_gate=
# in $SIMDIR/behaviour/NAME), so it prints nothing there.
gate() { # NAME init|exit
	if [ "$SIDE" = sim ]; then
		mkdir -p "$SIMDIR/behaviour"
		rm -f "$SIMDIR/gate.$1"
		echo "$2_gate=$SIMDIR/gate.$1" >"$SIMDIR/behaviour/$1"
	else
		echo gate=1
	fi
}

open_gate() { # NAME
	if [ "$SIDE" = sim ]; then
		touch "$SIMDIR/gate.$1"
	else
		echo 0 >"/sys/module/$1/parameters/gate"
	fi
}

# wait_name_waiter PID: until the load PID (a program, not a shell
# function: its pid must be the loading task) sleeps waiting for a name that
# is still Loading (at most 600 looks).  Linux 6.1 inlines that wait
# (add_unformed_module) into load_module, so the task's wchan says
# load_module; 6.12 waits in module_patient_check_exists, which GCC may
# clone (module_patient_check_exists.constprop.0); the simulator serves
# load_module while its load waits.
wait_name_waiter() { # PID
	i=0
	while [ $i -lt 600 ]; do
		case $(cat "/proc/$1/wchan" 2>/dev/null) in
		load_module | module_patient_check_exists*) break ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_file_waiter PID: until the finit_module() PID of a file another
# finit_module() is still loading sleeps: on 6.12 in idempotent_init_module
# (waiting for that call), on 6.1 by name as wait_name_waiter says (at most
# 600 looks). The simulator serves the same names.
wait_file_waiter() { # PID
	i=0
	while [ $i -lt 600 ]; do
		case $(cat "/proc/$1/wchan" 2>/dev/null) in
		idempotent_init_module* | load_module | module_patient_check_exists*) break ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
}

# wait_log PATTERN: until the kernel log has a line matching PATTERN (an
# extended regular expression), at most 30 s: for what a timer or a
# worker in the guest says when it is done, however slow the guest.
wait_log() { # PATTERN
	i=0
	while ! dmesg | grep -Eq "$1" && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

wait_state() { # NAME STATE
	i=0
	while [ "$(live_state "$1")" != "$2" ] && [ $i -lt 600 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
