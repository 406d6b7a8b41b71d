# fish completion for modrot's modreap
# SPDX-License-Identifier: GPL-2.0-or-later

# The module names typed so far, as the kernel spells them: the words that
# are neither options nor the values of --down-to and --interval.
function __modreap_typed_names
    set -l skip
    for w in (commandline -opc)[2..-1]
        if set -q skip[1]
            set -e skip
            continue
        end
        switch $w
            case --down-to --interval
                set skip 1
            case '-*'
            case '*'
                string replace -a -- - _ $w
        end
    end
end

# Whether --all or --down-to is on the line (in any spelling).
function __modreap_all_or_down_to
    __fish_seen_argument -s a -l all -l down-to
    or string match -q -- '--down-to=*' (commandline -opc)
end

# NAME, --all and --down-to exclude each other.
function __modreap_choice_made
    __modreap_all_or_down_to; and return 0
    set -l typed (__modreap_typed_names)
    set -q typed[1]
end

# The names that rot, each once (a name rots once per unload), without those
# already on the line. The kernel's list, not a table with a header.
function __modreap_rotting_names
    test -r /proc/rotting_modules; or return 0
    set -l typed (__modreap_typed_names)
    set -l seen
    while read -l name rest
        test -n "$name"; or continue
        contains -- $name $typed $seen; and continue
        set -a seen $name
        printf '%s\tRotting module\n' $name
    end </proc/rotting_modules
end

complete -c modreap -f
complete -c modreap -s a -l all -n 'not __modreap_choice_made' -d 'Reclaim everything that rots'
complete -c modreap -l down-to -x -n 'not __modreap_choice_made' -d 'Reclaim until at most SIZE rots (e.g. 16M)'
complete -c modreap -s f -l force -d 'Free even instances still in use (may crash the machine)'
complete -c modreap -s n -l dry-run -n 'not __fish_seen_argument -l watch' -d 'Say what would be freed, free nothing'
complete -c modreap -l watch -n 'not __fish_seen_argument -s n -l dry-run' -d 'Keep reclaiming whenever rot exceeds --down-to'
complete -c modreap -l interval -x -d 'Seconds between --watch passes (default 1)'
complete -c modreap -s J -l json -n 'not __fish_seen_argument -s J -l json -s q -l quiet' -d 'JSON output'
complete -c modreap -s q -l quiet -n 'not __fish_seen_argument -s J -l json -s q -l quiet' -d 'Print nothing but errors'
complete -c modreap -s h -l help -d 'Show help'
complete -c modreap -s V -l version -d 'Show the version'
complete -c modreap -n 'not __modreap_all_or_down_to' -a '(__modreap_rotting_names)'
