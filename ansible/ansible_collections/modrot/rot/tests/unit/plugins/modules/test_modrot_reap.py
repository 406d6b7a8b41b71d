# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""modrot_reap: its arguments, a second run that changes nothing, check
mode and diff mode that tell the truth, and the tools' failures."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.modrot.rot.plugins.modules import modrot_reap
from ansible_collections.modrot.rot.tests.unit.plugins.modrot_fake import host_runner


reap = host_runner(modrot_reap.main)


@pytest.fixture
def rotting(host):
    """Three names rot: big (2 instances, 12K), mid (6K), small (1K)."""
    host.rot('big', 8192, 4096)
    host.rot('mid', 6144)
    host.rot('small', 1024)
    host.load('live1', 4096, used=True)
    return host


# ---- arguments ----

@pytest.mark.parametrize('args, msg', [
    (dict(), 'one of the following is required: ceiling, names, all'),
    (dict(all=False), 'one of the following is required: ceiling, names, all'),
    (dict(ceiling='1M', all=True), 'mutually exclusive'),
    (dict(ceiling='1M', names=['a']), 'mutually exclusive'),
    (dict(names=[]), 'names must list at least one module name'),
    (dict(names=['-f']), "names: '-f' is not a module name: it begins with '-'"),
    (dict(names=['a b']), 'it holds a blank or a control character'),
    (dict(names=['a\nb']), 'it holds a blank or a control character'),
    (dict(names=['../x']), "printable ASCII without '/'"),
    (dict(names=['ok', 'x' * 56]), 'longer than 55 bytes'),
    (dict(ceiling='16Q'), "ceiling: '16Q' is not a size such as 16M"),
    (dict(ceiling='-1'), "ceiling: '-1' is not a size such as 16M"),
    (dict(all='maybe'), 'all'),
])
def test_bad_arguments_fail_before_any_tool_runs(rotting, args, msg):
    result = reap(rotting, **args)
    assert result['failed']
    assert msg in result['msg']
    assert rotting.calls == []


def test_a_missing_tool_fails_naming_it(rotting, tmp_path):
    result = reap(rotting, tools_dir=str(tmp_path / 'nowhere'), all=True)
    assert result['failed']
    assert result['msg'] == '%s is not an executable modrot tool' % (tmp_path / 'nowhere' / 'modreap')
    assert rotting.calls == []


def test_arguments_reach_modreap_as_one_word_each(rotting):
    reap(rotting, ceiling='16K')
    assert rotting.tool_calls('modreap') == [['-J', '--down-to=16K']]
    reap(rotting, all=True)
    assert rotting.tool_calls('modreap')[-1] == ['-J', '--all']


def test_names_follow_double_dash_and_only_rotting_ones_go(rotting):
    reap(rotting, names=['small', 'nosuch'])
    # the report first, then the reclaim of the one name that rots
    assert rotting.tool_calls('modreap') == [['-J'], ['-J', '--', 'small']]


# ---- a ceiling ----

def test_ceiling_reclaims_largest_first_until_under(rotting):
    result = reap(rotting, ceiling='8K')
    assert not result.get('failed')
    assert result['changed'] is True
    assert result['rc'] == 0
    assert result['reclaimed'] == [dict(name='big', instances=2, bytes=12288)]
    assert (result['instances'], result['bytes']) == (2, 12288)
    assert (result['rot_before'], result['rot_left']) == (19456, 7168)
    assert (result['taint_before'], result['taint_after'], result['taint_after_value']) == ('none', 'R', 8)
    assert result['dry_run'] is False
    assert sorted(rotting.rotting) == ['mid', 'small']


def test_ceiling_second_run_changes_nothing(rotting):
    assert reap(rotting, ceiling='8K')['changed'] is True
    state = rotting.snapshot()
    result = reap(rotting, ceiling='8K')
    assert result['changed'] is False
    assert not result.get('failed')
    assert (result['instances'], result['bytes'], result['reclaimed']) == (0, 0, [])
    assert result['rot_left'] == 7168
    assert rotting.snapshot() == state


def test_ceiling_already_met_changes_nothing(rotting):
    state = rotting.snapshot()
    result = reap(rotting, ceiling='1M')
    assert result['changed'] is False
    assert result['rot_left'] == result['rot_before'] == 19456
    assert result['taint_after'] == 'none'
    assert rotting.snapshot() == state


