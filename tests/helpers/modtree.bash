# shellcheck shell=bash
# tests/helpers/modtree.bash: a module tree indexed by Debian's depmod, for
# modprobe's (and modinfo's) suites. Load with `load helpers/modtree`
# after helpers/tools or helpers/simkernel (either sets K).
#
#   MODTREE         tests/helpers/modtree.sh: MODTREE [--spec F] [--conf F] ROOT
#   modtree_install put the tree of tests/fixtures/modtree.spec and
#                   modtree.conf into $K/root: the simulator serves it as
#                   /lib/modules/6.1.0-sim, and the modprobe.d file is
#                   $MODTREE_CONF ($K/root/etc/modprobe.d/modtree.conf).
#                   Built once per test file, copied per test. For kernels
#                   created without --builtin (the tree brings its own,
#                   empty modules.builtin).

: "${top_srcdir:?run the suites through make check}"
MODTREE="$top_srcdir/tests/helpers/modtree.sh"

modtree_install() {
	local cache="$BATS_FILE_TMPDIR/modtree"
	if [ ! -f "$cache/.done" ]; then
		rm -rf "$cache"
		"$MODTREE" "$cache" >/dev/null 2>&1 || return 1
		touch "$cache/.done"
	fi
	mkdir -p "$K/root"
	cp -a "$cache/lib" "$cache/etc" "$K/root/"
	MODTREE_CONF=$K/root/etc/modprobe.d/modtree.conf
	export MODTREE_CONF
}
