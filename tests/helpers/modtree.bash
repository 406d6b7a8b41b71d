# shellcheck shell=bash
# tests/helpers/modtree.bash: module trees that depmod has indexed, for
# the tools that look modules up by name or alias (modinfo, modprobe).
#
#   modtree_build OUTDIR < LIST      builds the modules a fixtures.list
#                                    (tests/fixtures/fixtures.list format)
#                                    names into OUTDIR (.ko, .ko.xz, .ko.zst)
#   modtree_install ROOT SUB FILE... copies module files into
#                                    ROOT/lib/modules/$MODTREE_RELEASE/kernel/SUB/
#   modtree_index ROOT               runs depmod -b ROOT on that tree
#
# A simulated kernel's tree is its state directory's root/: modtree_install
# "$K/root" ... makes the modules the kernel's own /lib/modules/RELEASE.
MODTREE_RELEASE=6.1.0-sim

modtree_build() {
	local out=$1 work
	work=$(mktemp -d "${BATS_FILE_TMPDIR:-/tmp}/modtree.XXXXXX")
	ln -s "$top_srcdir/tests/fixtures/src" "$work/src"
	cat > "$work/fixtures.list"
	"$top_srcdir/tests/fixtures/mkfixtures.sh" "$work" "$out" gcc
	rm -f "$out"/*.gen.c
	rm -rf "$work"
}

modtree_install() {
	local root=$1 dir=$1/lib/modules/$MODTREE_RELEASE/kernel/$2
	shift 2
	mkdir -p "$dir"
	cp "$@" "$dir/"
}

# depmod warns about the files only a kernel build makes (modules.order,
# modules.builtin.modinfo when absent); anything else fails the test.
modtree_index() {
	local root=$1 err
	err=$(depmod -b "$root" "$MODTREE_RELEASE" 2>&1) || {
		echo "depmod failed: $err"
		return 1
	}
	err=$(grep -v -e 'could not open modules.order' -e 'could not open modules.builtin.modinfo' <<< "$err" || true)
	[ -z "$err" ] || {
		echo "depmod: $err"
		return 1
	}
}
