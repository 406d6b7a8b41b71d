# Real kernel only, and only on a tree built with CONFIG_MODULE_ROT=n: the
# series without its option must be a stock 6.1 kernel (rot-abi.md D4).
# Not in run.sh's default list (the scenario kernel has rot); run it with
#   kernel/run.sh --tree OFF-TREE --scenarios stock
# Sourced after lib.sh.

wait_for() {
	i=0
	until "$@"; do
		[ $i -ge 300 ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}

present() { # PATH -> present/absent
	if [ -e "$1" ]; then echo present; else echo absent; fi
}

# vmallocinfo line of the area starting at ADDRESS, "gone" if none (a
# freed area may linger as "unpurged vm_area": that counts as gone).
vmalloc_area() { # ADDRESS
	if grep "^$1-" /proc/vmallocinfo | grep -qv unpurged; then echo kept; else echo gone; fi
}
# Real addresses in /proc/modules and /proc/vmallocinfo for root.
echo 1 >/proc/sys/kernel/kptr_restrict

# Nothing of rot is there: no file, no parameter, no per-CPU report.
row stock-detect "absent,absent,absent" \
	"$(present /proc/rotting_modules),$(present /proc/module_percpu),$(present /sys/module/module/parameters/rot_reclaim_checks)" \
	"no /proc/rotting_modules, no /proc/module_percpu, no rot_reclaim_checks"

# Reference counts are back: beta's use of alpha counts, in /proc/modules
# and in sysfs, and alpha cannot go while beta holds it.
r0=$(load_raw alpha)
r1=$(load_raw beta)
rc_a=$(live_field alpha 3)
by_a=$(live_field alpha 4)
sys_a=$(cat /sys/module/alpha/refcnt)
r2=$($ROTCTL delete alpha 0)
r3=$($ROTCTL delete beta 0)
r4=$($ROTCTL delete alpha 0)
row stock-refcount "ok,ok,1,beta,,1,EWOULDBLOCK,ok,ok,none,none" \
	"$r0,$r1,$rc_a,$by_a,$sys_a,$r2,$r3,$r4,$(live_state alpha),$(live_state beta)" \
	"beta's use of alpha is a reference: /proc/modules and refcnt show 1, alpha unloads after beta"

# delete_module() frees: the module's area leaves /proc/vmallocinfo, and
# the name loads again at once.
r0=$(load_raw delta)
addr=$(live_field delta 6)
before=$(vmalloc_area "$addr")
r1=$($ROTCTL delete delta 0)
after=$(vmalloc_area "$addr")
r2=$(load_raw delta)
r3=$($ROTCTL delete delta 0)
row stock-delete-frees "ok,kept,ok,gone,ok,ok,none" \
	"$r0,$before,$r1,$after,$r2,$r3,$(live_state delta)" \
	"unloading frees the module's memory at once; the name loads again"

# A failed init frees too: no instance is left anywhere.
r0=$(load_raw failinit)
r1=$(load_raw failinit)
row stock-failinit "ENODEV,ENODEV,none" "$r0,$r1,$(live_state failinit)" \
	"a failing init leaves nothing; loading again runs init again"

# The revision-2 request bit is ignored, as on any stock kernel (U6 is a
# rot rule): it unloads the live module.  The tools never send it where
# /proc/rotting_modules is absent; the revision-3 request needs that file.
r0=$(load_raw delta)
r1=$($ROTCTL delete delta 0x40000000)
r2=$($ROTCTL reclaim delta)
row stock-reclaim-request "ok,ok,none,ENOENT" "$r0,$r1,$(live_state delta),$r2" \
	"MODULE_RECLAIM is an unknown bit, ignored; ROT_IOC_RECLAIM has no file to go to"

# crypto unchanged: a cbc(aes) transform held through AF_ALG is a
# reference on cbc, which then refuses to unload.
if [ -f "$MODDIR/cbc.ko" ] && [ -x /bin/afalg ]; then
	r0=$(load_raw cbc)
	/bin/afalg >/tmp/afalg.out 2>&1 &
	holder=$!
	wait_for grep -q ready /tmp/afalg.out && ready=ready || ready="$(cat /tmp/afalg.out)"
	held=$(live_field cbc 3)
	r1=$($ROTCTL delete cbc 0)
	s1=$(live_state cbc)
	kill "$holder"
	wait "$holder" 2>/dev/null
	wait_for sh -c '[ "$(awk '"'"'$1 == "cbc" { print $3 }'"'"' /proc/modules)" = 0 ]'
	r2=$($ROTCTL delete cbc 0)
	row stock-crypto "ok,ready,held,EWOULDBLOCK,Live,ok,none" \
		"$r0,$ready,$([ "${held:-0}" -gt 0 ] && echo held || echo "refcnt=$held"),$r1,$s1,$r2,$(live_state cbc)" \
		"an AF_ALG transform holds a reference on cbc: EWOULDBLOCK until it is closed"
else
	row stock-crypto "present" "missing" "cbc.ko and the afalg helper are in the guest"
fi

# livepatch unchanged: an enabled patch holds its module.
lp=/sys/kernel/livepatch/livepatch_sample
if [ -f "$MODDIR/livepatch-sample.ko" ]; then
	r0=$(load_raw livepatch-sample)
	wait_for grep -q 'live patched' /proc/cmdline && patched=patched || patched=unpatched
	r1=$($ROTCTL delete livepatch_sample 0)
	echo 0 >$lp/enabled
	wait_for sh -c "[ ! -d $lp ]" && off=disabled || off=still-enabled
	# The patch puts its module after its sysfs directory goes.
	wait_for sh -c '[ "$(awk '"'"'$1 == "livepatch_sample" { print $3 }'"'"' /proc/modules)" = 0 ]'
	r2=$($ROTCTL delete livepatch_sample 0)
	grep -q 'live patched' /proc/cmdline && after=patched || after=unpatched
	row stock-livepatch "ok,patched,EWOULDBLOCK,disabled,ok,unpatched,none" \
		"$r0,$patched,$r1,$off,$r2,$after,$(live_state livepatch_sample)" \
		"an enabled livepatch holds its module; disabled, it unloads"
else
	row stock-livepatch "present" "missing" "livepatch-sample.ko is in the guest"
fi

# No new taint: nothing above was forced, so no R.
row stock-no-taint-r "0" "$(taint_r)" "no forced unload, no taint R"

# The kselftest sees no rot and skips.
out=$(/kselftest/module/rot_test 2>&1)
st=$?
echo "$out" | sed 's/^/NOTE\tTAP: /'
row stock-kselftest-skips "exit=4" "exit=$st" \
	"the module rot kselftest skips (KSFT_SKIP) on a kernel without module rot"
