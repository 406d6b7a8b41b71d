# probe-lib.sh, PROBE=match: only the drivers a present device matches.
PROBE=match
. /scenarios/probe-lib.sh
