#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of guest-verdict.py: the judge of make check must fail
every way a guest can go wrong, and count results right."""
import os
import subprocess
import sys
import tempfile
import unittest

VERDICT = os.path.join(os.path.dirname(__file__), '..', 'guest-verdict.py')

BOOT = """\
[    0.000000] Command line: console=ttyS0 lmguest=check
[    0.424761] smp: Brought up 1 node, 2 CPUs
[    0.837321] KTAP version 1
[    0.837400] 1..1
[    0.847072]     KTAP version 1
[    0.847219]     # Subtest: lockmeter_time
[    0.847300]     1..2
[    0.850254]     ok 1 lm_time_inc_first_sets_min
[    0.850613]     ok 2 lm_time_inc_accumulates
[    0.857832] ok 1 lockmeter_time
"""

KSFT = """\
LM-GUEST: start mode=check cpus=2 kernel=6.12.117
LM-GUEST: boot-state off rows=0
LM-GUEST: kselftest begin
TAP version 13
1..2
# selftests: lockmeter: proc_test
# TAP version 13
# 1..2
# ok 1 proc.version_line
# ok 2 proc.header # SKIP no module
ok 1 selftests: lockmeter: proc_test
# selftests: lockmeter: run.sh
ok 2 selftests: lockmeter: run.sh
LM-GUEST: kselftest end rc=0
LM-GUEST: end mode=check rc=0
"""

TORTURE = """\
LM-GUEST: start mode=torture cpus=2 kernel=6.12.117
LM-GUEST: boot-state on rows=40
LM-GUEST: torture begin
TAP version 13
1..2
# spin_lock: 13s, 40 flip cycles, 6 hotplug cycles, writes 5000, reads -
# [   20.100000] spin_lock-torture: Writes:  Total: 5000  Max/Min: 4000/1000 ???  Fail: 0
ok 1 locktorture: spin_lock
ok 2 locktorture: mutex_lock
LM-GUEST: torture end rc=0
"""
TORTURE_BOOT = (BOOT.replace('lmguest=check', 'lmguest=torture lockmeter=on') +
                '[   20.100000] spin_lock-torture: Writes:  Total: 5000  Max/Min: 4000/1000 ???  '
                'Fail: 0\n'
                '[   20.200000] spin_lock-torture:--- End of test: SUCCESS: acq_writer_lim=0\n')

SCEN = """\
LM-GUEST: start mode=scenarios cpus=2 kernel=6.12.117
LM-GUEST: boot-state off rows=0
LM-GUEST: scenarios begin
TAP version 13
1..2
ok 1 scenario fifo: a pipe mutex site (fs/pipe.c) among the top 5 mutexes by WAIT MAX
# after 1 run(s)
ok 2 scenario munmap: mmap_lock at the munmap path among the top 5 rw_semaphores by HOLD MAX
LM-GUEST: scenarios end rc=0
LM-GUEST: end mode=scenarios rc=0
"""
SCEN_BOOT = BOOT.replace('lmguest=check', 'lmguest=scenarios')

# One line's half of the upgrade hunt: a test, then the snapshot, base64
UPGRADE = """\
LM-GUEST: start mode=upgrade cpus=2 kernel=6.1.192
LM-GUEST: boot-state off rows=0
LM-GUEST: upgrade begin
TAP version 13
1..1
LM-SCENARIO: munmap rounds=8 mib=32 big_munmaps=8 slowest_munmap_ns=1 fault_passes=3,4
ok 1 upgrade: the munmap workload metered on 6.1.192, its snapshot (9 bytes) sent to the host
LM-GUEST: upgrade end rc=0
LM-GUEST: file upgrade.snap begin
bG9ja21ldGVyCg==
LM-GUEST: file upgrade.snap end
LM-GUEST: end mode=upgrade rc=0
"""
UPGRADE_BOOT = BOOT.replace('lmguest=check', 'lmguest=upgrade slab_nomerge')

# The scale boot: the distro-sized kernel on 8 vCPUs under stress-ng
SCALE = """\
LM-GUEST: start mode=scale cpus=8 kernel=6.12.117
LM-GUEST: boot-state on rows=900
LM-GUEST: scale begin
TAP version 13
1..4
# stress-ng: metrc: [80] fork                600     40.12      1.00     20.00        14.95
ok 1 scale.stress_ng_ran
ok 2 scale.ops.fork
# table_full: 4037
not ok 3 scale.no_table_full
ok 4 scale.overflow_under_1pct
LM-GUEST: scale end rc=0
LM-GUEST: end mode=scale rc=0
LM-HOST: guest ran 300s
LM-HOST: qemu smp=8 tcg=single cpu=qemu64,-hypervisor
"""
SCALE_BOOT = BOOT.replace('lmguest=check', 'lmguest=scale lockmeter=on') \
                 .replace('2 CPUs', '8 CPUs')

# make soak: the guest kernel on 4 vCPUs (scripts/guest/soak.sh)
SOAK = """\
LM-GUEST: start mode=soak cpus=4 kernel=6.12.117
LM-GUEST: boot-state on rows=700
LM-GUEST: soak begin
TAP version 13
# 3 minutes, 4 CPUs, stress-ng 0.15.06, 27 stressors
# 60s: modholds=5 ctl=9 record=3 top=20 watch=1 held=18 modload=3 hotplug=1
1..3
ok 1 soak.stress_ng_ran
ok 2 soak.loop.ctl
# unexplained:
#   ctl: dropped 3
not ok 3 soak.losses_explained
# summary: steps: modholds=15 ctl=27
LM-GUEST: soak end rc=0
LM-GUEST: end mode=soak rc=0
LM-HOST: guest ran 400s
LM-HOST: qemu smp=4 tcg=single cpu=qemu64,-hypervisor
"""
SOAK_BOOT = BOOT.replace('lmguest=check', 'lmguest=soak lockmeter=on lmsoak=3') \
                .replace('2 CPUs', '4 CPUs')


def run(*logs, mode='check', cpus=2):
    """The verdict on @logs: each the text of a single-file log, or a pair
    (test channel, kernel console) written as NAME.log and NAME.console.log."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, text in enumerate(logs):
            path = os.path.join(d, 'boot%d.log' % i)
            if isinstance(text, tuple):
                text, console = text
                with open(os.path.join(d, 'boot%d.console.log' % i), 'w') as f:
                    f.write(console)
            with open(path, 'w') as f:
                f.write(text)
            paths.append(path)
        p = subprocess.run([sys.executable, VERDICT, '--mode', mode, '--cpus', str(cpus)] + paths,
                           capture_output=True, text=True, check=False)
        return p.returncode, p.stdout


