# fish completion for modrot's insmod
# SPDX-License-Identifier: GPL-2.0-or-later

# The module file on the line: the first word that is not an option or an
# option's argument; nothing when --batch or --from make every word a file.
function __insmod_module_file
    set -l words (commandline -opc)[2..-1]
    set -l skip
    for w in $words
        if test -n "$skip"
            set skip
            continue
        end
        switch $w
            case --batch --match-devices '--from*'
                return 1
            case --verify -j --jobs
                set skip 1
            case '-*'
            case '*'
                echo $w
                return 0
        end
    end
    return 1
end

function __insmod_wants_file
    not __insmod_module_file >/dev/null
end

# Module files and directories.
function __insmod_files
    set -l token (commandline -ct)
    for f in $token*
        if test -d "$f"
            echo $f/
        else if string match -qr '\.ko(\.xz|\.zst)?$' -- $f
            echo $f
        end
    end
end

# modinfo prints "name:description"; offer name=.
function __insmod_params
    set -l file (__insmod_module_file)
    or return 0
    for line in (modinfo -F parm -- $file 2>/dev/null)
        set -l name (string split -m1 : -- $line)[1]
        test -n "$name"; and printf '%s=\n' $name
    end
end

complete -c insmod -f
complete -c insmod -s f -l force -d 'Both --force-vermagic and --force-modversion'
complete -c insmod -l force-vermagic -d 'Load although built for another release'
complete -c insmod -l force-modversion -d 'Load although symbol versions disagree'
complete -c insmod -l check -d 'Check the modules, load nothing'
complete -c insmod -l verify -r -F -d 'Keyring: PEM or DER file, or directory'
complete -c insmod -l batch -d 'Every argument is a module file'
complete -c insmod -l from -r -F -d 'Read files and parameters from a list'
complete -c insmod -l match-devices -d 'Load only the modules a present device needs'
complete -c insmod -s j -l jobs -x -d 'Load on N threads'
complete -c insmod -s b -l bytes -d 'Sizes in bytes, not as 4.9K, 1.2M'
complete -c insmod -s J -l json -d 'JSON records and a summary'
complete -c insmod -s s -l syslog -d 'Report errors to syslog'
complete -c insmod -s v -l verbose -d 'Report each module loaded'
complete -c insmod -s h -l help -d 'Show help'
complete -c insmod -s V -l version -d 'Show the version'
complete -c insmod -n __insmod_wants_file -a '(__insmod_files)'
complete -c insmod -n 'not __insmod_wants_file' -a '(__insmod_params)'
