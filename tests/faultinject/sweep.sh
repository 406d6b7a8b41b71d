#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The fault-injection sweep: every tool in every output mode, run once
# with no fault, then again with its Nth allocation (read, write) failing,
# N = 1, 2, ... until a run no longer reaches the Nth operation. Each run
# starts from the same fresh simulated kernel. A run is
#
#   crash      killed by a signal, timed out, or a sanitizer / glibc
#              malloc report on stderr
#   silent     exit 0, but its output or the kernel's state differ from
#              the run without a fault (a false success)
#   unexplained  non-zero exit without an error line that names the
#              cause ("out of memory" / "Cannot allocate memory",
#              "Input/output error", "No space left on device"); with
#              -J, a module record's "message" may name it instead
#   ledger     the simulated kernel's ledger check fails afterwards
#   known      silent, but the failed allocation is one a library is known
#              to swallow (known-defects: the library's build id and the
#              call's offset); not the tool's to fix, counted apart
#   fine       anything else (the fault was absorbed, or reported)
#
#   sweep.sh [-j JOBS] [-k alloc,read,write] [-m REGEX] [-f FIRST] [-s STEP] [-n MAX] [-v] [-l]
#            [-x 'NAME|rot|COMMAND ARG...']
#
#   -j  sweep JOBS modes at once (default 1)
#   -k  kinds of fault (default: all three)
#   -m  only the modes whose name matches REGEX (-l lists them)
#   -f  start at N = FIRST, not 1 (with -n 1 -v: look at one run again)
#   -s  try every STEPth N only, starting at FIRST (a bounded sweep)
#   -n  try at most MAX values of N per mode and kind
#   -v  print each defect's stdout/stderr, not just its one line
#   -x  sweep this mode only (the sweep's own tests use it on commands
#       known to be wrong)
#
# SWEEP_KERNELS=DIR keeps the kernels the runs start from, and the keys,
# in DIR: made by the first sweep, reused by the next ones.
#
# Needs the plain build (the preload replaces the allocator, which ASan
# will not share): top_builddir (default ../../build from here). Prints
# one line per defect, then the totals; exits 1 when a defect was found.
set -u
LC_ALL=C
export LC_ALL

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"

kinds=alloc,read,write
only=
first=1
step=1
max=100000
verbose=0
list=0
extra=
parallel=1
while getopts j:k:m:f:s:n:vlx: opt; do
	case $opt in
	k) kinds=$OPTARG ;;
	m) only=$OPTARG ;;
	f) first=$OPTARG ;;
	s) step=$OPTARG ;;
	n) max=$OPTARG ;;
	v) verbose=1 ;;
	l) list=1 ;;
	x) extra=$OPTARG ;;
	j) parallel=$OPTARG ;;
	*) exit 2 ;;
	esac
done

SIM=$top_builddir/tests/simkernel/simkernel
SIMLIB=$top_builddir/tests/simkernel/libsimkernel.so
FAULTLIB=$top_builddir/tests/faultinject/libfaultinject.so
FIX=$top_builddir/tests/fixtures/out
T=$top_builddir/tools
for f in "$SIM" "$SIMLIB" "$FAULTLIB" "$T/insmod"; do
	[ -e "$f" ] || { echo "sweep.sh: $f is missing: build first" >&2; exit 2; }
done
if nm -D "$T/lsmod" 2>/dev/null | grep -q __asan_init; then
	echo "sweep.sh: $top_builddir is a sanitised build: use the plain one" >&2
	exit 2
fi

