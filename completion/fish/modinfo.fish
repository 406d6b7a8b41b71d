# fish completion for modrot's modinfo
# SPDX-License-Identifier: GPL-2.0-or-later

# The modules of the release (-k) under the root (-b) the line names:
# modules.dep's files and modules.builtin's, as names, each once.
function __modinfo_names
    set -l release (uname -r)
    set -l root ''
    set -l words (commandline -opc)
    for i in (seq (count $words))
        switch $words[$i]
            case -k --set-version
                set release $words[(math $i + 1)]
            case -b --basedir
                set root $words[(math $i + 1)]
            case '--set-version=*'
                set release (string replace -- --set-version= '' $words[$i])
            case '--basedir=*'
                set root (string replace -- --basedir= '' $words[$i])
        end
    end
    set -l dir $root/lib/modules/$release
    begin
        test -r $dir/modules.dep; and string replace -r ':.*' '' <$dir/modules.dep
        test -r $dir/modules.builtin; and cat $dir/modules.builtin
    end | string replace -r '.*/' '' | string replace -r '\.ko.*$' '' | sort -u
end

set -l fields alias author depends description filename firmware import_ns intree license name parm retpoline sig_hashalgo sig_id sig_key signature signer softdep srcversion vermagic version state rotting rotting_bytes rotting_percpu verified

# Module names, not files; a token with a '/' (or starting with '.' or '~')
# is a module file's path.
complete -c modinfo -f
complete -c modinfo -n 'string match -qr -- "^[.~]|/" (commandline -ct)' -F
complete -c modinfo -s a -l author -d "Print only 'author'"
complete -c modinfo -s d -l description -d "Print only 'description'"
complete -c modinfo -s l -l license -d "Print only 'license'"
complete -c modinfo -s p -l parameters -d "Print only 'parm'"
complete -c modinfo -s n -l filename -d "Print only 'filename'"
complete -c modinfo -s F -l field -x -a "$fields" -d 'Print only this field'
complete -c modinfo -s 0 -l null -d 'End each value with a NUL byte'
complete -c modinfo -s m -l modname -d 'Take each argument as a module name'
complete -c modinfo -s k -l set-version -x -a '(path basename /lib/modules/*)' -d 'Use the modules of this release'
complete -c modinfo -s b -l basedir -x -a '(__fish_complete_directories)' -d 'Root of /lib/modules'
complete -c modinfo -l verify -r -F -d 'Check signatures against this keyring'
complete -c modinfo -s J -l json -d 'Write JSON'
complete -c modinfo -s h -l help -d 'Show help'
complete -c modinfo -s V -l version -d 'Show the version'
complete -c modinfo -a '(__modinfo_names)' -d 'Module'
