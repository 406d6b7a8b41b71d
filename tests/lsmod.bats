#!/usr/bin/env bats
# lsmod: kmod's layout on both kernels, rot markers, tables and JSON.

load helpers/tools

bats_require_minimum_version 1.5.0

setup() {
	kernel_new rot
}

@test "lsmod on a rot kernel prints kmod's header and a zero count for live modules" {
	kmod_load alpha beta
	run on_kernel "$LSMOD"
	assert_success
	assert_line --index 0 "Module                  Size  Used by"
	assert_line --regexp '^beta +[0-9]+  0$'
	assert_line --regexp '^alpha +[0-9]+  0 beta$'
	assert_equal "${#lines[@]}" 3
}

@test "lsmod lists a module unloaded on a rot kernel after the live ones, as rotting" {
	kmod_load alpha delta
	kmod_unload delta
	run on_kernel "$LSMOD"
	assert_success
	size=$(kernel_state | awk '$1 == "rotting" && $2 == "delta" { print $3 }')
	assert_line --index 1 --regexp '^alpha '
	assert_line --index 2 "$(printf '%-19s %8d  0 [rotting]' '(delta)' "$size")"
}

@test "lsmod shows a rotting instance's pins in the Used by count, and in PINS for -o and -J" {
	"$SIM" set "$K" delta rot_safe=1 # rot-abi U8: only a module that declares it unloads while pinned
	kmod_load alpha delta
	"$SIM" pin "$K" delta 3
	"$SIM" pin "$K" alpha 2
	kmod_unload delta
	before=$(kernel_state)
	run on_kernel "$LSMOD"
	assert_success
	size=$(kernel_state | awk '$1 == "rotting" && $2 == "delta" { print $3 }')
	assert_line --index 1 --regexp '^alpha +[0-9]+  0$'
	assert_line --index 2 "$(printf '%-19s %8d  3 [rotting]' '(delta)' "$size")"
	run on_kernel "$LSMOD" -o name,refcnt,pins,state -r -n
	assert_success
	assert_output "alpha 0 2 live
delta 0 3 rotting"
	run on_kernel "$LSMOD" -J -o name,pins
	assert_equal "$(jq -c '[.modules[] | [.name, .pins]]' <<< "$output")" '[["alpha",2],["delta",3]]'
	assert_equal "$(kernel_state)" "$before"
}

@test "lsmod lists every rotting instance of a name, newest first" {
	kmod_load delta
	kmod_unload delta
	kmod_load delta
	kmod_unload delta
	run on_kernel "$LSMOD" -o name,address,state --rotting -n -r
	assert_success
	expected=$(kernel_state | awk '$1 == "rotting" { print $2, $4, "rotting" }')
	assert_equal "$(printf '%s\n' "${lines[@]}" | awk '{ print $1, $2, $3 }' |
		sed 's/0x0*/0x/' )" "$(echo "$expected" | sed 's/0x0*/0x/')"
	assert_equal "${#lines[@]}" 2
}

@test "lsmod shows a failed init as a rotting instance of core plus init size" {
	run on_kernel "$KMOD_INSMOD" "$FIXTURES/failinit.ko"
	assert_failure
	run on_kernel "$LSMOD" --rotting -r -n -o name,size
	assert_success
	assert_output "failinit $(kernel_state | awk '$1 == "rotting" { print $3 }')"
}

@test "lsmod marks a permanent module on a rot kernel" {
	kmod_load permanent
	run on_kernel "$LSMOD"
	assert_success
	assert_line --regexp '^permanent +[0-9]+  0 \[permanent\]$'
}

@test "lsmod --rotting ends with the total of the rotting instances" {
	kmod_load alpha delta
	kmod_unload delta
	run on_kernel "$KMOD_INSMOD" "$FIXTURES/failinit.ko"
	run on_kernel "$LSMOD" --rotting
	assert_success
	total=$(kernel_state | awk '$1 == "rotting" { s += $3 } END { print s }')
	assert_line --index 0 "Module                  Size  Used by"
	refute_line --regexp '^alpha '
	# this kernel reports its per-CPU reserve: nothing here has per-CPU data
	assert_equal "${lines[-1]}" "2 rotting instances, $total bytes; per-CPU reserve 8192 bytes: 0 held by rotting instances, 8192 free"
	assert_equal "${#lines[@]}" 4
}

@test "lsmod --live leaves rotting instances out" {
	kmod_load alpha delta
	kmod_unload delta
	run on_kernel "$LSMOD" --live
	assert_success
	refute_output --partial "[rotting]"
	assert_equal "${#lines[@]}" 2
}

