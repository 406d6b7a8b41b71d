#!/bin/sh
# The demo: modrot's tools on a simulated rot kernel, told as a short story.
# Sets up what it needs first (packages, build), so it runs on a fresh
# Debian 12 machine. Nothing here reaches the real kernel: every process
# runs under the simulated kernel and its seccomp guard.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# The set-up (packages, configure, build) says one line a stage; its full
# output is kept in a log. The build is the tree's own when ./configure
# was run in it, else build/.
setup_log=$top/build-setup.log
build=$(SETUP_LOG=$setup_log "$top/scripts/setup.sh")
echo "set-up: ready (its log: $setup_log)"

sim=$build/tests/simkernel/simkernel
fixtures=$build/tests/fixtures/out
work=$(mktemp -d "${TMPDIR:-/tmp}/modrot-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
kernel=$work/kernel

# Headings in bold on a terminal only: a log or a pipe gets plain text.
if [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then
	bold=$(printf '\033[1m') plain=$(printf '\033[0m')
else
	bold='' plain=''
fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
# quoted ARG...: the arguments as a shell would need them typed: each that
# holds anything but safe characters in single quotes.
quoted() {
	sep=
	for a in "$@"; do
		case $a in
		'' | *[!A-Za-z0-9_./=:,+@%-]*)
			a="'$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"
			;;
		esac
		printf '%s%s' "$sep" "$a"
		sep=' '
	done
	echo
}
# Runs one command on the simulated kernel, showing it first.
on_kernel() {
	printf '$ '
	quoted "$@"
	"$sim" run "$kernel" -- env PATH="$build/tools:$PATH" "$@"
}
quietly() { "$sim" run "$kernel" -- env PATH="$build/tools:$PATH" "$@" >/dev/null 2>&1; }

say "A simulated kernel with the module-rot ABI"
"$sim" create "$kernel" --mode rot
echo "/proc/rotting_modules exists, so the tools know this is a rot kernel."

say "Load a few modules, compressed or not, with a parameter"
on_kernel insmod "$fixtures/alpha.ko"
on_kernel insmod "$fixtures/beta.ko.zst"
on_kernel insmod "$fixtures/delta.ko.xz"
on_kernel insmod "$fixtures/params.ko" label="hello world" count=3
on_kernel cat /sys/module/params/parameters/label
on_kernel lsmod

say "Unload delta: its exit runs, but its memory stays, rotting"
on_kernel rmmod -v delta
on_kernel lsmod
echo "The Used-by count is always 0 on a rot kernel. delta's name is free again:"
on_kernel insmod "$fixtures/delta.ko"
on_kernel lsmod --rotting

say "A module whose init fails rots too"
on_kernel insmod "$fixtures/failinit.ko" || true
on_kernel lsmod -o name,size,state,holders

say "So insmod refuses what the kernel would refuse, before the kernel sees it"
on_kernel insmod "$fixtures/needsym.ko" || true
on_kernel insmod "$fixtures/badmagic.ko" || true
on_kernel insmod /dev/null || true
echo "None of these reached the kernel, so none of them rots."

say "Holders still block an unload; --remove-holders takes them first"
on_kernel rmmod alpha || true
on_kernel rmmod --remove-holders -v alpha

say "The installer's probe: load everything, unload what found nothing, 20 times over"
on_kernel insmod --batch "$fixtures/alpha.ko" "$fixtures/beta.ko" "$fixtures/gamma.ko" \
	"$fixtures/oot.ko" "$fixtures/snd-dummy.ko" "$fixtures/failinit.ko" || true
quietly rmmod --remove-holders alpha delta params oot snd_dummy || true
for round in $(seq 19); do
	quietly insmod --batch "$fixtures/alpha.ko" "$fixtures/beta.ko" "$fixtures/gamma.ko" \
		"$fixtures/delta.ko" "$fixtures/params.ko" "$fixtures/oot.ko" \
		"$fixtures/snd-dummy.ko" "$fixtures/failinit.ko" || true
	quietly rmmod --remove-holders alpha delta params oot snd_dummy || true
done
echo "Each unload and each failed init left rot behind:"
on_kernel modreap
on_kernel lsmod --rotting -n -r -o name,size | tail -3

say "modreap brings rot down under a ceiling, largest names first"
on_kernel modreap --down-to 64K

say "... and reclaims the rest; reclaiming taints the kernel R"
on_kernel modreap -a -q
on_kernel modreap
on_kernel cat /proc/sys/kernel/tainted

say "The same run as JSON, for installers' scripts"
quietly insmod "$fixtures/delta.ko"
quietly rmmod delta
on_kernel modreap -a -J

say "The simulated kernel's own view, and its ledger: every byte accounted for"
"$sim" state "$kernel"
"$sim" ledger "$kernel" --check

say "Two installer strategies on one machine: 300 driver modules, 34 devices"
echo "probe everything and unload what found nothing (rmmod --unused), with and"
echo "without modreap --watch --down-to 256K, against loading only what a present"
echo "device matches (insmod --match-devices). The same devices end up bound:"
# The benchmark's own set-up (its packages, the build it checks) says
# itself on standard error: that goes to the set-up log, with the rest.
if ! "$top/bench/installer.sh" "$top/bench/results" 2>>"$setup_log"; then
	echo "the installer benchmark failed; the last lines of $setup_log:" >&2
	tail -n 20 "$setup_log" >&2
	exit 1
fi
