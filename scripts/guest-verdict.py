#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a lockmeter guest run from its logs.

Usage: guest-verdict.py --mode check|demo|bench [--cpus N] LOG [LOG...]

LOG is the guest's test channel (its second serial port: what /init and
the tests print, and run-guest.sh's LM-HOST lines); the kernel console is
the file beside it, LOG with .log replaced by .console.log (run-guest.sh).
A LOG without that file is a single-file log (the console and the tests
on one port): its lines with a printk timestamp are the kernel's, and a
timestamp in mid-line starts a kernel line the port wrote into a user line.

Fails when the kernel panicked, oopsed, hit BUG/WARNING or a lockdep
report, when fewer CPUs than asked came up, when the guest did not reach
its end marker (timeout or crash), and in check mode when any KUnit or
kselftest result is not ok or a planned result is missing.  A boot with
lmguest=torture on its command line must also have a complete
locktorture section, one result per lock type; a boot with
lmguest=scenarios has the scenario tests' section instead of the
kselftests, one with lmguest=upgrade its half of the upgrade hunt
(scripts/guest/scenario.sh), and one with lmguest=scale the scale section
(scripts/guest/scale.sh; its 8 CPUs are counted from run-guest.sh's
"LM-HOST: qemu smp=N" line, whatever --cpus says), and one with
lmguest=soak the soak section (scripts/guest/soak.sh, make soak).  Several logs
(one per boot) are judged together; in check mode the last line is
"N passed, N failed, N skipped" over all of them.
"""
import argparse
import os
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\] ?')
# printk's "[%5lu.%06lu] " in mid-line, strictly, not to take a user's "[1.5]"
TS_GLUED = re.compile(r'\[(?=[ \d]{5,}\.) *\d+\.\d{6}\] ?')
# Matched against kernel lines only (they carry a printk timestamp).
PROBLEMS = [
    (re.compile(r'Kernel panic'), 'kernel panic'),
    (re.compile(r'\bOops\b'), 'oops'),
    (re.compile(r'\bBUG:|kernel BUG at'), 'BUG'),
    (re.compile(r'WARNING:'), 'WARNING'),
    (re.compile(r'general protection fault'), 'general protection fault'),
    (re.compile(r'possible recursive locking|circular locking dependency|'
                r'inconsistent lock state|suspicious RCU usage|'
                r'possible deadlock|DEBUG_LOCKS_WARN_ON|'
                r'turning off the locking correctness validator|'
                r'lock held when returning to user space|held lock freed|'
                r'bad unlock balance|trying to register non-static key|'
                r'INFO: task .* blocked for more than'), 'lockdep/hung-task report'),
    (re.compile(r'detected stalls? on CPUs|self-detected stall'), 'RCU stall'),
    (re.compile(r'End of test: (?!SUCCESS)'), 'locktorture failure'),
    (re.compile(r'Call Trace:'), 'kernel stack trace'),
]
RESULT = re.compile(r'^(not ok|ok) (\d+) ([^#]*?)\s*(?:#\s*(.*))?$')
# A line of KTAP itself (indented, a directive, a result, a plan, a header)
KTAP_LINE = re.compile(r'^(\s|#|ok |not ok |KTAP version |\d+\.\.\d+$)')


def console_log(path):
    """Where run-guest.sh puts the kernel console of test channel @path."""
    return path[:-len('.log')] + '.console.log' if path.endswith('.log') else path + '.console'


def read_lines(path):
    with open(path, 'rb') as f:
        return [l.rstrip('\r') for l in f.read().decode('utf-8', 'replace').splitlines()]


def split_log(path):
    """(kernel lines, user lines, the kernel lines' file) of one boot."""
    console = console_log(path)
    if os.path.exists(console):
        kern = [TS.sub('', l, count=1) for l in read_lines(console) if TS.match(l)]
        return kern, read_lines(path), console
    kern, user = [], []
    for line in read_lines(path):
        m = TS.match(line)
        if m:
            kern.append(line[m.end():])
            continue
        m = TS_GLUED.search(line)
        if m:
            kern.append(line[m.end():])
            line = line[:m.start()]
        user.append(line)
    return kern, user, path


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []

    def add(self, ok, name, directive):
        d = (directive or '').upper()
        if d.startswith('SKIP'):
            self.skipped += 1
        elif ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name + (' # ' + directive if directive else ''))


def kunit(kern, tally, errors):
    """KUnit KTAP on the console: suites at indent 0, cases at indent 4."""
    plan = None
    suites = 0
    started = False
    for line in kern:
        if not started:
            started = line == 'KTAP version 1'
            continue
        if plan is None:
            # Another CPU's printk may land between the header and the
            # plan (a scale boot's 8 vCPUs did: "used greatest stack
            # depth"); any other KTAP line first means no plan.
            if re.match(r'^1\.\.\d+$', line):
                plan = int(line.split('..')[1])
            elif KTAP_LINE.match(line):
                started = False
            continue
        indent = len(line) - len(line.lstrip(' '))
        m = RESULT.match(line.strip())
        if not m:
            continue
        ok = m.group(1) == 'ok'
        if indent == 0:
            suites += 1
            if not ok:
                # A failed suite with no failed case still counts once.
                if not any(f.startswith('kunit: ' + m.group(3) + '.') for f in tally.failures):
                    tally.add(False, 'kunit: ' + m.group(3), m.group(4))
            if suites == plan:
                break
        elif indent == 4:
            tally.add(ok, 'kunit: %s' % m.group(3), m.group(4))
    if started and plan is not None and suites != plan:
        errors.append('KUnit: %d of %d suites reported' % (suites, plan))
    return started


