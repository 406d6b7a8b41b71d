# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shell completion harness for the bats suites: ask the real bash, zsh and
# fish what they would complete for a command line, using the completion
# files in the source tree and the tools in the build tree.
#
#   load "$top_srcdir/tests/helpers/completion.bash"
#   run complete_bash 'lsmod -o name,s'
#   run complete_zsh 'lsmod --'
#   run complete_fish 'lsmod -o '
#
# Each function takes one command line, completes at its end as a TAB
# would, and prints the candidates one per line, sorted and unique. A
# candidate is the whole word that would replace the word being completed
# (`name,size` for `lsmod -o name,s`), without its description or any
# suffix the shell would add (space, comma, `=`). Words are the shell's own:
# bash splits `--output=na` at the `=` and offers `name`, zsh and fish keep
# one word and offer `--output=name`.
#
# The completion for COMMAND (the first word of the line) is read from
# $top_srcdir/completion/bash/COMMAND, completion/zsh/_COMMAND and
# completion/fish/COMMAND.fish; the function fails if that file is missing.
# COMPLETION_BASH_DIR, COMPLETION_ZSH_DIR and COMPLETION_FISH_DIR name other
# directories (installed completions, tests/install.bats).
# $top_builddir/tools comes first on PATH, so a completion that runs a tool
# (`lsmod --help` for the columns, `lsmod` for the live modules) runs the
# one just built; a caller that needs a simulated kernel exports its
# variables before calling. A shell that fails or hangs (see
# COMPLETION_TIMEOUT) makes the function fail. A call takes a few tens of
# milliseconds; zsh's first call in a bats run takes about half a second.

: "${top_srcdir:?top_srcdir must name the source tree}"
: "${top_builddir:?top_builddir must name the build tree}"

# Every shell gets ten seconds: a completion that hangs fails its test
# instead of the whole run.
COMPLETION_TIMEOUT=${COMPLETION_TIMEOUT:-10}

# bash: a fresh `bash --norc` sources bash-completion and the command's
# file, then calls the function that `complete -p` names with COMP_WORDS,
# COMP_CWORD, COMP_LINE and COMP_POINT set as readline would set them for
# a TAB at the end of the line. Readline splits words at blanks and at the
# COMP_WORDBREAKS characters, a run of which is a word of its own
# (`--output=name` is `--output` `=` `name`); quoting is not interpreted,
# which is enough for option and name completion. compopt only works
# during a real completion, so it is stubbed.
read -r -d '' _completion_bash_driver <<'EOF' || :
source /usr/share/bash-completion/bash_completion || exit 1
line=$1 cmd=${1%% *}
source "$2" || exit 1
spec=$(complete -p "$cmd" 2>/dev/null) || { echo "no bash completion for $cmd" >&2; exit 1; }
[[ $spec =~ -F\ ([^ ]+) ]] || { echo "not a -F completion: $spec" >&2; exit 1; }
func=${BASH_REMATCH[1]}
compopt() { return 0; }