@test "lsmod --rotting on a stock kernel exits 3 and says the kernel has no rot support" {
	kernel_new stock
	kmod_load alpha
	run --separate-stderr on_kernel "$LSMOD" --rotting
	assert_equal "$status" 3
	assert_equal "$output" ""
	assert_equal "$stderr" "lsmod: ERROR: this kernel has no module rot support (/proc/rotting_modules is missing)"
}

@test "lsmod without /proc/modules exits 3 with one line" {
	[ ! -e /proc/modules ] || skip "this host has real module support"
	run --separate-stderr "$LSMOD"
	assert_equal "$status" 3
	assert_equal "$stderr" "lsmod: ERROR: this kernel has no module support (/proc/modules is missing)"
}

@test "lsmod -J prints the modules as a JSON array with holders as arrays" {
	kmod_load alpha beta delta
	kmod_unload delta
	run on_kernel "$LSMOD" -J -o name,size,refcnt,holders,state
	assert_success
	echo "$output" | jq -e . >/dev/null
	assert_equal "$(echo "$output" | jq -r '.modules | length')" 3
	assert_equal "$(echo "$output" | jq -c '.modules[] | select(.name == "alpha") | .holders')" '["beta"]'
	assert_equal "$(echo "$output" | jq -r '.modules[] | select(.name == "delta") | .state')" rotting
	size=$(kernel_state | awk '$1 == "live" && $2 == "alpha" { print $3 }')
	assert_equal "$(echo "$output" | jq '.modules[] | select(.name == "alpha") | .bytes')" "$size"
	assert_equal "$(echo "$output" | jq '.modules[] | select(.name == "alpha") | .refcnt')" 0
}

@test "lsmod -o shows the chosen columns in the chosen order" {
	kmod_load oot
	run on_kernel "$LSMOD" -o taints,name
	assert_success
	assert_line --index 0 --regexp '^TAINTS +NAME$'
	assert_line --index 1 --regexp '^O +oot$'
}

@test "lsmod -o address shows the core address the kernel gives" {
	kmod_load alpha
	run on_kernel "$LSMOD" -r -n -o name,address
	addr=$(kernel_state | awk '$2 == "alpha" { print $4 }')
	assert_output "alpha $(printf '0x%016x' "$addr")"
}

@test "lsmod for a reader without kernel-pointer privilege shows zero addresses" {
	kmod_load alpha
	run on_kernel_nocap "$LSMOD" -r -n -o name,address
	assert_success
	assert_output "alpha 0x0000000000000000"
}

@test "lsmod -r -n prints raw rows without a header" {
	kmod_load alpha beta
	run on_kernel "$LSMOD" -r -n
	assert_success
	assert_line --index 0 --regexp '^beta [0-9]+ 0 - live$'
	assert_line --index 1 --regexp '^alpha [0-9]+ 0 beta live$'
}

@test "lsmod -r prints no empty field: an empty or unknown cell is -, and every row splits into as many fields as the header" {
	kmod_load alpha beta oot
	kmod_unload beta
	local cols=name,size,refcnt,holders,state,taints,permanent,percpu,devices,mounts,inuse,pins
	for kernel in rot stock; do
		[ "$kernel" = rot ] || { kernel_new stock; kmod_load alpha beta oot; }
		run --separate-stderr on_kernel "$LSMOD" -r -o "$cols"
		assert_success
		local listing=$output
		assert_equal "$(awk '{ print NF }' <<<"$listing" | sort -u)" 12
		run awk '$0 ~ /  / || / $/ || /^ / { print "blank field: " $0 }' <<<"$listing"
		assert_output ''
	done
	# beta: no holders, no taints; on a stock kernel no per-CPU figures,
	# no mount table read (it counts references) and no pins shown.
	run grep -E '^beta [0-9]+ 0 - live - false - 0 - false -$' <<<"$listing"
	assert_success
	run on_kernel "$LSMOD" -r -n
	assert_line --regexp '^beta [0-9]+ 0 - live$'
}