def kselftest(user, tally, errors):
    try:
        begin = user.index('LM-GUEST: kselftest begin')
    except ValueError:
        errors.append('kselftest run never started')
        return
    plan = None
    programs = 0
    nested = []
    for line in user[begin + 1:]:
        if line.startswith('LM-GUEST: kselftest end'):
            break
        if plan is None and re.match(r'^1\.\.\d+$', line):
            plan = int(line.split('..')[1])
            continue
        if line.startswith('# '):
            m = RESULT.match(line[2:].strip())
            if m and not line.startswith('# #'):
                nested.append((m.group(1) == 'ok', m.group(3), m.group(4)))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        programs += 1
        ok, prog, directive = m.group(1) == 'ok', m.group(3), m.group(4)
        prog = prog.replace('selftests: ', '')
        for n_ok, name, d in nested:
            tally.add(n_ok, '%s: %s' % (prog, name), d)
        if not nested or (not ok and all(n[0] for n in nested)):
            tally.add(ok, prog, directive)
        nested = []
    else:
        errors.append('kselftest run did not finish')
    if plan is None:
        errors.append('kselftest: no TAP plan')
    elif programs != plan:
        errors.append('kselftest: %d of %d test programs reported' % (programs, plan))


def host_tap(path, tally):
    """A flat TAP file: a plan and one result line per test."""
    try:
        # a test may print any byte in a diagnostic: never fail on one
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = f.read().splitlines()
    except OSError as e:
        return ['cannot read %s: %s' % (path, e)]
    plan = next((int(l[3:]) for l in lines if re.match(r'^1\.\.\d+$', l)), None)
    n = 0
    for line in lines:
        m = RESULT.match(line)
        if m:
            n += 1
            tally.add(m.group(1) == 'ok', m.group(3), m.group(4))
    if plan is None or plan != n:
        return ['%d results for a plan of %s' % (n, plan)]
    return []


def section(user, tally, errors, marker, what, label):
    """A TAP section between "LM-GUEST: @marker begin" and "... end": its
    plan and one result per line; @what and @label name it in errors."""
    try:
        begin = user.index('LM-GUEST: %s begin' % marker)
    except ValueError:
        errors.append('%s never started' % what)
        return
    plan = None
    n = 0
    for line in user[begin + 1:]:
        if line.startswith('LM-GUEST: %s end' % marker):
            break
        if plan is None and re.match(r'^1\.\.\d+$', line):
            plan = int(line.split('..')[1])
            continue
        m = RESULT.match(line)
        if m:
            n += 1
            tally.add(m.group(1) == 'ok', m.group(3), m.group(4))
    else:
        errors.append('%s did not finish' % what)
    if plan is None:
        errors.append('%s: no TAP plan' % label)
    elif n != plan:
        errors.append('%s: %d of %d results reported' % (label, n, plan))


def torture(user, tally, errors):
    """The locktorture section: a TAP plan and one result per lock type."""
    section(user, tally, errors, 'torture', 'locktorture run', 'locktorture')


def scenarios(user, tally, errors):
    """The scenario tests: a TAP plan and its results, between markers."""
    section(user, tally, errors, 'scenarios', 'scenario tests', 'scenarios')


def upgrade(user, tally, errors):
    """One kernel line's half of the upgrade hunt: the workload metered
    and its snapshot sent; the host diffs the two lines' halves."""
    section(user, tally, errors, 'upgrade', 'upgrade hunt run', 'upgrade')


def scale(user, tally, errors):
    """The scale boot (scripts/guest/scale.sh): stress-ng ran each stressor,
    the tables held the workload; a TAP plan and its results."""
    section(user, tally, errors, 'scale', 'scale run', 'scale')


def soak(user, tally, errors):
    """make soak (scripts/guest/soak.sh): its loops, losses, alerts and
    the module's rows; a TAP plan and its results."""
    section(user, tally, errors, 'soak', 'soak run', 'soak')


def cmdline_args(kern):
    return next((l for l in kern if l.startswith('Command line:')), '').split()


def boot_state(kern, user, tally):
    """lockmeter=on must meter from boot; without it metering starts off."""
    args = cmdline_args(kern)
    want_on = 'lockmeter=on' in args or 'lockmeter=pinned' in args
    m = next((re.match(r'^LM-GUEST: boot-state (\S*) rows=(\d*)', l) for l in user
              if l.startswith('LM-GUEST: boot-state')), None)
    name = 'boot: metering %s at first read' % ('on, rows > 0' if want_on else 'off')
    ok = bool(m) and (m.group(1) == 'on' and int(m.group(2) or 0) > 0 if want_on
                      else m.group(1) == 'off')
    tally.add(ok, name, None)