def test_ceiling_zero_reclaims_everything(rotting):
    result = reap(rotting, ceiling='0')
    assert result['changed'] is True
    assert [g['name'] for g in result['reclaimed']] == ['big', 'mid', 'small']
    assert rotting.rotting == {}


# ---- names ----

def test_names_reclaim_every_instance_of_each(rotting):
    result = reap(rotting, names=['big', 'small'])
    assert result['changed'] is True
    assert result['reclaimed'] == [dict(name='big', instances=2, bytes=12288),
                                   dict(name='small', instances=1, bytes=1024)]
    assert result['not_rotting'] == []
    assert sorted(rotting.rotting) == ['mid']


def test_names_second_run_is_ok_and_changes_nothing(rotting):
    assert reap(rotting, names=['big'])['changed'] is True
    state = rotting.snapshot()
    calls = len(rotting.calls)
    result = reap(rotting, names=['big'])
    assert not result.get('failed')
    assert result['changed'] is False
    assert result['not_rotting'] == ['big']
    assert (result['instances'], result['bytes'], result['reclaimed']) == (0, 0, [])
    assert result['taint_after'] == result['taint_before'] == 'R'
    assert result['taint_after_value'] == 8
    # only the report ran: modreap was not asked to reclaim a name with nothing left
    assert rotting.calls[calls:] == [('modreap', ['-J'])]
    assert rotting.snapshot() == state


def test_a_name_with_nothing_rotting_is_ok_not_a_failure(rotting):
    state = rotting.snapshot()
    result = reap(rotting, names=['nosuch', 'live1'])
    assert not result.get('failed')
    assert result['changed'] is False
    assert result['not_rotting'] == ['nosuch', 'live1']
    assert result['rot_before'] == result['rot_left'] == 19456
    assert rotting.changing_calls() == []
    assert rotting.snapshot() == state


def test_names_some_rotting_some_not(rotting):
    result = reap(rotting, names=['nosuch', 'mid'])
    assert not result.get('failed')
    assert result['changed'] is True
    assert result['not_rotting'] == ['nosuch']
    assert result['reclaimed'] == [dict(name='mid', instances=1, bytes=6144)]


# ---- all ----

def test_all_reclaims_everything_then_changes_nothing(rotting):
    result = reap(rotting, all=True)
    assert result['changed'] is True
    assert result['instances'] == 4
    assert rotting.rotting == {}
    state = rotting.snapshot()
    result = reap(rotting, all=True)
    assert result['changed'] is False
    assert not result.get('failed')
    assert rotting.snapshot() == state


def test_all_on_a_host_where_nothing_rots(host):
    result = reap(host, all=True)
    assert result['changed'] is False
    assert not result.get('failed')
    assert result['taint_after'] == 'none'


# ---- check mode ----

@pytest.mark.parametrize('args', [dict(ceiling='8K'), dict(names=['big', 'nosuch']), dict(all=True)])
def test_check_mode_predicts_the_real_run_and_changes_nothing(rotting, args):
    state = rotting.snapshot()
    predicted = reap(rotting, check_mode=True, **args)
    assert predicted['changed'] is True
    assert predicted['dry_run'] is True
    assert rotting.snapshot() == state
    assert rotting.changing_calls() == []
    assert all('--dry-run' in a for a in rotting.tool_calls('modreap') if a != ['-J'])
    real = reap(rotting, **args)
    assert real['dry_run'] is False
    for key in ('changed', 'reclaimed', 'instances', 'bytes', 'rot_before', 'rot_left',
                'taint_before', 'taint_after', 'taint_after_value', 'not_rotting'):
        assert predicted[key] == real[key], key


@pytest.mark.parametrize('args', [dict(ceiling='8K'), dict(names=['big']), dict(all=True)])
def test_check_mode_after_the_change_predicts_none(rotting, args):
    reap(rotting, **args)
    state = rotting.snapshot()
    changing = rotting.changing_calls()
    result = reap(rotting, check_mode=True, **args)
    assert result['changed'] is False
    assert result['instances'] == 0
    assert rotting.snapshot() == state
    assert rotting.changing_calls() == changing


def test_check_mode_on_a_name_with_nothing_rotting(rotting):
    result = reap(rotting, check_mode=True, names=['nosuch'])
    assert result['changed'] is False
    assert result['not_rotting'] == ['nosuch']
    assert result['dry_run'] is True
    assert rotting.tool_calls() == [['-J']]