@test "scripts that ask whether a module is loaded are not fooled by a rotting instance" {
	kmod_load alpha oot delta
	kmod_unload oot
	kmod_unload delta
	kmod_load delta
	# oot only rots, delta rots and is live again, alpha is live.
	run on_kernel "$LSMOD"
	assert_success
	assert_line --regexp '^\(oot\) +[0-9]+  0 \[rotting\]$'
	assert_line --regexp '^\(delta\) +[0-9]+  0 \[rotting\]$'
	local listing=$output name
	for name in oot delta alpha; do
		local want=no
		[ "$name" = oot ] || want=yes
		run sh -c 'if grep -q "^$1 "; then echo yes; else echo no; fi' sh "$name" <<<"$listing"
		assert_output "$want"
		run sh -c 'awk -v n="$1" '"'"'$1 == n { f = 1 } END { print f ? "yes" : "no" }'"'" sh "$name" <<<"$listing"
		assert_output "$want"
		run sh -c 'if cut -d" " -f1 | grep -qx "$1"; then echo yes; else echo no; fi' sh "$name" <<<"$listing"
		assert_output "$want"
		# What Ansible's community.general.modprobe and systemd's
		# ConditionPathExists=/sys/module/NAME read: the kernel's own.
		run on_kernel sh -c 'if grep -q "^$1 " /proc/modules; then echo yes; else echo no; fi' sh "$name"
		assert_output "$want"
		run on_kernel sh -c 'if [ -e "/sys/module/$1" ]; then echo yes; else echo no; fi' sh "$name"
		assert_output "$want"
	done
	# The rotting instances stay in the default listing, and in --rotting's.
	run on_kernel "$LSMOD" --rotting
	assert_line --index 1 --regexp '^\((delta|oot)\) '
	assert_line --index 2 --regexp '^\((delta|oot)\) '
	assert_line --index 3 --regexp '^2 rotting instances, '
	run on_kernel "$LSMOD" --live
	refute_output --partial '('
}

@test "lsmod rejects an unknown option with one line and exit 2" {
	run --separate-stderr on_kernel "$LSMOD" --bogus
	assert_equal "$status" 2
	assert_equal "$output" ""
	assert_equal "$stderr" "lsmod: ERROR: unknown option '--bogus' (see 'lsmod --help')"
}

@test "lsmod rejects an unknown column with one line and exit 2" {
	run --separate-stderr on_kernel "$LSMOD" -o name,colour
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: unknown column 'colour' (see 'lsmod --help')"
}

@test "lsmod rejects --live with --rotting, and a stray argument" {
	run --separate-stderr on_kernel "$LSMOD" --live --rotting
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: --live and --rotting exclude each other (see 'lsmod --help')"
	run --separate-stderr on_kernel "$LSMOD" alpha
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: unexpected argument 'alpha' (see 'lsmod --help')"
}

@test "lsmod -o without a list exits 2" {
	run --separate-stderr on_kernel "$LSMOD" -o
	assert_equal "$status" 2
	assert_equal "$stderr" "lsmod: ERROR: missing argument for option '-o' (see 'lsmod --help')"
}

@test "lsmod reports a write error and exits 1" {
	kmod_load alpha
	run --separate-stderr on_kernel sh -c "'$LSMOD' > /dev/full"
	assert_equal "$status" 1
	assert_equal "$stderr" "lsmod: ERROR: could not write to standard output: No space left on device"
}

@test "lsmod --help lists every column and --version names the suite" {
	run "$LSMOD" --help
	assert_success
	for c in NAME SIZE REFCNT HOLDERS STATE ADDRESS TAINTS PERMANENT; do
		assert_line --regexp "^ +$c  "
	done
	run "$LSMOD" -V
	assert_success
	assert_output --regexp '^lsmod \(modrot\) [0-9]'
}

@test "lsmod changes nothing in the kernel" {
	kmod_load alpha beta delta
	kmod_unload delta
	before=$(kernel_state)
	ledger=$("$SIM" ledger "$K")
	run on_kernel "$LSMOD"
	run on_kernel "$LSMOD" -J
	assert_equal "$(kernel_state)" "$before"
	assert_equal "$("$SIM" ledger "$K")" "$ledger"
}

@test "lsmod -v prints the same listing and says on stderr what it read" {
	kmod_load alpha beta delta
	kmod_unload delta
	run --separate-stderr on_kernel "$LSMOD"
	plain=$output
	run --separate-stderr on_kernel "$LSMOD" -v
	assert_success
	assert_equal "$output" "$plain"
	assert_equal "$stderr" "lsmod: read 2 live modules and 1 rotting instance"
	run --separate-stderr on_kernel "$LSMOD" --verbose --live
	assert_success
	assert_equal "$stderr" "lsmod: read 2 live modules and 1 rotting instance"
	refute_output --partial "[rotting]"
}

@test "lsmod -s sends errors to syslog, not stderr, and leaves the listing alone" {
	kmod_load alpha
	run --separate-stderr on_kernel "$LSMOD" --syslog
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 1 --regexp '^alpha +[0-9]+  0$'
	kernel_new stock
	run --separate-stderr on_kernel_traced -qq -e trace=connect,sendto,write -s 256 \
		-o "$BATS_TEST_TMPDIR/trace" "$LSMOD" -s --rotting
	assert_equal "$status" 3
	assert_equal "$stderr" ""
	grep -q 'connect(.*"/dev/log"' "$BATS_TEST_TMPDIR/trace"
	grep -Eq '^(sendto\(|write\([013-9]).*lsmod.*no module rot support' "$BATS_TEST_TMPDIR/trace"
}
