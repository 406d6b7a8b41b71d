#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""argspec-vs-doc.py COLLECTIONS-DIR MODULE...

Checks that each module's argument_spec and its DOCUMENTATION options
agree (names, types, defaults, choices, elements), and that EXAMPLES and
RETURN parse: the part of ansible-test's validate-modules that needs no
network. Prints one line per disagreement; exits 1 if there is any.
"""
import importlib
import sys

import yaml

sys.path.insert(0, sys.argv[1])

from ansible.module_utils import basic  # noqa: E402


class Captured(Exception):
    pass


def capture_spec(module_name):
    spec = {}

    def fake_init(self, argument_spec, **kwargs):
        spec.update(argument_spec)
        raise Captured()

    orig = basic.AnsibleModule.__init__
    basic.AnsibleModule.__init__ = fake_init
    try:
        mod = importlib.import_module('ansible_collections.modrot.rot.plugins.modules.' + module_name)
        try:
            mod.main()
        except Captured:
            pass
    finally:
        basic.AnsibleModule.__init__ = orig
    return mod, spec


def add_fragment(doc, ref):
    """Merges the options of a doc fragment of this collection (modrot.rot.NAME)."""
    if not ref.startswith('modrot.rot.'):
        raise ValueError('fragment %s is not this collection\'s' % ref)
    frag = importlib.import_module('ansible_collections.modrot.rot.plugins.doc_fragments.' +
                                   ref[len('modrot.rot.'):])
    extra = yaml.safe_load(frag.ModuleDocFragment.DOCUMENTATION)
    doc.setdefault('options', {}).update(extra.get('options') or {})


def main():
    problems = []
    for name in sys.argv[2:]:
        mod, spec = capture_spec(name)
        doc = yaml.safe_load(mod.DOCUMENTATION)
        for frag in doc.get('extends_documentation_fragment') or []:
            add_fragment(doc, frag)
        yaml.safe_load(mod.EXAMPLES)
        ret = yaml.safe_load(mod.RETURN)
        if not isinstance(ret, dict):
            problems.append('%s: RETURN is not a mapping' % name)
        opts = doc.get('options') or {}
        for opt in sorted(set(opts) | set(spec)):
            if opt not in opts:
                problems.append('%s: option %s is in argument_spec, not documented' % (name, opt))
                continue
            if opt not in spec:
                problems.append('%s: option %s is documented, not in argument_spec' % (name, opt))
                continue
            d, s = opts[opt], spec[opt]
            for key, default in (('type', 'str'), ('default', None), ('choices', None),
                                 ('elements', None), ('required', False)):
                if d.get(key, default) != s.get(key, default):
                    problems.append('%s: option %s: %s is %r in the docs, %r in argument_spec'
                                    % (name, opt, key, d.get(key, default), s.get(key, default)))
        if doc.get('module') != name:
            problems.append('%s: DOCUMENTATION names module %r' % (name, doc.get('module')))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
