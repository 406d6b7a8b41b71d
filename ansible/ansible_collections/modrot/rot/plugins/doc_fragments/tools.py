# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):
    # The option every modrot module shares.
    DOCUMENTATION = r'''
options:
  tools_dir:
    description:
      - Directory holding the modrot tools (C(lsmod), C(modreap), C(insmod), C(rmmod)).
      - By default they are looked up in C(PATH) and the usual sbin directories,
        under their names or with the C(modrot-) prefix, and only modrot's are
        taken (C(--version) says C(modrot)); kmod's C(lsmod) is passed over,
        and the task fails naming what it found when no modrot tool is there.
    type: path
requirements:
  - the modrot tools on the managed host
notes:
  - The modules read the tools' C(-J) output and exit codes, never their text.
  - Exit codes of the tools are 0 done, 1 some of it failed, 2 usage error,
    3 the kernel lacks what was asked for (for example module rot support),
    4 permission denied (no C(CAP_SYS_MODULE)). A failed task carries it as C(rc).
'''
