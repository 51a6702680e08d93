# SPDX-License-Identifier: GPL-2.0
"""make soak, without booting: the command make would run (make -n), that
make check does not run it, and the guest script's own contract (the
shell busybox runs, 20 stressors or more that stress-ng knows, a TAP
plan that counts its results)."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOAK_SH = os.path.join(TOP, 'scripts', 'guest', 'soak.sh')


def soak_sh():
    with open(SOAK_SH) as f:
        return f.read()


def mix(text, var):
    """The stressor names of the shell variable @var of soak.sh."""
    m = re.search(r'^%s="(.*?)"$' % var, text, re.M | re.S)
    return [l.split()[0] for l in m.group(1).splitlines() if l.strip()]


class MakeSoak(unittest.TestCase):
    def test_make_n_soak(self):
        # the initramfs taken as built: make -n would run the kernel's
        # build otherwise (its recipes call $(MAKE))
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run(['make', '-s', '-C', TOP, '-n', '-o', 'initramfs-soak', 'soak',
                                'SOAK_MIN=3', 'BUILD=' + d],
                               capture_output=True, text=True, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = ' '.join(p.stdout.replace('\\\n', ' ').split())
        self.assertIn('SMP=4 MEM=1024 TCG_THREAD=single scripts/run-guest.sh', out)
        self.assertIn('/obj/arch/x86/boot/bzImage %s/initramfs-soak.cpio.gz %s/soak.log '
                      '$((3 * 60 + 900)) soak lockmeter=on lmsoak=3' % (d, d), out)
        self.assertIn("sed -n 's/^# summary: / SOAK /p' %s/soak.log" % d, out)
        self.assertIn('scripts/guest-verdict.py --mode check --cpus 4 %s/soak.log' % d, out)

    def test_not_part_of_make_check(self):
        with open(os.path.join(TOP, 'Makefile')) as f:
            text = f.read()
        rule = re.search(r'^guest-check:(.*)$', text, re.M).group(1)
        boots = re.search(r'^BOOTS :=((?:.*\\\n)*.*)$', text, re.M).group(1)
        self.assertNotIn('soak', rule + boots)


class SoakScript(unittest.TestCase):
    @unittest.skipUnless(shutil.which('busybox'), 'no busybox')
    def test_busybox_parses_it(self):
        p = subprocess.run(['busybox', 'sh', '-n', SOAK_SH], capture_output=True, text=True,
                           check=False)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_twenty_stressors_or_more(self):
        text = soak_sh()
        names = mix(text, 'STRESSORS') + mix(text, 'USER_STRESSORS')
        self.assertGreaterEqual(len(names), 20)
        self.assertEqual(len(names), len(set(names)))
        if not shutil.which('stress-ng'):
            self.skipTest('no stress-ng')
        known = subprocess.run(['stress-ng', '--stressors'], capture_output=True, text=True,
                               check=True).stdout.split()
        self.assertEqual([n for n in names if n not in known], [])

    def test_plan_counts_the_results(self):
        # one result per stressor and per loop, and the fixed ones
        text = soak_sh()
        m = re.search(r'echo "1\.\.\$\(\(n_stress \+ n_loops \+ (\d+)\)\)"', text)
        self.assertIsNotNone(m)
        fixed = re.findall(r'^result ', text, re.M)
        self.assertEqual(int(m.group(1)), len(fixed))
        self.assertEqual(len(re.findall(r'^\tresult \$\? "soak\.ops\.\$name"$', text, re.M)), 1)
        self.assertEqual(len(re.findall(r'^\tresult \$bad "soak\.loop\.\$l"$', text, re.M)), 1)


if __name__ == '__main__':
    unittest.main()
