# shellcheck shell=bash
# tests/helpers/scenario.bash: the simulator's side of a kernel/scenarios
# script, run as kernel/run.sh runs it (dash, inside `simkernel run`, with
# rotctl built dynamically). Load after helpers/simkernel.
#
#   scenario_setup_file          (in setup_file) builds rotctl
#   run_scenario NAME [OPT...]   NAME.sh on a fresh rot kernel at revision
#                                4 (simkernel create's OPTs added), its
#                                output and "STATUS<tab>N" in
#                                $BATS_TEST_TMPDIR/NAME.sim

SCEN=$top_srcdir/kernel/scenarios

scenario_setup_file() {
	export ROTCTL_DYN=$BATS_FILE_TMPDIR/rotctl-dyn
	gcc -O2 -Wall -Wextra -o "$ROTCTL_DYN" "$top_srcdir/kernel/helper/rotctl.c" -llzma -lzstd
}

run_scenario() {
	local name=$1
	shift
	sim_create rot --abi 4 "$@"
	(
		cd "$BATS_TEST_TMPDIR"
		export SIDE=sim MODDIR=$FIXTURES ROTCTL=$ROTCTL_DYN ROUNDS=1
		export LSMOD=$top_builddir/tools/lsmod RMMOD=$top_builddir/tools/rmmod MODREAP=$top_builddir/tools/modreap
		"$SIMKERNEL" run "$K" -- /bin/sh -c ". '$SCEN/lib.sh'; . '$SCEN/$name.sh'" 2>&1
		echo "STATUS	$?"
	) > "$BATS_TEST_TMPDIR/$name.sim"
}
