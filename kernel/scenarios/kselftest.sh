# Real kernel only: the series' kselftest,
# tools/testing/selftests/module/rot_test.c, with the sample module
# samples/module_rot/rot_sample.ko.  Its TAP output goes to the notes.
# Sourced after lib.sh.
out=$(/bin/rot_test "$MODDIR/rot_sample.ko" 2>&1)
st=$?
echo "$out" | sed 's/^/NOTE\tTAP: /'
row kselftest "exit=0,not-ok=0,ok=12" \
	"exit=$st,not-ok=$(echo "$out" | grep -c '^not ok'),ok=$(echo "$out" | grep -c '^ok')" \
	"tools/testing/selftests/module/rot_test passes in the guest"
