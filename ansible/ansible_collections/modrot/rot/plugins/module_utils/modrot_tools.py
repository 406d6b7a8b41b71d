# -*- coding: utf-8 -*-
# SPDX-License-Identifier: GPL-2.0-or-later
# GNU General Public License v2.0+ (see https://www.gnu.org/licenses/old-licenses/gpl-2.0.txt)
"""Everything the modrot collection knows about the tools' -J output.

This is the one place that reads modrot's JSON: the modules call the
functions below and never look at a key themselves, so a change of the
tools' schema is a change of this file alone. Every reader is defensive:
a missing key gives a default, an array that holds null (libsmartcols
prints [null] for an empty list) is read as empty, and a boolean may be
spelled true/false, "true"/"false" or 1/0.

Keys read, per tool (anything else in the output is ignored); the
tools' vocabulary is modrot(7)'s JSON VOCABULARY:

lsmod -J
    modules[]: name, bytes, state ("live", "loading", "unloading",
    "rotting"), holders[] (strings; null entries dropped), refcnt.

modreap -J (report: no NAME, no -a, no --down-to)
    rotting[]: name, rotting_instances, rotting_bytes, rotting_percpu_bytes.
    summary: rotting_names, rotting_instances, rotting_bytes (recomputed
    from rotting[] when absent); percpu_reserve_bytes, percpu_free_bytes,
    percpu_largest_bytes, rotting_percpu_bytes (the per-CPU module
    reserve, null when the kernel does not report it).

modreap -J (reclaim: NAME..., -a or --down-to, with or without -n)
    reclaimed[]: name, reclaimed_instances, reclaimed_bytes -- what was
    (or would be) freed.
    summary: dry_run, reclaimed_instances, reclaimed_bytes, rotting_bytes
    (what still rots), taint_before, taint_after ("" when untainted),
    taint_before_value, taint_after_value, failures (a count),
    kept_instances (instances left alone as still in use).

insmod -J
    modules[]: name, filename, result ("loaded", "ok", "unmatched",
    "present", "refused", "failed", "skipped"), reason, errno, error,
    message, rotted_bytes. "present" is a module loaded already (the
    reason "already_loaded"): not a failure, and no change; insmod exits 5
    when nothing else happened.
    summary: loaded, ok, refused, failed, skipped, unmatched, present,
    rotted, rotted_bytes.

rmmod -J --unused (with or without -n)
    modules[]: name, result ("unloaded", "would unload", "failed"),
    message. What was unloaded (or would be) is read from the records,
    on a failure too: the modules unloaded before it stay unloaded.

Exit codes, the same for every tool (architecture.md): 0 done, 1 some of
it failed, 2 usage error, 3 the kernel lacks what was asked for, 4
permission denied.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os
import re

EXIT_OK = 0
EXIT_PARTIAL = 1
EXIT_USAGE = 2
EXIT_UNSUPPORTED = 3
EXIT_PERM = 4
EXIT_PRESENT = 5  # insmod: nothing failed, some modules were loaded already

EXIT_MEANING = {
    EXIT_PARTIAL: 'some of it failed',
    EXIT_USAGE: 'usage error',
    EXIT_UNSUPPORTED: 'the kernel lacks what was asked for',
    EXIT_PERM: 'permission denied (this needs CAP_SYS_MODULE)',
    EXIT_PRESENT: 'some modules were loaded already',
}

# Linux 6.1 taint letters by bit (kernel/panic.c, taint_flags), as
# /proc/sys/kernel/tainted and the tools' taint_*_value count them.
TAINT_LETTERS = 'PFSRMBUDAWCIOELKXTN'
TAINT_RECLAIM_BIT = 3  # 'R': a reclaim or a forced unload

TAINT_FILE = '/proc/sys/kernel/tainted'

TOOLS_DIR_DOC = 'Directory holding the modrot tools; by default they are looked up in C(PATH) and the sbin directories.'


class ToolError(Exception):
    """A tool exited with a failure; carries what a task should report."""

    def __init__(self, tool, rc, stderr, doc=None):
        self.tool = tool
        self.rc = rc
        self.stderr = stderr or ''
        self.doc = doc
        Exception.__init__(self, failure_message(tool, rc, self.stderr))


def as_int(value, default=0):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def as_bool(value, default=False):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ('true', 'yes', '1'):
            return True
        if v in ('false', 'no', '0', ''):
            return False
    return default


def as_list(value):
    """A JSON array as a list without its null entries ([null] is empty)."""
    if not isinstance(value, list):
        return []
    return [v for v in value if v is not None]


def as_count(value):
    """A count that a schema may give as a number or as a list of items."""
    if isinstance(value, list):
        return len(as_list(value))
    return as_int(value)


def as_str(value, default=''):
    if value is None:
        return default
    return str(value)


def parse_json(text):
    """The tool's JSON object, or None when stdout holds none."""
    if not text or not text.strip():
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def error_lines(tool, stderr):
    """The tool's lines without the 'tool: LEVEL: ' prefix (kmod's level
    words: FATAL, ERROR, WARNING)."""
    prefixes = tuple(tool + ': ' + level + ': ' for level in ('FATAL', 'ERROR', 'WARNING'))
    out = []
    for line in (stderr or '').splitlines():
        line = line.strip()
        prefix = next((p for p in prefixes if line.startswith(p)), None)
        if prefix:
            out.append(line[len(prefix):])
        elif line:
            out.append(line)
    return out


