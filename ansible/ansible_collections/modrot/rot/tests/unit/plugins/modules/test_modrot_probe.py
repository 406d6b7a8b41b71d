# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""modrot_probe: its arguments, match_devices run again changing nothing,
probe_all reporting each probe as the change it is, check mode that
predicts the real run, and the tools' failures."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.modrot.rot.plugins.modules import modrot_probe
from ansible_collections.modrot.rot.tests.unit.plugins.modrot_fake import host_runner

KEYS = ('changed', 'loaded', 'present', 'unmatched', 'unloaded')


probe = host_runner(modrot_probe.main)


@pytest.fixture
def drivers(host):
    """Four module files: two whose devices are present (nic, disk), one
    without a device (spare), one whose init fails (broken)."""
    host.files_list = [
        host.module_file('/drv/nic.ko', 'nic', size=4096, device=True),
        host.module_file('/drv/disk.ko.zst', 'disk', size=8192, device=True),
        host.module_file('/drv/spare.ko.xz', 'spare', size=2048),
        host.module_file('/drv/broken.ko', 'broken', size=1024, init_fails=True),
    ]
    return host


def good(host):
    return [p for p in host.files_list if 'broken' not in p]


# ---- arguments ----

@pytest.mark.parametrize('args, msg', [
    (dict(), 'give modules or from_file'),
    (dict(modules=[]), 'give modules or from_file'),
    (dict(modules=['-f']), "modules: '-f' is not a module file"),
    (dict(modules=['--force-vermagic']), 'a module file ends in .ko, .ko.xz or .ko.zst'),
    (dict(modules=['/drv/nic.ko', 'notes.txt']), "modules: 'notes.txt' is not a module file"),
    (dict(modules=['a\nb.ko']), 'it holds a control character'),
    (dict(from_file='-'), "from_file: '-' is not a file path"),
    (dict(modules=['/drv/nic.ko'], mode='everything'), 'value of mode must be one of: match_devices, probe_all'),
    (dict(modules=['/drv/nic.ko'], ceiling='lots'), "ceiling: 'lots' is not a size such as 16M"),
    (dict(modules=['/drv/nic.ko'], jobs='many'), 'jobs'),
])
def test_bad_arguments_fail_before_any_tool_runs(drivers, args, msg):
    result = probe(drivers, **args)
    assert result['failed']
    assert msg in result['msg']
    assert drivers.calls == []


def test_arguments_reach_insmod_one_word_each_files_after_double_dash(drivers):
    drivers.lists['/run/list'] = ['/drv/disk.ko.zst']
    probe(drivers, modules=['/drv/nic.ko'], from_file='/run/list', jobs=3)
    assert drivers.tool_calls('insmod') == [
        ['-J', '--match-devices', '--jobs=3', '--from=/run/list', '--', '/drv/nic.ko']]
    assert sorted(drivers.live) == ['disk', 'nic']


def test_a_file_named_like_an_option_is_a_file(host):
    host.module_file('-x.ko', 'dashed', device=True)
    result = probe(host, modules=['-x.ko'])
    assert result['loaded'] == ['dashed']
    assert host.tool_calls('insmod') == [['-J', '--match-devices', '--', '-x.ko']]


# ---- match_devices ----

def test_match_devices_loads_what_present_devices_need(drivers):
    result = probe(drivers, modules=good(drivers))
    assert not result.get('failed')
    assert result['changed'] is True
    assert result['loaded'] == ['nic', 'disk']
    assert result['unmatched'] == ['spare']
    assert (result['present'], result['unloaded'], result['not_loaded']) == ([], [], [])
    assert result['reclaim'] == {}
    assert sorted(drivers.live) == ['disk', 'nic']
    assert drivers.tool_calls('rmmod') == [] and drivers.tool_calls('modreap') == []


def test_match_devices_second_run_changes_nothing_present_is_no_failure(drivers):
    probe(drivers, modules=good(drivers))
    state = drivers.snapshot()
    result = probe(drivers, modules=good(drivers))
    assert not result.get('failed')
    assert result['changed'] is False
    assert result['loaded'] == []
    assert result['present'] == ['nic', 'disk']
    assert result['unmatched'] == ['spare']
    assert drivers.snapshot() == state


def test_match_devices_a_failed_init_fails_the_task_after_the_rest_loaded(drivers):
    drivers.files['/drv/broken.ko'].device = True
    result = probe(drivers, modules=drivers.files_list)
    assert result['failed']
    assert result['rc'] == 1
    assert result['msg'] == ('insmod could not load 1 module(s): broken: '
                             'could not insert module /drv/broken.ko: No such device')
    # what loaded, loaded: a change
    assert result['changed'] is True
    assert result['loaded'] == ['nic', 'disk']
    assert result['rot_added'] == 1024
    assert [f['name'] for f in result['not_loaded']] == ['broken']
    assert result['not_loaded'][0]['error'] == 'ENODEV'


