# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""A host for the modules' unit tests: its kernel as the modrot tools
would report and change it, answering module.run_command in their place.

Nothing here runs a program. FakeHost.run_command stands in for
AnsibleModule.run_command: it reads the argv a module built, changes its
state as lsmod, modreap, insmod or rmmod would (or, with a dry run,
--check or -n, does not), and answers with the tools' -J JSON, their
exit codes and their error lines, as modrot_tools.py reads them (the
schemas of modreap(8), insmod(8) and rmmod(8)). Every call is recorded,
so that a test can tell which commands a task ran and that check mode
ran none that changes anything.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import re

import pytest

from ansible.module_utils import basic
from ansible.module_utils.common.text.converters import to_bytes

TOOLS = ('lsmod', 'modreap', 'insmod', 'rmmod')
TAINT_R = 8
SIZE_UNITS = {'': 1, 'b': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30, 't': 1 << 40}


class AnsibleExitJson(Exception):
    """exit_json was called: the task's result."""

    def __init__(self, result):
        Exception.__init__(self, 'exit_json')
        self.result = result


class AnsibleFailJson(Exception):
    """fail_json was called: the failed task's result."""

    def __init__(self, result):
        Exception.__init__(self, result.get('msg'))
        self.result = result


def exit_json(self, **kwargs):  # pylint: disable=unused-argument
    kwargs.setdefault('changed', False)
    raise AnsibleExitJson(kwargs)


def fail_json(self, **kwargs):  # pylint: disable=unused-argument
    kwargs['failed'] = True
    raise AnsibleFailJson(kwargs)


def set_module_args(args, check_mode=False, diff=False):
    """The arguments AnsibleModule reads, as a task would hand them over."""
    args = dict(args)
    args.setdefault('_ansible_remote_tmp', '/tmp')
    args.setdefault('_ansible_keep_remote_files', False)
    args['_ansible_check_mode'] = check_mode
    args['_ansible_diff'] = diff
    basic._ANSIBLE_ARGS = to_bytes(json.dumps({'ANSIBLE_MODULE_ARGS': args}))  # pylint: disable=protected-access


def run_module(main, args, check_mode=False, diff=False):
    """Runs a module's main(); returns its result, with failed set when it
    failed."""
    set_module_args(args, check_mode=check_mode, diff=diff)
    with pytest.raises((AnsibleExitJson, AnsibleFailJson)) as e:
        main()
    return e.value.result


def host_runner(main):
    """run(host, check_mode=False, diff=False, **args): main() on the fake
    host, its tools_dir unless args name another."""
    def run(host, check_mode=False, diff=False, **args):
        args.setdefault('tools_dir', host.tools_dir)
        return run_module(main, args, check_mode=check_mode, diff=diff)
    return run


def parse_size(text):
    m = re.match(r'^([0-9]+)([KMGTkmgt]?)(iB|B|b)?$', text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) * SIZE_UNITS[m.group(2).lower()]


class ModuleFile:
    """A module file the host can load: its name and size, whether a
    present device matches it (and then keeps it in use), whether its init
    fails (and leaves its memory rotting), or a reason the preflight
    refuses it."""

    def __init__(self, name, size=4096, device=False, init_fails=False, refused=None):
        self.name = name
        self.size = size
        self.device = device
        self.init_fails = init_fails
        self.refused = refused