def failure_message(tool, rc, stderr):
    lines = error_lines(tool, stderr)
    meaning = EXIT_MEANING.get(rc, 'exit status %d' % rc)
    text = '; '.join(lines) if lines else 'no message'
    return '%s failed with exit %d (%s): %s' % (tool, rc, meaning, text)


# ---- what a task may hand the tools ----

MODULE_FILE_SUFFIXES = ('.ko', '.ko.xz', '.ko.zst')
NAME_MAX = 55  # ROT_NAME_MAX: the kernel's MODULE_NAME_LEN - 1


def _has_control(text):
    return any(ord(c) < 0x20 or ord(c) == 0x7f for c in text)


def _show(text):
    """text for a message: control characters as escapes, quoted."""
    return repr(text)


def check_module_name(module, option, name):
    """A module name as the tools take one (printable ASCII, no blank, no
    '/', not '.' or '..', at most 55 bytes), not beginning with '-'. Fails
    the task otherwise, before anything runs."""
    why = None
    if not isinstance(name, str) or not name:
        why = 'an empty name'
    elif name.startswith('-'):
        why = "it begins with '-'"
    elif _has_control(name) or any(c.isspace() for c in name):
        why = 'it holds a blank or a control character'
    elif any(ord(c) > 0x7e for c in name) or '/' in name or name in ('.', '..'):
        why = "a name is printable ASCII without '/', not '.' or '..'"
    elif len(name) > NAME_MAX:
        why = 'longer than %d bytes' % NAME_MAX
    if why:
        module.fail_json(msg='%s: %s is not a module name: %s' % (option, _show(name), why))
    return name


def check_module_file(module, option, path):
    """A module file's path (.ko, .ko.xz or .ko.zst), without control
    characters. Blanks are kept: the path is one argument. Fails the task
    otherwise, before anything runs."""
    why = None
    if not isinstance(path, str) or not path:
        why = 'an empty path'
    elif _has_control(path):
        why = 'it holds a control character'
    elif not path.endswith(MODULE_FILE_SUFFIXES):
        why = 'a module file ends in .ko, .ko.xz or .ko.zst'
    if why:
        module.fail_json(msg='%s: %s is not a module file: %s' % (option, _show(path), why))
    return path


SIZE_RE = re.compile(r'^[0-9]+([KMGTkmgt](iB|B|b)?|[Bb])?$')


def check_size(module, option, text):
    """A size as modreap --down-to reads it (16M, 512K, 4096)."""
    if not isinstance(text, str) or not SIZE_RE.match(text):
        module.fail_json(msg='%s: %s is not a size such as 16M' % (option, _show(text)))
    return text


def check_plain_path(module, option, path):
    """A file's path: not '-' (a tool's standard input), no control characters."""
    if not isinstance(path, str) or not path or path == '-' or _has_control(path):
        module.fail_json(msg='%s: %s is not a file path' % (option, _show(path)))
    return path


# Where a tool is looked for without tools_dir: PATH first, then the
# directories a distribution installs to (a task's PATH may lack sbin).
SEARCH_DIRS = ('/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin')
# The programs a build with --program-prefix=modrot- installs beside kmod's.
PROGRAM_PREFIX = 'modrot-'
MODROT_VERSION_MARK = '(modrot)'


def _tool_identity(module, path):
    """(is modrot's, what it is) of an executable, from its --version."""
    rc, out, err = module.run_command([path, '--version'], environ_update={'LC_ALL': 'C'})
    first = ((out or '').strip() or (err or '').strip()).splitlines()
    first = first[0] if first else 'exit %d' % rc
    if rc == 0 and MODROT_VERSION_MARK in first:
        return True, first
    real = os.path.realpath(path)
    if os.path.basename(real) == 'kmod' or first.startswith('kmod version') or 'kmod' in first:
        return False, "kmod's (%s)" % real
    return False, 'not modrot\'s (%s --version: %s)' % (real, first)


