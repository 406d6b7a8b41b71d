# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""Fixtures of the collection's unit tests: a fake host in place of the
tools, and nothing that could run a real program."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import os
import subprocess

import pytest

from ansible.module_utils import basic
from ansible_collections.modrot.rot.plugins.module_utils import modrot_tools
from ansible_collections.modrot.rot.tests.unit.plugins.modrot_fake import FakeHost, exit_json, fail_json


def _refuse(*args, **kwargs):
    raise AssertionError('a unit test tried to run a program: %r' % (args,))


@pytest.fixture(autouse=True)
def no_programs(monkeypatch):
    """No test runs a program: not insmod, not rmmod, not anything. A
    module that called one past run_command fails its test here."""
    monkeypatch.setattr(subprocess, 'Popen', _refuse)
    monkeypatch.setattr(subprocess, 'call', _refuse)
    monkeypatch.setattr(subprocess, 'run', _refuse)
    monkeypatch.setattr(os, 'system', _refuse)
    for name in ('execv', 'execve', 'execvp', 'execvpe', 'posix_spawn', 'posix_spawnp'):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, _refuse)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', _refuse)
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', exit_json)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail_json)


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A fake host answering module.run_command, its taint file read by
    modrot_tools in place of /proc/sys/kernel/tainted."""
    h = FakeHost(tmp_path)
    monkeypatch.setattr(modrot_tools, 'TAINT_FILE', h.taint_file)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', h.run_command)
    return h
