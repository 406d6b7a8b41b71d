#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, modrot developers
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: modrot_probe
short_description: Load the modules a host's devices need, under a rot ceiling
version_added: "0.1.0"
description:
  - The installer's workflow on one host, with the modrot tools.
  - With C(mode=match_devices), loads only the modules whose aliases match a
    present device, and the modules of the batch they need
    (C(insmod -J --match-devices)).
  - With C(mode=probe_all), loads every module (C(insmod -J --batch)), then
    unloads every module that found nothing (C(rmmod --unused)). A module
    whose init fails is expected here (it found no device); it is reported
    in C(not_loaded) but does not fail the task. On a kernel with module rot
    support both leave rot behind.
  - With C(ceiling), the rot is then reclaimed down to the ceiling
    (C(modreap -J --down-to)).
  - A module refused before loading (a bad file, a missing symbol), or in
    C(mode=match_devices) a module whose init fails, fails the task after
    the rest of the workflow ran. A module loaded already is not a failure
    (C(present)).
  - Check mode predicts C(changed) as the real run decides it, true when
    a module would load, in C(mode=probe_all) a module loaded now would be
    unloaded as unused, or the ceiling's dry run would reclaim.
  - Run again, C(mode=match_devices) reports no change, as what it loaded
    is C(present). C(mode=probe_all) is a probe rather than a state; each run
    loads again the modules the last one unloaded, unloads them again, and
    reports that change.
extends_documentation_fragment:
  - modrot.rot.tools
options:
  modules:
    description:
      - Module files (C(.ko), C(.ko.xz), C(.ko.zst)) to consider.
      - A path that does not end so, or holds a control character, fails
        the task before any tool runs; each path is one argument after
        C(--), so none is taken for an option.
    type: list
    elements: path
    default: []
  from_file:
    description:
      - A list of module files, one per line, optionally with parameters
        (C(insmod --from)). Used together with C(modules). A regular file;
        not C(-).
    type: path
  mode:
    description:
      - C(match_devices) loads what matches present devices; C(probe_all)
        loads everything, then unloads what is unused.
    type: str
    choices: [match_devices, probe_all]
    default: match_devices
  ceiling:
    description:
      - After loading, reclaim rot until at most this much rots, for example C(16M).
      - Not given, nothing is reclaimed.
    type: str
  jobs:
    description:
      - Threads C(insmod) loads on (C(insmod --jobs)); by default one per CPU.
    type: int
attributes:
  check_mode:
    support: partial
    description:
      - Runs C(insmod --check), in C(mode=probe_all) C(rmmod --unused
        --dry-run), and C(modreap --dry-run) for C(ceiling). Not predicted
        are the rot of inits that would fail, and which of the modules that
        would load C(rmmod --unused) would then unload.
  diff_mode:
    support: none
    description: The result lists what was loaded, unloaded and reclaimed.
author:
  - modrot developers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Load the drivers this machine's devices need, keep rot under 4 MiB
  modrot.rot.modrot_probe:
    from_file: /run/installer/modules.list
    mode: match_devices
    ceiling: 4M

- name: Probe everything, then unload what found nothing
  modrot.rot.modrot_probe:
    modules: "{{ lookup('ansible.builtin.fileglob', '/lib/modules/*/kernel/drivers/net/*.ko*', wantlist=True) }}"
    mode: probe_all
'''

RETURN = r'''
loaded:
  description: Names of the modules loaded (in check mode, that would load).
  returned: always
  type: list
  elements: str
  sample: [e1000e]
