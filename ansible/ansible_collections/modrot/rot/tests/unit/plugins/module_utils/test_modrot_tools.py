# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""modrot_tools: the readers of the tools' JSON, the checks of what a task
hands the tools, finding and running a tool, and the failure message."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.modrot.rot.plugins.module_utils import modrot_tools as mt
from ansible_collections.modrot.rot.tests.unit.plugins.modrot_fake import AnsibleFailJson


class Module:
    """What modrot_tools asks of an AnsibleModule."""

    def __init__(self, host=None, **params):
        self.params = params
        self.host = host

    def fail_json(self, **kwargs):
        kwargs['failed'] = True
        raise AnsibleFailJson(kwargs)

    def run_command(self, args, **kwargs):
        return self.host.run_command(args, **kwargs)


def failure(fn, *args):
    with pytest.raises(AnsibleFailJson) as e:
        fn(*args)
    return e.value.result


# ---- the readers' defences ----

@pytest.mark.parametrize('value, expected', [
    (3, 3), ('12', 12), (' 7\n', 7), (True, 1), (None, 0), ('x', 0), ([1], 0)])
def test_as_int(value, expected):
    assert mt.as_int(value) == expected


@pytest.mark.parametrize('value, expected', [
    (True, True), (False, False), (1, True), (0, False), ('true', True), ('False', False),
    ('yes', True), ('', False), (None, False), ('maybe', False)])
def test_as_bool(value, expected):
    assert mt.as_bool(value) is expected


def test_as_list_drops_nulls_and_non_lists():
    assert mt.as_list([None]) == []
    assert mt.as_list(['a', None, 'b']) == ['a', 'b']
    assert mt.as_list(None) == [] and mt.as_list('ab') == [] and mt.as_list({'a': 1}) == []


def test_as_count_and_as_str():
    assert mt.as_count([1, None, 2]) == 2 and mt.as_count('4') == 4 and mt.as_count(None) == 0
    assert mt.as_str(None) == '' and mt.as_str(None, 'x') == 'x' and mt.as_str(5) == '5'


@pytest.mark.parametrize('text, expected', [
    ('', None), ('  \n', None), (None, None), ('not json', None), ('[1, 2]', None), ('"s"', None),
    ('{"a": 1}', {'a': 1})])
def test_parse_json_takes_an_object_only(text, expected):
    assert mt.parse_json(text) == expected


# ---- messages ----

def test_error_lines_strip_the_tool_and_level():
    err = ('modreap: ERROR: one\nmodreap: WARNING: two\n\n  modreap: FATAL: three  \n'
           'insmod: ERROR: another tool\nplain\n')
    assert mt.error_lines('modreap', err) == ['one', 'two', 'three', 'insmod: ERROR: another tool', 'plain']
    assert mt.error_lines('modreap', None) == []


@pytest.mark.parametrize('rc, meaning', [
    (1, 'some of it failed'), (2, 'usage error'), (3, 'the kernel lacks what was asked for'),
    (4, 'permission denied (this needs CAP_SYS_MODULE)'), (5, 'some modules were loaded already'),
    (139, 'exit status 139')])
def test_failure_message_names_the_exit_code(rc, meaning):
    assert mt.failure_message('rmmod', rc, 'rmmod: ERROR: a\nrmmod: ERROR: b\n') == \
        'rmmod failed with exit %d (%s): a; b' % (rc, meaning)
    assert mt.failure_message('rmmod', rc, '').endswith(': no message')


def test_tool_error_carries_rc_stderr_and_doc():
    e = mt.ToolError('modreap', 4, 'modreap: ERROR: nope\n', {'summary': {}})
    assert (e.tool, e.rc, e.doc) == ('modreap', 4, {'summary': {}})
    assert str(e) == 'modreap failed with exit 4 (permission denied (this needs CAP_SYS_MODULE)): nope'
    assert mt.ToolError('lsmod', 1, None).stderr == ''


