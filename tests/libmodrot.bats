#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# libmodrot as a shared library: one public header, a version script that
# agrees with it, a SONAME, tools that link it, and a library that prints
# nothing.

load helpers/tools

LIB=$top_builddir/lib/libmodrot.so.1

# The functions lib/modrot.h declares, comments left out.
header_functions() {
	perl -0777 -ne 's{/\*.*?\*/}{}gs; print "$1\n" while /\b(rot_[a-z0-9_]+)\s*\(/g' \
		"$top_srcdir/lib/modrot.h" | LC_ALL=C sort -u
}

# The names lib/libmodrot.sym exports (its global: entries).
script_functions() {
	perl -0777 -ne 's{/\*.*?\*/}{}gs; print "$1\n" while /^\s*(rot_[a-z0-9_]+)\s*;/mg' \
		"$top_srcdir/lib/libmodrot.sym" | LC_ALL=C sort -u
}

@test "the version script lists exactly the functions modrot.h declares" {
	[ "$(header_functions | wc -l)" -gt 50 ]
	assert_equal "$(script_functions)" "$(header_functions)"
}

@test "the library exports exactly those functions, each at a LIBMODROT version" {
	run nm -D --defined-only "$LIB"
	assert_success
	local exported versioned
	exported=$(awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^LIBMODROT_/ { sub(/@.*/, "", $3); print $3 }' <<<"$output" |
		LC_ALL=C sort -u)
	assert_equal "$exported" "$(header_functions)"
	versioned=$(awk '$3 ~ /^rot_/ && $3 !~ /@@LIBMODROT_[0-9]+$/' <<<"$output")
	assert_equal "$versioned" ""
}

@test "every function modrot.h declares is one a tool calls: the rest is private" {
	local called
	# What the tools' objects leave for libmodrot to resolve.
	called=$(find "$top_builddir/tools" -name '*.o' -exec nm -u {} + |
		awk '$2 ~ /^rot_/ { print $2 }' | LC_ALL=C sort -u)
	[ "$(wc -l <<<"$called")" -gt 50 ]
	assert_equal "$called" "$(header_functions)"
}

@test "the library is libmodrot.so.1 by SONAME and every installed program needs it" {
	run readelf -d "$LIB"
	assert_output --partial 'Library soname: [libmodrot.so.1]'
	local t programs
	# Every installed program, as the Makefile lists them.
	programs=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory \
		-C "$top_builddir" -f Makefile -f - print-programs <<'EOF'
print-programs: ; @echo $(bin_PROGRAMS) $(sbin_PROGRAMS)
EOF
	)
	[ "$(wc -w <<<"$programs")" -ge 5 ]
	for t in $programs; do
		run readelf -d "$top_builddir/$t"
		assert_output --partial 'Shared library: [libmodrot.so.1]'
		# A real program, not a libtool script: valgrind and the preloads run it.
		run head -c 4 "$top_builddir/$t"
		assert_output $'\x7fELF'
	done
}

# Members of the public structs that are arrays ("NAME: signer[256]").
struct_arrays() {
	perl -0777 -ne 's{/\*.*?\*/}{}gs;
		while (/struct\s+(rot_\w+)\s*\{(.*?)\}\s*;/gs) {
			my ($n, $b) = ($1, $2);
			print "$n: $1\n" while $b =~ /(\w+\s*\[[^\]]*\])\s*;/g;
		}' "$@"
}

@test "no public struct has a fixed-size array: a longer answer would change its size" {
	# The finder finds one where there is one.
	printf 'struct rot_x {\n\tint a;\n\tchar signer[256]; /* x */\n};\n' >"$BATS_TEST_TMPDIR/x.h"
	assert_equal "$(struct_arrays "$BATS_TEST_TMPDIR/x.h")" "rot_x: signer[256]"
	assert_equal "$(struct_arrays "$top_srcdir/lib/modrot.h")" ""
}

@test "rot_module_* take a snapshot's module; rot_name_* take a name, not a module" {
	run perl -0777 -ne 's{/\*.*?\*/}{}gs;
		while (/\b(rot_(module|name)_\w+)\s*\(([^)]*)\)/g) {
			my ($f, $o, $p) = ($1, $2, $3);
			my $module = $p =~ /\bconst struct rot_module \*/;
			my $named = $p =~ /^const char \*\w+/;
			print "$f($p)\n" if ($o eq "module" ? !$module : ($module || !$named));
			$n{$o}++;
		}
		END { print "counted no $_\n" for grep { !$n{$_} } qw(module name) }' \
		"$top_srcdir/lib/modrot.h"
	assert_success
	assert_output ''
}

@test "the library prints nothing: no stdio output, syslog or error printing functions" {
	run nm -D --undefined-only "$LIB"
	assert_success
	refute_output --regexp '\b(printf|fprintf|vfprintf|vprintf|puts|fputs|fputc|putchar|putc|perror|syslog|vsyslog|err|errx|warn|warnx|error|stdout|stderr|__printf_chk|__fprintf_chk|__vfprintf_chk)(@|$)'
}

@test "the tools reach lib only through the public header" {
	local h n=0
	# the control: the check finds the tools' includes of the public header
	run grep -l '#include "modrot.h"' "$top_srcdir"/tools/*.[ch] "$top_srcdir"/tools/*/*.[ch]
	assert_success
	assert_line "$top_srcdir/tools/lsmod.c"
	for h in "$top_srcdir"/lib/*.h; do
		[ "${h##*/}" = modrot.h ] && continue
		run grep -l "#include \"${h##*/}\"" "$top_srcdir"/tools/*.[ch] "$top_srcdir"/tools/*/*.[ch]
		assert_failure 1
		n=$((n + 1))
	done
	# lib's private headers were there to check
	[ "$n" -gt 3 ]
}

