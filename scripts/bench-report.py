#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of "make bench": the medians of each kernel, and ratios.

Usage: bench-report.py [--icount] baseline=LOG lockmeter=LOG lockstat=LOG

Reads the "LM-BENCH: state=S test=T value=V unit=ns" lines that
scripts/guest/bench.sh printed in each guest's serial log, prints one row
per (kernel, state) in ns, then each row against the baseline, and the
targets of DESIGN.md section 6 with what was measured.  Absolute times
under QEMU/TCG mean little; the ratios, all from one run, are the result.
With --icount the logs come from boots under -icount shift=0,sleep=off,
where each figure is a count of guest instructions, the same from boot to
boot; the targets are then those of instructions (the primary figures).
Exits 1 when a log lacks a figure.
"""
import re
import sys

TESTS = ['pair', 'contended', 'mutex', 'pipe', 'fork', 'clock', 'irq']
HEAD = {
    'pair': 'spin pair',
    'contended': 'contended',
    'mutex': 'mutex pair',
    'pipe': 'pipe rtt',
    'fork': 'fork+exit',
    'clock': 'clock read',
    'irq': 'irq off/on',
}
# (kernel, state) rows in the order they are printed
ROWS = [('baseline', 'none', 'baseline (no lockmeter)'),
        ('lockmeter', 'off', 'lockmeter, off'),
        ('lockmeter', 'on', 'lockmeter, on'),
        ('lockstat', 'lock_stat', 'CONFIG_LOCK_STAT')]
LINE = re.compile(r'LM-BENCH: state=(\S+) test=(\S+) value=(\d+) unit=ns')
INFO = re.compile(r'LM-BENCH-INFO: (\S+): (\S+)')


def read(path):
    vals, info = {}, {}
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.search(line)
            if m:
                vals[(m.group(1), m.group(2))] = int(m.group(3))
            m = INFO.search(line)
            if m:
                info[m.group(1)] = m.group(2)
    return vals, info


def fmt_ns(v):
    if v >= 100000:
        return '%.0fus' % (v / 1000.0)
    return '%dns' % v


def wall_checks(v, base, off, on, ls):
    """The targets for wall time under TCG."""
    added_on = v(on, 'pair') - v(base, 'pair')
    added_ls = v(ls, 'pair') - v(base, 'pair')
    checks = [
        ('off, per spin pair, within 5% of the baseline',
         '%+.1f%%' % (100.0 * (v(off, 'pair') / v(base, 'pair') - 1)),
         v(off, 'pair') <= 1.05 * v(base, 'pair')),
        ('on, added cost per spin pair, at most 1/5 of lock_stat\'s',
         '%d ns vs %d ns (%.2f)' % (added_on, added_ls, added_on / added_ls if added_ls else 0),
         added_ls > 0 and added_on <= added_ls / 5.0),
    ]
    for t in ('pipe', 'fork'):
        checks.append(('off, %s, at most +2%%' % HEAD[t],
                       '%+.1f%%' % (100.0 * (v(off, t) / v(base, t) - 1)),
                       v(off, t) <= 1.02 * v(base, t)))
        checks.append(('on, %s, at most +15%%' % HEAD[t],
                       '%+.1f%%' % (100.0 * (v(on, t) / v(base, t) - 1)),
                       v(on, t) <= 1.15 * v(base, t)))
    return checks


def icount_checks(v, base, off, on, ls):
    """The targets in instructions (the hot-path issue's)."""
    checks = []
    for t, most in (('pair', 130), ('mutex', 160), ('contended', 250)):
        added = v(on, t) - v(base, t)
        checks.append(('on, %s, added instructions at most %d' % (HEAD[t], most),
                       '%d' % added, added <= most))
    for t in ('pipe', 'fork'):
        r = v(on, t) / v(off, t)
        checks.append(('on, %s, at most 1.25x off' % HEAD[t], '%.2fx' % r, r <= 1.25))
        d = v(off, t) / v(base, t) - 1
        checks.append(('off, %s, within 1%% of the baseline' % HEAD[t],
                       '%+.1f%%' % (100.0 * d),
                       abs(v(off, t) - v(base, t)) * 100 <= v(base, t)))
    for t in ('pair', 'mutex'):
        d = v(off, t) - v(base, t)
        checks.append(('off, %s, at most 2 instructions more' % HEAD[t], '%+d' % d, d <= 2))
    for t in ('pair', 'pipe'):
        added_on = v(on, t) - v(base, t)
        added_ls = v(ls, t) - v(base, t)
        checks.append(('on, %s, added cost at most 1/5 of lock_stat\'s' % HEAD[t],
                       '%d vs %d (%.2f)' % (added_on, added_ls,
                                            added_on / added_ls if added_ls else 0),
                       added_ls > 0 and added_on <= added_ls / 5.0))
    return checks


def main():
    icount = '--icount' in sys.argv[1:]
    logs = dict(a.split('=', 1) for a in sys.argv[1:] if '=' in a)
    if set(logs) != {'baseline', 'lockmeter', 'lockstat'}:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    data, info = {}, {}
    for kernel, path in logs.items():
        vals, inf = read(path)
        info[kernel] = inf
        for (state, test), v in vals.items():
            data[(kernel, state, test)] = v
    missing = ['%s %s %s' % (k, s, t) for k, s, _ in ROWS for t in TESTS
               if (k, s, t) not in data]
    if missing:
        print('bench-report: no figure for: ' + ', '.join(missing), file=sys.stderr)
        return 1

    def v(row, test):
        return data[(row[0], row[1], test)]

    base = ROWS[0]
    w = 25
    if icount:
        print('lockmeter bench, icount: medians of 5 runs, one QEMU session per kernel '
              'under -icount shift=0,sleep=off, same tree')
        unit, cell = 'instructions per op', lambda x: '%d' % x
    else:
        print('lockmeter bench, wall time: medians of 5 runs, one QEMU/TCG session per '
              'kernel, same tree')
        unit, cell = 'ns per operation', fmt_ns
    print()
    print('%-*s' % (w, unit) + ''.join('%12s' % HEAD[t] for t in TESTS))
    for row in ROWS:
        print('%-*s' % (w, row[2]) + ''.join('%12s' % cell(v(row, t)) for t in TESTS))
    print()
    print('%-*s' % (w, 'against the baseline') + ''.join('%12s' % HEAD[t] for t in TESTS))
    for row in ROWS[1:]:
        print('%-*s' % (w, row[2]) +
              ''.join('%11.2fx' % (v(row, t) / v(base, t)) for t in TESTS))
    print()

    off, on, ls = ROWS[1], ROWS[2], ROWS[3]
    checks = (icount_checks if icount else wall_checks)(v, base, off, on, ls)
    print('targets (%s)' % ('instructions, the primary figures' if icount
                            else 'wall time under TCG, secondary'))
    for what, got, ok in checks:
        print('  %-60s %-24s %s' % (what, got, 'met' if ok else 'MISSED'))
    lm = info.get('lockmeter', {})
    if lm:
        print()
        print('lockmeter after the "on" runs: ' +
              ', '.join('%s %s' % (k, lm[k]) for k in
                        ('rows', 'slots_used', 'dropped', 'table_full', 'recursion') if k in lm))
    return 0


if __name__ == '__main__':
    sys.exit(main())