def test_fail_with_reports_rc_tool_errors_and_extra():
    e = mt.ToolError('insmod', 1, 'insmod: ERROR: x\n')
    result = failure(mt.fail_with, Module(), e)
    assert result == dict(failed=True, msg='insmod failed with exit 1 (some of it failed): x', rc=1,
                          tool='insmod', stderr='insmod: ERROR: x\n', errors=['x'])
    result = failure(lambda: mt.fail_with(Module(), e, changed=True, loaded=['a']))
    assert result['changed'] is True and result['loaded'] == ['a']


# ---- what a task may hand the tools ----

@pytest.mark.parametrize('name', ['alpha', 'snd_hda_intel', 'a-b', 'x' * 55, 'a.b'])
def test_check_module_name_takes_names(name):
    assert mt.check_module_name(Module(), 'names', name) == name


@pytest.mark.parametrize('name, why', [
    ('', 'an empty name'), (None, 'an empty name'), ('-r', "it begins with '-'"),
    ('a b', 'a blank or a control character'), ('a\tb', 'a blank or a control character'),
    ('a\x7f', 'a blank or a control character'), ('caf\xe9', 'printable ASCII'),
    ('a/b', 'printable ASCII'), ('.', 'printable ASCII'), ('..', 'printable ASCII'),
    ('x' * 56, 'longer than 55 bytes')])
def test_check_module_name_refuses(name, why):
    result = failure(mt.check_module_name, Module(), 'names', name)
    assert result['msg'].startswith('names: %r is not a module name: ' % (name,))
    assert why in result['msg']


@pytest.mark.parametrize('path', ['a.ko', '/lib/modules/x y/b.ko.xz', 'c.ko.zst', '-f.ko'])
def test_check_module_file_takes_module_files(path):
    assert mt.check_module_file(Module(), 'modules', path) == path


@pytest.mark.parametrize('path, why', [
    ('', 'an empty path'), ('a.ko\n', 'a control character'), ('x.ko\x1b[2J', 'a control character'),
    ('a.txt', 'ends in .ko, .ko.xz or .ko.zst'), ('--force', 'ends in .ko'), ('a.ko.gz', 'ends in .ko')])
def test_check_module_file_refuses(path, why):
    result = failure(mt.check_module_file, Module(), 'modules', path)
    assert result['msg'].startswith('modules: %r is not a module file: ' % (path,))
    assert why in result['msg']


@pytest.mark.parametrize('size, ok', [
    ('16M', True), ('512K', True), ('4096', True), ('1GiB', True), ('2kb', True), ('7B', True), ('0', True),
    ('', False), ('-1', False), ('16Q', False), ('1.5M', False), ('M', False), ('16 M', False), (None, False)])
def test_check_size(size, ok):
    if ok:
        assert mt.check_size(Module(), 'ceiling', size) == size
    else:
        assert 'is not a size such as 16M' in failure(mt.check_size, Module(), 'ceiling', size)['msg']


@pytest.mark.parametrize('path, ok', [
    ('/run/list', True), ('list with blanks', True), ('-', False), ('', False), ('a\nb', False)])
def test_check_plain_path(path, ok):
    if ok:
        assert mt.check_plain_path(Module(), 'from_file', path) == path
    else:
        assert 'is not a file path' in failure(mt.check_plain_path, Module(), 'from_file', path)['msg']


# ---- finding and running a tool ----

def test_find_tool_with_tools_dir(host):
    m = Module(host, tools_dir=host.tools_dir)
    assert mt.find_tool(m, 'lsmod') == host.tools_dir + '/lsmod'
    assert host.calls == []
    result = failure(mt.find_tool, m, 'modinfo')
    assert result['msg'] == '%s/modinfo is not an executable modrot tool' % host.tools_dir


