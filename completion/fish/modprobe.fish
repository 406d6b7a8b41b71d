# fish completion for modrot's modprobe
# SPDX-License-Identifier: GPL-2.0-or-later

# Module names depmod indexed, and aliases without wildcards from
# modules.alias and the modprobe.d configuration (-C, else the defaults).
function __modprobe_loadable
    set -l tokens (commandline -opc)
    set -l root ''
    set -l release (uname -r)
    set -l configs
    for i in (seq 2 (count $tokens))
        switch $tokens[$i]
            case -d --dirname
                set root $tokens[(math $i + 1)]
            case -S --set-version
                set release $tokens[(math $i + 1)]
            case -C --config
                set -a configs $tokens[(math $i + 1)]
        end
    end
    test (count $configs) -gt 0; or set configs /etc/modprobe.d /run/modprobe.d /usr/local/lib/modprobe.d /lib/modprobe.d
    set -l dir $root/lib/modules/$release
    if test -r $dir/modules.dep
        for l in (string split -f1 : < $dir/modules.dep)
            string replace -r '\.ko.*$' '' (basename $l) | string replace -a -- - _
        end
    end
    set -l files
    test -r $dir/modules.alias; and set -a files $dir/modules.alias
    for c in $configs
        if test -d $c
            set -a files $c/*.conf
        else if test -r $c
            set -a files $c
        end
    end
    for f in $files
        for l in (string match -r '^alias\s+\S+' < $f)
            set -l name (string split -n ' ' -- (string replace -r '\s+' ' ' -- $l))[2]
            string match -q -r '[*?\[]' -- $name; or echo $name
        end
    end
end

function __modprobe_live
    test -r /proc/modules; or return 0
    string split -f1 ' ' < /proc/modules
end

function __modprobe_removing
    __fish_seen_argument -s r -l remove
end

# the module already given (without -a), for its parameters
function __modprobe_module_given
    __fish_seen_argument -s a -l all; and return 1
    __modprobe_removing; and return 1
    set -l tokens (commandline -opc)
    set -l skip 0
    for t in $tokens[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case -C --config -d --dirname -S --set-version -w --wait
                set skip 1
            case '-*'
            case '*'
                echo $t
                return 0
        end
    end
    return 1
end

function __modprobe_params
    set -l m (__modprobe_module_given)
    for p in (modinfo -F parm -- $m 2>/dev/null)
        echo (string split -f1 : -- $p)=
    end
end

complete -c modprobe -f
complete -c modprobe -s a -l all -d 'Every argument is a module'
complete -c modprobe -s r -l remove -d 'Unload instead of load'
complete -c modprobe -l remove-holders -d 'Also unload the modules that depend on it'
complete -c modprobe -l remove-dependencies -d 'Also unload the modules that depend on it (deprecated)'
complete -c modprobe -s w -l wait -x -d 'With -r, wait up to MSEC for the module to be unused'
complete -c modprobe -s R -l resolve-alias -d 'Print the modules a name resolves to'
complete -c modprobe -l first-time -d 'Fail if already loaded (or unloaded)'
complete -c modprobe -s i -l ignore-install -d 'Ignore install commands'
complete -c modprobe -l ignore-remove -d 'Ignore remove commands'
complete -c modprobe -s b -l use-blacklist -d 'Apply the blacklist to the resolved module'
complete -c modprobe -s f -l force -d 'Force version magic and modversions; with -r, force the unload'
complete -c modprobe -l force-modversion -d 'Ignore symbol versions'
complete -c modprobe -l force-vermagic -d 'Ignore the version magic'
complete -c modprobe -s D -l show-depends -d 'Print what loading would do'
complete -c modprobe -s c -l showconfig -d 'Print the configuration and indexes'
complete -c modprobe -l show-config -d 'Print the configuration and indexes'
complete -c modprobe -l show-modversions -r -F -d "Print a module file's symbol versions"
complete -c modprobe -l dump-modversions -r -F -d "Print a module file's symbol versions"
complete -c modprobe -l show-exports -r -F -d "Print a module file's exported symbols"
complete -c modprobe -s n -l dry-run -d 'Do nothing, print what would be done'
complete -c modprobe -l show -d 'Do nothing, print what would be done'
complete -c modprobe -s C -l config -r -F -d 'Read this modprobe.d file or directory'
complete -c modprobe -s d -l dirname -x -a '(__fish_complete_directories)' -d 'Root of /lib/modules'
complete -c modprobe -s S -l set-version -x -a '(path basename /lib/modules/*)' -d 'Kernel release'
complete -c modprobe -s s -l syslog -d 'Report to syslog'
complete -c modprobe -s q -l quiet -d 'Report nothing'
complete -c modprobe -s v -l verbose -d 'Print each action and what rots'
complete -c modprobe -l reclaim -d 'With -r, free what each unload leaves rotting (taints R)'
complete -c modprobe -l bytes -d 'Sizes of what rots in bytes, not as 4.9K, 1.2M'
complete -c modprobe -s h -l help -d 'Show help'
complete -c modprobe -s V -l version -d 'Show the version'
complete -c modprobe -n '__modprobe_removing' -a '(__modprobe_live)' -d 'Live module'
complete -c modprobe -n 'not __modprobe_removing; and not __modprobe_module_given' -a '(__modprobe_loadable)' -d 'Module'
complete -c modprobe -n '__modprobe_module_given' -a '(__modprobe_params)' -d 'Parameter'