def test_a_refused_module_fails_the_task_in_either_mode(drivers):
    drivers.module_file('/drv/needsym.ko', 'needsym', device=True,
                        refused='unknown symbol nobody_exports_this')
    for mode in ('match_devices', 'probe_all'):
        result = probe(drivers, modules=['/drv/needsym.ko', '/drv/nic.ko'], mode=mode)
        assert result['failed']
        assert result['rc'] == 1
        assert 'needsym: could not insert module /drv/needsym.ko: unknown symbol' in result['msg']
        assert 'nic' in result['loaded'] + result['present']


def test_a_missing_file_fails_the_task(drivers):
    result = probe(drivers, modules=['/drv/gone.ko'])
    assert result['failed']
    assert 'gone: could not read /drv/gone.ko: No such file or directory' in result['msg']
    assert result['changed'] is False


# ---- probe_all ----

def test_probe_all_loads_everything_then_unloads_what_found_nothing(drivers):
    result = probe(drivers, modules=drivers.files_list, mode='probe_all')
    assert not result.get('failed')
    assert result['changed'] is True
    assert result['loaded'] == ['nic', 'disk', 'spare']
    assert result['unloaded'] == ['spare']
    # a failed init is a module that found no device: reported, no failure
    assert [f['name'] for f in result['not_loaded']] == ['broken']
    assert result['rot_added'] == 1024
    assert sorted(drivers.live) == ['disk', 'nic']
    assert sorted(drivers.rotting) == ['broken', 'spare']
    assert drivers.tool_calls('insmod')[0][:2] == ['-J', '--batch']
    assert drivers.tool_calls('rmmod') == [['-J', '--unused']]


def test_probe_all_run_again_reports_the_probe_it_repeats(drivers):
    """probe_all is a probe: a second run loads spare again and unloads
    it again, which leaves more rot. changed says so; it does not claim
    an idempotence the kernel does not have."""
    probe(drivers, modules=good(drivers), mode='probe_all')
    before = drivers.rot_bytes()
    result = probe(drivers, modules=good(drivers), mode='probe_all')
    assert not result.get('failed')
    assert result['changed'] is True
    assert result['present'] == ['nic', 'disk']
    assert result['loaded'] == ['spare'] and result['unloaded'] == ['spare']
    assert drivers.rot_bytes() == before + 2048


def test_probe_all_with_every_module_in_use_run_again_changes_nothing(drivers):
    mods = ['/drv/nic.ko', '/drv/disk.ko.zst']
    assert probe(drivers, modules=mods, mode='probe_all')['changed'] is True
    state = drivers.snapshot()
    result = probe(drivers, modules=mods, mode='probe_all')
    assert result['changed'] is False
    assert result['unloaded'] == []
    assert drivers.snapshot() == state


# ---- a ceiling ----

def test_ceiling_reclaims_after_loading_then_nothing_changes(drivers):
    drivers.rot('old', 16384)
    mods = drivers.files_list
    drivers.files['/drv/broken.ko'].init_fails = False
    result = probe(drivers, modules=mods, mode='probe_all', ceiling='0')
    assert result['changed'] is True
    assert result['reclaim']['instances'] == 3
    assert result['reclaim']['rot_left'] == 0
    assert result['reclaim']['taint_after'] == 'R'
    assert drivers.tool_calls('modreap') == [['-J', '--down-to=0']]
    # match_devices over what is loaded now: nothing to load or reclaim
    state = drivers.snapshot()
    result = probe(drivers, modules=mods, ceiling='0')
    assert result['changed'] is False
    assert result['reclaim']['instances'] == 0
    assert drivers.snapshot() == state


def test_ceiling_already_met_is_no_change(drivers):
    drivers.load('nic', used=True)
    drivers.rot('old', 1024)
    result = probe(drivers, modules=['/drv/nic.ko'], ceiling='4K')
    assert result['changed'] is False
    assert result['present'] == ['nic']
    assert result['reclaim']['instances'] == 0


# ---- check mode ----

def test_check_mode_match_devices_predicts_and_changes_nothing(drivers):
    drivers.rot('old', 16384)
    state = drivers.snapshot()
    predicted = probe(drivers, check_mode=True, modules=good(drivers), ceiling='8K')
    assert not predicted.get('failed')
    assert predicted['changed'] is True
    assert predicted['loaded'] == ['nic', 'disk']
    assert predicted['reclaim']['dry_run'] is True
    assert drivers.snapshot() == state
    assert drivers.changing_calls() == []
    assert drivers.tool_calls('insmod') == [['-J', '--match-devices', '--check', '--'] + good(drivers)]
    assert drivers.tool_calls('modreap') == [['-J', '--dry-run', '--down-to=8K']]
    real = probe(drivers, modules=good(drivers), ceiling='8K')
    for key in KEYS:
        assert predicted[key] == real[key], key
    assert predicted['reclaim']['instances'] == real['reclaim']['instances'] == 1