def test_find_tool_searches_path_and_caches(host, tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', '%s:%s' % (tmp_path / 'empty', host.tools_dir))
    monkeypatch.setattr(mt, 'SEARCH_DIRS', ())
    m = Module(host, tools_dir=None)
    assert mt.find_tool(m, 'rmmod') == host.tools_dir + '/rmmod'
    assert mt.find_tool(m, 'rmmod') == host.tools_dir + '/rmmod'
    assert host.calls == [('rmmod', ['--version'])]


def test_find_tool_names_what_it_found_that_is_not_modrot(host, tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', host.tools_dir)
    monkeypatch.setattr(mt, 'SEARCH_DIRS', ())
    m = Module(host, tools_dir=None)
    m.run_command = lambda args, **kw: (0, 'insmod from elsewhere 1.0\n', '')
    result = failure(mt.find_tool, m, 'insmod')
    assert result['msg'].startswith("found no modrot insmod, only: %s/insmod is not modrot's" % host.tools_dir)
    assert '--version: insmod from elsewhere 1.0' in result['msg']
    monkeypatch.setenv('PATH', str(tmp_path / 'nothing'))
    result = failure(mt.find_tool, Module(host, tools_dir=None), 'insmod')
    assert result['msg'].startswith('found no modrot insmod in PATH or ')


def test_run_tool_returns_rc_and_json_and_raises_on_other_codes(host):
    host.rot('a', 100)
    m = Module(host, tools_dir=host.tools_dir)
    rc, doc, out, err = mt.run_tool(m, 'modreap', ['-J'])
    assert rc == 0 and doc['summary']['rotting_bytes'] == 100 and out.startswith('{') and err == ''
    host.rot_supported = False
    with pytest.raises(mt.ToolError) as e:
        mt.run_tool(m, 'modreap', ['-J'])
    assert e.value.rc == 3 and e.value.doc is None
    rc, doc, out, err = mt.run_tool(m, 'modreap', ['-J'], ok_codes=(0, 3))
    assert rc == 3 and doc is None and 'no module rot support' in err


def test_run_tool_fails_a_run_that_exits_0_without_json(host):
    m = Module(host, tools_dir=host.tools_dir)
    host.answers['lsmod'] = (0, 'Module Size Used by\n', '')
    result = failure(mt.run_tool, m, 'lsmod', ['-J'])
    assert result['msg'] == 'lsmod -J exited 0 but printed no JSON object (%s/lsmod)' % host.tools_dir
    # without -J, no JSON is asked for
    assert mt.run_tool(m, 'lsmod', [])[1] is None


# ---- lsmod -J ----

def test_live_modules_skip_rotting_and_read_null_holders():
    doc = {'modules': [
        {'name': 'a', 'bytes': 10, 'state': 'live', 'holders': [None], 'refcnt': 0},
        {'name': 'b', 'bytes': '20', 'state': 'unloading', 'holders': ['a', None], 'refcnt': '1'},
        {'name': 'c', 'bytes': 30, 'state': 'rotting'},
        {'name': 'd'}, 'junk', None]}
    mods = mt.live_modules(doc)
    assert mods == [dict(name='a', size=10, state='live', refcnt=0, holders=[]),
                    dict(name='b', size=20, state='unloading', refcnt=1, holders=['a']),
                    dict(name='d', size=0, state='live', refcnt=0, holders=[])]
    assert mt.live_names(doc) == ['a', 'b', 'd']
    assert mt.live_modules(None) == [] and mt.live_modules({'modules': [None]}) == []


# ---- modreap -J ----

def test_rot_report_with_and_without_summary():
    doc = {'rotting': [{'name': 'a', 'rotting_instances': 2, 'rotting_bytes': 300},
                       {'name': 'b', 'rotting_instances': 1, 'rotting_bytes': 100}]}
    assert mt.rot_report(doc) == dict(rotting=[dict(name='a', instances=2, bytes=300),
                                               dict(name='b', instances=1, bytes=100)],
                                      rot_names=2, rot_instances=3, rot_bytes=400)
    doc['summary'] = {'rotting_names': 5, 'rotting_instances': 9, 'rotting_bytes': 999}
    assert mt.rot_report(doc)['rot_bytes'] == 999
    assert mt.rot_report(None) == dict(rotting=[], rot_names=0, rot_instances=0, rot_bytes=0)


def test_percpu_report():
    assert mt.percpu_report({'summary': {'percpu_reserve_bytes': None}}) is None
    assert mt.percpu_report(None) is None
    doc = {'rotting': [{'name': 'p', 'rotting_percpu_bytes': 1500}, {'name': 'q', 'rotting_percpu_bytes': 0}],
           'summary': {'percpu_reserve_bytes': 8192, 'percpu_free_bytes': 6692, 'percpu_largest_bytes': 6000}}
    assert mt.percpu_report(doc) == dict(reserve=8192, free=6692, largest_free=6000, rot_bytes=1500,
                                         rotting=[dict(name='p', bytes=1500)])


def test_reclaim_result():
    doc = {'reclaimed': [{'name': 'a', 'reclaimed_instances': 2, 'reclaimed_bytes': 300}],
           'summary': {'dry_run': 'true', 'reclaimed_instances': 2, 'reclaimed_bytes': 300,
                       'rotting_bytes': 100, 'taint_before': '', 'taint_after': 'R',
                       'taint_after_value': 8, 'failures': [{'name': 'x'}], 'kept_instances': 1}}
    r = mt.reclaim_result(doc)
    assert r == dict(dry_run=True, reclaimed=[dict(name='a', instances=2, bytes=300)], instances=2,
                     bytes=300, rot_left=100, rot_before=400, taint_before='none', taint_after='R',
                     taint_before_value=0, taint_after_value=8, failures=1, refused=1)
    # no summary: the totals from the groups, the taint unchanged
    r = mt.reclaim_result({'reclaimed': doc['reclaimed']})
    assert (r['instances'], r['bytes'], r['taint_after'], r['dry_run']) == (2, 300, 'none', False)
    # taint letters without the mask
    r = mt.reclaim_result({'summary': {'taint_before': 'PO', 'taint_after': 'POR'}})
    assert (r['taint_before_value'], r['taint_after_value']) == (4097, 4105)


# ---- insmod -J and rmmod -J ----

def test_insmod_result():
    doc = {'modules': [
        {'name': 'a', 'filename': '/a.ko', 'result': 'loaded'},
        {'name': 'b', 'filename': '/b.ko', 'result': 'present', 'reason': 'already_loaded'},
        {'name': 'c', 'filename': '/c.ko', 'result': 'failed', 'errno': 19, 'error': 'ENODEV',
         'message': 'no device', 'rotted_bytes': 2251},
        {'name': 'd', 'filename': '/d.ko', 'result': 'refused'},
        {'name': 'e', 'filename': '/e.ko', 'result': 'unmatched'},
        {'name': 'f', 'filename': '/f.ko', 'result': 'ok'}, None]}
    r = mt.insmod_result(doc)
    assert r['loaded'] == ['a'] and r['present'] == ['b'] and r['unmatched'] == ['e']
    assert [f['name'] for f in r['failed']] == ['c', 'd']
    assert r['failed'][0]['rot_bytes'] == 2251 and r['failed'][0]['error'] == 'ENODEV'
    assert r['counts'] == dict(loaded=1, ok=1, refused=1, failed=1, skipped=0, unmatched=1)
    assert r['rot_bytes'] == 2251
    assert mt.insmod_result(None)['modules'] == []


def test_unload_result():
    doc = {'modules': [{'name': 'a', 'result': 'unloaded'}, {'name': 'b', 'result': 'would unload'},
                       {'name': 'c', 'result': 'failed', 'message': 'busy'}, None]}
    assert mt.unload_result(doc) == dict(unloaded=['a', 'b'], failed=[dict(name='c', message='busy')])
    assert mt.unload_result(None) == dict(unloaded=[], failed=[])


# ---- the kernel's taint ----

@pytest.mark.parametrize('mask, letters', [
    (0, 'none'), (8, 'R'), (1, 'P'), (4097, 'PO'), (8 | 512, 'RW'), (1 << 19, '?'), ((1 << 18) | (1 << 20), 'N?')])
def test_taint_letters_both_ways(mask, letters):
    assert mt.mask_to_letters(mask) == letters
    if '?' not in letters:
        assert mt.letters_to_mask(letters) == mask


def test_read_taint(host):
    host.taint = 4104
    assert mt.read_taint() == dict(value=4104, letters='RO', reclaimed=True)
    host.taint = 0
    assert mt.read_taint() == dict(value=0, letters='none', reclaimed=False)
    with open(host.taint_file, 'w') as f:
        f.write('-1\n')
    with pytest.raises(ValueError):
        mt.read_taint()