# The kernel is copied afresh for every run: on tmpfs that is cheap.
tmp=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm
W=$(mktemp -d "$tmp/faultsweep.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
# The kernels the runs are copied from, and the signing keys: made in $W,
# or once in $SWEEP_KERNELS for every sweep that names the same directory
# (faultinject.bats: 1.7 s of CPU a sweep). No run writes to them.
S=${SWEEP_KERNELS:-$W}

# ---- kernels the modes start from ----


make_rot() {
	local d=$S/tpl-rot
	"$SIM" create "$d" --mode rot >/dev/null
	"$SIM" run "$d" -- /sbin/insmod "$FIX/alpha.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/beta.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/gamma.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/permanent.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/bound.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/delta.ko" &&
		"$SIM" run "$d" -- /sbin/rmmod delta &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/delta.ko" &&
		"$SIM" run "$d" -- /sbin/rmmod delta &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/oot.ko" &&
		"$SIM" run "$d" -- /sbin/rmmod oot ||
		{ echo "sweep.sh: could not set up the rot kernel" >&2; exit 2; }
	"$SIM" run "$d" -- /sbin/insmod "$FIX/failinit.ko" 2>/dev/null
	"$SIM" device add "$d" platform dummy.0 platform:dummy >/dev/null
	"$SIM" device add "$d" pci 0000:00:01.0 pci:v00008086d00001234 >/dev/null
	# modprobe's and modinfo's tree (tests/fixtures/modtree.spec), served as
	# /lib/modules/6.1.0-sim, its modprobe.d file beside (modprobe -C).
	"$top_srcdir/tests/helpers/modtree.sh" "$d/root" >/dev/null 2>&1 ||
		{ echo "sweep.sh: could not build the module tree" >&2; exit 2; }
	"$SIM" run "$d" -- /sbin/modprobe -C "$d/root/etc/modprobe.d/modtree.conf" mt_snd ||
		{ echo "sweep.sh: could not load mt_snd" >&2; exit 2; }
	# Processes in other mount namespaces, for the in-use rule to read:
	# two in one ("ctr", which mounts a tmpfs), one in the initial one.
	"$SIM" process "$d" 4242 --ns ctr && "$SIM" process "$d" 4243 --ns ctr &&
		"$SIM" process "$d" 4244 && "$SIM" mount "$d" --ns ctr tmpfs tmpfs /ctr ||
		{ echo "sweep.sh: could not make the namespaces" >&2; exit 2; }
}

make_stock() {
	local d=$S/tpl-stock
	"$SIM" create "$d" --mode stock >/dev/null
	"$SIM" run "$d" -- /sbin/insmod "$FIX/alpha.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/beta.ko" &&
		"$SIM" run "$d" -- /sbin/insmod "$FIX/oot.ko" ||
		{ echo "sweep.sh: could not set up the stock kernel" >&2; exit 2; }
}

make_keys() {
	local d=$S/keys
	mkdir -p "$d"
	"$top_srcdir/tests/helpers/sign-module.sh" --make-ca "$d/ca" >/dev/null 2>&1 &&
		"$top_srcdir/tests/helpers/sign-module.sh" "$d/ca/key.pem" "$d/ca/cert.pem" \
			"$FIX/delta.ko" "$d/delta-signed.ko" >/dev/null 2>&1 ||
		{ echo "sweep.sh: could not sign a module" >&2; exit 2; }
}

# ---- the modes: NAME|KERNEL|COMMAND (words split on blanks) ----
L=$T/lsmod R=$T/rmmod M=$T/modreap I=$T/insmod
P=$T/modprobe MI=$T/modinfo MX=$T/modrot-metrics
modes=(
	"lsmod|rot|$L"
	"lsmod-o|rot|$L -o name,size,refcnt,holders,state,address,taints,permanent,devices"
	"lsmod-J|rot|$L -J"
	"lsmod-J-all|rot|$L -J -o name,size,refcnt,holders,state,address,taints,permanent,devices"
	"lsmod-r|rot|$L -r"
	"lsmod-n|rot|$L -n --live"
	"lsmod-rotting|rot|$L --rotting"
	"lsmod-stock|stock|$L"
	"lsmod-stock-J|stock|$L -J"
	"lsmod-inuse|rot|$L -o name,mounts,inuse"
	"lsmod-pins|rot|$L -J -o name,refcnt,pins,inuse"
	"rmmod|rot|$R gamma"
	"rmmod-many|rot|$R gamma beta"
	"rmmod-holders|rot|$R --remove-holders alpha"
	"rmmod-inuse|rot|$R alpha"
	"rmmod-reclaim|rot|$R --reclaim delta"
	"rmmod-reclaim-live|rot|$R --reclaim gamma"
	"rmmod-unused|rot|$R --unused"
	"rmmod-unused-n|rot|$R --unused -n"
	"rmmod-unused-reclaim|rot|$R --unused --reclaim"
	"rmmod-stock|stock|$R beta"
	"modreap|rot|$M"
	"modreap-J|rot|$M -J"
	"modreap-all|rot|$M --all"
	"modreap-all-J|rot|$M --all -J"
	"modreap-all-n|rot|$M --all -n"
	"modreap-down-to|rot|$M --down-to 4K"
	"modreap-down-to-J|rot|$M --down-to 4K -J"
	"modreap-name|rot|$M delta"
	"modreap-name-J|rot|$M -J delta failinit"
	"insmod|rot|$I $FIX/delta.ko"
	"insmod-params|rot|$I $FIX/params.ko count=3 label=x"
	"insmod-xz|rot|$I $FIX/delta.ko.xz"
	"insmod-zst|rot|$I $FIX/delta.ko.zst"
	"insmod-refused|rot|$I $FIX/badmagic.ko"
	"insmod-failinit|rot|$I $FIX/failinit.ko"
	"insmod-check|rot|$I --check $FIX/delta.ko"
	"insmod-check-J|rot|$I --check -J $FIX/delta.ko"
	"insmod-verify|rot|$I --verify @KEYS@/ca/cert.pem @KEYS@/delta-signed.ko"
	"insmod-verify-der|rot|$I --verify @KEYS@/ca/cert.der @KEYS@/delta-signed.ko"
	"insmod-verify-unsigned|rot|$I --verify @KEYS@/ca/cert.pem $FIX/delta.ko"
	"insmod-batch|rot|$I --batch -j1 $FIX/delta.ko $FIX/params.ko $FIX/oot.ko.zst $FIX/badmagic.ko"
	"insmod-batch-J|rot|$I --batch -j1 -J $FIX/delta.ko $FIX/params.ko $FIX/oot.ko.xz $FIX/needsym.ko"
	"insmod-batch-j2-J|rot|$I --batch -j2 -J $FIX/delta.ko $FIX/params.ko $FIX/oot.ko"
	"insmod-batch-check|rot|$I --batch -j1 --check $FIX/delta.ko $FIX/params.ko $FIX/badmagic.ko"
	"insmod-from|rot|$I -j1 --from @W@/list"
	"insmod-match-devices|rot|$I --match-devices -j1 $FIX/delta.ko $FIX/params.ko"
	"insmod-stock|stock|$I $FIX/delta.ko"
	"modprobe|rot|$P -C @CONF@ mt_net"
	"modprobe-v|rot|$P -C @CONF@ -v mtsound mtfs_tools"
	"modprobe-a|rot|$P -C @CONF@ -a mt_net mtfs_tools mt_inst"
	"modprobe-n-v|rot|$P -C @CONF@ -n -v mt_net"
	"modprobe-show-depends|rot|$P -C @CONF@ --show-depends mt_net"
	"modprobe-c|rot|$P -C @CONF@ -c"
	"modprobe-r|rot|$P -C @CONF@ -r mt_snd"
	"modprobe-r-v|rot|$P -C @CONF@ -r -v mt_snd mt_codec"
	"modprobe-r-reclaim|rot|$P -C @CONF@ -r --reclaim mt_snd"
	"modprobe-r-cmd|rot|$P -C @CONF@ -r mt_inst"
	"modinfo|rot|$MI mt_net"
	"modinfo-many|rot|$MI mt_snd mtblock mt_core"
	"modinfo-F|rot|$MI -F alias mt_net"
	"modinfo-J|rot|$MI -J mt_net mt_snd"
	"modinfo-file|rot|$MI $FIX/params.ko"
	"modinfo-stock|stock|$MI $FIX/params.ko"
	"metrics|rot|$MX"
	"metrics-o|rot|$MX -o @OUTFILE@"
	"metrics-stock|stock|$MX"
)

if [ -n "$extra" ]; then
	modes=("$extra")
	only=
fi

if [ "$list" = 1 ]; then
	printf '%s\n' "${modes[@]}" | cut -d'|' -f1
	exit 0
fi

if [ ! -e "$S/ready" ]; then
	rm -rf "$S/tpl-rot" "$S/tpl-stock" "$S/keys"
	mkdir -p "$S"
	make_rot
	make_stock
	make_keys
	touch "$S/ready"
fi
printf '%s\n' "$FIX/delta.ko" "# a comment" "$FIX/params.ko count=3 label=\"a b\"" >"$W/list"

# ---- one run ----

# run_one KERNEL OUTDIR N KIND COMMAND...: a fresh copy of KERNEL in $K,
# one run, its results in OUTDIR
run_one() {
	local tpl=$S/tpl-$1 out=$2 n=$3 kind=$4
	shift 4
	# @OUTFILE@, a tool's -o file: what it holds after the run is output too.
	rm -rf "$K" "$out" "$K.out"
	mkdir -p "$out"
	cp -a "$tpl" "$K"
	local var=
	case $kind in
	alloc) var=FAULTINJECT_ALLOC ;;
	read) var=FAULTINJECT_READ ;;
	write) var=FAULTINJECT_WRITE ;;
	esac
	(
		cd "$W" || exit
		export SIMKERNEL_DIR=$K LD_PRELOAD=$SIMLIB:$FAULTLIB MALLOC_PERTURB_=165
		unset SIMKERNEL_NOCAP
		# The preload clears its variables at start, so they go to the
		# tool alone, through env: timeout and env start without them,
		# and what the tool starts runs without a fault.
		local fault=("FAULTINJECT_LOG=$out/log")
		[ "$n" -gt 0 ] && fault+=("$var=$n")
		timeout -k 2 30 env "${fault[@]}" "$@" </dev/null >"$out/stdout" 2>"$out/stderr"
		echo $? >"$out/rc"
	) 2>/dev/null # the shell's own "Segmentation fault": the code says it
	if [ -f "$K.out" ]; then
		echo "-- $K.out:" >>"$out/stdout"
		cat "$K.out" >>"$out/stdout"
	fi
	# Addresses follow the order of loads, which threads (-j2) vary: the
	# state compared is what is loaded and rots, in any order.
	"$SIM" state "$K" 2>&1 | awk '{ $4 = ""; print }' | sort >"$out/state"
	"$SIM" ledger "$K" --check >"$out/ledger" 2>&1 || echo "ledger check failed" >>"$out/ledger"
}