def test_check_mode_with_nothing_to_do_predicts_no_change(drivers):
    probe(drivers, modules=good(drivers), ceiling='0')
    state = drivers.snapshot()
    changing = drivers.changing_calls()
    result = probe(drivers, check_mode=True, modules=good(drivers), ceiling='0')
    assert result['changed'] is False
    assert drivers.snapshot() == state
    assert drivers.changing_calls() == changing


def test_check_mode_probe_all_predicts_the_unloads_of_what_is_loaded(drivers):
    """Everything is loaded already, and spare is unused: a real run
    would unload it, so check mode must say changed, and name it."""
    drivers.load('spare', 2048)
    drivers.load('nic', 4096, used=True)
    drivers.load('disk', 8192, used=True)
    mods = good(drivers)
    state = drivers.snapshot()
    predicted = probe(drivers, check_mode=True, modules=mods, mode='probe_all')
    assert predicted['changed'] is True
    assert predicted['loaded'] == []
    assert predicted['unloaded'] == ['spare']
    assert drivers.tool_calls('rmmod') == [['-J', '--unused', '--dry-run']]
    assert drivers.changing_calls() == []
    assert drivers.snapshot() == state
    real = probe(drivers, modules=mods, mode='probe_all')
    for key in KEYS:
        assert predicted[key] == real[key], key


def test_check_mode_failure_reports_no_change(drivers):
    drivers.rot_supported = False
    state = drivers.snapshot()
    result = probe(drivers, check_mode=True, modules=good(drivers), ceiling='0')
    assert result['failed']
    assert result['rc'] == 3
    assert result['changed'] is False
    assert drivers.snapshot() == state


def test_diff_mode_adds_no_diff(drivers):
    assert 'diff' not in probe(drivers, diff=True, modules=good(drivers))


# ---- failures ----

def test_no_permission_fails_with_exit_4(drivers):
    drivers.permitted = False
    result = probe(drivers, modules=good(drivers))
    assert result['failed']
    assert result['rc'] == 4
    assert result['tool'] == 'insmod'
    assert result['msg'].startswith('insmod failed with exit 4 (permission denied (this needs CAP_SYS_MODULE)): '
                                    'could not insert module /drv/nic.ko: Operation not permitted')
    assert result['changed'] is False
    assert result['loaded'] == []
    assert drivers.live == {}


def test_modreap_failing_after_loads_keeps_the_loads_as_a_change(drivers):
    drivers.rot_supported = False
    result = probe(drivers, modules=good(drivers), ceiling='0')
    assert result['failed']
    assert result['rc'] == 3
    assert result['tool'] == 'modreap'
    assert 'the kernel lacks what was asked for' in result['msg']
    assert result['changed'] is True
    assert result['loaded'] == ['nic', 'disk']
    assert result['reclaim'] == {}


def test_modreap_keeping_instances_reports_what_it_reclaimed(drivers):
    drivers.rot('old', 4096)
    drivers.rot('pinned', 4096)
    drivers.kept['pinned'] = 1
    drivers.load('nic', used=True)
    result = probe(drivers, modules=['/drv/nic.ko'], ceiling='0')
    assert result['failed']
    assert result['rc'] == 1
    assert result['changed'] is True
    assert result['reclaim']['instances'] == 1
    assert result['reclaim']['refused'] == 1


def test_rmmod_failing_part_way_reports_what_it_unloaded(drivers):
    drivers.module_file('/drv/stuck.ko', 'stuck', size=512)
    drivers.unload_fails['stuck'] = 'could not remove module stuck: Device or resource busy'
    result = probe(drivers, modules=good(drivers) + ['/drv/stuck.ko'], mode='probe_all')
    assert result['failed']
    assert result['rc'] == 1
    assert result['tool'] == 'rmmod'
    assert result['msg'] == ('rmmod failed with exit 1 (some of it failed): '
                             'could not remove module stuck: Device or resource busy')
    assert result['unloaded'] == ['spare']
    assert result['changed'] is True
    assert sorted(drivers.live) == ['disk', 'nic', 'stuck']


def test_insmod_exit_0_without_json_fails(drivers):
    drivers.answers['insmod'] = (0, '', '')
    result = probe(drivers, modules=good(drivers))
    assert result['failed']
    assert result['msg'].startswith('insmod -J exited 0 but printed no JSON object')
