# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""modrot_facts: the fact from the tools' JSON, never a change, the same
in check mode, and the tools' failures."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import os

import pytest

from ansible.module_utils import basic
from ansible_collections.modrot.rot.plugins.module_utils import modrot_tools
from ansible_collections.modrot.rot.plugins.modules import modrot_facts
from ansible_collections.modrot.rot.tests.unit.plugins.modrot_fake import host_runner, run_module


facts = host_runner(modrot_facts.main)


@pytest.fixture
def busy(host):
    host.load('alpha', 4096)
    host.load('delta', 5056, used=True, holders=[])
    host.load('dep', 1024, holders=['alpha'])
    host.rot('beta', 3072, 3072, percpu=1500)
    host.rot('gamma', 2048)
    host.taint = 8 | 4096  # R and O
    host.percpu_reserve = 8192
    return host


def test_the_fact_holds_live_modules_rot_percpu_and_taint(busy):
    result = facts(busy)
    assert not result.get('failed')
    assert result['changed'] is False
    m = result['ansible_facts']['modrot']
    assert m['rot_supported'] is True
    # newest first, as lsmod lists them; rotting instances are not live
    assert m['live_modules'] == ['dep', 'delta', 'alpha']
    assert (m['live_count'], m['live_bytes']) == (3, 10176)
    assert m['rotting'] == [dict(name='beta', instances=2, bytes=6144),
                            dict(name='gamma', instances=1, bytes=2048)]
    assert (m['rot_bytes'], m['rot_instances'], m['rot_names']) == (8192, 3, 2)
    assert m['percpu'] == dict(reserve=8192, free=5192, largest_free=5192, rot_bytes=3000,
                               rotting=[dict(name='beta', bytes=3000)])
    assert m['taint'] == dict(value=4104, letters='RO', reclaimed=True)


def test_only_reads_and_runs_again_the_same(busy):
    state = busy.snapshot()
    first = facts(busy)
    second = facts(busy)
    assert first == second
    assert busy.snapshot() == state
    assert busy.changing_calls() == []
    assert busy.calls == [('lsmod', ['-J']), ('modreap', ['-J'])] * 2


def test_check_mode_gathers_the_same(busy):
    assert facts(busy, check_mode=True) == facts(busy)
    assert busy.changing_calls() == []


def test_diff_mode_has_no_diff(busy):
    assert 'diff' not in facts(busy, diff=True)


def test_no_percpu_when_the_kernel_does_not_report_it(busy):
    busy.percpu_reserve = None
    assert facts(busy)['ansible_facts']['modrot']['percpu'] is None


def test_a_kernel_without_rot_support_is_no_failure(busy):
    busy.rot_supported = False
    busy.taint = 0
    result = facts(busy)
    assert not result.get('failed')
    m = result['ansible_facts']['modrot']
    assert m['rot_supported'] is False
    assert (m['rotting'], m['rot_bytes'], m['rot_instances'], m['rot_names']) == ([], 0, 0, 0)
    assert m['percpu'] is None
    assert m['live_count'] == 3
    assert m['taint'] == dict(value=0, letters='none', reclaimed=False)


@pytest.mark.parametrize('tool, rc, meaning', [
    ('lsmod', 3, 'the kernel lacks what was asked for'),
    ('lsmod', 1, 'some of it failed'),
    ('modreap', 4, 'permission denied (this needs CAP_SYS_MODULE)'),
    ('modreap', 2, 'usage error'),
    ('modreap', 1, 'some of it failed'),
])
def test_a_failing_tool_fails_the_task_with_its_exit_code(busy, tool, rc, meaning):
    busy.answers[tool] = (rc, '', '%s: ERROR: something went wrong\n' % tool)
    result = facts(busy)
    assert result['failed']
    assert result['rc'] == rc
    assert result['tool'] == tool
    assert result['msg'] == '%s failed with exit %d (%s): something went wrong' % (tool, rc, meaning)
    assert result['errors'] == ['something went wrong']
    assert result['stderr'] == '%s: ERROR: something went wrong\n' % tool


def test_an_unreadable_taint_fails_the_task(busy, monkeypatch):
    monkeypatch.setattr(modrot_tools, 'TAINT_FILE', os.path.join(busy.tools_dir, 'nosuch'))
    result = facts(busy)
    assert result['failed']
    assert result['msg'].startswith('could not read the kernel taint: ')


def test_a_taint_that_is_no_number_fails_the_task(busy):
    with open(busy.taint_file, 'w') as f:
        f.write('tainted\n')
    result = facts(busy)
    assert result['failed']
    assert result['msg'] == 'could not read the kernel taint: %s does not hold a number' % busy.taint_file


def test_tools_are_found_in_path_by_version_kmods_passed_over(busy, tmp_path, monkeypatch):
    kmod, ours = tmp_path / 'kmod-bin', tmp_path / 'modrot-bin'
    for d, prefix in ((kmod, ''), (ours, 'modrot-')):
        d.mkdir()
        for name in ('lsmod', 'modreap'):
            p = d / (prefix + name)
            p.write_text(u'#!/bin/sh\nexit 97\n')
            p.chmod(0o755)
    monkeypatch.setenv('PATH', '%s:%s' % (kmod, ours))
    monkeypatch.setattr(modrot_tools, 'SEARCH_DIRS', ())
    ran = []

    def run_command(self, args, **kwargs):  # pylint: disable=unused-argument
        ran.append(args)
        if args[0].startswith(str(kmod)):
            assert args[1:] == ['--version'], 'kmod\'s %s was run' % args[0]
            return 0, 'kmod version 30\n+ZSTD +XZ\n', ''
        return busy.run_command(args, **kwargs)
    monkeypatch.setattr(basic.AnsibleModule, 'run_command', run_command)
    result = run_module(modrot_facts.main, {})
    assert not result.get('failed')
    assert result['ansible_facts']['modrot']['live_count'] == 3
    assert [a for a in ran if a[1:] == ['-J']] == [[str(ours / 'modrot-lsmod'), '-J'],
                                                   [str(ours / 'modrot-modreap'), '-J']]


def test_only_kmods_tools_in_path_fail_the_task_naming_them(busy, tmp_path, monkeypatch):
    kmod = tmp_path / 'kmod-bin'
    kmod.mkdir()
    (kmod / 'lsmod').write_text(u'#!/bin/sh\nexit 97\n')
    (kmod / 'lsmod').chmod(0o755)
    monkeypatch.setenv('PATH', str(kmod))
    monkeypatch.setattr(modrot_tools, 'SEARCH_DIRS', ())
    monkeypatch.setattr(basic.AnsibleModule, 'run_command',
                        lambda self, args, **kwargs: (0, 'kmod version 30\n', ''))
    result = run_module(modrot_facts.main, {})
    assert result['failed']
    assert result['msg'] == ("found no modrot lsmod, only: %s is kmod's (%s); install modrot, "
                             "or set tools_dir to the directory of its tools" % (kmod / 'lsmod', kmod / 'lsmod'))
