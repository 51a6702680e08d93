# SPDX-License-Identifier: GPL-2.0
"""Memory the lock path finds through a pointer published while it runs
must be published with release semantics and read with acquire
semantics: on a weakly ordered machine (arm64) another CPU may otherwise
see the pointer before what it points to.  The guest is x86 under TCG,
where no test can see the reordering, so the source is checked: each
pointer below, the places that publish it and the lock path's load."""
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCKING = os.path.join(TOP, 'kernel', 'locking')

# (per-CPU pointer, file that publishes it, file whose lock path reads it)
PUBLISHED = [
    ('lm_alert_rings', 'lockmeter_watch.c', 'lockmeter_spin.c'),
]


def source(name):
    with open(os.path.join(LOCKING, name)) as f:
        return f.read()


class Publication(unittest.TestCase):
    def test_published_with_release(self):
        for var, pub, _ in PUBLISHED:
            text = source(pub)
            stores = re.findall(r'(\w+)\(\s*(?:&\s*)?per_cpu(?:_ptr)?\(\s*&?%s\b' % var, text)
            plain = re.findall(r'per_cpu\(\s*%s\s*,[^)]*\)\s*=[^=]' % var, text)
            self.assertFalse(plain, '%s: plain store to %s' % (pub, var))
            writes = [s for s in stores if s in ('WRITE_ONCE', 'smp_store_release')]
            self.assertTrue(writes, '%s: no store of %s found' % (pub, var))
            self.assertEqual(set(writes), {'smp_store_release'},
                             '%s: %s published without release' % (pub, var))

    def test_read_with_acquire_in_lock_path(self):
        for var, _, reader in PUBLISHED:
            text = source(reader)
            self.assertNotRegex(text, r'this_cpu_read\(\s*%s\s*\)' % var,
                                '%s: %s read without acquire' % (reader, var))
            self.assertRegex(text, r'smp_load_acquire\(\s*this_cpu_ptr\(\s*&%s\s*\)\s*\)' % var,
                             '%s: no acquire load of %s' % (reader, var))


if __name__ == '__main__':
    unittest.main()
