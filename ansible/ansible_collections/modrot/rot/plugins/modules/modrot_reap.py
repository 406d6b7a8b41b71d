#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, modrot developers
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: modrot_reap
short_description: Reclaim rotting kernel module memory with modreap
version_added: "0.1.0"
description:
  - Frees rotting module instances with C(modreap -J) and reports what was freed.
  - With C(ceiling), whole names are reclaimed, largest first, until at
    most that much rots (C(modreap --down-to)); a host already under the
    ceiling is left alone and the task reports no change.
  - With C(names), every rotting instance of those names is reclaimed; with
    C(all), everything that rots.
  - Reclaiming taints the kernel R. The diff shows the rot and the taint
    before and after.
  - A failure carries the tool's exit code as C(rc) and its error lines; exit 3
    means the kernel has no module rot support, exit 4 that the user lacks
    C(CAP_SYS_MODULE).
extends_documentation_fragment:
  - modrot.rot.tools
options:
  ceiling:
    description:
      - Reclaim until at most this much rots, for example C(16M), C(512K) or C(4096).
      - Sizes are bytes, or K, M, G, T (powers of 1024).
    type: str
  names:
    description:
      - Module names whose rotting instances are all reclaimed. A name with
        nothing rotting (already reclaimed, or never unloaded) is already
        where the task wants it. It is listed in C(not_rotting), and a task
        whose names all are so reports no change.
      - Each must be a module name (printable ASCII without blanks or C(/),
        at most 55 bytes, not beginning with C(-)); anything else fails the
        task before modreap runs.
    type: list
    elements: str
  all:
    description:
      - Reclaim everything that rots.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
    description: Runs C(modreap --dry-run) and reports what would be freed.
  diff_mode:
    support: full
    description: Rot bytes and taint, before and after.
author:
  - modrot developers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Keep rot under 16 MiB, two hosts at a time
  hosts: fleet
  serial: 2
  tasks:
    - modrot.rot.modrot_reap:
        ceiling: 16M

- name: Free what two drivers left behind
  modrot.rot.modrot_reap:
    names: [snd_hda_intel, nouveau]
'''

RETURN = r'''
reclaimed:
  description: Names freed (or, in check mode, that would be), with instances and bytes.
  returned: success
  type: list
  elements: dict
  sample: [{name: beta, instances: 2, bytes: 6144}]
instances:
  description: Instances freed.
  returned: success
  type: int
  sample: 2
bytes:
  description: Bytes freed.
  returned: success
  type: int
  sample: 6144
rot_before:
  description: Bytes that rotted before.
  returned: success
  type: int
  sample: 8395
rot_left:
  description: Bytes that still rot.
  returned: success
  type: int
  sample: 2251
taint_before:
  description: The kernel's taint letters before (C(none) when untainted).
  returned: success
  type: str
  sample: none
taint_after:
  description: The kernel's taint letters after.
  returned: success
  type: str
  sample: R
taint_after_value:
  description: The taint mask after, as in /proc/sys/kernel/tainted.
  returned: success
  type: int
  sample: 8
not_rotting:
  description: With C(names), the names that had nothing rotting, left alone.
  returned: success
  type: list
  elements: str
  sample: [nouveau]
dry_run:
  description: Whether nothing was freed because the task ran in check mode.
  returned: success
  type: bool
  sample: false
rc:
  description: The exit code of modreap.
  returned: always
  type: int
  sample: 0
errors:
  description: modreap's error lines, without its prefix.
  returned: failure
  type: list
  elements: str
  sample: ["this kernel has no module rot support (/proc/rotting_modules is missing)"]
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.modrot.rot.plugins.module_utils.modrot_tools import (
    ToolError, check_module_name, check_size, fail_with, read_taint, reclaim_result, rot_report,
    run_tool)


def reap_args(module, names):
    p = module.params
    args = ['-J']
    if module.check_mode:
        args.append('--dry-run')
    if p['ceiling'] is not None:
        # One word: a ceiling that starts with '-' is modreap's to refuse.
        args.append('--down-to=' + check_size(module, 'ceiling', p['ceiling']))
    elif p['all']:
        args.append('--all')
    else:
        # '--' so that a name starting with '-' is a name, not an option.
        args += ['--'] + names
    return args


def rot_now(module):
    """What rots now (modreap -J, a report)."""
    dummy, doc, dummy2, dummy3 = run_tool(module, 'modreap', ['-J'])
    return rot_report(doc)


def diff(rot_before, rot_after, taint_before, taint_after):
    return dict(before=dict(rot_bytes=rot_before, taint=taint_before),
                after=dict(rot_bytes=rot_after, taint=taint_after),
                before_header='rot and taint before', after_header='rot and taint after')


def nothing_to_reap(module, report, not_rotting):
    """The result of a task none of whose names rots: nothing ran."""
    try:
        taint = read_taint()
    except (OSError, ValueError) as e:
        module.fail_json(msg='could not read the kernel taint: %s' % e)
    result = dict(changed=False, rc=0, not_rotting=not_rotting, reclaimed=[], instances=0,
                  bytes=0, rot_before=report['rot_bytes'], rot_left=report['rot_bytes'],
                  taint_before=taint['letters'], taint_after=taint['letters'],
                  taint_after_value=taint['value'], dry_run=module.check_mode)
    if module._diff:
        result['diff'] = diff(report['rot_bytes'], report['rot_bytes'], taint['letters'],
                              taint['letters'])
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tools_dir=dict(type='path'),
            ceiling=dict(type='str'),
            names=dict(type='list', elements='str'),
            all=dict(type='bool', default=False),
        ),
        mutually_exclusive=[('ceiling', 'names', 'all')],
        required_one_of=[('ceiling', 'names', 'all')],
        supports_check_mode=True,
    )
    # all has a default, so required_one_of is met without any of them:
    # without this, such a task would run modreap's report and pass.
    if module.params['ceiling'] is None and module.params['names'] is None and not module.params['all']:
        module.fail_json(msg='one of the following is required: ceiling, names, all (true)')
    if module.params['names'] is not None and not module.params['names']:
        module.fail_json(msg='names must list at least one module name')
    names, not_rotting = [], []
    if module.params['names'] is not None:
        # Every name is checked before the first tool runs.
        wanted = [check_module_name(module, 'names', n) for n in module.params['names']]
    try:
        if module.params['names'] is not None:
            # A name with nothing rotting needs nothing: only the others go
            # to modreap, which would call such a name a failure.
            report = rot_now(module)
            rotting = set(g['name'] for g in report['rotting'])
            names = [n for n in wanted if n in rotting]
            not_rotting = [n for n in wanted if n not in rotting]
            if not names:
                nothing_to_reap(module, report, not_rotting)
        rc, doc, dummy, dummy2 = run_tool(module, 'modreap', reap_args(module, names))
    except ToolError as e:
        partial = reclaim_result(e.doc) if e.doc else {}
        # What was freed before the failure was freed all the same.
        fail_with(module, e, changed=bool(partial.get('instances')) and not module.check_mode,
                  **dict((k, v) for k, v in partial.items() if k != 'dry_run'))
    r = reclaim_result(doc)
    changed = r['instances'] > 0
    result = dict(changed=changed, rc=rc, not_rotting=not_rotting, **r)
    if module._diff:
        result['diff'] = diff(r['rot_before'], r['rot_left'], r['taint_before'], r['taint_after'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
