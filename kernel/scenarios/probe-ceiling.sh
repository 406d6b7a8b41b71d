# probe-lib.sh, PROBE=ceiling: probe-all under modreap --watch --down-to.
PROBE=ceiling
. /scenarios/probe-lib.sh
