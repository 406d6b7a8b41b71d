#!/usr/bin/env bash
# Check that the series with CONFIG_MODULE_ROT=n is stock where it
# matters to out-of-tree code: struct module's layout and the values of
# enum lockdown_reason, compared against Debian's unpatched source.
#
#   kernel/layout-check.sh [--kernel 6.1|6.12] [--keep DIR]
#
# Two trees are unpacked from linux-source-VERSION: one as shipped, one
# with the series applied.  Both are configured as kernel/run.sh's debug
# configuration (tinyconfig plus the config fragments), the patched one
# with CONFIG_MODULE_ROT=n, and each compiles one probe object with debug
# information (no kernel is built).  gdb prints the probed types from
# each object (ptype /o: every member's offset and size); the two reports
# must be the same.  Prints the difference and "layout: same" or
# "layout: DIFFERENT"; exits 1 when different, 2 when it could not tell.
# About 3 minutes on 2 idle cores, most of it unpacking and objtool.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kernel=6.1
keep=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "layout-check.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
# shellcheck source-path=SCRIPTDIR source=series.sh
. "$here/series.sh"
kernel_series "$kernel" || { echo "layout-check.sh: --kernel takes 6.1 or 6.12, not $kernel" >&2; exit 2; }
src=linux-source-$kernel
tar_file=/usr/src/$src.tar.xz
# What configuring a tree and compiling one object in it need (objtool
# among it), and gdb; need-packages.sh installs only what is missing.
"$here/../scripts/need-packages.sh" "$src" gdb bc flex bison libelf-dev libssl-dev \
	xz-utils patch >&2
[ -f "$tar_file" ] || { echo "layout-check.sh: no $tar_file" >&2; exit 2; }

if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	# A signal ends the script through the EXIT trap, after the job in
	# the foreground (a tar, a make) has stopped writing into $work.
	trap 'exit 130' INT TERM
fi
rm -rf "${work:?}/stock" "$work/off"
mkdir -p "$work/stock" "$work/off"
tar -xf "$tar_file" -C "$work/stock"
cp -a "$work/stock/$src" "$work/off/"
for p in "$series"/*.patch; do
	case $(basename "$p") in 0000-*) continue ;; esac
	patch -d "$work/off/$src" -p1 --quiet --forward <"$p" ||
		{ echo "layout-check.sh: $(basename "$p") does not apply" >&2; exit 2; }
done

# The probe: one object that refers to every type compared.  Debug
# information keeps each type's full layout.
probe() { # TREE
	cat >"$1/kernel/rot_layout_probe.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/security.h>
struct module *rot_layout_module;
enum lockdown_reason rot_layout_lockdown;
EOF
}

configure() { # TREE ROT(y|n|-)
	(
		cd "$1"
		make -s tinyconfig
		scripts/kconfig/merge_config.sh -m .config "${fragments[@]}"
		case $2 in
		n) scripts/config --disable MODULE_ROT ;;
		esac
		make -s olddefconfig
	) >"$1.config.log" 2>&1 || { tail -n 20 "$1.config.log" >&2; exit 2; }
	probe "$1"
	make -s -C "$1" -j"$(nproc)" kernel/rot_layout_probe.o KCFLAGS=-g \
		>"$1.build.log" 2>&1 || { tail -n 20 "$1.build.log" >&2; exit 2; }
}

report() { # TREE
	gdb -batch -nx \
		-ex 'ptype /o struct module' \
		-ex 'ptype enum lockdown_reason' \
		"$1/kernel/rot_layout_probe.o" 2>&1 | sed 's/[[:space:]]*$//'
}

configure "$work/stock/$src" -
configure "$work/off/$src" n
grep -qx '# CONFIG_MODULE_ROT is not set' "$work/off/$src/.config" ||
	{ echo "layout-check.sh: CONFIG_MODULE_ROT is not off in the patched tree" >&2; exit 2; }
report "$work/stock/$src" >"$work/stock.layout"
report "$work/off/$src" >"$work/off.layout"
grep -q '/\* total size' "$work/stock.layout" ||
	{ echo "layout-check.sh: gdb printed no layout:" >&2; head -n 5 "$work/stock.layout" >&2; exit 2; }

echo "struct module, stock: $(grep -o 'total size (bytes): *[0-9]*' "$work/stock.layout" | tail -n 1 | tr -s ' ')"
echo "struct module, CONFIG_MODULE_ROT=n: $(grep -o 'total size (bytes): *[0-9]*' "$work/off.layout" | tail -n 1 | tr -s ' ')"
if diff -u "$work/stock.layout" "$work/off.layout"; then
	echo "layout: same"
else
	echo "layout: DIFFERENT"
	exit 1
fi
