#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of bench-report.py: the medians go in the right rows, the
ratios and the DESIGN.md targets follow from them, and a missing figure
is an error, not a table with holes."""
import os
import subprocess
import sys
import tempfile
import unittest

REPORT = os.path.join(os.path.dirname(__file__), '..', 'bench-report.py')
TESTS = ['pair', 'contended', 'mutex', 'pipe', 'fork', 'clock', 'irq']


def log(state, values, info=''):
    lines = ['[    0.4] smp: Brought up 1 node, 2 CPUs', 'LM-GUEST: bench begin']
    lines += ['LM-BENCH: state=%s test=%s value=%d unit=ns' % (state, t, v)
              for t, v in zip(TESTS, values)]
    return '\n'.join(lines) + '\n' + info + 'LM-GUEST: bench end rc=0\n'


class BenchReport(unittest.TestCase):
    def run_report(self, base, lm, ls, drop=None, extra=()):
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for name, text in (('baseline', base), ('lockmeter', lm), ('lockstat', ls)):
                if drop:
                    text = '\n'.join(l for l in text.splitlines() if drop not in l) + '\n'
                paths[name] = os.path.join(d, name + '.log')
                with open(paths[name], 'w') as f:
                    f.write(text)
            p = subprocess.run([sys.executable, REPORT] + list(extra) +
                               ['%s=%s' % kv for kv in paths.items()],
                               capture_output=True, text=True)
            return p.returncode, p.stdout, p.stderr

    def logs(self, on_pair=60, off_pair=101, off_pipe=10100):
        base = log('none', [100, 200, 100, 10000, 500000, 50, 10])
        lm = (log('off', [off_pair, 200, 100, off_pipe, 500000, 50, 10]) +
              log('on', [on_pair + 100, 900, 800, 11000, 560000, 50, 10],
                  'LM-BENCH-INFO: rows: 264\nLM-BENCH-INFO: table_full: 0\n'))
        ls = log('lock_stat', [600, 1400, 900, 20000, 900000, 50, 10])
        return base, lm, ls

    def test_icount_targets(self):
        # instructions: pair +60 (<= 130), mutex +700 (> 160), pipe 1.10x off
        rc, out, _ = self.run_report(*self.logs(), extra=['--icount'])
        self.assertEqual(rc, 0)
        self.assertIn('instructions per op', out)
        self.assertRegex(out, r'spin pair, added instructions at most 130 +60 +met')
        self.assertRegex(out, r'mutex pair, added instructions at most 160 +700 +MISSED')
        self.assertRegex(out, r'pipe rtt, at most 1\.25x off +1\.09x +met')
        self.assertRegex(out, r'off, spin pair, at most 2 instructions more +\+1 +met')
        self.assertRegex(out, r"on, spin pair, added cost at most 1/5 of lock_stat's +60 vs 500 \(0\.12\) +met")
        self.assertRegex(out, r'off, pipe rtt, within 1% of the baseline +\+1\.0% +met')

    def test_rows_and_ratios(self):
        rc, out, err = self.run_report(*self.logs())
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r'lockmeter, on +160ns +900ns')
        self.assertRegex(out, r'CONFIG_LOCK_STAT +600ns')
        self.assertRegex(out, r'(?m)^lockmeter, on +1\.60x +4\.50x')
        self.assertIn('rows 264, table_full 0', out)

    def test_targets_met(self):
        # on adds 60 ns, lock_stat 500: 0.12 <= 1/5; off +1%; pipe +1%, +10%
        rc, out, _ = self.run_report(*self.logs())
        self.assertEqual(rc, 0)
        self.assertRegex(out, r'per spin pair, within 5% of the baseline +\+1\.0% +met')
        self.assertRegex(out, r"at most 1/5 of lock_stat's +60 ns vs 500 ns \(0\.12\) +met")
        self.assertRegex(out, r'off, pipe rtt, at most \+2% +\+1\.0% +met')
        self.assertRegex(out, r'on, pipe rtt, at most \+15% +\+10\.0% +met')

    def test_targets_missed(self):
        rc, out, _ = self.run_report(*self.logs(on_pair=400, off_pair=114, off_pipe=10500))
        self.assertEqual(rc, 0)
        self.assertRegex(out, r'within 5% of the baseline +\+14\.0% +MISSED')
        self.assertRegex(out, r"lock_stat's +400 ns vs 500 ns \(0\.80\) +MISSED")
        self.assertRegex(out, r'off, pipe rtt, at most \+2% +\+5\.0% +MISSED')

    def test_missing_figure(self):
        rc, out, err = self.run_report(*self.logs(), drop='test=fork')
        self.assertEqual(rc, 1)
        self.assertEqual(out, '')
        self.assertIn('no figure for: baseline none fork', err)


if __name__ == '__main__':
    unittest.main()
