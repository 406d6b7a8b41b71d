# Real kernel only: the series' kselftest,
# tools/testing/selftests/module/rot_test.c, as its Makefile installed it,
# with the sample module samples/module_rot/rot_sample.ko that the Makefile
# built and installed next to it (the test finds it there).  Its TAP
# output goes to the notes.  Sourced after lib.sh.
out=$(/kselftest/module/rot_test 2>&1)
st=$?
echo "$out" | sed 's/^/NOTE\tTAP: /'
row kselftest "exit=0,not-ok=0,ok=12" \
	"exit=$st,not-ok=$(echo "$out" | grep -c '^not ok'),ok=$(echo "$out" | grep -c '^ok')" \
	"tools/testing/selftests/module/rot_test passes in the guest"