def find_tool(module, name):
    """The path of modrot's tool name. With tools_dir, that directory's;
    without, the first of PATH and SEARCH_DIRS whose name or modrot-name
    says it is modrot's (--version): never kmod's program of the same name,
    which would answer differently. Fails the task naming what it found."""
    tools_dir = module.params.get('tools_dir')
    if tools_dir:
        path = os.path.join(tools_dir, name)
        if not os.access(path, os.X_OK):
            module.fail_json(msg='%s is not an executable modrot tool' % path)
        return path
    cache = getattr(module, '_modrot_tool_paths', None)
    if cache is None:
        cache = {}
        setattr(module, '_modrot_tool_paths', cache)
    if name in cache:
        return cache[name]
    dirs = []
    for d in os.environ.get('PATH', '').split(os.pathsep) + list(SEARCH_DIRS):
        if d and d not in dirs:
            dirs.append(d)
    others = []
    for d in dirs:
        for candidate in (name, PROGRAM_PREFIX + name):
            path = os.path.join(d, candidate)
            if not os.path.isfile(path) or not os.access(path, os.X_OK):
                continue
            ours, what = _tool_identity(module, path)
            if ours:
                cache[name] = path
                return path
            others.append('%s is %s' % (path, what))
    if others:
        module.fail_json(msg='found no modrot %s, only: %s; install modrot, or set tools_dir '
                         'to the directory of its tools' % (name, '; '.join(others)))
    module.fail_json(msg='found no modrot %s in PATH or %s; install modrot, or set tools_dir '
                     'to the directory of its tools' % (name, ', '.join(SEARCH_DIRS)))


def run_tool(module, name, args, ok_codes=(EXIT_OK,)):
    """Runs a modrot tool; returns (rc, parsed JSON or None, stdout, stderr).

    Raises ToolError unless the exit code is one of ok_codes."""
    argv = [find_tool(module, name)] + list(args)
    rc, out, err = module.run_command(argv, environ_update={'LC_ALL': 'C'})
    doc = parse_json(out)
    if rc not in ok_codes:
        raise ToolError(name, rc, err, doc)
    if rc == EXIT_OK and doc is None and '-J' in args:
        # A run that succeeded and did not say what it did cannot be
        # reported as a change or as none.
        module.fail_json(msg='%s -J exited 0 but printed no JSON object (%s)' % (name, argv[0]),
                         rc=rc, stdout=out, stderr=err)
    return rc, doc, out, err


def fail_with(module, exc, **extra):
    """Fails the task with the tool's exit code and message."""
    result = dict(extra)
    result.update(msg=str(exc), rc=exc.rc, tool=exc.tool,
                  stderr=exc.stderr, errors=error_lines(exc.tool, exc.stderr))
    module.fail_json(**result)


# ---- lsmod -J ----

def live_modules(doc):
    """Live (and loading or unloading) modules: list of dicts."""
    mods = []
    for m in as_list((doc or {}).get('modules')):
        if not isinstance(m, dict):
            continue
        state = as_str(m.get('state'), 'live').lower()
        if state == 'rotting':
            continue
        mods.append(dict(name=as_str(m.get('name')), size=as_int(m.get('bytes')),
                         state=state, refcnt=as_int(m.get('refcnt')),
                         holders=[as_str(h) for h in as_list(m.get('holders'))]))
    return mods


def live_names(doc):
    return [m['name'] for m in live_modules(doc)]


# ---- rmmod -J --unused ----

def unload_result(doc):
    """What rmmod -J --unused unloaded (with -n, would unload): names in
    the order of the records, and the records that failed."""
    recs = [m for m in as_list((doc or {}).get('modules')) if isinstance(m, dict)]
    return dict(
        unloaded=[as_str(m.get('name')) for m in recs
                  if as_str(m.get('result')) in ('unloaded', 'would unload')],
        failed=[dict(name=as_str(m.get('name')), message=as_str(m.get('message')))
                for m in recs if as_str(m.get('result')) == 'failed'],
    )


# ---- modreap -J ----

def rot_groups(doc, key='rotting'):
    """The rotting[] (or reclaimed[]) array: list of dicts name, instances, bytes.
    Its members are named after the array: rotting_bytes in rotting[],
    reclaimed_bytes in reclaimed[]."""
    groups = []
    for g in as_list((doc or {}).get(key)):
        if not isinstance(g, dict):
            continue
        groups.append(dict(name=as_str(g.get('name')),
                           instances=as_int(g.get(key + '_instances')),
                           bytes=as_int(g.get(key + '_bytes'))))
    return groups


def rot_report(doc):
    """A report (modreap -J): groups, largest first, and the totals."""
    groups = rot_groups(doc)
    summary = (doc or {}).get('summary') or {}
    return dict(
        rotting=groups,
        rot_names=as_int(summary.get('rotting_names'), len(groups)),
        rot_instances=as_int(summary.get('rotting_instances'),
                             sum(g['instances'] for g in groups)),
        rot_bytes=as_int(summary.get('rotting_bytes'), sum(g['bytes'] for g in groups)),
    )


