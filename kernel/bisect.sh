#!/usr/bin/env bash
# Prove that every patch of a series builds and boots with module rot on
# and with it off: what `git bisect` needs of a series, and what a
# reviewer asks before reading one.
#
#   kernel/bisect.sh [--kernel 6.1|6.12] [--series DIR] [--work DIR]
#                    [--jobs N] [--from N]
#
# Debian's linux-source-VERSION is unpacked once into DIR/src (default
# build/bisect-VERSION), and the series (kernel/patches/ or
# kernel/patches-6.12/, or --series DIR; not the cover letter) is
# applied one patch at a time.  After each patch the tree is built twice, out of tree, in DIR/on
# (CONFIG_MODULE_ROT=y) and DIR/off (=n): the production-shaped
# configuration of kernel/run.sh --config prod, bzImage and modules.  The
# builds are incremental from one patch to the next, and go through
# ccache when it is installed, so a second run costs little; neither
# changes what is built.
#
# Each kernel then boots in qemu (2 CPUs, software emulation) into a
# busybox initramfs that loads one in-tree module of that very build
# (fs/binfmt_misc.ko), unloads it, and loads it again.  With rot on, the
# unloaded instance must be listed in /proc/rotting_modules; with rot
# off, that file must not exist: the module is freed, as on a stock
# kernel.  Either way the console must show no BUG, WARNING or Oops.
#
# A patch before the one that adds CONFIG_MODULE_ROT has one configuration
# only: its "on" row says skip.  Prints one line per patch and
# configuration, and ends with "N passed, N failed, N skipped".  Exits 1
# if any failed, 2 if it could not run.
# --from N starts at patch N in a DIR kept from an earlier run that got
# that far (its tree then has patches 1..N-1 applied).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
kernel=6.1
work=
jobs=$(nproc)
from=1
series_given=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel | --series | --work | --jobs | --from)
		[ $# -ge 2 ] || { echo "bisect.sh: $1 takes a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--series) series_given=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--from) from=$2; shift 2 ;;
	-h | --help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bisect.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
# shellcheck source-path=SCRIPTDIR source=series.sh
. "$here/series.sh"
kernel_series "$kernel" || { echo "bisect.sh: --kernel takes 6.1 or 6.12, not $kernel" >&2; exit 2; }
fragments+=("$here/config-prod.fragment")
if [ -n "$series_given" ]; then
	[ -d "$series_given" ] || { echo "bisect.sh: --series $series_given: no such directory" >&2; exit 2; }
	series=$(cd "$series_given" && pwd)
fi
case $from in '' | *[!0-9]* | 0) echo "bisect.sh: --from takes a patch number from 1" >&2; exit 2 ;; esac
case $jobs in '' | *[!0-9]* | 0) echo "bisect.sh: --jobs takes a number from 1" >&2; exit 2 ;; esac
work=${work:-$top/build/bisect-$kernel}
src_pkg=linux-source-$kernel
tar_file=/usr/src/$src_pkg.tar.xz