@test "the load words depend on nothing else of the load jobs" {
	run grep '#include "' "$top_srcdir/tools/cli/load-words.c" "$top_srcdir/tools/cli/load-words.h"
	refute_output --partial 'load.h"'
	refute_output --partial 'insmod'
	refute_output --partial 'load-job'
	run grep -c 'job_\|load_env\|load_job' "$top_srcdir/tools/cli/load-words.c"
	assert_output 0
}

# "A includes B.h": one edge per pair of tools/ files (a file and its own
# header are one node).
tools_include_edges() {
	local path f h
	for path in "$top_srcdir"/tools/*.[ch] "$top_srcdir"/tools/*/*.[ch]; do
		f=${path##*/}
		grep -o '^#include "[^"]*\.h"' "$path" | sed 's/^#include "//; s/\.h"$//' |
			while read -r h; do
				# a header of tools/, in the includer's folder or the CLI helper's
				[ -e "${path%/*}/$h.h" ] || [ -e "$top_srcdir/tools/cli/$h.h" ] || continue
				[ "$h" != "${f%.*}" ] && echo "${f%.*} $h"
			done
	done
	return 0
}

@test "the tools' files include each other without a cycle" {
	# The check finds a cycle where there is one.
	run tsort <<< $'a b\nb c\nc a'
	assert_failure
	run tools_include_edges
	assert_success
	assert_output --partial 'rmmod-unload unload-words'
	run tsort <<< "$output"
	assert_success
}

# The calls (and data references) between tools/ files, as the linker
# resolves them: "caller callee symbol", one line per symbol. automake names
# a program's objects <program>-<file>.o and libcli.a's libcli_a-<file>.o
# (in the sources' folders);
# a symbol resolves within one program's objects and libcli.a's. Static
# functions and a header's static inline ones stay inside their file.
tools_call_edges() {
	local dir=$top_builddir/tools prog o
	for prog in $(find "$dir" -name '*-*.o' -printf '%f\n' | sed 's/-.*//' |
		LC_ALL=C sort -u | grep -vx libcli_a); do
		for o in $(find "$dir" -name "$prog-*.o" -o -name 'libcli_a-*.o'); do
			echo "$o"
		done | object_call_edges '*-'
	done | LC_ALL=C sort -u
}

@test "the tools' files call each other without a cycle, and libcli.a calls no tool" {
	run tools_call_edges
	assert_success
	# Read from the objects: calls every build has.
	assert_output --partial 'modreap modreap-pass reap_pass'
	assert_output --partial 'modreap-pass modreap-percpu reserve_choose'
	assert_output --partial 'rmmod-unload unload-words'
	assert_output --partial 'modprobe modprobe-run'
	local edges=$output
	[ "$(wc -l <<< "$edges")" -gt 100 ]
	# libcli.a's helpers, which every tool calls, call none of a tool's files.
	local libcli
	libcli=$(find "$top_builddir/tools" -name 'libcli_a-*.o' -printf '%f\n' |
		sed 's/^libcli_a-//; s/\.o$//')
	# libcli.a's objects were there to check
	[ "$(wc -w <<< "$libcli")" -gt 3 ]
	run awk 'NR == FNR { lib[$1] = 1; next } ($1 in lib) && !($2 in lib)' \
		<(echo "$libcli") <(echo "$edges")
	assert_success
	assert_output ''
	# No cycle between two files (tsort fails on one: see the include
	# test); a failure shows the files of the loop.
	run sh -c 'tsort > /dev/null' <<< "$(cut -d' ' -f1,2 <<< "$edges")"
	assert_success
	assert_output ''
}

@test "the unload words depend on no tool: rmmod, modreap and modprobe call them" {
	run grep '#include "' "$top_srcdir/tools/cli/unload-words.c" "$top_srcdir/tools/cli/unload-words.h"
	refute_output --regexp '(rmmod|modreap|modprobe)[-.a-z]*\.h"'
	run grep -l 'unload-words.h' "$top_srcdir"/tools/*.c "$top_srcdir"/tools/*/*.c
	assert_output --partial 'rmmod-cmd/'
	assert_output --partial 'modreap-pass.c'
	assert_output --partial 'modprobe-remove.c'
}

# The calls between lib/ files, as the linker resolves them within
# libmodrot.a: "caller callee", one line per pair.
lib_call_edges() {
	ls "$top_builddir"/lib/libmodrot_a-*.o | object_call_edges 'libmodrot_a-' |
		cut -d' ' -f1,2 | LC_ALL=C sort -u
}

# object_call_edges PREFIX < OBJECTS: "caller callee symbol" for each call
# one object (named by its file less the pattern PREFIX and .o) makes into
# another of the objects listed, one per line, on standard input.
object_call_edges() {
	local o f
	while read -r o; do
		f=${o##*/}
		f=${f#$1}
		f=${f%.o}
		nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print "D", $3, f }'
		nm -u "$o" | awk -v f="$f" '{ print "U", $NF, f }'
	done | awk '$1 == "D" { def[$2] = $3; next }
		{ use[++n] = $2 " " $3 }
		END { for (i = 1; i <= n; i++) { split(use[i], u, " ");
			if ((u[1] in def) && def[u[1]] != u[2]) print u[2], def[u[1]], u[1] } }'
}

@test "lib's files call each other without a cycle" {
	run lib_call_edges
	assert_success
	# Read from the objects: calls every build has.
	assert_line 'inuse mntns'
	assert_line 'mntns procfile'
	[ "$(wc -l <<< "$output")" -gt 20 ]
	run sh -c 'tsort > /dev/null' <<< "$output"
	assert_success
	assert_output ''
}
