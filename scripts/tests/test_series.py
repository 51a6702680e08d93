# SPDX-License-Identifier: GPL-2.0
"""The patch series of the kernel lines (patches/linux-<line>/) hook the
same points: the same patch names, and in each patch and file the same
lines added and removed (whitespace and lines of braces or nothing
aside), but for what ALLOWED lists, each with its reason.  And each
series applies to its line's Debian tarball with no offset and no fuzz
(scripts/refresh-series.sh writes no patch again)."""
import collections
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NEWEST = '6.12'
LINES = ['6.1']

# What may differ between the newest line's series and another's:
# {(line, patch, file): {(sign, text, 'newest' or 'line')}}, file None for
# a whole patch whose hunks exist on the newest line alone.
ALLOWED = {
    # No architecture selects ARCH_SUPPORTS_RT before 6.12: the PREEMPT_RT
    # hooks have no kernel to go into; 6.1's member says so, no hunks.
    ('6.1', '0014-lockmeter-preempt-rt-hooks.patch', None): 'PREEMPT_RT: 6.12 only',
    # The netlink ops are generated for 6.12; 6.1 builds them with the
    # compat header (genl_split_ops is genl_ops there, NLA_UINT a binary).
    ('6.1', '0002-lockmeter-build.patch', 'kernel/locking/Makefile'): {
        ('+', '# 6.1: the ops table generated for 6.12 (genl_split_ops, NLA_UINT) in', 'line'),
        ('+', "# 6.1's terms, from lockmeter's compat header", 'line'),
        ('+', 'CFLAGS_lockmeter_nl_gen.o := -include $(srctree)/$(src)/lockmeter_compat.h',
         'line'),
    },
    # 6.1's percpu_down_write() traces contention unconditionally: the
    # wait's start goes into the trylock's if, which gets braces (6.12's
    # has them for its contended flag).
    ('6.1', '0012-lockmeter-percpu-rwsem-hooks.patch', 'kernel/locking/percpu-rwsem.c'): {
        ('-', 'if (!__percpu_down_write_trylock(sem))', 'line'),
        ('+', 'if (!__percpu_down_write_trylock(sem)) {', 'line'),
    },
}


def series_dir(line):
    return os.path.join(TOP, 'patches', 'linux-' + line)


def changes(line):
    """{(patch, file): Counter of (sign, text)} of a series, and the
    names of its patches."""
    out = {}
    names = []
    for p in sorted(glob.glob(os.path.join(series_dir(line), '*.patch'))):
        name = os.path.basename(p)
        names.append(name)
        cur = None
        with open(p) as f:
            for raw in f:
                if raw.startswith('+++ b/'):
                    cur = out.setdefault((name, raw[len('+++ b/'):].split()[0]),
                                         collections.Counter())
                    continue
                if cur is None or raw.startswith('--- ') or raw[:1] not in '+-':
                    continue
                text = ' '.join(raw[1:].split())
                if text in ('', '{', '}'):
                    continue
                cur[(raw[0], text)] += 1
    return out, names


class SameHooks(unittest.TestCase):
    def check_line(self, line):
        new, new_names = changes(NEWEST)
        old, old_names = changes(line)
        self.assertEqual(new_names, old_names, 'the same patch names')
        used = set()
        for key in sorted(set(new) | set(old)):
            patch, path = key
            if (line, patch, None) in ALLOWED:
                self.assertNotIn(key, old, '%s: no hunks on %s' % (patch, line))
                used.add((line, patch, None))
                continue
            a = new.get(key, collections.Counter())
            b = old.get(key, collections.Counter())
            diff = {(s, t, 'newest') for (s, t) in a - b}
            diff |= {(s, t, 'line') for (s, t) in b - a}
            allowed = ALLOWED.get((line, patch, path), set())
            if allowed:
                used.add((line, patch, path))
            self.assertEqual(diff - allowed, set(),
                             '%s %s: %s hooks differently from %s' % (patch, path, line,
                                                                      NEWEST))
            self.assertEqual(allowed - diff, set(),
                             '%s %s: allowed to differ but does not' % (patch, path))
        stale = {k for k in ALLOWED if k[0] == line} - used
        self.assertEqual(stale, set(), 'allow-list entries that match nothing')

    def test_6_1_hooks_the_points_6_12_does(self):
        self.check_line('6.1')

    def test_parse_sees_the_hooks(self):
        # the premise: the newest series has the hooks this test compares
        new, _ = changes(NEWEST)
        hooks = sum(n for c in new.values() for (s, t), n in c.items()
                    if s == '+' and 'lockmeter' in t)
        self.assertGreater(hooks, 50)

    def test_a_difference_is_seen(self):
        # a hook moved on one line only is a difference (the checker works)
        new, _ = changes(NEWEST)
        key = ('0007-lockmeter-mutex-hooks.patch', 'kernel/locking/mutex.c')
        edited = collections.Counter(new[key])
        edited[('+', 'lockmeter_acquired(lock, LM_mutex, ip, 0);')] -= 1
        self.assertNotEqual(+edited, new[key])


def tarball(line):
    return '/usr/src/linux-source-%s.tar.xz' % line


class NoFuzz(unittest.TestCase):
    """A line's series applies to its tarball exactly: refreshing it (on a
    copy) rewrites nothing.  The 6.1 line's, the one refresh-series.sh
    made: about 15 s of CPU, most of it unpacking the tarball."""

    def check_line(self, line):
        with tempfile.TemporaryDirectory() as tmp:
            series = os.path.join(tmp, 'linux-' + line)
            shutil.copytree(series_dir(line), series)
            r = subprocess.run([os.path.join(TOP, 'scripts', 'refresh-series.sh'), series,
                                tarball(line), os.path.join(tmp, 'work')],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn('REFRESH', r.stdout, r.stdout)
            for p in os.listdir(series):
                with open(os.path.join(series, p)) as a, \
                     open(os.path.join(series_dir(line), p)) as b:
                    self.assertEqual(a.read(), b.read(), p)

    @unittest.skipUnless(os.path.exists(tarball('6.1')), 'needs ' + tarball('6.1'))
    def test_6_1_applies_with_no_fuzz(self):
        self.check_line('6.1')