breaks=${COMP_WORDBREAKS//[[:space:]\"\']/}
COMP_WORDS=() word= kind=
for ((i = 0; i < ${#line}; i++)); do
	c=${line:i:1}
	if [[ $c == [[:blank:]] ]]; then
		[[ -n $word ]] && COMP_WORDS+=("$word")
		word= kind=
		continue
	fi
	[[ $breaks == *"$c"* ]] && k=break || k=text
	if [[ -n $word && $k != "$kind" ]]; then
		COMP_WORDS+=("$word")
		word=
	fi
	word+=$c kind=$k
done
COMP_WORDS+=("$word")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$line COMP_POINT=${#line} COMP_TYPE=9 COMP_KEY=9
prev=
((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
COMPREPLY=()
"$func" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "$prev"
((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}"
exit 0
EOF

# Prints the completion file for the command of line $2 in shell $1's
# directory, named as that shell looks for it; fails if there is none.
_completion_file()
{
	local cmd=${2%% *} file
	case $1 in
	bash) file=${COMPLETION_BASH_DIR:-$top_srcdir/completion/bash}/$cmd ;;
	zsh) file=${COMPLETION_ZSH_DIR:-$top_srcdir/completion/zsh}/_$cmd ;;
	fish) file=${COMPLETION_FISH_DIR:-$top_srcdir/completion/fish}/$cmd.fish ;;
	esac
	[[ -f $file ]] || { echo "complete_$1: no completion file $file" >&2; return 1; }
	printf '%s\n' "$file"
}

complete_bash()
{
	local file out
	file=$(_completion_file bash "$1") || return
	out=$(PATH="$top_builddir/tools:$PATH" timeout "$COMPLETION_TIMEOUT" \
		bash --norc --noprofile -c "$_completion_bash_driver" complete_bash "$1" "$file") ||
		return
	[[ -z $out ]] || LC_ALL=C sort -u <<<"$out"
}

# zsh: completion functions only run inside a completion widget, which
# needs the line editor, which needs a terminal. So a driver zsh starts an
# interactive `zsh -f -i` on a pseudo-terminal (the zsh/zpty module),
# makes it evaluate the set-up below, types the line and a TAB, and waits
# for a marker. The set-up loads compinit with our directory first in
# fpath (so our _COMMAND wins over zsh's own), binds TAB to a completion
# widget that runs the normal completer, and wraps compadd: each call also
# asks the real compadd (-O) which of its words match what is typed, and
# records them with the prefixes that call would insert before them
# (IPREFIX, -i, -p, -P). At the end the widget writes the records to a
# file, tells the completion system to neither insert nor list anything,
# and prints the marker. Reading a file rather than the terminal keeps the
# line editor's redrawing out of the result. compinit reads the first line
# of every file in fpath (about 0.4 s); under bats its result is dumped
# once per run in $BATS_RUN_TMPDIR and reread by later calls (20 ms).
read -r -d '' _completion_zsh_setup <<'EOF' || :
PS1= RPS1= PROMPT_EOL_MARK=
unsetopt zle_bracketed_paste 2>/dev/null
fpath=("$COMPLETION_HARNESS_DIR" $fpath)
autoload -Uz compinit
if [[ -n $COMPLETION_HARNESS_DUMP ]]; then
	compinit -u -d "$COMPLETION_HARNESS_DUMP"
else
	compinit -u -D
fi
typeset -ga _harness_found
compadd() {
	local -a words
	local pre= arg opt val
	local -i i=1
	while (( i <= $# )); do
		arg=${@[i]}
		[[ $arg == -- ]] && break
		[[ $arg == -?* ]] || break
		opt=${arg:1}
		while [[ -n $opt ]]; do
			case ${opt[1]} in
			([OAD]) # only collects matches into an array: adds nothing
				builtin compadd "$@"; return ;;
			([PpiSsIWdJXxVrRFEM])
				val=${opt:1}
				if [[ -z $val ]]; then (( i++ )); val=${@[i]}; fi
				case ${opt[1]} in ([Ppi]) pre+=$val ;; esac
				opt= ;;
			(*) opt=${opt:1} ;;
			esac
		done
		(( i++ ))
	done
	builtin compadd -O words "$@"
	_harness_found+=("${^words[@]/#/$IPREFIX$pre}")
	builtin compadd "$@"
}
_harness_complete() {
	_harness_found=()
	_main_complete
	print -rl -- $_harness_found >| $COMPLETION_HARNESS_OUT
	compstate[insert]=
	compstate[list]=
	print -n "HARNESS""-DONE" >/dev/tty
}
zle -C _harness_complete complete-word _harness_complete
bindkey "^I" _harness_complete
print "HARNESS""-READY"
EOF

read -r -d '' _completion_zsh_driver <<'EOF' || :
zmodload zsh/zpty || exit 1
zpty harness zsh -f -i || exit 1
zpty -w harness "eval \"\$COMPLETION_HARNESS_SETUP\""
zpty -r harness junk "*HARNESS-READY*" || exit 1
zpty -w -n harness "$1"$'\t'
zpty -r harness junk "*HARNESS-DONE*" || exit 1
zpty -d harness
EOF

complete_zsh()
{
	local out tmp
	_completion_file zsh "$1" >/dev/null || return
	tmp=$(mktemp) || return
	PATH="$top_builddir/tools:$PATH" TERM=vt100 \
		COMPLETION_HARNESS_DIR="${COMPLETION_ZSH_DIR:-$top_srcdir/completion/zsh}" \
		COMPLETION_HARNESS_OUT="$tmp" \
		COMPLETION_HARNESS_SETUP="$_completion_zsh_setup" \
		COMPLETION_HARNESS_DUMP="${BATS_RUN_TMPDIR:+$BATS_RUN_TMPDIR/completion-harness.zcompdump}" \
		timeout "$COMPLETION_TIMEOUT" zsh -f -c "$_completion_zsh_driver" complete_zsh "$1" ||
		{ rm -f "$tmp"; echo "complete_zsh: zsh did not complete '$1'" >&2; return 1; }
	out=$(<"$tmp")
	rm -f "$tmp"
	[[ -z $out ]] || LC_ALL=C sort -u <<<"$out"
}

# fish: a fish without configuration whose completion path is our directory
# alone, so `complete -C` autoloads COMMAND.fish exactly as an installed
# fish would from vendor_completions.d, and no completion shipped with fish
# for a command of the same name interferes. Descriptions (after a TAB)
# are dropped.
complete_fish()
{
	local out
	_completion_file fish "$1" >/dev/null || return
	# shellcheck disable=SC2016 # fish, not bash, expands $argv
	out=$(PATH="$top_builddir/tools:$PATH" timeout "$COMPLETION_TIMEOUT" \
		fish --no-config -c 'set fish_complete_path $argv[1]; complete -C $argv[2]' \
		"${COMPLETION_FISH_DIR:-$top_srcdir/completion/fish}" "$1") || return
	[[ -z $out ]] || cut -f1 <<<"$out" | LC_ALL=C sort -u
}

# For the module-name completions of rmmod and modreap: one simulated rot
# kernel for a whole test file, in $K, that nothing changes:
#   live:    snd_dummy, delta (again), beta (holds alpha), alpha
#   rotting: delta (twice), gamma, failinit (its init failed)
# Call from setup_file, after loading helpers/simkernel.
completion_kernel_setup()
{
	local m
	K=$BATS_FILE_TMPDIR/kernel
	"$SIMKERNEL" create "$K" --mode rot
	for m in alpha beta gamma delta; do
		"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/$m.ko"
	done
	! "$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/failinit.ko" 2>/dev/null
	"$SIMKERNEL" run "$K" -- /sbin/rmmod delta gamma
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/delta.ko"
	"$SIMKERNEL" run "$K" -- /sbin/rmmod delta
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/delta.ko"
	"$SIMKERNEL" run "$K" -- /sbin/insmod "$FIXTURES/snd-dummy.ko"
	export K
}

# Completes LINE in SHELL with the simulated kernel in place of the real one.
complete_on_kernel()
{
	SIMKERNEL_DIR=$K LD_PRELOAD=$SIMKERNEL_LIB${LD_PRELOAD:+:$LD_PRELOAD} "complete_$1" "$2"
}

# The options TOOL itself lists in --help, so that completion tests fail
# when the tool gains one that a completion does not offer.
completion_help_options()
{
	"$top_builddir/tools/$1" --help |
		sed -n '/^[A-Za-z ]*[Oo]ptions:$/,/^$/p' | grep -oE -- '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' |
		tr -d ' ,' | LC_ALL=C sort -u
}
