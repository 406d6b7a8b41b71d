# fish completion for modrot's lsmod
# SPDX-License-Identifier: GPL-2.0-or-later

# Column names and descriptions from the lsmod on PATH, so a new column is
# completed as soon as the tool knows it; the fixed list is for an lsmod
# whose help has no column section.
function __lsmod_columns
    set -l cols (command lsmod --help 2>/dev/null | awk '
        /^Available output columns:/ { on = 1; next }
        on && NF { name = tolower($1); sub(/^ *[^ ]+ +/, ""); print name "\t" $0 }')
    set -q cols[1]
    or set cols name size refcnt holders state address taints permanent devices percpu
    printf '%s\n' $cols
end

# The token is a comma-separated list: keep what precedes the last comma and
# offer the columns not yet in it.
function __lsmod_column_list
    set -l token (commandline -ct)
    set -l token (string replace -r '^--output=' '' -- $token)
    set -l done (string match -r '^.*,' -- $token)
    set -l chosen (string split , -- $done)
    for c in (__lsmod_columns)
        contains -- (string split -m1 \t -- $c)[1] $chosen
        or printf '%s%s\n' "$done" $c
    end
end

complete -c lsmod -f
complete -c lsmod -s o -l output -x -a '(__lsmod_column_list)' -d 'Columns to show'
complete -c lsmod -s J -l json -n 'not __fish_seen_argument -s J -l json -s r -l raw' -d 'JSON output'
complete -c lsmod -s r -l raw -n 'not __fish_seen_argument -s J -l json -s r -l raw' -d 'Raw table output'
complete -c lsmod -s n -l noheadings -d 'No header line'
complete -c lsmod -l live -n 'not __fish_seen_argument -l live -l rotting' -d 'Only live modules'
complete -c lsmod -l rotting -n 'not __fish_seen_argument -l live -l rotting' -d 'Only rotting instances, then their total'
complete -c lsmod -s s -l syslog -d 'Report errors to syslog'
complete -c lsmod -s v -l verbose -d 'Also say on stderr what was read'
complete -c lsmod -s h -l help -d 'Show help'
complete -c lsmod -s V -l version -d 'Show the version'
