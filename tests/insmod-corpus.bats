#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# insmod against a corpus of bad input (tests/badinput/): every file is
# refused before the kernel is asked, with its exit status and one line
# that says what is wrong; the simulated kernel is left exactly as it was.

bats_require_minimum_version 1.5.0
load helpers/tools

INSMOD=$top_builddir/tools/insmod
MANIFEST=$top_srcdir/tests/badinput/manifest
# A file that makes insmod wait (a fifo) fails its entry instead of the run.
LIMIT=${INSMOD_CORPUS_TIMEOUT:-10}

setup_file() {
	CORPUS=$BATS_FILE_TMPDIR/corpus
	sh "$top_srcdir/tests/badinput/make-corpus.sh" "$FIXTURES" \
		"$top_srcdir/tests/fixtures" "$CORPUS"
	export CORPUS
}

# The manifest's entries, one per line: NAME TAB EXIT TAB REGEX [TAB KERNEL].
entries() { grep -v '^#' "$MANIFEST" | grep -v '^[[:space:]]*$'; }

corpus_path() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$CORPUS/$1" ;;
	esac
}

# The path, quoted for a POSIX extended regular expression.
ere_quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# A fresh kernel for an entry: the KERNEL options of the manifest, or a
# rot kernel with delta loaded (what already-loaded.ko collides with).
kernel_for() {
	rm -rf "$BATS_TEST_TMPDIR/kernel"
	if [ -n "$1" ]; then
		# shellcheck disable=SC2086
		kernel_new rot $1
	else
		kernel_new rot
		kmod_load delta
	fi
}

snapshot() { kernel_state; "$SIM" ledger "$K"; }