say() { printf 'bisect.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }

# shellcheck disable=SC2086
"$top/scripts/need-packages.sh" "$src_pkg" qemu-system-x86 cpio bc flex bison \
	libelf-dev libssl-dev build-essential xz-utils patch >&2
# Any busybox will do, as for run.sh; busybox conflicts with busybox-static.
[ -x /bin/busybox ] || "$top/scripts/need-packages.sh" busybox >&2
[ -f "$tar_file" ] || die "no $tar_file"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"

mapfile -t patches < <(find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
[ "${#patches[@]}" -gt 0 ] || die "no patches in $series"
[ "$from" -le "${#patches[@]}" ] || die "--from $from: the series has ${#patches[@]} patches"

src=$work/src/$src_pkg
logs=$work/logs
if [ "$from" = 1 ]; then
	rm -rf "$work"
	mkdir -p "$work/src" "$work/on" "$work/off" "$logs"
	tar -xf "$tar_file" -C "$work/src"
	echo 0 >"$work/applied"
fi
if [ ! -d "$src" ] || [ ! -f "$work/applied" ]; then
	die "$work holds no earlier run (start without --from)"
fi
[ "$(cat "$work/applied")" = $((from - 1)) ] ||
	die "$work has patches 1..$(cat "$work/applied") applied, not 1..$((from - 1))"

# --- the initramfs: busybox and one script ------------------------------
root=$work/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,m}
cp /bin/busybox "$root/bin/busybox"
ldd /bin/busybox 2>/dev/null | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
for applet in sh mount grep cat echo insmod rmmod reboot; do
	ln -s busybox "$root/bin/$applet"
done
# Each step prints a word the host looks for; a step that fails prints
# nothing, and the host names the first word missing.
cat >"$root/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "BISECT booted"
insmod /m/binfmt_misc.ko && echo "BISECT loaded"
grep -q '^binfmt_misc ' /proc/modules && echo "BISECT listed"
rmmod binfmt_misc && echo "BISECT unloaded"
grep -q '^binfmt_misc ' /proc/modules || echo "BISECT gone"
if [ -e /proc/rotting_modules ]; then
	grep -q '^binfmt_misc ' /proc/rotting_modules && echo "BISECT rotting"
else
	echo "BISECT no-rotting-file"
fi
insmod /m/binfmt_misc.ko && rmmod binfmt_misc && echo "BISECT reloaded"
echo "BISECT end"
reboot -f
EOF
chmod +x "$root/init"

# configure DIR on|off: the production-shaped configuration, rot as asked.
# Run after every patch: a patch may add or change Kconfig symbols.
configure() {
	local b=$1 rot=$2
	if [ ! -f "$b/.config" ]; then
		make -C "$src" O="$b" tinyconfig
		(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$b" "$b/.config" "${fragments[@]}")
	fi
	if [ "$rot" = on ]; then
		"$src/scripts/config" --file "$b/.config" -e MODULE_ROT
	else
		"$src/scripts/config" --file "$b/.config" -d MODULE_ROT
	fi
	make -C "$src" O="$b" olddefconfig
}

splat_re='BUG:|WARNING:|Oops|general protection fault|Kernel panic|UBSAN:|Unable to handle'

# check N on|off: build and boot; prints the row, returns 1 on failure.
check() {
	local n=$1 rot=$2 b=$work/$2 log console t words w missing=
	log=$logs/$(printf %02d "$n")-$rot.build.log
	console=$logs/$(printf %02d "$n")-$rot.console
	t=$SECONDS
	if ! { configure "$b" "$rot" && make -C "$src" O="$b" CC="$cc" -j"$jobs" bzImage modules; } >"$log" 2>&1; then
		echo "build failed: $(grep -m1 -E 'error:|Error [0-9]' "$log" | cut -c1-100)"
		return 1
	fi
	local built=$((SECONDS - t))
	if [ "$rot" = on ] && ! grep -qx 'CONFIG_MODULE_ROT=y' "$b/.config"; then
		echo "CONFIG_MODULE_ROT cannot be set at this patch"
		return 1
	fi
	if [ "$rot" = off ] && grep -qx 'CONFIG_MODULE_ROT=y' "$b/.config"; then
		echo "CONFIG_MODULE_ROT stayed set"
		return 1
	fi
	[ -f "$b/fs/binfmt_misc.ko" ] || { echo "fs/binfmt_misc.ko was not built"; return 1; }
	cp "$b/fs/binfmt_misc.ko" "$root/m/"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"
	t=$SECONDS
	timeout 300 qemu-system-x86_64 -accel tcg -smp 2,sockets=2 -m 256M -nographic -no-reboot \
		-kernel "$b/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1" </dev/null >"$console" 2>&1 || true
	local booted=$((SECONDS - t))
	words="booted loaded listed unloaded gone"
	if [ "$rot" = on ]; then words="$words rotting"; else words="$words no-rotting-file"; fi
	words="$words reloaded end"
	for w in $words; do
		tr -d '\r' <"$console" | grep -qx "BISECT $w" || { missing=$w; break; }
	done
	if [ -n "$missing" ]; then
		echo "boot: no \"$missing\" (console $console)"
		return 1
	fi
	if tr -d '\r' <"$console" | grep -Eq "$splat_re"; then
		echo "boot: $(tr -d '\r' <"$console" | grep -Em1 "$splat_re" | cut -c1-100)"
		return 1
	fi
	echo "build ${built}s boot ${booted}s"
}

passed=0
failed=0
skipped=0
for ((n = from; n <= ${#patches[@]}; n++)); do
	p=${patches[n - 1]}
	# format-patch folds a long Subject onto lines that start with a blank.
	subject=$(awk '/^Subject: / { s = $0; sub(/^Subject: \[PATCH[^]]*\] /, "", s); f = 1; next }
		f && /^ / { s = s $0; next } f { print s; exit }' "$p")
	patch -d "$src" -p1 --quiet --forward <"$p" >"$logs/$(printf %02d "$n").patch.log" 2>&1 ||
		die "$(basename "$p") does not apply"
	echo "$n" >"$work/applied"
	for rot in on off; do
		# Before the patch that adds the option, "on" is the same tree
		# and configuration as "off": one build says all there is.
		if [ "$rot" = on ] && ! grep -qx 'config MODULE_ROT' "$src/kernel/module/Kconfig"; then
			skipped=$((skipped + 1))
			printf 'skip %2d %-3s %s  %s\n' "$n" "$rot" "no CONFIG_MODULE_ROT yet" "$subject"
			continue
		fi
		if out=$(check "$n" "$rot"); then
			passed=$((passed + 1))
			printf 'ok   %2d %-3s %s  %s\n' "$n" "$rot" "$out" "$subject"
		else
			failed=$((failed + 1))
			printf 'FAIL %2d %-3s %s  %s\n' "$n" "$rot" "$out" "$subject"
		fi
	done
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
