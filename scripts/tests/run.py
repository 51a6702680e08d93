#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the host unit tests (scripts/tests/test_*.py) and write their
results as TAP to the file given, so make check counts them with the
guest's.  Exit status: 0 when all passed."""
import os
import sys
import unittest


class TapResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tap = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.tap.append('ok %d host: %s' % (len(self.tap) + 1, test.id()))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.tap.append('not ok %d host: %s' % (len(self.tap) + 1, test.id()))

    def addError(self, test, err):
        super().addError(test, err)
        self.tap.append('not ok %d host: %s' % (len(self.tap) + 1, test.id()))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.tap.append('ok %d host: %s # SKIP %s' % (len(self.tap) + 1, test.id(), reason))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(here, pattern='test_*.py')
    runner = unittest.TextTestRunner(resultclass=TapResult, verbosity=1, stream=sys.stderr)
    result = runner.run(suite)
    with open(sys.argv[1], 'w') as f:
        f.write('TAP version 13\n1..%d\n' % len(result.tap))
        f.write(''.join(line + '\n' for line in result.tap))
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
