#!/bin/sh
# kmod34-loop.sh COMMAND... < CASES: one call of COMMAND per line of CASES
# ("OPTIONS<TAB>ARGUMENT", either may be empty; OPTIONS split at spaces),
# each call's output delimited in both streams by "== #N OPTIONS ARGUMENT"
# and its exit status after it on stdout as "exit N". One process runs
# the lot so that a tree's thousands of calls pay for one simulated
# kernel's start, not one each.
n=0
tab=$(printf '\t')
while IFS=$tab read -r opts arg; do
	n=$((n + 1))
	echo "== #$n $opts $arg"
	echo "== #$n $opts $arg" >&2
	if [ -n "$arg" ]; then
		# shellcheck disable=SC2086
		"$@" $opts "$arg" </dev/null
	else
		# shellcheck disable=SC2086
		"$@" $opts </dev/null
	fi
	echo "exit $?"
done
