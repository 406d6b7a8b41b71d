#!/bin/sh
# modtree.sh [--spec FILE] [--conf FILE] [--release R] [--cc CC] ROOT
# Builds a module tree under ROOT/lib/modules/RELEASE from a tree spec
# (default: tests/fixtures/modtree.spec; format at its top), installs
# a modprobe.d file as ROOT/etc/modprobe.d/modtree.conf (default:
# tests/fixtures/modtree.conf; --conf /dev/null for none), and indexes
# the tree with Debian's depmod (`depmod -b ROOT RELEASE`), as a
# distribution's kernel package does. RELEASE defaults to 6.1.0-sim, the
# simulated kernel's. ROOT may be a simulated kernel's DIR/root: the
# simulator then serves the tree as /lib/modules/RELEASE.
#
# The modules are built by tests/fixtures/mkfixtures.sh (two halves side by
# side: gcc per module is the cost), so everything fixtures.list allows
# (parameters, aliases, softdep=, simkernel.* behaviour, +exports/+uses)
# works in a spec line too.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
spec=$here/fixtures/modtree.spec
conf=$here/fixtures/modtree.conf
release=6.1.0-sim
cc=${CC:-gcc}
while [ $# -gt 1 ]; do
	case $1 in
	--spec) spec=$2 ;;
	--conf) conf=$2 ;;
	--release) release=$2 ;;
	--cc) cc=$2 ;;
	*) echo "modtree.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
[ $# -eq 1 ] || { echo "usage: modtree.sh [--spec FILE] [--conf FILE] [--release R] [--cc CC] ROOT" >&2; exit 2; }
root=$1
depmod=$(command -v depmod || echo /usr/sbin/depmod)

work=$(mktemp -d "${TMPDIR:-/tmp}/modtree.XXXXXX")
trap 'rm -rf "$work"' EXIT
trim() { sed 's/^[[:space:]]*//; s/[[:space:]]*$//'; }

# spec line -> fixtures.list line (FILE | plain.c | BYTES | pairs) in one
# of two halves, and a placement line (FILE FORM PATH)
grep -v '^[[:space:]]*#' "$spec" | grep -v '^[[:space:]]*$' > "$work/lines" || true
i=0
mkdir -p "$work/0" "$work/1" "$work/out"
: > "$work/0/fixtures.list"
: > "$work/1/fixtures.list"
while IFS= read -r line; do
	path=$(printf '%s' "$line" | cut -d'|' -f1 | trim)
	form=$(printf '%s' "$line" | cut -d'|' -f2 | trim)
	rest=$(printf '%s' "$line" | cut -d'|' -f3-)
	case $path in
	*.ko) ;;
	*) echo "modtree.sh: $path: the path must end in .ko" >&2; exit 2 ;;
	esac
	case $form in
	ko | xz | zst) ;;
	*) echo "modtree.sh: $path: form must be ko, xz or zst, not '$form'" >&2; exit 2 ;;
	esac
	file=$(basename "$path" .ko)
	echo "$file | plain.c | $rest" >> "$work/$((i % 2))/fixtures.list"
	echo "$file $form $path" >> "$work/place"
	i=$((i + 1))
done < "$work/lines"
ln -s "$here/fixtures/src" "$work/0/src"
ln -s "$here/fixtures/src" "$work/1/src"
"$here/fixtures/mkfixtures.sh" "$work/0" "$work/out" "$cc" &
first=$!
"$here/fixtures/mkfixtures.sh" "$work/1" "$work/out" "$cc"
wait "$first"

moddir=$root/lib/modules/$release
mkdir -p "$moddir"
: > "$work/order"
if [ -f "$work/place" ]; then
	while read -r file form path; do
		mkdir -p "$moddir/$(dirname "$path")"
		case $form in
		ko) cp "$work/out/$file.ko" "$moddir/$path" ;;
		*) cp "$work/out/$file.ko.$form" "$moddir/$path.$form" ;;
		esac
		echo "$path" >> "$work/order"
	done < "$work/place"
fi
# modules.order lists the uncompressed names, as the kernel build writes it
cp "$work/order" "$moddir/modules.order"
[ -f "$moddir/modules.builtin" ] || : > "$moddir/modules.builtin"
[ -f "$moddir/modules.builtin.modinfo" ] || : > "$moddir/modules.builtin.modinfo"
if [ "$conf" != /dev/null ]; then
	mkdir -p "$root/etc/modprobe.d"
	cp "$conf" "$root/etc/modprobe.d/modtree.conf"
fi
"$depmod" -b "$root" "$release"
