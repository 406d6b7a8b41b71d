#!/usr/bin/env bash
# Run the kernel's checkpatch.pl --strict over a series: kernel/patches/
# (Linux 6.1, the default) or kernel/patches-6.12/ (not the cover letter).
#
#   kernel/checkpatch.sh [--kernel 6.1|6.12] [--tree DIR]
#
# The checkpatch.pl comes from DIR, else from $KSRC, else from the newest
# cached build of that kernel (kernel/run.sh's cache,
# /var/cache/modrot-kernel, and its 6.12/ for 6.12), else from Debian's
# linux-source-VERSION tarball (installed if missing), unpacked in part
# to a temporary directory.  Prints checkpatch's report for each patch and a total.
# Exits 1 if any patch has an ERROR, 0 otherwise (warnings are printed
# and counted; the cover letter justifies the ones that stay).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tree=${KSRC:-}
cache_root=${MODROT_KERNEL_CACHE:-/var/cache/modrot-kernel}
kernel=6.1
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--tree) tree=$2; shift 2 ;;
	-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "checkpatch.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# shellcheck source-path=SCRIPTDIR source=series.sh
. "$here/series.sh"
kernel_series "$kernel" || { echo "checkpatch.sh: --kernel takes 6.1 or 6.12, not $kernel" >&2; exit 2; }
[ "$kernel" = 6.1 ] || cache_root=$cache_root/$kernel
src=linux-source-$kernel

tmp=
cleanup() { [ -z "$tmp" ] || rm -rf "$tmp"; }
trap cleanup EXIT

if [ -z "$tree" ]; then
	# shellcheck disable=SC2012 # our own hex-named cache directories
	done_file=$(ls -1t "$cache_root"/*/done 2>/dev/null | head -n 1 || true)
	[ -n "$done_file" ] && tree=$(dirname "$done_file")/$src
fi
if [ -z "$tree" ] || [ ! -x "$tree/scripts/checkpatch.pl" ]; then
	tar_file=/usr/src/$src.tar.xz
	# A fresh machine has neither a cached build nor the source package.
	[ -f "$tar_file" ] || "$here/../scripts/need-packages.sh" "$src" >&2
	[ -f "$tar_file" ] || { echo "checkpatch.sh: no kernel tree and no $tar_file" >&2; exit 2; }
	tmp=$(mktemp -d)
	tar -xf "$tar_file" -C "$tmp" --wildcards \
		"$src/scripts/checkpatch.pl" \
		"$src/scripts/spelling.txt" \
		"$src/scripts/const_structs.checkpatch"
	tree=$tmp/$src
fi

# A whole tree lets checkpatch check paths against it; a partial one not.
tree_opt=
[ -f "$tree/MAINTAINERS" ] || tree_opt=--no-tree

errors=0
warnings=0
checks=0
for p in "$series"/0*.patch; do
	case $(basename "$p") in 0000-*) continue ;; esac
	out=$(cd "$tree" && perl scripts/checkpatch.pl --strict $tree_opt --terse \
		--show-types "$p" 2>&1 || true)
	e=$(printf '%s\n' "$out" | grep -c ': ERROR:' || true)
	w=$(printf '%s\n' "$out" | grep -c ': WARNING:' || true)
	c=$(printf '%s\n' "$out" | grep -c ': CHECK:' || true)
	printf '%s: %d errors, %d warnings, %d checks\n' "$(basename "$p")" "$e" "$w" "$c"
	printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' | sed 's/^/    /' || true
	errors=$((errors + e))
	warnings=$((warnings + w))
	checks=$((checks + c))
done
echo "total: $errors errors, $warnings warnings, $checks checks"
[ "$errors" -eq 0 ]
