#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Makes the virtual environments ansible-test sanity runs its tests in,
from the Python packages Debian installed, so that it needs no PyPI.

    sanity-venvs.py TEST...

ansible-test runs validate-modules, pylint, yamllint and the others in a
virtual environment of each test's own, which it makes with pip from
pinned requirements on PyPI. It takes an environment that already exists
at the path it would make (under ~/.ansible/test/venv, named by a hash
of its pip commands) and bears its marker. This script asks ansible-test
for each test's path (its own functions, so the hash is the one it
computes), and makes an environment there with the system's site
packages (python3 -m venv --system-site-packages): the versions of
pylint, voluptuous, yamllint and the rest are Debian's, not the pinned
ones. Prints each path made or found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_test._internal.host_configs import NativePythonConfig
from ansible_test._internal.python_requirements import collect_requirements
from ansible_test._internal.commands.sanity import hash_pip_commands
from ansible_test._internal.util_common import yamlcheck


def venv_for(python, name):
    # The import test's environments are made minimal (its own flag).
    minimize = name.startswith('import.')
    commands = collect_requirements(python=python, controller=True, virtualenv=False,
                                    command=None, ansible=False, cryptography=False,
                                    coverage=False, minimize=minimize, sanity=name)
    label = 'sanity.%s' % name if commands else 'sanity'
    path = os.path.join(os.path.expanduser('~/.ansible/test/venv'), label, python.version,
                        hash_pip_commands(commands))
    marker = os.path.join(path, 'marker.txt')
    if not os.path.exists(marker):
        # The modules' import test, and the tests that need nothing but
        # ansible-test (one shared environment), see what a module may
        # import on a managed host, ansible and the standard library: no
        # site packages.
        system = [] if label == 'sanity' or name == 'import.module' else ['--system-site-packages']
        subprocess.run([python.path, '-m', 'venv'] + system + ['--without-pip', '--clear', path],
                       check=True)
        with open(os.path.join(path, 'meta.install.json'), 'w', encoding='utf-8') as f:
            json.dump([c.serialize() for c in commands], f, indent=4)
        venv_python = NativePythonConfig(version=python.version,
                                         path=os.path.join(path, 'bin', 'python'))
        with open(os.path.join(path, 'meta.yaml.json'), 'w', encoding='utf-8') as f:
            json.dump(yamlcheck(venv_python), f)
        open(marker, 'w', encoding='utf-8').close()
    return path


def main():
    version = '%d.%d' % sys.version_info[:2]
    python = NativePythonConfig(version=version, path='/usr/bin/python%s' % version)
    for name in sys.argv[1:]:
        print(venv_for(python, name))


if __name__ == '__main__':
    main()