# Every line of the first file is in the second: no reason was replaced.
same_reasons() {
	[ -z "$(grep -vxF -f "$2" "$1")" ]
}

cause_words() {
	case $1 in
	alloc) echo 'out of memory|Cannot allocate memory' ;;
	read) echo 'Input/output error' ;;
	write) echo 'No space left on device' ;;
	esac
}

# "object+offset" of each known library defect whose build id matches the
# library installed here.
known_callers=()
while read -r obj id off _; do
	case $obj in '' | '#'*) continue ;; esac
	lib=$(ldd "$T/lsmod" "$T/insmod" "$P" "$MI" 2>/dev/null | awk -v o="$obj" '$1 == o { print $3; exit }')
	[ -n "$lib" ] || continue
	readelf -n "$lib" 2>/dev/null | grep -q "Build ID: $id" && known_callers+=("$obj+$off")
done <"$here/known-defects"
is_known() { # RUNDIR
	local c
	for c in "${known_callers[@]}"; do
		grep -q "^hit alloc [0-9]* $c " "$1/log" && return 0
	done
	return 1
}
defect() { # CLASS MODE KIND N DIR
	printf '%-11s %-24s %-5s N=%-5s rc=%s  %s\n' "$1" "$2" "$3" "$4" "$(cat "$5/rc")" \
		"$(grep -m1 . "$5/stderr" | cut -c1-110)"
	if [ "$verbose" = 1 ]; then
		sed 's/^/    stdout: /' "$5/stdout" | head -20
		sed 's/^/    stderr: /' "$5/stderr" | head -10
		# $base: the run without a fault, of the mode being swept
		diff "$base/state" "$5/state" | grep '^[<>]' | sed 's/^/    state: /' | head -10
		grep hit "$5/log" | sed 's/^/    /'
	fi
}