class FakeHost:
    """A host's kernel and the modrot tools on it, without a program run."""

    def __init__(self, tmpdir):
        tmpdir = str(tmpdir)
        self.tools_dir = os.path.join(tmpdir, 'tools')
        os.mkdir(self.tools_dir)
        for tool in TOOLS:
            # Executable, as find_tool wants, but never run: run_command
            # answers in its place, and this says so if it ever ran.
            path = os.path.join(self.tools_dir, tool)
            with open(path, 'w') as f:
                f.write('#!/bin/sh\necho "a unit test ran $0" >&2\nexit 97\n')
            os.chmod(path, 0o755)
        self.taint_file = os.path.join(tmpdir, 'tainted')
        self.live = {}        # name -> dict(size, used, holders), oldest first
        self.rotting = {}     # name -> [(size, percpu bytes)] per instance
        self.kept = {}        # name -> rotting instances the kernel keeps in use
        self.files = {}       # path -> ModuleFile
        self.lists = {}       # path of an --from list -> [module file paths]
        self.unload_fails = {}  # name -> message rmmod --unused fails it with
        self.answers = {}     # tool -> (rc, stdout, stderr), answered whatever asked
        self.percpu_reserve = None  # bytes per CPU, or None: not reported
        self.rot_supported = True
        self.permitted = True
        self.calls = []       # (tool, args) of every run, in order
        self.taint = 0

    # ---- state ----

    @property
    def taint(self):
        return self._taint

    @taint.setter
    def taint(self, value):
        self._taint = value
        with open(self.taint_file, 'w') as f:
            f.write('%d\n' % value)

    def load(self, name, size=4096, used=False, holders=None):
        self.live[name] = dict(size=size, used=used, holders=list(holders or []))

    def rot(self, name, *sizes, **kw):
        percpu = kw.get('percpu', 0)
        self.rotting.setdefault(name, []).extend((s, percpu) for s in sizes)

    def module_file(self, path, name, **kw):
        self.files[path] = ModuleFile(name, **kw)
        return path

    def rot_bytes(self):
        return sum(s for insts in self.rotting.values() for s, dummy in insts)

    def snapshot(self):
        """Everything a task could change, to compare before and after."""
        return json.dumps(dict(live=self.live, rotting=self.rotting, taint=self.taint),
                          sort_keys=True)

    def tool_calls(self, tool=None):
        return [args for t, args in self.calls if tool is None or t == tool]

    def changing_calls(self):
        """The calls that change the kernel: a reclaim without --dry-run,
        insmod without --check, rmmod without -n. Reports and --version
        are not."""
        out = []
        for tool, args in self.calls:
            if '--version' in args:
                continue
            if tool == 'modreap' and self._modreap_action(args) and '--dry-run' not in args:
                out.append((tool, args))
            elif tool == 'insmod' and '--check' not in args:
                out.append((tool, args))
            elif tool == 'rmmod' and '--dry-run' not in args and '-n' not in args:
                out.append((tool, args))
        return out

    # ---- the tools ----

    def run_command(self, args, **kwargs):
        """AnsibleModule.run_command: argv as a list, never a shell line."""
        assert isinstance(args, list), 'a tool is run from an argv list, not a shell line'
        assert not kwargs.get('use_unsafe_shell')
        tool = os.path.basename(args[0])
        if tool.startswith('modrot-'):
            tool = tool[len('modrot-'):]
        argv = list(args[1:])
        self.calls.append((tool, argv))
        if argv == ['--version']:
            return 0, '%s (modrot) 0.1\n' % tool, ''
        if tool in self.answers:
            return self.answers[tool]
        handler = getattr(self, '_' + tool, None)
        assert handler is not None, 'the module ran %r, which is no modrot tool' % (args,)
        rc, doc, err = handler(argv)
        out = json.dumps(doc, indent=3) + '\n' if doc is not None else ''
        return rc, out, ''.join('%s: ERROR: %s\n' % (tool, line) for line in err)

    def _taint_members(self, before, after):
        def letters(mask):
            return 'R' if mask & TAINT_R else ''
        return dict(taint_before=letters(before), taint_before_value=before,
                    taint_after=letters(after), taint_after_value=after)

    def _lsmod(self, argv):
        assert '-J' in argv
        mods = [dict(name=n, bytes=m['size'], state='live', refcnt=len(m['holders']),
                     holders=list(m['holders']) or [None])
                for n, m in reversed(list(self.live.items()))]
        if self.rot_supported:
            mods += [dict(name=n, bytes=s, state='rotting', refcnt=0, holders=[None])
                     for n, insts in self.rotting.items() for s, dummy in insts]
        return 0, dict(modules=mods), []

    @staticmethod
    def _modreap_action(argv):
        return '--all' in argv or '--' in argv or any(a.startswith('--down-to=') for a in argv)

    def _groups(self, key, names, rotting):
        groups = []
        for n in names:
            insts = rotting[n]
            groups.append({'name': n, key + '_instances': len(insts),
                           key + '_bytes': sum(s for s, dummy in insts),
                           key + '_percpu_bytes': (sum(p for dummy, p in insts)
                                                   if self.percpu_reserve is not None else None)})
        return groups

    def _by_size(self):
        return sorted(self.rotting, key=lambda n: (-sum(s for s, dummy in self.rotting[n]), n))

    def _percpu_summary(self):
        if self.percpu_reserve is None:
            return dict(percpu_reserve_bytes=None, percpu_free_bytes=None, percpu_largest_bytes=None)
        held = sum(p for insts in self.rotting.values() for dummy, p in insts)
        free = self.percpu_reserve - held
        return dict(percpu_reserve_bytes=self.percpu_reserve, percpu_free_bytes=free,
                    percpu_largest_bytes=free)

    def _modreap(self, argv):
        assert '-J' in argv
        if not self.rot_supported:
            return 3, None, ['this kernel has no module rot support (/proc/rotting_modules is missing)']
        dry = '--dry-run' in argv
        if not self._modreap_action(argv):
            names = self._by_size()
            summary = dict(dry_run=False, failures=0, rotting_names=len(names),
                           rotting_instances=sum(len(i) for i in self.rotting.values()),
                           rotting_bytes=self.rot_bytes(), kept_instances=0, kept=[])
            summary.update(self._taint_members(self.taint, self.taint))
            summary.update(self._percpu_summary())
            return 0, dict(rotting=self._groups('rotting', names, self.rotting), summary=summary), []
        errors = []
        if '--all' in argv:
            targets = self._by_size()
        elif '--' in argv:
            targets = []
            for n in argv[argv.index('--') + 1:]:
                if n in self.rotting:
                    targets.append(n)
                else:
                    errors.append('Module %s has no rotting instances' % n)
        else:
            ceiling = parse_size([a for a in argv if a.startswith('--down-to=')][0][len('--down-to='):])
            total, targets = self.rot_bytes(), []
            for n in self._by_size():
                if total <= ceiling:
                    break
                targets.append(n)
                total -= sum(s for s, dummy in self.rotting[n])
        if targets and not self.permitted and not dry:
            return 4, None, ['could not reclaim module %s: Operation not permitted' % n for n in targets]
        freed, rotting, kept = {}, dict((n, list(i)) for n, i in self.rotting.items()), 0
        for n in targets:
            keep = min(self.kept.get(n, 0), len(rotting[n]))
            if keep:
                kept += keep
                errors.append('could not reclaim %s: %d rotting instances kept: 1 pin' % (n, keep))
            if len(rotting[n]) > keep:
                freed[n] = rotting[n][keep:]
                rotting[n] = rotting[n][:keep]
            if not rotting[n]:
                del rotting[n]
        before = self.taint
        after = before | (TAINT_R if freed else 0)
        if not dry:
            self.rotting = rotting
            self.taint = after
        names = [n for n in targets if n in freed]
        summary = dict(dry_run=dry, failures=len(errors), reclaimed_names=len(names),
                       reclaimed_instances=sum(len(i) for i in freed.values()),
                       reclaimed_bytes=sum(s for i in freed.values() for s, dummy in i),
                       rotting_bytes=sum(s for i in rotting.values() for s, dummy in i),
                       kept_instances=kept, kept=[])
        summary.update(self._taint_members(before, after))
        summary.update(self._percpu_summary())
        return (1 if errors else 0), dict(reclaimed=self._groups('reclaimed', names, freed),
                                          summary=summary), errors

    def _insmod(self, argv):
        assert '-J' in argv and '--' in argv
        check = '--check' in argv
        match = '--match-devices' in argv
        paths = []
        for a in argv[:argv.index('--')]:
            if a.startswith('--from='):
                paths += self.lists[a[len('--from='):]]
        paths += argv[argv.index('--') + 1:]
        recs, errors = [], []
        rc = 0
        for path in paths:
            rec = dict(filename=path, reason='', errno=0, error='', message='', rotted_bytes=0)
            spec = self.files.get(path)
            if spec is None:
                rec.update(name=os.path.basename(path).split('.')[0], result='failed', reason='not_found',
                           errno=2, error='ENOENT',
                           message='could not read %s: No such file or directory' % path)
            elif spec.name in self.live:
                rec.update(name=spec.name, result='present', reason='already_loaded')
            elif spec.refused:
                rec.update(name=spec.name, result='refused', reason='unknown_symbol',
                           message='could not insert module %s: %s' % (path, spec.refused))
            elif match and not spec.device:
                rec.update(name=spec.name, result='unmatched')
            elif check:
                rec.update(name=spec.name, result='ok')
            elif not self.permitted:
                rec.update(name=spec.name, result='failed', reason='permission', errno=1, error='EPERM',
                           message='could not insert module %s: Operation not permitted' % path)
                rc = 4
            elif spec.init_fails:
                rec.update(name=spec.name, result='failed', reason='no_device', errno=19, error='ENODEV',
                           message='could not insert module %s: No such device' % path)
                if self.rot_supported:
                    rec['rotted_bytes'] = spec.size
                    self.rot(spec.name, spec.size)
            else:
                rec.update(name=spec.name, result='loaded')
                self.load(spec.name, spec.size, used=spec.device)
            if rec['message']:
                errors.append(rec['message'])
            recs.append(rec)
        summary = dict(dry_run=check, files=len(recs),
                       rotted_bytes=sum(r['rotted_bytes'] for r in recs),
                       rotted=sum(1 for r in recs if r['rotted_bytes']))
        for key in ('loaded', 'ok', 'refused', 'failed', 'skipped', 'unmatched', 'present'):
            summary[key] = sum(1 for r in recs if r['result'] == key)
        summary['failures'] = summary['refused'] + summary['failed']
        summary.update(self._taint_members(self.taint, self.taint))
        if not rc:
            rc = 1 if summary['failures'] else (5 if summary['present'] else 0)
        return rc, dict(modules=recs, summary=summary), errors

    def _rmmod(self, argv):
        assert '-J' in argv and '--unused' in argv
        dry = '--dry-run' in argv or '-n' in argv
        held = set(h for m in self.live.values() for h in m['holders'])
        unused = [n for n, m in self.live.items() if not m['used'] and n not in held]
        recs, errors = [], []
        for n in unused:
            rec = dict(name=n, reason='', errno=0, error='', message='',
                       unloaded_bytes=self.live[n]['size'], reclaimed_instances=0,
                       reclaimed_bytes=0, kept_instances=0)
            if not dry and n in self.unload_fails:
                rec.update(result='failed', unloaded_bytes=0, message=self.unload_fails[n])
                errors.append(self.unload_fails[n])
            elif not dry and not self.permitted:
                rec.update(result='failed', unloaded_bytes=0, errno=1, error='EPERM',
                           message='could not remove module %s: Operation not permitted' % n)
                errors.append(rec['message'])
            elif dry:
                rec['result'] = 'would unload'
            else:
                rec['result'] = 'unloaded'
                m = self.live.pop(n)
                if self.rot_supported:
                    self.rot(n, m['size'])
            recs.append(rec)
        done = [r for r in recs if r['result'] != 'failed']
        summary = dict(dry_run=dry, failures=len(errors), unloaded=len(done),
                       unloaded_bytes=sum(r['unloaded_bytes'] for r in done),
                       reclaimed_names=0, reclaimed_instances=0, reclaimed_bytes=0, kept_instances=0)
        summary.update(self._taint_members(self.taint, self.taint))
        rc = 0
        if errors:
            rc = 4 if not self.permitted else 1
        return rc, dict(modules=recs, summary=summary), errors
