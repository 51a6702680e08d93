# SPDX-License-Identifier: GPL-2.0
"""make patch: scripts/mkpatch.sh's one patch is a mail that git am
applies to a pristine tree of its line, here the files the line's patch
series edits, taken from Debian's linux-source-LINE tarball, in a scratch
repository: 6.12 (make patch) and 6.1 (make patch KVER=6.1)."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARBALL = '/usr/src/linux-source-%s.tar.xz'
LINES = ('6.12', '6.1')
GIT_ID = ['-c', 'user.name=lockmeter test', '-c', 'user.email=test@localhost']


def edited_files(line):
    """The tree paths the patches in patches/linux-@line edit."""
    paths = set()
    for p in glob.glob(os.path.join(TOP, 'patches', 'linux-' + line, '*.patch')):
        with open(p) as f:
            for line in f:
                if line.startswith('+++ b/'):
                    paths.add(line[len('+++ b/'):].split()[0])
    return sorted(paths)


def new_files():
    """The tree paths of the files lockmeter adds (scripts/files.sh)."""
    out = subprocess.run([os.path.join(TOP, 'scripts', 'files.sh')], check=True,
                         capture_output=True, text=True).stdout
    return [line.split()[1] for line in out.splitlines() if line.strip()]


@unittest.skipUnless(shutil.which('git'), 'needs git')
class GitAm(unittest.TestCase):
    def git_am(self, line):
        tarball = TARBALL % line
        if not os.path.exists(tarball):
            self.skipTest('needs %s' % tarball)
        edited = edited_files(line)
        self.assertTrue(edited)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(['tar', '-xf', tarball, '-C', d, '--strip-components=1'] +
                           ['linux-source-%s/%s' % (line, p) for p in edited], check=True)
            git = ['git', '-C', d] + GIT_ID
            subprocess.run(git + ['init', '-q'], check=True)
            subprocess.run(git + ['add', '-A'], check=True)
            subprocess.run(git + ['commit', '-q', '-m', 'pristine'], check=True)
            patch = subprocess.run([os.path.join(TOP, 'scripts', 'mkpatch.sh'), line],
                                   check=True, capture_output=True, text=True).stdout
            am = subprocess.run(git + ['am'], input=patch, capture_output=True, text=True)
            self.assertEqual(0, am.returncode, am.stdout + am.stderr)
            subject = subprocess.run(git + ['log', '-1', '--format=%s'], check=True,
                                     capture_output=True, text=True).stdout.strip()
            self.assertEqual('lockmeter: per-call-site hold and wait times of kernel locks',
                             subject)
            for p in new_files():
                self.assertTrue(os.path.isfile(os.path.join(d, p)), p)
            status = subprocess.run(git + ['status', '--porcelain'], check=True,
                                    capture_output=True, text=True).stdout
            self.assertEqual('', status)

    def test_git_am_applies_to_pristine_files(self):
        self.git_am('6.12')

    def test_git_am_applies_to_pristine_files_6_1(self):
        self.git_am('6.1')

    def test_unknown_line_refused(self):
        run = subprocess.run([os.path.join(TOP, 'scripts', 'mkpatch.sh'), '5.4'],
                             capture_output=True, text=True)
        self.assertEqual(2, run.returncode)
        self.assertEqual('', run.stdout)
        self.assertIn('no series patches/linux-5.4', run.stderr)

if __name__ == '__main__':
    unittest.main()