def glue(log, line, kernel):
    """@log with the kernel's line @kernel written into user line @line, as
    a serial port both share writes it: the user's newline comes after."""
    assert line + '\n' in log
    return log.replace(line + '\n', line + kernel + '\r\n\r\n', 1)


class Verdict(unittest.TestCase):
    def test_good_run_counts_leaves(self):
        rc, out = run(BOOT + KSFT)
        self.assertEqual(rc, 0, out)
        # 2 KUnit cases, 1 nested pass, 1 nested skip, 1 plain program
        self.assertEqual(out.splitlines()[-1], '5 passed, 0 failed, 1 skipped')

    def test_host_tap_with_any_byte(self):
        # a host test may print a byte that is not UTF-8 in a description
        fd, tap = tempfile.mkstemp(suffix='.tap')
        try:
            with os.fdopen(fd, 'wb') as f:
                f.write(b'TAP version 13\n1..2\nok 1 - comm "my prog\xff"\nok 2 - two\n')
            fd, log = tempfile.mkstemp(suffix='.log')
            with os.fdopen(fd, 'w') as f:
                f.write(BOOT + KSFT)
            p = subprocess.run([sys.executable, VERDICT, '--mode', 'check', '--cpus', '2',
                                '--tap', tap, log], capture_output=True, text=True, check=False)
            os.unlink(log)
        finally:
            os.unlink(tap)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.splitlines()[-1], '7 passed, 0 failed, 1 skipped')

    def test_two_logs_add_up(self):
        rc, out = run(BOOT + KSFT, BOOT + KSFT)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '10 passed, 0 failed, 2 skipped')

    def test_per_log_lines(self):
        rc, out = run(BOOT + KSFT + 'LM-HOST: guest ran 17s\n',
                      BOOT + KSFT.replace('# ok 1 proc.version_line',
                                          '# not ok 1 proc.version_line'))
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertRegex(lines[-3], r': 5 passed, 0 failed, 1 skipped, 0 errors, guest ran 17s$')
        self.assertRegex(lines[-2], r': 4 passed, 1 failed, 1 skipped, 0 errors$')
        self.assertEqual(lines[-1], '9 passed, 1 failed, 2 skipped')

    def test_failed_selftest(self):
        log = BOOT + KSFT.replace('# ok 1 proc.version_line', '# not ok 1 proc.version_line')
        log = log.replace('ok 1 selftests: lockmeter: proc_test',
                          'not ok 1 selftests: lockmeter: proc_test # exit=1')
        rc, out = run(log)
        self.assertEqual(rc, 1)
        self.assertIn('FAIL:', out)
        self.assertIn('proc.version_line', out)
        self.assertTrue(out.splitlines()[-1].startswith('4 passed, 1 failed'))

    def test_failed_kunit_case(self):
        rc, out = run(BOOT.replace('    ok 2 lm_time', '    not ok 2 lm_time') + KSFT)
        self.assertEqual(rc, 1)
        self.assertIn('kunit: lm_time_inc_accumulates', out)

    def test_kernel_problems_fail(self):
        for line, what in (('Kernel panic - not syncing: No working init found', 'panic'),
                           ('WARNING: CPU: 1 PID: 7 at kernel/x.c:1 f+0x1/0x2', 'WARNING'),
                           ('BUG: unable to handle page fault', 'BUG'),
                           ('Oops: general protection fault', 'oops'),
                           ('WARNING: possible recursive locking detected', 'WARNING')):
            rc, out = run(BOOT + '[    2.000000] ' + line + '\n' + KSFT)
            self.assertEqual(rc, 1, line)
            self.assertIn(what, out)

    def test_lockdep_reports_fail(self):
        # Each report lockdep, DEBUG_ATOMIC_SLEEP or PROVE_RCU makes, on its
        # own line as the kernel prints its first line.
        for line in ('WARNING: possible circular locking dependency detected',
                     'WARNING: inconsistent lock state',
                     'BUG: sleeping function called from invalid context at kernel/x.c:1',
                     'WARNING: lock held when returning to user space!',
                     'WARNING: suspicious RCU usage',
                     'WARNING: possible recursive locking detected',
                     'WARNING: bad unlock balance detected!',
                     'WARNING: held lock freed!',
                     'INFO: trying to register non-static key.',
                     'DEBUG_LOCKS_WARN_ON(1)',
                     'turning off the locking correctness validator.',
                     'BUG: scheduling while atomic: sh/77/0x00000002',
                     'kernel BUG at kernel/locking/lockmeter.c:42!',
                     'rcu: INFO: rcu_sched self-detected stall on CPU',
                     'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:',
                     'INFO: task kworker/0:1:12 blocked for more than 120 seconds.',
                     'Call Trace:'):
            rc, out = run(BOOT + '[    2.000000] ' + line + '\n' + KSFT)
            self.assertEqual(rc, 1, line)
            self.assertIn('ERROR:', out, line)

    def test_torture_boot_counts_types(self):
        rc, out = run(TORTURE_BOOT + TORTURE + KSFT.split('\n', 2)[2])
        self.assertEqual(rc, 0, out)
        # 2 KUnit cases, 2 types, 2 kselftest results, the boot state
        self.assertEqual(out.splitlines()[-1], '7 passed, 0 failed, 1 skipped')

    def test_torture_type_failure(self):
        log = TORTURE.replace('ok 2 locktorture: mutex_lock', 'not ok 2 locktorture: mutex_lock')
        rc, out = run(TORTURE_BOOT + log + KSFT.split('\n', 2)[2])
        self.assertEqual(rc, 1)
        self.assertIn('FAIL:', out)
        self.assertIn('locktorture: mutex_lock', out)

    def test_torture_failure_in_kernel_log(self):
        for end in ('FAILURE', 'LOCK_HOTPLUG'):
            boot = TORTURE_BOOT + '[   30.0] mutex_lock-torture:--- End of test: %s: x=1\n' % end
            rc, out = run(boot + TORTURE + KSFT.split('\n', 2)[2])
            self.assertEqual(rc, 1, end)
            self.assertIn('locktorture failure', out)

    def test_torture_section_missing_or_short(self):
        rc, out = run(TORTURE_BOOT + KSFT)
        self.assertEqual(rc, 1)
        self.assertIn('locktorture run never started', out)
        short = TORTURE.replace('ok 2 locktorture: mutex_lock\n', '')
        rc, out = run(TORTURE_BOOT + short + KSFT.split('\n', 2)[2])
        self.assertEqual(rc, 1)
        self.assertIn('1 of 2 results', out)
        cut = TORTURE.split('ok 2')[0] + 'LM-HOST: timeout after 60s\n'
        rc, out = run(TORTURE_BOOT + cut)
        self.assertEqual(rc, 1)
        self.assertIn('locktorture run did not finish', out)

    def test_check_boot_needs_no_torture(self):
        rc, out = run(BOOT + KSFT)
        self.assertEqual(rc, 0, out)
        self.assertNotIn('locktorture', out)

    def test_scenario_boot_counts_its_tests(self):
        rc, out = run(SCEN_BOOT + SCEN)
        self.assertEqual(rc, 0, out)
        # 2 KUnit cases, 2 scenario tests, the boot state; no kselftests wanted
        self.assertEqual(out.splitlines()[-1], '5 passed, 0 failed, 0 skipped')
        rc, out = run(SCEN_BOOT + SCEN.replace('ok 2 scenario', 'not ok 2 scenario'))
        self.assertEqual(rc, 1)
        self.assertIn('FAIL:', out)
        self.assertIn('scenario munmap', out)

    def test_scenario_section_missing_or_short(self):
        rc, out = run(SCEN_BOOT + KSFT)
        self.assertEqual(rc, 1)
        self.assertIn('scenario tests never started', out)
        short = SCEN.replace('ok 2 scenario munmap', '# ok 2 scenario munmap')
        rc, out = run(SCEN_BOOT + short)
        self.assertEqual(rc, 1)
        self.assertIn('1 of 2 results', out)
        cut = SCEN.split('ok 2')[0] + 'LM-HOST: timeout after 60s\n'
        rc, out = run(SCEN_BOOT + cut)
        self.assertEqual(rc, 1)
        self.assertIn('scenario tests did not finish', out)

    def test_upgrade_boot_counts_its_test(self):
        rc, out = run(UPGRADE_BOOT + UPGRADE)
        self.assertEqual(rc, 0, out)
        # 2 KUnit cases, the upgrade run, the boot state; no kselftests wanted
        self.assertEqual(out.splitlines()[-1], '4 passed, 0 failed, 0 skipped')
        rc, out = run(UPGRADE_BOOT + UPGRADE.replace('ok 1 upgrade', 'not ok 1 upgrade'))
        self.assertEqual(rc, 1)
        self.assertIn('upgrade: the munmap workload', out)
        rc, out = run(UPGRADE_BOOT + UPGRADE.split('ok 1')[0] + 'LM-HOST: timeout after 60s\n')
        self.assertEqual(rc, 1)
        self.assertIn('upgrade hunt run did not finish', out)

    def test_scale_boot_counts_its_tests(self):
        # 8 CPUs from run-guest.sh's line, though --cpus says 2; the
        # failed check fails the run, no kselftests wanted
        rc, out = run((SCALE, SCALE_BOOT), cpus=2)
        self.assertEqual(rc, 1, out)
        self.assertNotIn('ERROR', out)
        self.assertRegex(out, r'(?m)^FAIL: \S+: scale\.no_table_full$')
        # 2 KUnit cases, 3 scale checks, the boot state
        self.assertEqual(out.splitlines()[-1], '6 passed, 1 failed, 0 skipped')
        rc, out = run((SCALE.replace('not ok 3', 'ok 3'), SCALE_BOOT))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '7 passed, 0 failed, 0 skipped')

    def test_scale_boot_cpus(self):
        # 2 of the 8 vCPUs came up
        rc, out = run((SCALE.replace('not ok 3', 'ok 3'), SCALE_BOOT.replace('8 CPUs', '2 CPUs')))
        self.assertEqual(rc, 1)
        self.assertIn('2 CPUs came up, 8 asked for', out)

    def test_scale_section_missing_or_short(self):
        good = SCALE.replace('not ok 3', 'ok 3')
        rc, out = run((KSFT, SCALE_BOOT))
        self.assertEqual(rc, 1)
        self.assertIn('scale run never started', out)
        rc, out = run((good.replace('ok 4 scale.overflow_under_1pct\n', ''), SCALE_BOOT))
        self.assertEqual(rc, 1)
        self.assertIn('scale: 3 of 4 results', out)
        cut = good.split('ok 2')[0] + 'LM-HOST: timeout after 1200s\n'
        rc, out = run((cut, SCALE_BOOT))
        self.assertEqual(rc, 1)
        self.assertIn('scale run did not finish', out)
        self.assertIn('timeout', out)
        # metering off at the first read, though lockmeter=on
        rc, out = run((good.replace('boot-state on rows=900', 'boot-state off rows=0'),
                       SCALE_BOOT))
        self.assertEqual(rc, 1)
        self.assertIn('boot: metering on', out)

    def test_soak_boot_counts_its_tests(self):
        # 4 CPUs from run-guest.sh's line; the failed check fails the run,
        # no kselftests wanted
        rc, out = run((SOAK, SOAK_BOOT), cpus=4)
        self.assertEqual(rc, 1, out)
        self.assertNotIn('ERROR', out)
        self.assertRegex(out, r'(?m)^FAIL: \S+: soak\.losses_explained$')
        # 2 KUnit cases, 2 soak checks, the boot state
        self.assertEqual(out.splitlines()[-1], '5 passed, 1 failed, 0 skipped')
        rc, out = run((SOAK.replace('not ok 3', 'ok 3'), SOAK_BOOT), cpus=4)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '6 passed, 0 failed, 0 skipped')

    def test_soak_section_missing_short_or_hung(self):
        good = SOAK.replace('not ok 3', 'ok 3')
        rc, out = run((KSFT, SOAK_BOOT), cpus=4)
        self.assertEqual(rc, 1)
        self.assertIn('soak run never started', out)
        rc, out = run((good.replace('ok 2 soak.loop.ctl\n', ''), SOAK_BOOT), cpus=4)
        self.assertEqual(rc, 1)
        self.assertIn('soak: 2 of 3 results', out)
        # the host's timeout: the guest hung
        cut = good.split('1..3')[0] + 'LM-HOST: timeout after 1080s\n'
        rc, out = run((cut, SOAK_BOOT), cpus=4)
        self.assertEqual(rc, 1)
        self.assertIn('soak run did not finish', out)
        self.assertIn('timeout', out)
        # a splat on the console, every result ok
        splat = SOAK_BOOT + ('[  300.000000] WARNING: CPU: 2 PID: 9 at kernel/cpu.c:1 f+0x1/0x2\n')
        rc, out = run((good, splat), cpus=4)
        self.assertEqual(rc, 1)
        self.assertRegex(out, r'(?m)^ERROR: \S+\.console\.log: WARNING: ')

    def test_user_text_is_not_a_kernel_problem(self):
        rc, out = run(BOOT + KSFT.replace('LM-GUEST: kselftest end',
                                          'WARNING: 1 table overflow\nLM-GUEST: kselftest end'))
        self.assertEqual(rc, 0, out)

    def test_timeout_and_crash(self):
        truncated = BOOT + KSFT.split('# selftests: lockmeter: run.sh')[0]
        rc, out = run(truncated + 'LM-HOST: timeout after 60s\n')
        self.assertEqual(rc, 1)
        self.assertIn('timeout', out)
        self.assertIn('end marker', out)
        self.assertIn('1 of 2 test programs', out)

    def test_boot_state(self):
        # lockmeter=on and lockmeter=pinned both meter from boot
        for arg in ('lockmeter=on', 'lockmeter=pinned'):
            on = BOOT.replace('lmguest=check', 'lmguest=check ' + arg)
            rc, out = run(on + KSFT.replace('boot-state off rows=0', 'boot-state on rows=12'))
            self.assertEqual(rc, 0, out)
            rc, out = run(on + KSFT)
            self.assertEqual(rc, 1)
            self.assertIn('boot: metering on', out)
        rc, out = run(BOOT + KSFT.replace('boot-state off rows=0', 'boot-state on rows=3'))
        self.assertEqual(rc, 1)

    def test_wrong_cpu_count(self):
        rc, out = run(BOOT + KSFT, cpus=4)
        self.assertEqual(rc, 1)
        self.assertIn('2 CPUs came up, 4 asked for', out)

    def test_cpus_brought_online_by_init(self):
        # maxcpus=1 lmonline=all: one CPU at boot, /init onlines the rest
        one = BOOT.replace('lmguest=check', 'lmguest=check maxcpus=1 lmonline=all') \
                  .replace('2 CPUs', '1 CPU')
        rc, out = run((KSFT.replace('cpus=2', 'cpus=4') +
                       'LM-HOST: qemu smp=4 tcg=multi cpu=qemu64\n', one))
        self.assertEqual(rc, 0, out)
        rc, out = run((KSFT.replace('cpus=2', 'cpus=3') +
                       'LM-HOST: qemu smp=4 tcg=multi cpu=qemu64\n', one))
        self.assertEqual(rc, 1)
        self.assertIn('3 CPUs came up, 4 asked for', out)

    def test_cpus_of_each_boot(self):
        # run-guest.sh notes the boot's -smp: it wins over --cpus
        four = BOOT.replace('2 CPUs', '4 CPUs')
        rc, out = run((KSFT + 'LM-HOST: qemu smp=4 tcg=multi cpu=qemu64\n', four),
                      (KSFT + 'LM-HOST: qemu smp=2 tcg=single cpu=qemu64\n', BOOT))
        self.assertEqual(rc, 0, out)
        rc, out = run((KSFT + 'LM-HOST: qemu smp=4 tcg=multi cpu=qemu64\n', BOOT))
        self.assertEqual(rc, 1)
        self.assertIn('2 CPUs came up, 4 asked for', out)

    def test_no_results_at_all(self):
        rc, out = run('[    0.1] smp: Brought up 1 node, 2 CPUs\nLM-GUEST: end mode=check rc=0\n')
        self.assertEqual(rc, 1)
        self.assertIn('no KUnit results', out)

    def test_kunit_header_with_other_cpus_line_between(self):
        # CI's scale boot (8 vCPUs): a kworker's stack-depth note came
        # between KUnit's "KTAP version 1" and its plan
        noisy = BOOT.replace('[    0.837400] 1..1\n',
                             '[    0.837390] kworker/u32:1 (98) used greatest stack depth: '
                             '14192 bytes left\n[    0.837400] 1..1\n')
        rc, out = run((KSFT, noisy))
        self.assertEqual(rc, 0, out)
        self.assertIn('5 passed, 0 failed, 1 skipped', out)
        # a KTAP line where the plan belongs is no plan
        bad = BOOT.replace('[    0.837400] 1..1\n', '[    0.837400] ok 1 x\n')
        rc, out = run((KSFT, bad))
        self.assertEqual(rc, 1)
        self.assertIn('no KUnit results', out)

    def test_missing_log(self):
        p = subprocess.run([sys.executable, VERDICT, '--mode', 'check', '/nonexistent.log'],
                           capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn('cannot read', p.stdout)

    def test_marker_with_kernel_line_glued(self):
        # build/check-boot-on.log of a clean clone's make check
        log = glue(BOOT + KSFT, 'LM-GUEST: kselftest begin',
                   '[    1.846868] clocksource: Switched to clocksource tsc')
        rc, out = run(log)
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '5 passed, 0 failed, 1 skipped')

    def test_tap_lines_with_kernel_lines_glued(self):
        log = BOOT + KSFT.replace('# ok 1 proc.version_line', '# not ok 1 proc.version_line')
        for i, line in enumerate(('1..2', '# not ok 1 proc.version_line',
                                  'ok 2 selftests: lockmeter: run.sh')):
            log = glue(log, line, '[    2.%06d] random: crng init done' % i)
        rc, out = run(log)
        self.assertEqual(rc, 1)
        self.assertNotIn('ERROR', out)
        self.assertRegex(out, r'(?m)^FAIL: \S+: lockmeter: proc_test: proc\.version_line$')
        self.assertEqual(out.splitlines()[-1], '4 passed, 1 failed, 1 skipped')

    def test_kernel_problem_glued_to_user_line(self):
        log = glue(BOOT + KSFT, 'ok 2 selftests: lockmeter: run.sh',
                   '[   12.000001] BUG: scheduling while atomic: sh/77/0x00000002')
        rc, out = run(log)
        self.assertEqual(rc, 1)
        self.assertRegex(out, r'(?m)^ERROR: \S+boot0\.log: BUG: BUG: scheduling while atomic')

    def test_channel_and_console(self):
        # what run-guest.sh writes: the tests' lines, the console beside them
        rc, out = run((KSFT + 'LM-HOST: guest ran 17s\n', BOOT))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '5 passed, 0 failed, 1 skipped')
        rc, out = run((KSFT, BOOT), (KSFT, BOOT))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '10 passed, 0 failed, 2 skipped')

    def test_console_problem_names_console(self):
        console = BOOT + ('[    3.100000] Oops: int3: 0000 [#1] PREEMPT SMP\n'
                          '[    3.100100] CPU: 1 UID: 0 PID: 80 Comm: sh Not tainted 6.12.117 #1\n')
        rc, out = run((KSFT, console))
        self.assertEqual(rc, 1)
        self.assertRegex(out, r'(?m)^ERROR: \S+/boot0\.console\.log: oops: Oops: int3')

    def test_channel_lines_are_user_lines(self):
        # with a console file, a test's output is never a kernel line, even
        # when it quotes one (dmesg in a test's diagnostics)
        ksft = KSFT.replace('# ok 1 proc.version_line',
                            '[    2.000000] WARNING: CPU: 0 PID: 7 at kernel/x.c:1 f+0x1/0x2\n'
                            '# ok 1 proc.version_line')
        rc, out = run((ksft, BOOT))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines()[-1], '5 passed, 0 failed, 1 skipped')

    def test_demo_mode(self):
        rc, _ = run(BOOT + 'LM-GUEST: end mode=demo rc=0\n', mode='demo')
        self.assertEqual(rc, 0)
        rc, _ = run(BOOT + '[    3.0] Kernel panic - not syncing\n', mode='demo')
        self.assertEqual(rc, 1)


if __name__ == '__main__':
    unittest.main()
