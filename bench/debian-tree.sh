#!/usr/bin/env bash
# modrot against Debian's kmod on Debian's real module tree: the kernel
# package downloaded with apt-get, unpacked, indexed by depmod. Times
# modinfo (of .ko, .ko.xz and .ko.zst), modprobe -D, --show-exports (one
# process per module), and modinfo, modprobe -n -v -a and -c (one process
# for all), interleaved (bench/pairs.py: medians of per-pair ratios),
# installed builds on both sides, every command under the simulated
# kernel (a stock one, empty).
# Not part of the tests or CI: it downloads about 70 MB.
#
#   BENCH_DEBIAN_PACKAGE=NAME  (default: the newest linux-image-6.1.*-amd64-unsigned)
#   BENCH_DEBIAN_CACHE=DIR     where the .deb is kept between runs
#                              (default /var/tmp/modrot-debian)
#   BENCH_MODULES=N            modules sampled evenly from the tree (default 400)
#   BENCH_ROUNDS=N             rounds of the bulk commands (default 20)
. "$(dirname "$0")/common.sh"
: "${BENCH_DEBIAN_CACHE:=/var/tmp/modrot-debian}" "${BENCH_MODULES:=400}" "${BENCH_ROUNDS:=20}"

pkg=${BENCH_DEBIAN_PACKAGE:-$(apt-cache search --names-only '^linux-image-6\.1\.[0-9-]*-amd64-unsigned$' |
	awk '{ print $1 }' | sort -V | tail -n 1)}
[ -n "$pkg" ] || { echo "debian-tree.sh: no linux-image-6.1 package known to apt (apt-get update?)" >&2; exit 1; }
mkdir -p "$BENCH_DEBIAN_CACHE"
deb=$(ls "$BENCH_DEBIAN_CACHE/${pkg}"_*.deb 2>/dev/null | tail -n 1 || true)
if [ -z "$deb" ]; then
	(cd "$BENCH_DEBIAN_CACHE" && apt-get download "$pkg" >&2)
	deb=$(ls "$BENCH_DEBIAN_CACHE/${pkg}"_*.deb | tail -n 1)
fi
root=$BENCH_TMP/root
dpkg-deb -x "$deb" "$root"
ver=$(ls "$root/lib/modules" | head -n 1)
/sbin/depmod -b "$root" "$ver"
nmods=$(wc -l <"$root/lib/modules/$ver/modules.dep")
echo "# $(basename "$deb"): $nmods modules, kernel $ver"

# Installed builds, both found as installed: modrot's library through the
# loader's cache (bench/as-installed.sh), as the Debian package has it.
dest=$BENCH_TMP/install
make -s -C "$build" install DESTDIR="$dest" >/dev/null
tree=$(dirname "$(dirname "$(find "$dest" -path '*/sbin/modinfo' -type f | head -n 1)")")

# Module names and files, sampled evenly over modules.dep.
awk -F: -v n="$BENCH_MODULES" -v total="$nmods" 'NR % int(total / n > 1 ? total / n : 1) == 0 { print $1 }' \
	"$root/lib/modules/$ver/modules.dep" | head -n "$BENCH_MODULES" >"$BENCH_TMP/files"
sed 's,.*/,,; s/\.ko.*//; s/-/_/g' "$BENCH_TMP/files" >"$BENCH_TMP/names"
sed "s,^,$root/lib/modules/$ver/," "$BENCH_TMP/files" >"$BENCH_TMP/paths"
count=$(wc -l <"$BENCH_TMP/names")
all=$(tr '\n' ' ' <"$BENCH_TMP/names")

bench_kernel stock stock
pairs() {
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	SIMKERNEL_DIR=$BENCH_TMP/stock LD_PRELOAD=$PRELOAD "$top/bench/as-installed.sh" "$tree/lib" \
		"$top/bench/pairs.py" "$@"
	echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
}
# The index check's kept verdicts (lib/indexcache.c) go to this run's own
# directory, not /run/modrot: the first modrot command checks the tree,
# the rest find its verdict. "verdict not kept" rows check it every time.
export MODROT_INDEX_CACHE=$BENCH_TMP/index-cache
mi="modinfo -b $root -k $ver"
mp="modprobe -d $root -S $ver"