# ---- diff mode ----

def test_diff_shows_rot_and_taint_before_and_after(rotting):
    result = reap(rotting, diff=True, ceiling='8K')
    assert result['diff']['before'] == dict(rot_bytes=19456, taint='none')
    assert result['diff']['after'] == dict(rot_bytes=7168, taint='R')
    assert result['diff']['before_header'] == 'rot and taint before'


def test_check_and_diff_show_what_the_real_run_does(rotting):
    predicted = reap(rotting, check_mode=True, diff=True, names=['mid'])
    real = reap(rotting, diff=True, names=['mid'])
    assert predicted['diff'] == real['diff']
    assert real['diff']['after'] == dict(rot_bytes=13312, taint='R')


def test_diff_with_nothing_to_do_is_no_difference(rotting):
    reap(rotting, all=True)
    for args in (dict(all=True), dict(ceiling='0'), dict(names=['big'])):
        result = reap(rotting, diff=True, **args)
        assert result['changed'] is False
        assert result['diff']['before'] == result['diff']['after'] == dict(rot_bytes=0, taint='R')


def test_no_diff_without_diff_mode(rotting):
    assert 'diff' not in reap(rotting, ceiling='0')


# ---- failures ----

def test_kernel_without_rot_support_fails_with_exit_3(rotting):
    rotting.rot_supported = False
    for args in (dict(ceiling='0'), dict(names=['big']), dict(all=True)):
        result = reap(rotting, **args)
        assert result['failed']
        assert result['rc'] == 3
        assert result['changed'] is False
        assert result['tool'] == 'modreap'
        assert result['msg'] == ('modreap failed with exit 3 (the kernel lacks what was asked for): '
                                 'this kernel has no module rot support (/proc/rotting_modules is missing)')
        assert result['errors'] == ['this kernel has no module rot support (/proc/rotting_modules is missing)']


def test_no_permission_fails_with_exit_4_and_changes_nothing(rotting):
    rotting.permitted = False
    state = rotting.snapshot()
    result = reap(rotting, ceiling='0')
    assert result['failed']
    assert result['rc'] == 4
    assert result['changed'] is False
    assert 'permission denied (this needs CAP_SYS_MODULE)' in result['msg']
    assert 'could not reclaim module big: Operation not permitted' in result['msg']
    assert rotting.snapshot() == state


def test_no_permission_check_mode_still_predicts(rotting):
    rotting.permitted = False
    result = reap(rotting, check_mode=True, ceiling='0')
    assert not result.get('failed')
    assert result['changed'] is True


def test_instances_kept_in_use_fail_the_task_with_what_was_freed(rotting):
    rotting.kept['big'] = 1
    result = reap(rotting, ceiling='0')
    assert result['failed']
    assert result['rc'] == 1
    assert result['msg'].startswith('modreap failed with exit 1 (some of it failed): '
                                    'could not reclaim big: 1 rotting instances kept')
    # what was freed before the failure was freed: a change
    assert result['changed'] is True
    assert result['instances'] == 3
    assert result['refused'] == 1
    assert result['failures'] == 1
    assert 'dry_run' not in result
    assert rotting.rotting == {'big': [(8192, 0)]}


def test_instances_kept_in_use_in_check_mode_change_nothing(rotting):
    rotting.kept['big'] = 2
    state = rotting.snapshot()
    result = reap(rotting, check_mode=True, names=['big', 'mid'])
    assert result['failed']
    assert result['rc'] == 1
    assert result['changed'] is False
    assert rotting.snapshot() == state


def test_exit_0_without_json_fails(rotting):
    rotting.answers['modreap'] = (0, 'not json\n', '')
    result = reap(rotting, ceiling='0')
    assert result['failed']
    assert result['msg'].startswith('modreap -J exited 0 but printed no JSON object')


def test_unreadable_taint_fails_with_a_message(rotting, monkeypatch):
    from ansible_collections.modrot.rot.plugins.module_utils import modrot_tools
    monkeypatch.setattr(modrot_tools, 'TAINT_FILE', rotting.taint_file + '.missing')
    result = reap(rotting, names=['nosuch'])
    assert result['failed']
    assert result['msg'].startswith('could not read the kernel taint: ')