def judge(path, mode, cpus, tally):
    """Append this log's results to @tally; return its list of errors,
    each "FILE: what", FILE the one it was found in."""
    try:
        kern, user, kfile = split_log(path)
    except OSError as e:
        return ['%s: cannot read %s: %s' % (path, e.filename, e)]

    kerr, errors = [], []
    for line in kern:
        for rx, what in PROBLEMS:
            if rx.search(line):
                kerr.append('%s: %s' % (what, line.strip()))
                break
    m = None
    for line in kern:
        m = re.search(r'smp: Brought up \d+ nodes?, (\d+) CPUs?', line) or m
    if not m:
        kerr.append('no "smp: Brought up" line: the kernel did not finish booting')
    else:
        # the CPUs this boot had, as run-guest.sh noted it, over --cpus
        q = next((re.match(r'^LM-HOST: qemu smp=(\d+)', l) for l in user
                  if l.startswith('LM-HOST: qemu smp=')), None)
        cpus = int(q.group(1)) if q else cpus
    if m and 'maxcpus=1' in cmdline_args(kern) and 'lmonline=all' in cmdline_args(kern):
        # booted on one CPU, the rest brought online by /init: its count
        s = next((re.match(r'^LM-GUEST: start .*\bcpus=(\d+)', l) for l in user
                  if l.startswith('LM-GUEST: start ')), None)
        m = s or m
    if m and int(m.group(1)) != cpus:
        kerr.append('%s CPUs came up, %d asked for' % (m.group(1), cpus))
    timeout = [l for l in user if l.startswith('LM-HOST: timeout')]
    if timeout:
        errors.append('guest ' + timeout[0][len('LM-HOST: '):])
    if not any(l.startswith('LM-GUEST: end') for l in user):
        errors.append('guest never reached its end marker (crash, panic or timeout)')
    if mode == 'check':
        boot_state(kern, user, tally)
        if not kunit(kern, tally, kerr):
            kerr.append('no KUnit results in the log')
        if 'lmguest=torture' in cmdline_args(kern):
            torture(user, tally, errors)
        if 'lmguest=scenarios' in cmdline_args(kern):
            scenarios(user, tally, errors)
        elif 'lmguest=upgrade' in cmdline_args(kern):
            upgrade(user, tally, errors)
        elif 'lmguest=scale' in cmdline_args(kern):
            scale(user, tally, errors)
        elif 'lmguest=soak' in cmdline_args(kern):
            soak(user, tally, errors)
        else:
            kselftest(user, tally, errors)
    return ['%s: %s' % (kfile, e) for e in kerr] + ['%s: %s' % (path, e) for e in errors]


def guest_time(path):
    """The guest's wall time run-guest.sh noted in the log, or None."""
    try:
        _, user, _ = split_log(path)
    except OSError:
        return None
    m = next((re.match(r'^LM-HOST: guest ran (\d+)s', l) for l in user
              if l.startswith('LM-HOST: guest ran')), None)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('logs', nargs='+', metavar='LOG')
    ap.add_argument('--mode', choices=('check', 'demo', 'bench'), required=True)
    ap.add_argument('--cpus', type=int, default=2)
    ap.add_argument('--tap', action='append', default=[],
                    help='a plain TAP file (host tests) to count as well')
    args = ap.parse_args()

    tally = Tally()
    bad = False
    for path in args.tap:
        before = len(tally.failures)
        errors = host_tap(path, tally)
        for f in tally.failures[before:]:
            print('FAIL: %s: %s' % (path, f))
        for e in errors:
            print('ERROR: %s: %s' % (path, e))
        bad = bad or bool(errors)
    per_log = []
    for path in args.logs:
        before = len(tally.failures)
        counts = (tally.passed, tally.failed, tally.skipped)
        errors = judge(path, args.mode, args.cpus, tally)
        for f in tally.failures[before:]:
            print('FAIL: %s: %s' % (path, f))
        for e in errors:
            print('ERROR: ' + e)
        bad = bad or bool(errors)
        per_log.append((path, tally.passed - counts[0], tally.failed - counts[1],
                        tally.skipped - counts[2], len(errors), guest_time(path)))
    if args.mode == 'check' and len(per_log) > 1:
        for path, p, f, s, e, secs in per_log:
            print('  %s: %d passed, %d failed, %d skipped, %d errors%s' %
                  (path, p, f, s, e, ', guest ran %ss' % secs if secs else ''))
    if args.mode == 'check':
        print('%d passed, %d failed, %d skipped' % (tally.passed, tally.failed, tally.skipped))
        if tally.passed + tally.failed == 0:
            print('ERROR: no test results at all')
            return 1
        return 1 if tally.failed or bad else 0
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
