#!/usr/bin/env bash
# Build the rot kernel (Debian's linux-source-6.1 plus kernel/patches/,
# or linux-source-6.12 plus kernel/patches-6.12/), boot it in qemu under
# software emulation, drive it with the suite's tools, run the same rows
# on the simulated kernel, and compare.
#
#   kernel/run.sh [--kernel 6.1|6.12|all] [--results DIR] [--cache DIR]
#                 [--jobs N] [--rounds N]
#                 [--scenarios "abi reclaim-taint evidence installer smp ..."]
#                 [--tree DIR]   (a patched, configured and built tree of
#                                 your own instead of the cache; its
#                                 Makefile says which kernel it is)
#                 [--figures]    (also time insmod, lsmod and what a
#                                 load/unload cycle leaves: figures.txt)
#                 [--config debug|prod|installer]  (debug: KASAN,
#                                 lockdep, PROVE_RCU, debug objects; prod:
#                                 shaped like a distribution's, none of
#                                 them; installer: prod with a few hundred
#                                 of the tree's drivers as modules, booted
#                                 with 64 MB and emulated devices, for the
#                                 probe-* scenarios)
#                 [--full]       (installer: probe every driver module,
#                                 not CI's short list)
#                 [--memory SIZE] (the guest's memory, qemu's -m: 512M;
#                                 more to measure reclaim's pause)
#
# --kernel picks the series (default all: each kernel in turn, 6.1
# first, each with its own results and cache; then one line totals both
# tables, and the run fails if either does).
# Results (default build/kernel-results/, build/kernel-results-6.12/ for
# 6.12; with --kernel all and --results DIR, DIR/6.1 and DIR/6.12):
# conformance.txt, .tsv and .json, and per scenario the guest console,
# the rows of each side and dmesg.
# The built kernel is cached, built in place, in CACHE/<hash of the series,
# the config fragment and the Debian source version> (default
# $MODROT_KERNEL_CACHE, else /var/cache/modrot-kernel; 6.12 builds in
# CACHE/6.12/): a second run
# skips the build; the newest two builds of each kernel are kept, older
# ones pruned.  The test modules (kernel/modules) are built against it on
# every run, in seconds.
# The guest has 2 CPUs.  Ends with "N passed, N failed"; exits non-zero if
# a row fails or a scenario does not finish.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
here=$top/kernel
results=$top/build/kernel-results
cache_root=${MODROT_KERNEL_CACHE:-/var/cache/modrot-kernel}
jobs=$(nproc)
# Installer rounds: 8 show the growth; 20 took 10 minutes on the debug kernel
# under load (KASAN and lockdep slow every load and unload in the guest).
rounds=8
scenarios="abi reclaim-taint percpu evidence installer smp instr edges users patterns guard kselftest"
# Scenarios that also run on the simulated kernel (the others need real
# memory, timers and a kernel log), and the rows of those that stay real
# only, as SCENARIO/ROW: the simulator has no SRCU to tear down, and runs
# no module code (the in-tree modules, async work, late calls).
sim_scenarios=" abi reclaim-taint percpu installer users patterns "
real_only=" users/srcu-static users/fs-in-use users/chardev-in-use users/proto-in-use patterns/async patterns/late-calls "
# Load with the suite's insmod when it exists (1), or always with rotctl (0);
# ROT_USE_INSMOD=0 in the environment switches it off too.
use_suite_insmod=${ROT_USE_INSMOD:-1}
own_tree=
figures=
bulk_count=200
kernel=all
config=debug
memory=512M
memory_given=
scenarios_given=
probe_full=
results_given=
args=("$@")

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--results) results=$2; results_given=1; shift 2 ;;
	--cache) cache_root=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--scenarios) scenarios=$2; scenarios_given=1; shift 2 ;;
	--tree) own_tree=$2; shift 2 ;;
	--figures) figures=1; shift ;;
	--config) config=$2; shift 2 ;;
	--memory) memory=$2; memory_given=1; shift 2 ;;
	--full) probe_full=1; shift ;;
	-h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case $results in /*) ;; *) results=$PWD/$results ;; esac

# --kernel all: this script once per kernel, each with its own results.
# A tree of one's own is one kernel: its Makefile says which.
if [ "$kernel" = all ] && [ -n "$own_tree" ]; then
	kernel=$(awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 } END { if (v != "") print v "." p }' \
		"$own_tree/Makefile" 2>/dev/null || true)
	case $kernel in
	6.1 | 6.12) ;;
	*) echo "run.sh: --tree $own_tree is not a Linux 6.1 or 6.12 tree; give --kernel" >&2; exit 2 ;;
	esac
fi
if [ "$kernel" = all ]; then
	status=0
	total_passed=0
	total_failed=0
	last=$(mktemp)
	trap 'rm -f "$last"' EXIT
	for k in 6.1 6.12; do
		sub=()
		[ -n "$results_given" ] && sub=(--results "$results/$k")
		"$0" "${args[@]}" "${sub[@]}" --kernel "$k" | tee "$last" || status=1
		# Each kernel's run ends with its own "N passed, N failed"; one
		# that stopped before its table (a build that failed) is one
		# failure, so the total never hides a kernel that did not run.
		line=$(tail -n 1 "$last")
		case $line in
		*" passed, "*" failed")
			total_passed=$((total_passed + ${line%% passed*}))
			line=${line#*passed, }
			total_failed=$((total_failed + ${line%% failed}))
			;;
		*)
			echo "run.sh: the $k run ended before its table" >&2
			total_failed=$((total_failed + 1))
			status=1
			;;
		esac
	done
	echo "both kernels, 6.1 and 6.12:"
	echo "$total_passed passed, $total_failed failed"
	exit $status
fi
# Each kernel: its Debian source package, its series, its config fragments
# (merged in this order onto tinyconfig, kernel/series.sh) and, but for
# 6.1, its own cache and results directories.
# shellcheck source-path=SCRIPTDIR source=series.sh
. "$here/series.sh"
kernel_series "$kernel" || { echo "run.sh: --kernel takes 6.1, 6.12 or all, not $kernel" >&2; exit 2; }
patches=$series
if [ "$kernel" != 6.1 ]; then
	cache_root=$cache_root/$kernel
	[ -n "$results_given" ] || results=$top/build/kernel-results-$kernel
fi
# The production-shaped configuration: the same kernel less its debugging
# options, in a cache and results of its own.
case $config in
debug) ;;
prod)
	fragments+=("$here/config-prod.fragment")
	cache_root=$cache_root/prod
	[ -n "$results_given" ] || results=$results-prod
	;;
installer)
	fragments+=("$here/config-prod.fragment" "$here/config-installer.fragment"
		"$here/config-installer-drivers.fragment")
	cache_root=$cache_root/installer
	[ -n "$results_given" ] || results=$results-installer
	[ -n "$memory_given" ] || memory=64M
	[ -n "$scenarios_given" ] || scenarios="probe-all probe-ceiling probe-match"
	;;
*) echo "run.sh: --config takes debug, prod or installer, not $config" >&2; exit 2 ;;
esac
source_pkg=linux-source-$kernel
case " $scenarios " in *" figures "*) figures=1 ;; esac
[ -n "$figures" ] && case " $scenarios " in *" figures "*) ;; *) scenarios="$scenarios figures" ;; esac

say() { printf 'run.sh: %s\n' "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- prerequisites -----------------------------------------------------
# rsync: the kselftest's "make install" copies with it (tools/testing/selftests/lib.mk).
packages="$source_pkg qemu-system-x86 cpio bc flex bison libelf-dev
	libssl-dev build-essential xz-utils zstd liblzma-dev libzstd-dev file rsync"
# Any busybox will do (static or not: its libraries go into the initramfs
# too); scripts/setup.sh installs busybox, which conflicts with busybox-static.
[ -x /bin/busybox ] || packages="$packages busybox"
# The installer's picture.
[ "$config" = installer ] && packages="$packages gnuplot-nox"
# shellcheck disable=SC2086
"$top/scripts/need-packages.sh" $packages >&2
source_tar=/usr/src/$source_pkg.tar.xz
[ -f "$source_tar" ] || die "$source_tar not found"

# The suite's tools and the simulated kernel.
builddir=$top/build
if [ ! -x "$builddir/tools/lsmod" ] || [ ! -x "$builddir/tests/simkernel/simkernel" ]; then
	say "building the suite"
	"$top/scripts/setup.sh" build >/dev/null
	make -C "$builddir" -j"$jobs" check TESTS= >/dev/null
fi
for t in lsmod rmmod modreap; do
	[ -x "$builddir/tools/$t" ] || die "$builddir/tools/$t missing"
done
sim=$builddir/tests/simkernel/simkernel
fixtures=$builddir/tests/fixtures/out
[ -x "$sim" ] && [ -f "$fixtures/alpha.ko" ] || die "simulated kernel or fixtures missing"
insmod_tool=
[ "$use_suite_insmod" = 1 ] && [ -x "$builddir/tools/insmod" ] && insmod_tool=$builddir/tools/insmod

# --- the kernel, cached ------------------------------------------------
# The tree is keyed by what goes into it: the Debian source version, the
# series and the config fragment.  The test modules are not part of the
# key: they are built against the tree on every run, in a few seconds.
# Nor is the cover letter (0000), which is not applied.
source_version=$(dpkg-query -W -f='${Version}' "$source_pkg")
kernel_key() {
	echo "$source_pkg $source_version"
	for f in "$patches"/*.patch "${fragments[@]}"; do
		case $(basename "$f") in 0000-*) continue ;; esac
		echo "== ${f#"$here"/}"
		cat "$f"
	done
}
hash=$(kernel_key | sha256sum | cut -c1-16)
cache=$cache_root/$hash
build_note=cached

# Builds made before the split were keyed by the series, the config
# fragment, the Debian version AND the test module sources, which they
# keep a copy of in modules/.  Recomputing that old key from the current
# series and config with the build's own copy of the module sources tells
# whether the build is of the current series and config; if it is, the new
# key points at it with a symlink.  A built tree is never moved or copied:
# its absolute paths would make the next make rebuild everything.
adopt_old_build() {
	local d name f old
	for d in "$cache_root"/*/; do
		d=${d%/}
		name=$(basename "$d")
		[ -L "$d" ] || [ ! -f "$d/done" ] || [ ! -f "$d/modules/Kbuild" ] && continue
		old=$( {
			echo "$source_pkg $source_version"
			for f in "$patches"/*.patch "${fragments[@]}" "$d"/modules/*; do
				case $f in
				"$d"/modules/*.mod.c) continue ;;
				"$d"/modules/*.[ch] | "$d"/modules/Kbuild | "$d"/modules/Makefile)
					echo "== modules/${f##*/}" ;;
				"$d"/modules/*) continue ;;
				*) echo "== ${f#"$here"/}" ;;
				esac
				cat "$f"
			done
		} | sha256sum | cut -c1-16)
		if [ "$old" = "$name" ]; then
			say "the build $d is of this series and config: reusing it as $hash"
			ln -sfn "$name" "$cache"
			return 0
		fi
	done
	return 1
}

build_kernel() {
	say "building the kernel in $cache (log: $cache/build.log)"
	rm -rf "$cache"
	mkdir -p "$cache"
	tar -xf "$source_tar" -C "$cache"
	for p in "$patches"/*.patch; do
		case $(basename "$p") in 0000-*) continue ;; esac # the cover letter
		patch -d "$ksrc" -p1 --quiet --forward <"$p" || die "$(basename "$p") does not apply"
	done
	(
		cd "$ksrc"
		make tinyconfig
		scripts/kconfig/merge_config.sh -m .config "${fragments[@]}"
		make olddefconfig
		make -j"$jobs" bzImage modules
	) >"$cache/build.log" 2>&1 || { tail -n 30 "$cache/build.log" >&2; die "kernel build failed"; }
	build_samples "$cache/build.log"
	touch "$cache/done"
}

# build_samples LOG: the series' sample module (for the kselftest scenario),
# samples/hw_breakpoint (__symbol_put() still builds) and samples/livepatch
# (the users scenario), inside $ksrc.
build_samples() {
	make -C "$ksrc" M=samples/module_rot CONFIG_SAMPLE_MODULE_ROT=m modules >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "samples/module_rot failed to build"; }
	make -C "$ksrc" M=samples/hw_breakpoint CONFIG_SAMPLE_HW_BREAKPOINT=m modules >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "samples/hw_breakpoint failed to build"; }
	make -C "$ksrc" M=samples/livepatch CONFIG_SAMPLE_LIVEPATCH=m modules >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "samples/livepatch failed to build"; }
}

# build_test_programs LOG: the test modules and the series' kselftest,
# against $ksrc, into $kmods (outside the tree: the tree is not written).
build_test_programs() {
	# Every option of the fragment must have survived olddefconfig.
	# (An option a later fragment turns off is not expected.)
	# The drivers fragment names every driver of its directories; those
	# whose dependencies are not met are dropped, as expected.
	cat "${fragments[@]}" | grep '^CONFIG_' | grep -vxFf "$here/config-installer-drivers.fragment" |
		while read -r opt; do
			grep -qx "# ${opt%%=*} is not set" "${fragments[@]}" && continue
			grep -qx "$opt" "$ksrc/.config" && continue
			# An option this kernel does not have (HID_SUPPORT is 6.2's).
			opt=${opt%%=*}
			find "$ksrc" -name 'Kconfig*' -exec grep -qE "^(menu)?config ${opt#CONFIG_}\$" {} + ||
				continue
			say "warning: $opt=... not set in the built .config"
		done
	rm -rf "$kmods"
	mkdir -p "$kmods"
	cp "$here"/modules/*.[ch] "$here"/modules/Kbuild "$here"/modules/Makefile "$kmods"/
	make -C "$kmods" KDIR="$ksrc" modules >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "test modules failed to build"; }
	for ko in "$kmods"/*.ko; do
		xz --check=crc32 --lzma2=dict=1MiB -k -f "$ko"
		zstd -q -f -k "$ko" -o "$ko.zst"
	done
	# In-tree users that pin a module: an AF_ALG transform pins cbc, an
	# enabled livepatch its own module (the users scenario).
	cp "$ksrc/crypto/cbc.ko" "$ksrc/samples/livepatch/livepatch-sample.ko" "$kmods/"
	# In-tree modules that declare nothing (rot-abi.md U8): a filesystem,
	# a character device and a protocol family, each used while loaded.
	cp "$ksrc/fs/binfmt_misc.ko" "$ksrc/drivers/char/nvram.ko" "$ksrc/net/packet/af_packet.ko" "$kmods/"
	# The kselftest builds its module itself (against KDIR) and installs
	# it next to the test: the scenario runs it from there.
	mkdir -p "$kmods/kselftest-build"
	make -C "$ksrc/tools/testing/selftests/module" KDIR="$ksrc" \
		OUTPUT="$kmods/kselftest-build" INSTALL_PATH="$kmods/kselftest" install >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "the module rot kselftest failed to build"; }
	if [ -n "$figures" ]; then build_bulk_modules "$1"; fi
}

# build_bulk_modules LOG: $bulk_count modules for the figures scenario,
# bulk001.ko ... from modules/bulk/bulk.c.  Compiling each would take
# minutes; one is built as bulk000 and copied with its name (in .modinfo,
# in struct module and in file symbols, always 7 bytes) replaced.
build_bulk_modules() {
	local i name
	mkdir -p "$kmods/bulk"
	cp "$here/modules/bulk/bulk.c" "$kmods/bulk/bulk000.c"
	echo "obj-m := bulk000.o" >"$kmods/bulk/Kbuild"
	make -C "$ksrc" M="$kmods/bulk" modules >>"$1" 2>&1 ||
		{ tail -n 30 "$1" >&2; die "the bulk module failed to build"; }
	i=1
	while [ $i -le $bulk_count ]; do
		name=$(printf 'bulk%03d' $i)
		LC_ALL=C sed "s/bulk000/$name/g" "$kmods/bulk/bulk000.ko" >"$kmods/bulk/$name.ko"
		i=$((i + 1))
	done
	rm "$kmods/bulk/bulk000.ko"
}

# Keep the newest two finished builds (about 1.5 GB each), and the one in
# use; unfinished ones may be another run's build in progress.  Keys are
# symlinks to builds (see adopt_old_build): they go with their build.
prune_cache() {
	local d in_use
	in_use=$(cd -P "$cache" && pwd)
	for d in "$cache_root"/*/; do
		d=${d%/}
		[ -L "$d" ] || [ ! -f "$d/done" ] || echo "$d/done"
	done | xargs -r ls -1t | tail -n +3 | while read -r d; do
		d=$(dirname "$d")
		[ "$d" = "$in_use" ] && continue
		say "pruning the old kernel build $d"
		rm -rf "$d"
	done
	for d in "$cache_root"/*; do
		[ -L "$d" ] && [ ! -e "$d" ] && rm -f "$d"
	done
	return 0
}

if [ -n "$own_tree" ]; then
	ksrc=$(cd "$own_tree" && pwd)
	rm -f "$results.tree.log"
	build_samples "$results.tree.log"
	build_note="own tree $ksrc"
	cache=$ksrc
else
	[ -f "$cache/done" ] || adopt_old_build || true
	if [ -f "$cache/done" ]; then
		say "using the cached kernel $cache"
		build_note="cached"
	else
		t=$(now)
		ksrc=$cache/$source_pkg
		build_kernel
		build_note="built in $(elapsed "$t")s"
		say "kernel $build_note"
	fi
	ksrc=$(cd -P "$cache/$source_pkg" && pwd)
	prune_cache
fi
bzimage=$ksrc/arch/x86/boot/bzImage
release=$(cat "$ksrc/include/config/kernel.release")

# --- the installer configuration ---------------------------------------
# install_drivers: the tree's driver modules, xz-compressed as an
# installer image carries them, in /drivers of the initramfs, and
# /drivers/list, one probe step per line: five modules in the kernel's
# build order (modules.order), each preceded by what it depends on that
# is not in the step already (insmod --batch loads a module only after
# the modules of its batch it depends on).  Without --full, the short
# list for CI: every fourth step.
install_drivers() {
	local d=$root/drivers ko name
	mkdir -p "$d"
	sed 's/\.o$/.ko/' "$ksrc/modules.order" | while read -r ko; do
		[ -f "$ksrc/$ko" ] || continue
		case $ko in samples/* | crypto/cbc.ko | fs/binfmt_misc.ko | drivers/char/nvram.ko | net/packet/*) continue ;; esac
		name=${ko##*/}
		name=${name%.ko}
		xz --check=crc32 --lzma2=dict=1MiB -c "$ksrc/$ko" >"$d/$name.ko.xz"
		printf '%s %s\n' "$name" "$("$builddir/tools/modinfo" -F depends "$ksrc/$ko" | tr ',' ' ')"
	done | awk -v step=5 -v full="$probe_full" '
	function norm(n) { gsub(/-/, "_", n); return n }
	function add(n,    i, k, dl) {
		if ((norm(n) in inbatch) || !(norm(n) in file)) return
		k = split(deps[norm(n)], dl, " ")
		for (i = 1; i <= k; i++) add(dl[i])
		inbatch[norm(n)] = 1
		line = line " " file[norm(n)]
	}
	{ order[++n] = $1; file[norm($1)] = $1 ".ko.xz"; $1 = ""; deps[norm(order[n])] = $0 }
	END {
		for (i = 1; i <= n; i += step) {
			if (!full && (i - 1) / step % 4 != 0) continue
			delete inbatch; line = ""
			for (j = i; j < i + step && j <= n; j++) add(order[j])
			print substr(line, 2)
		}
	}' >"$d/list"
	if [ -n "$probe_full" ]; then echo full; else echo short; fi >"$d/mode"
	say "installer: $(ls "$d" | grep -c '\.ko\.xz$') driver modules ($(du -sk "$d" | cut -f1) KiB), $(wc -l <"$d/list") probe steps$([ -n "$probe_full" ] || echo " (short list; --full for all)")"
}

