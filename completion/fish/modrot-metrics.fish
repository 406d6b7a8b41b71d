# fish completion for modrot's modrot-metrics
# SPDX-License-Identifier: GPL-2.0-or-later

complete -c modrot-metrics -f
complete -c modrot-metrics -s o -l output -r -F -d 'Write the metrics to a file, atomically'
complete -c modrot-metrics -s c -l ceiling -x -d "Export the host's ceiling as modrot_ceiling_bytes"
complete -c modrot-metrics -s h -l help -d 'Show help'
complete -c modrot-metrics -s V -l version -d 'Show the version'