# sweep_mode ENTRY DIR: one mode, every kind and N, in DIR (its own
# kernel and runs); prints its defects, then "totals R C S U L K F".
sweep_mode() {
	local entry=$1 d=$2
	local runs=0 crashes=0 silent=0 unexplained=0 ledger=0 fine=0 known=0
	local name rest kern cmd argv prog json base kind tries n r rc
	local K=$d/kernel
	mkdir -p "$d"
	name=${entry%%|*}
	rest=${entry#*|}
	kern=${rest%%|*}
	cmd=${rest#*|}
	cmd=${cmd//@KEYS@/$S/keys}
	cmd=${cmd//@W@/$W}
	cmd=${cmd//@CONF@/$S/tpl-rot/root/etc/modprobe.d/modtree.conf}
	cmd=${cmd//@OUTFILE@/$K.out}
	read -r -a argv <<<"$cmd"
	prog=$(basename "${argv[0]}")
	json=0
	[[ " ${argv[*]} " == *" -J "* ]] && json=1

	base=$d/base
	run_one "$kern" "$base" 0 alloc "${argv[@]}"
	if grep -q "ledger check failed" "$base/ledger"; then
		echo "sweep.sh: $name: the ledger is broken without a fault" >&2
	fi
	for kind in "${kind_list[@]}"; do
		tries=0
		for ((n = first; tries < max; n += step)); do
			tries=$((tries + 1))
			r=$d/run
			run_one "$kern" "$r" "$n" "$kind" "${argv[@]}"
			grep -q "^hit $kind" "$r/log" || break
			runs=$((runs + 1))
			rc=$(cat "$r/rc")
			if [ "$rc" -ge 124 ] ||
				grep -Eq 'AddressSanitizer|runtime error:|malloc\(\)|free\(\)|double free|corrupted|Segmentation|stack smashing' "$r/stderr"; then
				crashes=$((crashes + 1))
				defect crash "$name" "$kind" "$n" "$r"
			elif grep -q "ledger check failed" "$r/ledger"; then
				ledger=$((ledger + 1))
				defect ledger "$name" "$kind" "$n" "$r"
			elif [ "$rc" = 0 ]; then
				if [ "$(cat "$base/rc")" = 0 ] && cmp -s "$r/stdout" "$base/stdout" &&
					cmp -s "$r/state" "$base/state"; then
					fine=$((fine + 1))
				elif is_known "$r"; then
					known=$((known + 1))
				else
					silent=$((silent + 1))
					defect silent "$name" "$kind" "$n" "$r"
				fi
			elif [ "$rc" = "$(cat "$base/rc")" ] && cmp -s "$r/stdout" "$base/stdout" &&
				cmp -s "$r/state" "$base/state" && same_reasons "$base/stderr" "$r/stderr"; then
				# The fault changed nothing the run reports (a library may
				# have said what it absorbed).
				fine=$((fine + 1))
			elif grep -Eq "^$prog: .*($(cause_words "$kind"))" "$r/stderr"; then
				fine=$((fine + 1))
			elif [ "$json" = 1 ] && grep -Eq "\"message\": \".*($(cause_words "$kind"))" "$r/stdout"; then
				# With -J a module's failure is told in its record.
				fine=$((fine + 1))
			else
				unexplained=$((unexplained + 1))
				defect unexplained "$name" "$kind" "$n" "$r"
			fi
		done
	done
	echo "totals $runs $crashes $silent $unexplained $ledger $known $fine"
	rm -rf "$d"
}

# Modes run side by side, each in its own directory; their reports are
# printed in the modes' order.
start=$(date +%s)
IFS=, read -r -a kind_list <<<"$kinds"
todo=()
for entry in "${modes[@]}"; do
	name=${entry%%|*}
	[ -n "$only" ] && ! [[ $name =~ $only ]] && continue
	todo+=("$entry")
done
for i in "${!todo[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
		wait -n
	done
	sweep_mode "${todo[$i]}" "$W/mode$i" >"$W/report$i" &
done
wait
runs=0 crashes=0 silent=0 unexplained=0 ledger=0 known=0 fine=0
for i in "${!todo[@]}"; do
	grep -v '^totals ' "$W/report$i"
	read -r _ r c s u l k f < <(grep '^totals ' "$W/report$i" || echo "totals 0 0 0 0 0 0 0")
	runs=$((runs + r)) crashes=$((crashes + c)) silent=$((silent + s))
	unexplained=$((unexplained + u)) ledger=$((ledger + l)) known=$((known + k)) fine=$((fine + f))
done
end=$(date +%s)

echo "runs $runs, crashes $crashes, silent wrong outputs $silent, unexplained failures $unexplained, broken ledgers $ledger, known library defects $known, fine $fine ($((end - start)) s)"
[ $((crashes + silent + unexplained + ledger)) -eq 0 ]
