# probe-lib.sh, PROBE=all: every driver loaded, the unused unloaded, nothing reclaimed.
PROBE=all
. /scenarios/probe-lib.sh