def percpu_report(doc):
    """The per-CPU module reserve from a report (modreap -J): None when the
    kernel does not report it (percpu_reserve_bytes null in the summary)."""
    summary = (doc or {}).get('summary') or {}
    if summary.get('percpu_reserve_bytes') is None:
        return None
    rotting = [dict(name=as_str(g.get('name')), bytes=as_int(g.get('rotting_percpu_bytes')))
               for g in as_list((doc or {}).get('rotting'))
               if isinstance(g, dict) and as_int(g.get('rotting_percpu_bytes'))]
    return dict(
        reserve=as_int(summary.get('percpu_reserve_bytes')),
        free=as_int(summary.get('percpu_free_bytes')),
        largest_free=as_int(summary.get('percpu_largest_bytes')),
        rot_bytes=as_int(summary.get('rotting_percpu_bytes'),
                         sum(g['bytes'] for g in rotting)),
        rotting=rotting,
    )


def reclaim_result(doc):
    """A reclaiming run (modreap -J with NAME, -a or --down-to)."""
    key = 'reclaimed' if 'reclaimed' in (doc or {}) else 'rotting'
    groups = rot_groups(doc, key)
    summary = (doc or {}).get('summary') or {}
    freed_bytes = as_int(summary.get('reclaimed_bytes'), sum(g['bytes'] for g in groups))
    freed_instances = as_int(summary.get('reclaimed_instances'),
                             sum(g['instances'] for g in groups))
    before = as_str(summary.get('taint_before')) or 'none'
    after = as_str(summary.get('taint_after')) or before
    after_value = summary.get('taint_after_value')
    before_value = summary.get('taint_before_value')
    return dict(
        dry_run=as_bool(summary.get('dry_run')),
        reclaimed=groups,
        instances=freed_instances,
        bytes=freed_bytes,
        rot_left=as_int(summary.get('rotting_bytes')),
        rot_before=as_int(summary.get('rotting_bytes')) + freed_bytes,
        taint_before=before,
        taint_after=after,
        taint_before_value=(as_int(before_value) if before_value is not None
                            else letters_to_mask(before)),
        taint_after_value=(as_int(after_value) if after_value is not None
                           else letters_to_mask(after)),
        failures=as_count(summary.get('failures')),
        refused=as_count(summary.get('kept_instances')),
    )


# ---- insmod -J ----

COUNTS = ('loaded', 'ok', 'refused', 'failed', 'skipped', 'unmatched')


def insmod_result(doc):
    recs = []
    for m in as_list((doc or {}).get('modules')):
        if not isinstance(m, dict):
            continue
        recs.append(dict(name=as_str(m.get('name')), file=as_str(m.get('filename')),
                         result=as_str(m.get('result')), reason=as_str(m.get('reason')),
                         errno=m.get('errno'), error=m.get('error'),
                         message=m.get('message'), rot_bytes=as_int(m.get('rotted_bytes'))))
    summary = (doc or {}).get('summary') or {}

    def count(key):
        return as_int(summary.get(key), sum(1 for r in recs if r['result'] == key))

    def present(r):
        # the module is loaded already, which is what loading it was for
        return r['result'] == 'present'

    return dict(
        modules=recs,
        loaded=[r['name'] for r in recs if r['result'] == 'loaded'],
        present=[r['name'] for r in recs if present(r)],
        failed=[r for r in recs if r['result'] in ('failed', 'refused', 'skipped') and not present(r)],
        unmatched=[r['name'] for r in recs if r['result'] == 'unmatched'],
        counts=dict((k, count(k)) for k in COUNTS),
        rot_bytes=as_int(summary.get('rotted_bytes'), sum(r['rot_bytes'] for r in recs)),
    )


# ---- kernel taint ----

def mask_to_letters(mask):
    letters = ''.join(c for bit, c in enumerate(TAINT_LETTERS) if mask & (1 << bit))
    if mask >> len(TAINT_LETTERS):
        letters += '?'
    return letters or 'none'


def letters_to_mask(letters):
    if not letters or letters == 'none':
        return 0
    mask = 0
    for c in letters:
        bit = TAINT_LETTERS.find(c)
        if bit >= 0:
            mask |= 1 << bit
    return mask


def read_taint():
    """The kernel's taint (its /proc file is a number, not text to parse)."""
    with open(TAINT_FILE) as f:
        mask = as_int(f.read(), -1)
    if mask < 0:
        raise ValueError('%s does not hold a number' % TAINT_FILE)
    return dict(value=mask, letters=mask_to_letters(mask),
                reclaimed=bool(mask & (1 << TAINT_RECLAIM_BIT)))