echo
echo "## one process per module ($count modules, each a pair)"
pairs --each "$BENCH_TMP/names" 1 "kmod modinfo NAME=/sbin/$mi {}" "modrot modinfo NAME=$tree/sbin/$mi {}"
pairs --each "$BENCH_TMP/names" 1 "kmod modinfo NAME=/sbin/$mi {}" \
	"modrot modinfo NAME, verdict not kept=MODROT_INDEX_CACHE= $tree/sbin/$mi {}"
pairs --each "$BENCH_TMP/names" 1 "kmod modprobe -D NAME=/sbin/$mp -D {}" "modrot modprobe -D NAME=$tree/sbin/$mp -D {}"
pairs --each "$BENCH_TMP/paths" 1 "kmod modprobe --show-exports FILE=/sbin/$mp --show-exports {}" \
	"modrot modprobe --show-exports FILE=$tree/sbin/$mp --show-exports {}"

# Debian 12's modules are plain .ko; the same modules compressed as the
# kernel's "make modules_install" compresses them (scripts/Makefile.modinst:
# xz --check=crc32 --lzma2=dict=1MiB, zstd -T0), in a copy of the tree
# whose other files are hard links (-f: xz and zstd leave a file with
# several links alone otherwise), indexed again.
for comp in xz zst; do
	croot=$BENCH_TMP/root-$comp
	cp -al "$root" "$croot"
	case $comp in
	xz) xargs -P 2 -n 16 xz -q -f --check=crc32 --lzma2=dict=1MiB ;;
	zst) xargs -P 2 -n 16 zstd -q -f -T0 --rm ;;
	esac < <(sed "s,^,$croot/lib/modules/$ver/," "$BENCH_TMP/files")
	/sbin/depmod -b "$croot" "$ver"
	# A kept verdict needs indexes older than the check's margin.
	sleep 3
	pairs --each "$BENCH_TMP/names" 1 "kmod modinfo NAME (.ko.$comp)=/sbin/modinfo -b $croot -k $ver {}" \
		"modrot modinfo NAME (.ko.$comp)=$tree/sbin/modinfo -b $croot -k $ver {}"
done

echo
echo "## one process for all ($count modules), $BENCH_ROUNDS rounds"
pairs "$BENCH_ROUNDS" "kmod modinfo ALL=/sbin/$mi $all" "modrot modinfo ALL=$tree/sbin/$mi $all"
pairs "$BENCH_ROUNDS" "kmod modprobe -n -v -a ALL=/sbin/$mp -n -v -a $all" "modrot modprobe -n -v -a ALL=$tree/sbin/$mp -n -v -a $all"
pairs "$BENCH_ROUNDS" "kmod modprobe -c=/sbin/$mp -c" "modrot modprobe -c=$tree/sbin/$mp -c"

echo
one=$(sed -n "$((count / 2 + 1))p" "$BENCH_TMP/names")
echo "## system calls of one process for $one (strace -f -c, the simulated kernel's own included)"
for what in "modinfo NAME|$mi $one" "modprobe -D NAME|$mp -D $one"; do
	for who in kmod modrot; do
		bin=/sbin
		[ "$who" = kmod ] || bin=$tree/sbin
		# shellcheck disable=SC2086 # the words are the command's
		SIMKERNEL_DIR=$BENCH_TMP/stock LD_PRELOAD=$PRELOAD "$top/bench/as-installed.sh" "$tree/lib" \
			strace -f -c -o "$BENCH_TMP/strace.out" $bin/${what#*|} >/dev/null 2>&1 || true
		awk -v what="${what%%|*}" -v who="$who" '$NF == "total" { printf "%-18s %-7s %s\n", what, who, $4 }' "$BENCH_TMP/strace.out"
	done
done