# Devices an installer would find on a small PC: network cards, sound
# cards, USB controllers with a keyboard and a tablet, a SATA controller,
# beside the i440FX board's own IDE and USB.
installer_devices=(-nic none -usb -device e1000 -device rtl8139 -device pcnet -device ne2k_pci
	-audiodev none,id=snd0 -device intel-hda -device hda-duplex,audiodev=snd0
	-device AC97,audiodev=snd0 -device ES1370,audiodev=snd0
	-device ich9-usb-ehci1 -device usb-kbd -device usb-tablet -device ahci)

# installer_figures: each probe run's samples as one block of
# $results/installer.tsv, and the picture, $results/installer.png.
installer_figures() {
	local s tsv=$results/installer.tsv
	: >"$tsv"
	for s in probe-all probe-ceiling probe-match; do
		[ -f "$results/$s.real" ] || continue
		[ -s "$tsv" ] && printf '\n\n' >>"$tsv"
		printf '# %s\tms\tavail_kib\trot_bytes\tloaded\tbound\tenomem\treclaims\n' "$s" >>"$tsv"
		awk -F'\t' -v OFS='\t' '$1 == "SAMPLE" { $1 = ""; print substr($0, 2) }' "$results/$s.real" >>"$tsv"
	done
	command -v gnuplot >/dev/null || { say "gnuplot-nox is not installed: no installer.png"; return 0; }
	gnuplot <<PLOT || say "gnuplot failed: no installer.png"
set terminal pngcairo size 900,960 font ",11"
set output "$results/installer.png"
set multiplot layout 2,1 title "Linux $release, 64 MB, 2 CPUs: an installer's probe of $(ls "$root/drivers" | grep -c '\.ko\.xz$') driver modules"
set key below
set grid
set xlabel "time (s)"
set ylabel "rotting memory (MiB)"
plot "$tsv" index "probe-all" using (\$1/1000):(\$3/1048576) with linespoints title "probe all, unload unused, no reclaim", \
     "" index "probe-ceiling" using (\$1/1000):(\$3/1048576) with linespoints title "probe all, modreap --watch --down-to 1M", \
     "" index "probe-match" using (\$1/1000):(\$3/1048576) with linespoints title "match devices first", \
     1 with lines dashtype 2 linecolor rgb "gray40" title "the ceiling"
set ylabel "MemAvailable (MiB)"
plot "$tsv" index "probe-all" using (\$1/1000):(\$2/1024) with linespoints title "probe all, no reclaim", \
     "" index "probe-ceiling" using (\$1/1000):(\$2/1024) with linespoints title "probe all, modreap --watch --down-to 1M", \
     "" index "probe-match" using (\$1/1000):(\$2/1024) with linespoints title "match devices first"
unset multiplot
PLOT
}

