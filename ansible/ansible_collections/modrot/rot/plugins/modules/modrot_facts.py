#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, modrot developers
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: modrot_facts
short_description: Gather kernel module rot facts with the modrot tools
version_added: "0.1.0"
description:
  - Reads the live modules (C(lsmod -J)), the rotting instances grouped by
    name (C(modreap -J)) and the kernel's taint, and returns them as the
    fact C(modrot).
  - On a kernel without module rot support C(rot_supported) is false and
    nothing rots; the task does not fail.
  - Reading needs no privilege, so this works for users without
    C(CAP_SYS_MODULE) too.
  - The per-CPU module reserve, which runs out before rot does, is
    C(percpu) (null on a kernel that does not report it).
  - Without O(tools_dir) the tools are looked for in C(PATH) and the sbin
    directories, and only modrot's are taken (their C(--version) says
    C(modrot)); kmod's programs of the same names are passed over, and
    the task fails naming them when modrot's are not found.
extends_documentation_fragment:
  - modrot.rot.tools
attributes:
  check_mode:
    support: full
    description: Only reads; runs the same in check mode.
  diff_mode:
    support: none
    description: Changes nothing, so there is nothing to show.
author:
  - modrot developers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Gather rot facts
  modrot.rot.modrot_facts:

- name: Show the hosts that carry more than 16 MiB of rot
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }}: {{ modrot.rot_bytes }} bytes rot"
  when: modrot.rot_bytes > 16 * 1024 * 1024
'''

RETURN = r'''
ansible_facts:
  description: Facts to add to the host's variables.
  returned: always
  type: dict
  contains:
    modrot:
      description: The kernel's module and rot state.
      returned: always
      type: dict
      contains:
        rot_supported:
          description: Whether the kernel has module rot support.
          type: bool
          sample: true
        live_modules:
          description: Names of the live (or loading or unloading) modules, newest first.
          type: list
          elements: str
          sample: [delta, alpha]
        live_count:
          description: How many modules are live.
          type: int
          sample: 2
        live_bytes:
          description: Bytes the live modules hold.
          type: int
          sample: 9152
        rotting:
          description: Rotting instances by name, largest first.
          type: list
          elements: dict
          sample: [{name: beta, instances: 2, bytes: 6144}]
        rot_bytes:
          description: Bytes held by all rotting instances.
          type: int
          sample: 6144
        rot_instances:
          description: How many instances rot.
          type: int
          sample: 2
        rot_names:
          description: How many names rot.
          type: int
          sample: 1
        percpu:
          description: The per-CPU module reserve, bytes per CPU - its size
            (C(reserve)), free bytes (C(free)), largest free extent
            (C(largest_free), the most per-CPU data a module can load with),
            what rotting instances keep (C(rot_bytes)) and by name
            (C(rotting)); null when the kernel does not report it.
          type: dict
          sample: {reserve: 8192, free: 5192, largest_free: 5188, rot_bytes: 3000,
                   rotting: [{name: pcpu1500, bytes: 3000}]}
        taint:
          description: The kernel's taint, as a mask (C(value)), its letters
            (C(letters), C(none) when untainted) and whether R is set (C(reclaimed)).
          type: dict
          sample: {value: 8, letters: R, reclaimed: true}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.modrot.rot.plugins.module_utils.modrot_tools import (
    EXIT_OK, EXIT_UNSUPPORTED, ToolError, fail_with, live_modules, percpu_report,
    read_taint, rot_report, run_tool)


def gather(module):
    try:
        dummy, lsmod_doc, dummy2, dummy3 = run_tool(module, 'lsmod', ['-J'])
        rc, reap_doc, dummy2, dummy3 = run_tool(module, 'modreap', ['-J'],
                                                ok_codes=(EXIT_OK, EXIT_UNSUPPORTED))
    except ToolError as e:
        fail_with(module, e)
    live = live_modules(lsmod_doc)
    # lsmod read the module list, so exit 3 from modreap means no rot support.
    rot_supported = rc == EXIT_OK
    report = rot_report(reap_doc if rot_supported else None)
    try:
        taint = read_taint()
    except (IOError, OSError, ValueError) as e:
        module.fail_json(msg='could not read the kernel taint: %s' % e)
    facts = dict(
        rot_supported=rot_supported,
        live_modules=[m['name'] for m in live],
        live_count=len(live),
        live_bytes=sum(m['size'] for m in live),
        taint=taint,
    )
    facts.update(report)
    facts['percpu'] = percpu_report(reap_doc) if rot_supported else None
    return facts


def main():
    module = AnsibleModule(
        argument_spec=dict(tools_dir=dict(type='path')),
        supports_check_mode=True,
    )
    module.exit_json(changed=False, ansible_facts=dict(modrot=gather(module)))


if __name__ == '__main__':
    main()
