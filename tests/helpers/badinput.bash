# shellcheck shell=bash
# tests/helpers/badinput.bash: the bad-input corpora of tests/badinput/
# (one manifest per kernel file), for kernel-badinput.bats and
# percpu-badinput.bats. Load after helpers/tools; a suite sets `before` to
# kernel_state before it plants a file.

# Replaces a served file's content without writing through it (the
# simulator hard-links common values).
plant() { # plant FILE PRINTF-FORMAT
	local f=$K/root$1
	# shellcheck disable=SC2059
	printf -- "$2" > "$f.planted"
	mv "$f.planted" "$f"
}

# Prints the manifest's entries as FILE, CONTENT and REASON lines in turn
# (CONTENT may be empty, which read with IFS=tab would swallow).
entries() {
	awk -F '\t' '!/^#/ && NF >= 3 { print $1; print $2; print $3 }' \
		"$top_srcdir/tests/badinput/$1"
}

# One tool on the planted file: exit 1, nothing on stdout, exactly one line
# on stderr, the state unchanged.
refuses() { # refuses WHAT-FOR-THE-LOG EXPECTED-STDERR CMD...
	local what=$1 want=$2
	shift 2
	run --separate-stderr on_kernel "$@"
	if [ "$status" -ne 1 ] || [ -n "$output" ] || [ "$stderr" != "$want" ] ||
		[ "$(kernel_state)" != "$before" ]; then
		echo "$what: $*"
		echo "  exit $status (want 1)"
		echo "  stdout: $output"
		echo "  stderr: $stderr"
		echo "  want:   $want"
		return 1
	fi
}