# --- the helper and the initramfs --------------------------------------
rm -rf "$results"
mkdir -p "$results/work"
work=$results/work
kmods=$work/modules
t=$(now)
build_test_programs "$work/modules.log"
say "test modules built in $(elapsed "$t")s"
gcc -O2 -Wall -Wextra -static -o "$work/rotctl" "$here/helper/rotctl.c" -llzma -lzstd
gcc -O2 -Wall -Wextra -o "$work/rotctl-dyn" "$here/helper/rotctl.c" -llzma -lzstd
gcc -O2 -Wall -Wextra -static -o "$work/afalg" "$here/helper/afalg.c"
# The guest's TSC is the host's under TCG, but without ACPI the guest has
# nothing to calibrate it against and keeps time with jiffies, which stand
# still while a reclaim stops every CPU (its pause would read 0).  It is
# told the frequency, and that the TSC needs no watchdog.
gcc -O2 -Wall -Wextra -o "$work/tsckhz" "$here/helper/tsckhz.c"
tsc_khz=$("$work/tsckhz") || die "the host's TSC frequency could not be measured"

root=$work/initramfs
mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,modules,scenarios}

# install_program SRC DEST: a program and the shared libraries it needs, at
# the paths the dynamic loader expects.
# A library of the build tree (libmodrot.so.1, found through the tools' run
# path, which may lie under the guest's own /tmp) goes beside libc, where
# the guest's loader looks without a cache.
install_program() {
	cp "$1" "$root$2"
	libcdir=$(ldd "$1" 2>/dev/null | awk '/libc\.so/ { print $3 }')
	libcdir=${libcdir%/*}
	ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
		while read -r lib; do
			case $lib in
			/lib/* | /lib64/* | /usr/lib/*) dest=$lib ;;
			*) dest=$libcdir/${lib##*/} ;;
			esac
			mkdir -p "$root$(dirname "$dest")"
			cp -L -n "$lib" "$root$dest"
		done
}

