#!/bin/sh
# Checks that lib/ and tools/ are formatted as .clang-format says, with
# Debian 12's clang-format 14 (installed when missing).
#
#   scripts/check-format.sh           # prints each difference; exit 1 if any
#   scripts/check-format.sh --fix     # rewrites the files in place
#   scripts/check-format.sh [--fix] FILE...   # only these files
#
# Prints how many lines differ, in how many files.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

fix=
if [ "${1:-}" = "--fix" ]; then
	fix=1
	shift
fi
"$top/scripts/need-packages.sh" clang-format-14
cf=clang-format-14

cd "$top"
[ $# -gt 0 ] || set -- lib/*.c lib/*.h tools/*.c tools/*/*.c tools/*/*.h

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
files=0 lines=0
for f in "$@"; do
	# --style=file finds .clang-format above the file
	$cf --style=file "$f" >"$tmp"
	if ! cmp -s "$f" "$tmp"; then
		n=$(diff "$f" "$tmp" | grep -c '^[<>]' || true)
		files=$((files + 1))
		lines=$((lines + n))
		if [ -n "$fix" ]; then
			cat "$tmp" >"$f"
		else
			diff -u --label "$f" --label "$f (clang-format)" "$f" "$tmp" || true
		fi
	fi
done
if [ "$files" -eq 0 ]; then
	echo "check-format: $# files formatted as .clang-format says"
	exit 0
fi
if [ -n "$fix" ]; then
	echo "check-format: reformatted $files of $# files ($lines lines changed)"
	exit 0
fi
echo "check-format: $files of $# files differ from .clang-format ($lines lines); scripts/check-format.sh --fix rewrites them" >&2
exit 1
