# The installer story: load and unload every test module, round after
# round, as a package manager upgrading modules would; watch
# /proc/rotting_modules grow; then reclaim with modreap.
ROUNDS=${ROUNDS:-20}
module_areas() {
	if [ -r /proc/vmallocinfo ]; then grep -c 'load_module\|move_module\|module_alloc' /proc/vmallocinfo; else echo -; fi
}
areas0=$(module_areas)
i=1
while [ $i -le $ROUNDS ]; do
	for m in alpha beta delta params permanent; do load $m >/dev/null; done
	load_raw failinit >/dev/null
	$RMMOD beta alpha delta params >/dev/null 2>&1
	$RMMOD -f permanent >/dev/null 2>&1
	if [ $i -eq 1 ] || [ $((i % 5)) -eq 0 ]; then
		bytes=$(awk '{ s += $2 } END { print s + 0 }' /proc/rotting_modules)
		note "round $i: $(rotting_total) rotting instances, $bytes bytes, $(awk 'END { print NR }' /proc/modules) live"
	fi
	i=$((i + 1))
done
grown=$(rotting_total)
live=$(awk 'END { print NR }' /proc/modules)
areas1=$(module_areas)
$MODREAP | sed 's/^/NOTE\tmodreap: /'
r=$(rc $MODREAP -a)
areas2=$(module_areas)
note "module vmalloc areas: $areas0 at start, $areas1 after $ROUNDS rounds, $areas2 after modreap -a"
row installer-grow "rot=$((ROUNDS * 6)),live=0" "rot=$grown,live=$live" "$ROUNDS rounds of 6 loads and unloads (one a failed init) rot 6 per round"
row installer-reap "rc=0,rot=0" "$r,rot=$(rotting_total)" "modreap -a reclaims all of it"