# The libraries libmodrot opens on first use (lib/dynlib.c's DYNLIB lines):
# no DT_NEEDED names them, so ldd cannot see them. Each goes beside libc,
# where dlopen looks without a cache, with what it needs in turn.
install_dlopened() {
	local so path
	for so in $(sed -n 's/^DYNLIB([a-z]*, "\(lib[^"]*\)".*/\1/p' "$top/lib/dynlib.c"); do
		# awk reads to the end: an early exit would kill ldconfig with
		# SIGPIPE, which pipefail turns into the script's end.
		path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ && !p { p = $NF } END { print p }')
		[ -n "$path" ] || die "$so (lib/dynlib.c) is not installed on the host"
		mkdir -p "$root/lib/x86_64-linux-gnu"
		install_program "$path" "/lib/x86_64-linux-gnu/$so"
	done
}

install_program /bin/busybox /bin/busybox
for applet in $(/bin/busybox --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
rm -f "$root/bin/lsmod" "$root/bin/rmmod" "$root/bin/insmod" "$root/bin/modprobe"
cp "$work/rotctl" "$root/bin/rotctl"
cp "$work/afalg" "$root/bin/afalg"
tools="lsmod rmmod modreap"
[ -n "$insmod_tool" ] && tools="$tools insmod"
for t in $tools; do
	install_program "$builddir/tools/$t" "/usr/bin/$t"
done
install_dlopened
# The installer's guest carries drivers instead: its memory is the point.
[ "$config" = installer ] || cp "$kmods"/*.ko "$kmods"/*.ko.xz "$kmods"/*.ko.zst "$root/modules/"
if [ -n "$figures" ]; then
	mkdir -p "$root/modules/bulk"
	cp "$kmods"/bulk/*.ko "$root/modules/bulk/"
fi
if [ "$config" != installer ]; then
	mkdir -p "$root/kselftest/module"
	install_program "$kmods/kselftest/rot_test" /kselftest/module/rot_test
	cp "$kmods/kselftest/rot_sample.ko" "$root/kselftest/module/"
fi
cp "$here"/scenarios/*.sh "$root/scenarios/"
[ "$config" = installer ] && install_drivers
cp "$here/scenarios/init" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

# --- scenarios on the real kernel ---------------------------------------
# Two CPUs: SeaBIOS's MP table (the kernel has no ACPI) lists one
# processor per socket, so two sockets.
boot() { # SCENARIO
	local log=$results/$1.console limit=900
	[ "$1" = figures ] && limit=2400
	# smp's races take 450 s at load 13 and 660 s at load 15 on the debug
	# kernel under emulation (every reclaim stops the machine).
	# Revision 4's scan stops both CPUs for each reclaim: the races and
	# the fault injection reclaim hundreds of times.
	case $1 in smp | edges) limit=1800 ;; probe-*) limit=3600 ;; esac
	local devices=()
	[ "$config" = installer ] && devices=("${installer_devices[@]}")
	timeout $limit qemu-system-x86_64 -accel tcg -smp 2,sockets=2 -m "$memory" -nographic -no-reboot \
		"${devices[@]}" \
		-kernel "$bzimage" -initrd "$work/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet init_on_alloc=1 tsc_early_khz=$tsc_khz tsc=reliable rot.scenario=$1 rot.kernel=$kernel ROUNDS=$rounds" \
		</dev/null >"$log" 2>&1 || true
	tr -d '\r' <"$log" | sed -n '/=====ROT-BEGIN/,/=====ROT-END=====/p' |
		grep -v '=====' >"$results/$1.real" || true
	tr -d '\r' <"$log" | sed -n '/=====DMESG-BEGIN/,/=====DMESG-END=====/p' |
		grep -v '=====' >"$results/$1.dmesg" || true
}

boot_times=
for s in $scenarios; do
	t=$(now)
	boot "$s"
	secs=$(elapsed "$t")
	boot_times="$boot_times $s=${secs}s"
	say "real kernel: $s done in ${secs}s"
done

# --- the installer's probes: rows across boots, figures, the picture ----
# Every device match-first bound must be bound after the ceiling run too,
# to the same driver (probing everything binds more: drivers that create
# their own device, codecs found once their controller is bound).
if [ "$config" = installer ]; then
	bound_of() { awk -F'\t' '$1 == "BOUND" { print $2 }' "$results/$1.real" 2>/dev/null | tr ' ' '\n' | sort; }
	if [ -f "$results/probe-match.real" ] && [ -f "$results/probe-ceiling.real" ]; then
		missing=$(comm -23 <(bound_of probe-match) <(bound_of probe-ceiling) | paste -sd' ')
		printf 'ROW\tbound-as-match\tnone\t%s\t%s\n' "${missing:-none}" \
			"after the ceiling run every device match-first binds is bound, to the same driver" \
			>>"$results/probe-ceiling.real"
	fi
	installer_figures
fi

# --- no splat in any console ---------------------------------------------
# The debug configuration (KASAN, lockdep, PROVE_RCU, debug objects,
# DEBUG_ATOMIC_SLEEP) reports what went wrong without stopping the guest:
# each console must be free of every report, whatever its rows say.  The
# one WARN a scenario provokes on purpose (rottimer's, from rotting code,
# to show that the bug table still knows it) is the only one allowed; and
# in guard's console, the one oops of its late call into a reclaimed range
# (its own rows check that the oops names the module), printed live and
# again in the dmesg at the end.
splat_re='BUG:|WARNING:|Oops|general protection fault|Kernel panic|UBSAN:|ODEBUG:|INFO:|possible (circular|recursive) locking|inconsistent lock state|Unable to handle'
guard_oops='BUG: unable to handle page fault for address: |Oops: [0-9a-f]+ [[]#1[]]'
for s in $scenarios; do
	log=$results/$s.console
	allow='^$'
	[ "$s" = guard ] && allow=$guard_oops
	tr -d '\r' <"$log" | grep -E "$splat_re" | grep -v 'rottimer: WARN from rotting code' |
		grep -Ev 'WARNING: CPU: [0-9]+ PID: [0-9]+ at .*rottimer' |
		awk -v allow="$allow" '$0 ~ allow && seen[substr($0, match($0, allow), RLENGTH)]++ < 2 { next } { print }' \
			>"$results/$s.splats" || true
	n=$(wc -l <"$results/$s.splats")
	first=$(head -n 1 "$results/$s.splats" | tr '\t' ' ' | cut -c1-120)
	printf 'ROW\tno-splat\t0\t%s\t%s\n' "$n${first:+ ($first)}" \
		"the guest console shows no BUG, WARNING, KASAN, lockdep or Oops report" >>"$results/$s.real"
done

# --- the same scenarios on the simulated kernel --------------------------
simrun() { # SCENARIO
	local dir=$work/sim-$1
	rm -rf "$dir"
	# The simulator computes SIZE as the kernel under test does; the
	# fixtures' vermagic says 6.1.0-sim, so the release stays that.  The
	# kernel is rot-abi revision 4: the simulator answers as that
	# revision does.
	"$sim" create "$dir" --mode rot --abi 4 --kernel "$kernel" --release 6.1.0-sim >/dev/null
	(
		cd "$work"
		export SIDE=sim SIMDIR=$dir MODDIR=$fixtures ROTCTL=$work/rotctl-dyn ROUNDS=$rounds KSERIES=$kernel
		export LSMOD=$builddir/tools/lsmod RMMOD=$builddir/tools/rmmod MODREAP=$builddir/tools/modreap
		[ -n "$insmod_tool" ] && export LOADER=$insmod_tool
		echo "NOTE	simulated kernel"
		# simkernel run preloads the simulator, whose seccomp guard keeps
		# every module syscall away from the host kernel.
		"$sim" run "$dir" -- /bin/sh -c \
			". '$here/scenarios/lib.sh'; . '$here/scenarios/$1.sh'" 2>&1
		echo "STATUS	$?"
	) >"$results/$1.sim"
}
for s in $scenarios; do
	case $sim_scenarios in *" $s "*) simrun "$s" ;; esac
done

# --- the conformance table ----------------------------------------------
# One line per row: SCENARIO ID EXPECTED SIM REAL VERDICT WHAT
# PASS: the real kernel shows what docs/rot-abi.md says and, where the row runs
# on the simulator too, the simulator shows the same.
awk -F'\t' -v OFS='\t' -v scenarios="$scenarios" -v sims="$sim_scenarios" -v realonly="$real_only" -v dir="$results" '
function load(file, side, s,    line, f) {
	while ((getline line < file) > 0) {
		split(line, f, "\t")
		if (f[1] == "ROW") {
			key = s SUBSEP f[2]
			if (!(key in expect)) { order[++n] = key; expect[key] = f[3]; what[key] = f[5]; scen[key] = s; id[key] = f[2] }
			val[key, side] = f[4]
		} else if (f[1] == "STATUS") {
			status[s, side] = f[2]
		}
	}
	close(file)
}
BEGIN {
	ns = split(scenarios, sl, " ")
	for (i = 1; i <= ns; i++) {
		s = sl[i]
		load(dir "/" s ".real", "real", s)
		if (index(sims, " " s " ")) load(dir "/" s ".sim", "sim", s)
	}
	print "scenario", "row", "rot-abi.md", "simulated", "real", "verdict", "what"
	for (i = 1; i <= n; i++) {
		k = order[i]; s = scen[k]
		r = ((k, "real") in val) ? val[k, "real"] : "(missing)"
		# The splat check reads the guest console: real kernel only.
		onsim = index(sims, " " s " ") && id[k] != "no-splat" && !index(realonly, " " s "/" id[k] " ")
		m = onsim ? (((k, "sim") in val) ? val[k, "sim"] : "(missing)") : "-"
		ok = (expect[k] == "*" || r == expect[k]) && (!onsim || m == r)
		print s, id[k], expect[k], m, r, ok ? "PASS" : "FAIL", what[k]
	}
	# A scenario that did not finish is a failed row of its own.
	for (i = 1; i <= ns; i++) {
		s = sl[i]
		if (status[s, "real"] != "0")
			print s, "scenario-finished", "0", "-", ((s, "real") in status) ? status[s, "real"] : "(no output)", "FAIL", "the scenario ran to its end in the guest"
		if (index(sims, " " s " ") && status[s, "sim"] != "0")
			print s, "scenario-finished", "0", ((s, "sim") in status) ? status[s, "sim"] : "(no output)", "-", "FAIL", "the scenario ran to its end on the simulator"
	}
}' >"$results/conformance.tsv"

# Text and JSON renderings of the same table.
awk -F'\t' '
NR == 1 { next }
{
	printf "%-4s %-15s %-22s %s\n", $6, $1, $2, $7
	printf "       rot-abi.md: %s\n", $3
	if ($4 != "-") printf "       simulated:  %s\n", $4
	printf "       real:       %s\n", $5
}' "$results/conformance.tsv" >"$results/conformance.txt"
awk -F'\t' '
function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
NR == 1 { next }
{ rows[++n] = sprintf("    {\"scenario\": %s, \"row\": %s, \"abi\": %s, \"simulated\": %s, \"real\": %s, \"verdict\": %s, \"what\": %s}",
	js($1), js($2), js($3), $4 == "-" ? "null" : js($4), js($5), js($6), js($7)) }
END {
	print "{\n  \"kernel\": " js(release) ",\n  \"rows\": ["
	for (i = 1; i <= n; i++) print rows[i] (i < n ? "," : "")
	print "  ]\n}"
}' release="$release" "$results/conformance.tsv" >"$results/conformance.json"

[ -n "$figures" ] && "$here/figures-report.sh" "$results/figures.real" >"$results/figures.txt"

{
	echo "rot kernel $release (cache $cache: $build_note; boots:$boot_times)"
	[ -n "$insmod_tool" ] && echo "loading with the suite's insmod"
	echo
	cat "$results/conformance.txt"
	if [ -n "$figures" ]; then
		echo
		cat "$results/figures.txt"
	fi
} | tee "$results/summary.txt"
passed=$(awk -F'\t' 'NR > 1 && $6 == "PASS"' "$results/conformance.tsv" | wc -l)
failed=$(awk -F'\t' 'NR > 1 && $6 != "PASS"' "$results/conformance.tsv" | wc -l)
echo "results in $results"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