# Runs insmod [OPTIONS] on every entry whose name matches one of the globs
# and checks the contract; prints every broken entry, then fails if any.
# Globals: OPTS (extra insmod options), EXPECT_STDOUT (a function that
# prints the expected stdout for a path, default: nothing). Untraced: a
# dozen checks for each of up to a hundred entries.
corpus_refuses() { untraced corpus_refuses_each "$@"; }
corpus_refuses_each() {
	local name exit regex kopts path before after line rest failures=0 seen=0 glob match
	while IFS=$'\t' read -r name exit regex kopts; do
		match=
		for glob in "$@"; do
			# shellcheck disable=SC2053
			[[ $name == $glob ]] && match=1
		done
		[ -n "$match" ] || continue
		seen=$((seen + 1))
		path=$(corpus_path "$name")
		kernel_for "$kopts" >/dev/null
		before=$(snapshot)
		run --separate-stderr timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$INSMOD" ${OPTS:-} "$path"
		after=$(snapshot)
		regex=${regex//@FILE@/$(ere_quote "$path")}
		if [ "$status" -ne "$exit" ]; then
			echo "$name: exit $status, expected $exit; stderr: $stderr"
			failures=$((failures + 1))
			continue
		fi
		if [ "$(printf '%s\n' "$stderr" | wc -l)" -ne 1 ] || [ -z "$stderr" ]; then
			echo "$name: expected one line on stderr, got: $stderr"
			failures=$((failures + 1))
			continue
		fi
		line=$stderr
		rest=${line#"insmod: ERROR: "}
		if [ "$rest" = "$line" ] || ! [[ $rest =~ ^($regex)$ ]]; then
			echo "$name: stderr '$line' does not match 'insmod: ERROR: $regex'"
			failures=$((failures + 1))
		fi
		if [ "$output" != "$(${EXPECT_STDOUT:-true} "$path")" ]; then
			echo "$name: unexpected stdout: $output"
			failures=$((failures + 1))
		fi
		if [ "$before" != "$after" ]; then
			echo "$name: the kernel changed: before: $before after: $after"
			failures=$((failures + 1))
		fi
		if ! "$SIM" ledger "$K" --check >/dev/null; then
			echo "$name: the ledger check fails"
			failures=$((failures + 1))
		fi
	done < <(entries)
	[ "$seen" -gt 0 ] || { echo "no manifest entry matches $*"; return 1; }
	[ "$failures" -eq 0 ]
}

@test "the corpus has at least 30 bad files, each listed in the manifest" {
	run entries
	assert_success
	[ "${#lines[@]}" -ge 30 ]
	for f in "$CORPUS"/*; do
		[ "$(basename "$f")" != good ] || continue
		grep -q "^$(basename "$f")	" "$MANIFEST" || fail "$(basename "$f") is not in the manifest"
	done
	while IFS=$'\t' read -r name _; do
		path=$(corpus_path "$name")
		[ -e "$path" ] || [ -L "$path" ] || fail "$name is in the manifest but was not built"
	done < <(entries)
}

@test "insmod refuses files that are not modules at all, naming what they are" {
	corpus_refuses empty.ko random.ko text.ko picture.ko elf-magic-then-noise.ko \
		directory.ko /dev/null dangling-symlink.ko huge-sparse.ko
}

@test "insmod refuses a fifo without waiting for a writer" {
	corpus_refuses fifo.ko
}

@test "insmod refuses truncated ELF files, saying how many bytes the headers need" {
	corpus_refuses 'truncated-*'
}

@test "insmod refuses ELF files whose headers point past the end of the file" {
	corpus_refuses shoff-past-eof.ko shnum-huge.ko section-past-eof.ko section-too-long.ko
}

@test "insmod refuses ELF files for another class, machine or byte order" {
	corpus_refuses 'elf32-*' 'machine-*' big-endian.ko
}

@test "insmod refuses ELF files that are not relocatable objects" {
	corpus_refuses 'type-*'
}

@test "insmod refuses objects that lack a module's sections" {
	corpus_refuses no-modinfo.ko no-this-module.ko
}

@test "insmod refuses an object without a symbol table before the kernel does" {
	corpus_refuses no-symtab.ko
}

@test "insmod refuses modules with no name or a name longer than 55 bytes" {
	corpus_refuses name-60-bytes.ko no-name.ko
}

@test "insmod refuses modules built for another release, needing unknown symbols, or loaded already" {
	corpus_refuses vermagic-other-release.ko unknown-symbol.ko dependency-missing.ko already-loaded.ko
}

@test "insmod refuses corrupt, truncated and unsupported compressed files" {
	corpus_refuses 'zstd-*' 'xz-*' gzip.ko.gz
}

@test "insmod on a kernel enforcing signatures refuses unsigned and malformed signatures" {
	corpus_refuses 'sig-*'
}

@test "insmod --check gives every corpus file the same verdict, and loads nothing" {
	OPTS=--check corpus_refuses '*'
}

@test "insmod refuses a file it may not read with exit 4 (permission) and the reason" {
	command -v setpriv >/dev/null || skip "no setpriv to drop CAP_DAC_OVERRIDE"
	kernel_new rot
	cp "$FIXTURES/delta.ko" "$BATS_TEST_TMPDIR/unreadable.ko"
	chmod 000 "$BATS_TEST_TMPDIR/unreadable.ko"
	before=$(snapshot)
	# root reads any file; without the two capabilities it cannot.
	run --separate-stderr setpriv --bounding-set=-dac_override,-dac_read_search -- \
		"$SIM" run "$K" -- "$INSMOD" "$BATS_TEST_TMPDIR/unreadable.ko"
	assert_equal "$status" 4
	assert_equal "$output" ""
	assert_equal "$stderr" "insmod: ERROR: could not read $BATS_TEST_TMPDIR/unreadable.ko: Permission denied"
	assert_equal "$(snapshot)" "$before"
}

@test "files whose compression is told by their bytes, not their name, load" {
	local file module
	while IFS=$'\t' read -r file module; do
		kernel_new rot
		run --separate-stderr on_kernel "$INSMOD" "$CORPUS/$file"
		assert_success
		assert_equal "$output" ""
		assert_equal "$stderr" ""
		is_live "$module" || fail "$file: $module is not live"
		"$SIM" ledger "$K" --check
		rm -rf "$K"
	done < <(grep -v '^#' "$top_srcdir/tests/badinput/good.list")
}

# The error lines insmod --batch must print for the entries of one kernel.
expected_batch_lines() {
	local name exit regex kopts
	while IFS=$'\t' read -r name exit regex kopts; do
		[ "$kopts" = "$1" ] || continue
		[ "$name" != fifo.ko ] || continue
		# In a batch, other corpus files are named alpha: this one is then
		# skipped for its refused dependency (insmod-batch.bats covers that).
		[ "$name" != dependency-missing.ko ] || continue
		printf '%s\t%s\n' "$(corpus_path "$name")" "$regex"
	done < <(entries)
}

# Checks a batch's stderr against the entries: one line per file, each
# matching its own entry's regex.
assert_batch_lines() {
	local path regex line n=0 failures=0
	while IFS=$'\t' read -r path regex; do
		n=$((n + 1))
		regex=${regex//@FILE@/$(ere_quote "$path")}
		line=$(printf '%s\n' "$stderr" | grep -F -- " $path: " || :)
		if [ "$(printf '%s\n' "$line" | grep -c .)" -ne 1 ]; then
			echo "$path: expected one line, got: $line"
			failures=$((failures + 1))
		elif ! [[ ${line#"insmod: ERROR: "} =~ ^($regex)$ ]]; then
			echo "$path: '$line' does not match '$regex'"
			failures=$((failures + 1))
		fi
	done
	[ "$failures" -eq 0 ] || return 1
	assert_equal "$(printf '%s\n' "$stderr" | grep -c .)" "$n"
}

@test "insmod --batch over the corpus prints one error line per file and a summary" {
	kernel_for ""
	mapfile -t files < <(expected_batch_lines "" | cut -f1)
	before=$(snapshot)
	run --separate-stderr timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$INSMOD" --batch -j 4 "${files[@]}"
	assert_equal "$status" 1
	expected_batch_lines "" | assert_batch_lines
	n=${#files[@]}
	# already-loaded.ko is there already: present, no refusal
	assert_equal "$output" "0 of $n loaded, 0 failed, $((n - 1)) refused before loading, 0 skipped, 1 loaded already"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod --batch on a kernel enforcing signatures refuses each badly signed file" {
	kernel_for --sig-enforce
	mapfile -t files < <(expected_batch_lines --sig-enforce | cut -f1)
	before=$(snapshot)
	run --separate-stderr timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$INSMOD" --batch "${files[@]}"
	assert_equal "$status" 1
	expected_batch_lines --sig-enforce | assert_batch_lines
	n=${#files[@]}
	assert_equal "$output" "0 of $n loaded, 0 failed, $n refused before loading, 0 skipped"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod --batch -J over the corpus gives one refused record per file, present for the one loaded already" {
	kernel_for ""
	mapfile -t files < <(expected_batch_lines "" | cut -f1)
	before=$(snapshot)
	run --separate-stderr timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$INSMOD" --batch -J "${files[@]}"
	assert_equal "$status" 1
	assert_equal "$stderr" ""
	n=${#files[@]}
	assert_equal "$(jq '.modules | length' <<<"$output")" "$n"
	assert_equal "$(jq '[.modules[] | select(.result == "refused")] | length' <<<"$output")" "$((n - 1))"
	assert_equal "$(jq -c '[.modules[] | select(.result == "present") | .filename | sub(".*/"; "")]' <<<"$output")" '["already-loaded.ko"]'
	assert_equal "$(jq -c '.summary | [.files, .loaded, .present, .refused, .failed, .rotted_bytes]' <<<"$output")" "[$n,0,1,$((n - 1)),0,0]"
	assert_equal "$(snapshot)" "$before"
}

@test "insmod never asks the kernel about a corpus file: loading disabled never shows" {
	# With module loading disabled every module syscall fails with EPERM
	# before anything else: the word would show in any refusal it caused.
	local name leaked=0
	while IFS=$'\t' read -r name _ _ kopts; do
		[ -z "$kopts" ] && [ "$name" != fifo.ko ] || continue
		# On this kernel delta cannot be loaded first: already-loaded.ko
		# is a good module here.
		[ "$name" != already-loaded.ko ] || continue
		rm -rf "$BATS_TEST_TMPDIR/kernel"
		kernel_new rot --modules-disabled
		before=$(snapshot)
		run --separate-stderr timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$INSMOD" "$(corpus_path "$name")"
		if [[ $stderr == *"Operation not permitted"* ]] || [ "$status" -ne 1 ]; then
			echo "$name: insmod asked the kernel (exit $status): $stderr"
			leaked=$((leaked + 1))
		fi
		assert_equal "$(snapshot)" "$before"
	done < <(entries)
	assert_equal "$leaked" 0
}

@test "kmod's insmod, for comparison, sends many corpus files to the kernel (informative)" {
	[ -x "$KMOD_INSMOD" ] || skip "no kmod insmod at $KMOD_INSMOD"
	local name sent=0 total=0
	while IFS=$'\t' read -r name _ _ kopts; do
		[ -z "$kopts" ] && [ "$name" != fifo.ko ] || continue
		rm -rf "$BATS_TEST_TMPDIR/kernel"
		kernel_new rot --modules-disabled
		total=$((total + 1))
		before=$(snapshot)
		run timeout -s KILL "$LIMIT" "$SIM" run "$K" -- "$KMOD_INSMOD" "$(corpus_path "$name")"
		assert_equal "$(snapshot)" "$before"
		if [[ $output == *"Operation not permitted"* ]]; then
			sent=$((sent + 1))
			echo "# kmod's insmod sends $name to the kernel" >&3
		fi
	done < <(entries)
	echo "# kmod's insmod asked the kernel about $sent of $total corpus files" >&3
}
