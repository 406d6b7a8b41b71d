# fish completion for modrot's rmmod
# SPDX-License-Identifier: GPL-2.0-or-later

# Prints the first field of each line of a kernel module list. The kernel's
# own files, not lsmod's output: lsmod's header would offer "Module".
function __rmmod_names_in
    test -r $argv[1]; or return 0
    while read -l name rest
        test -n "$name"; and echo $name
    end <$argv[1]
end

# Live modules, and with --reclaim also the names that only rot; each once,
# and none already on the line (as the kernel spells it).
function __rmmod_names
    set -l typed (string replace -a -- - _ (commandline -opc)[2..-1])
    set -l live (__rmmod_names_in /proc/modules)
    set -l seen
    for name in $live
        contains -- $name $typed $seen; and continue
        set -a seen $name
        printf '%s\tLive module\n' $name
    end
    __fish_seen_argument -l reclaim; or return 0
    for name in (__rmmod_names_in /proc/rotting_modules)
        contains -- $name $typed $seen; and continue
        set -a seen $name
        printf '%s\tRotting module\n' $name
    end
end

complete -c rmmod -f
complete -c rmmod -s f -l force -d 'Unload even a permanent module (taints R); with --reclaim, stop timers and work left in its instances'
complete -c rmmod -l remove-holders -n 'not __fish_seen_argument -l unused' -d 'First unload the live modules that depend on it'
# --unused chooses the modules itself: not after a module name
function __rmmod_no_module_yet
    not string match -qv -- '-*' (commandline -opc)[2..-1]
end
complete -c rmmod -l unused -n 'not __fish_seen_argument -l remove-holders; and __rmmod_no_module_yet' -d 'Unload every live module that nothing uses'
complete -c rmmod -s n -l dry-run -n __rmmod_no_module_yet -d 'With --unused: list what would be unloaded, unload nothing'
complete -c rmmod -l reclaim -d 'Unload if live, then free its rotting instances (taints R)'
complete -c rmmod -s b -l bytes -d 'Sizes in bytes, not as 4.9K, 1.2M'
complete -c rmmod -s J -l json -d 'Report what was done as JSON'
complete -c rmmod -s s -l syslog -d 'Report errors to syslog'
complete -c rmmod -s v -l verbose -d 'Say what each unload leaves behind'
complete -c rmmod -s h -l help -d 'Show help'
complete -c rmmod -s V -l version -d 'Show the version'
complete -c rmmod -n 'not __fish_seen_argument -l unused' -a '(__rmmod_names)'
