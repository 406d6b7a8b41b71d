# fish completion for modrot's modreap
# SPDX-License-Identifier: GPL-2.0-or-later

# The module names typed so far, as the kernel spells them: the words that
# are neither options nor the values of --down-to, --percpu-floor and
# --interval (nor a size after --percpu).
function __modreap_typed_names
    set -l skip
    set -l after_percpu
    for w in (commandline -opc)[2..-1]
        if set -q skip[1]
            set -e skip
            continue
        end
        # --percpu's size is optional: a word after it that reads as one
        if set -q after_percpu[1]
            set -e after_percpu
            string match -qr '^[0-9]' -- $w; and continue
        end
        switch $w
            case --down-to --interval --percpu-floor
                set skip 1
            case --percpu
                set after_percpu 1
            case '-*'
            case '*'
                string replace -a -- - _ $w
        end
    end
end

# Whether --all, --down-to or --percpu is on the line (in any spelling).
function __modreap_all_or_down_to
    __fish_seen_argument -s a -l all -l down-to -l percpu
    or string match -q -- '--down-to=*' (commandline -opc)
    or string match -q -- '--percpu=*' (commandline -opc)
end

# NAME, --all, --down-to and --percpu exclude each other.
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
complete -c modreap -s a -l all -n 'not __modreap_choice_made; and not __fish_seen_argument -l watch' -d 'Reclaim everything that rots'
complete -c modreap -l down-to -x -n 'not __modreap_choice_made' -d 'Reclaim until at most SIZE rots (e.g. 16M)'
complete -c modreap -l percpu -n 'not __modreap_choice_made; and not __fish_seen_argument -l watch' -d 'Reclaim the fewest names that free SIZE of the per-CPU reserve'
complete -c modreap -l percpu-floor -x -d 'With --watch: per-CPU reserve to keep free (e.g. 2K)'
complete -c modreap -s f -l force -d 'Stop the timers and work left in the instances first (pinned ones stay)'
complete -c modreap -s n -l dry-run -n 'not __fish_seen_argument -l watch' -d 'Say what would be freed, free nothing'
complete -c modreap -l watch -n 'not __fish_seen_argument -s n -l dry-run' -d 'Keep reclaiming whenever rot exceeds --down-to'
complete -c modreap -l interval -x -d 'Seconds between --watch passes (default 1)'
complete -c modreap -s b -l bytes -d 'Sizes in bytes, not as 4.9K, 1.2M'
complete -c modreap -s J -l json -n 'not __fish_seen_argument -s J -l json -s q -l quiet' -d 'JSON output'
complete -c modreap -s q -l quiet -n 'not __fish_seen_argument -s J -l json -s q -l quiet' -d 'Print nothing but errors'
complete -c modreap -s h -l help -d 'Show help'
complete -c modreap -s V -l version -d 'Show the version'
complete -c modreap -n 'not __modreap_all_or_down_to; and not __fish_seen_argument -l watch' -a '(__modreap_rotting_names)'