present:
  description: Names of the modules that were loaded already (insmod's result C(present)); not a failure, no change.
  returned: always
  type: list
  elements: str
  sample: [e1000e]
unmatched:
  description: Modules left out because no present device matches them.
  returned: always
  type: list
  elements: str
  sample: [alpha]
not_loaded:
  description: Modules that failed or were refused, with C(result), C(error) and C(message).
  returned: always
  type: list
  elements: dict
  sample: [{name: failinit, result: failed, error: ENODEV, message: "...", rot_bytes: 2251}]
unloaded:
  description: Modules C(rmmod --unused) unloaded (mode C(probe_all)); in check
    mode, the modules loaded now that it would unload.
  returned: always
  type: list
  elements: str
  sample: [alpha]
rot_added:
  description: Bytes that failed inits left rotting.
  returned: always
  type: int
  sample: 2251
reclaim:
  description: What the ceiling reclaimed, as modrot_reap returns it; empty without C(ceiling).
  returned: always
  type: dict
  sample: {instances: 1, bytes: 2251, rot_left: 0, taint_after: R}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.modrot.rot.plugins.module_utils.modrot_tools import (
    EXIT_OK, EXIT_PARTIAL, EXIT_PRESENT, ToolError, check_module_file, check_plain_path, check_size,
    fail_with, insmod_result, reclaim_result, run_tool, unload_result)


def insmod_args(module):
    p = module.params
    args = ['-J']
    args.append('--match-devices' if p['mode'] == 'match_devices' else '--batch')
    if module.check_mode:
        args.append('--check')
    if p['jobs'] is not None:
        args.append('--jobs=%d' % p['jobs'])
    if p['from_file']:
        args.append('--from=' + check_plain_path(module, 'from_file', p['from_file']))
    # '--' so that a file whose name starts with '-' is a file, not an option.
    return args + ['--'] + [check_module_file(module, 'modules', m) for m in p['modules']]


def unload_unused(module, result):
    """rmmod --unused (in check mode, -n): what went (or would) goes to
    result, on a failure too, as what went before it went all the same."""
    args = ['-J', '--unused'] + (['--dry-run'] if module.check_mode else [])
    try:
        dummy, doc, dummy2, dummy3 = run_tool(module, 'rmmod', args)
    except ToolError as e:
        result['unloaded'] = unload_result(e.doc)['unloaded']
        raise
    result['unloaded'] = unload_result(doc)['unloaded']


def reclaim_down_to(module, result):
    """modreap --down-to the ceiling (in check mode, --dry-run): what was
    (or would be) reclaimed goes to result, on a failure too."""
    reap = ['-J'] + (['--dry-run'] if module.check_mode else [])
    reap.append('--down-to=' + module.params['ceiling'])
    try:
        dummy, doc, dummy2, dummy3 = run_tool(module, 'modreap', reap)
    except ToolError as e:
        result['reclaim'] = reclaim_result(e.doc) if e.doc else {}
        raise
    result['reclaim'] = reclaim_result(doc)


def load(module, args, result):
    """insmod (in check mode, --check): what loaded (or would) goes to
    result, on a failure too."""
    def note(doc):
        loads = insmod_result(doc)
        # In check mode insmod --check says "ok" of what would load.
        result.update(loaded=loads['loaded'] if not module.check_mode else
                      [m['name'] for m in loads['modules'] if m['result'] == 'ok'],
                      present=loads['present'], unmatched=loads['unmatched'],
                      not_loaded=loads['failed'], rot_added=loads['rot_bytes'])

    try:
        dummy, doc, dummy2, dummy3 = run_tool(module, 'insmod', args,
                                              ok_codes=(EXIT_OK, EXIT_PARTIAL, EXIT_PRESENT))
    except ToolError as e:
        note(e.doc)
        raise
    note(doc)


def changed(result):
    """A change: a module loaded or unloaded, an init that failed leaving
    rot, or rot reclaimed (in check mode, that would be)."""
    return bool(result['loaded'] or result['rot_added'] or result['unloaded']
                or result['reclaim'].get('instances', 0) > 0)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tools_dir=dict(type='path'),
            modules=dict(type='list', elements='path', default=[]),
            from_file=dict(type='path'),
            mode=dict(type='str', default='match_devices',
                      choices=['match_devices', 'probe_all']),
            ceiling=dict(type='str'),
            jobs=dict(type='int'),
        ),
        required_one_of=[('modules', 'from_file')],
        supports_check_mode=True,
    )
    p = module.params
    if not p['modules'] and not p['from_file']:
        module.fail_json(msg='give modules or from_file')
    # Every argument is checked before the first tool runs.
    args = insmod_args(module)
    if p['ceiling'] is not None:
        check_size(module, 'ceiling', p['ceiling'])
    result = dict(changed=False, loaded=[], present=[], unmatched=[], not_loaded=[], unloaded=[],
                  rot_added=0, reclaim={})
    try:
        load(module, args, result)
        if p['mode'] == 'probe_all':
            unload_unused(module, result)
        if p['ceiling'] is not None:
            reclaim_down_to(module, result)
    except ToolError as e:
        # What was done before the failure was done all the same; in check
        # mode nothing was.
        result['changed'] = changed(result) and not module.check_mode
        fail_with(module, e, **result)
    # In check mode: what would load, what loaded now would be unloaded,
    # or what the ceiling's dry run would reclaim. With nothing to load no
    # rot is added, so the dry run sees what the real run's reclaim would.
    result['changed'] = changed(result)
    # In probe_all a failed init is a module that found no device.
    bad = [f for f in result['not_loaded']
           if not (p['mode'] == 'probe_all' and f['result'] == 'failed')]
    if bad:
        result['msg'] = 'insmod could not load %d module(s): %s' % (
            len(bad), '; '.join('%s: %s' % (f['name'], f['message'] or f['result']) for f in bad))
        module.fail_json(rc=EXIT_PARTIAL, **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
