#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a synthetic lockstat snapshot with N rows, for the benchmark and tests.

    gen_snapshot.py [--rows N] [--seed S] [-o FILE]

Names look like a real kernel's: static locks of each of the thirteen
types (tasklist_lock, rtnl_mutex, console_sem, module-glued
lmt_*[test_lockmeter]), static per-CPU locks (percpu:runqueues+0x0) with
many sites each, and a majority of [heap] rows, one per site, each of
which the reader turns into a lock of its own (the expensive case).
Every row is self-consistent (acquired = nowait + spin, min <= max <=
total, oncpu + blocked = hold for sleeping locks), and (type, lock, site)
is unique.  The key directory is full (keys_used = keys) and each type
has its overflow row, named after its longest hold
("*overflow*(worst:LOCK)" at that hold's site), as a kernel with one key
directory for all CPUs writes them.  Deterministic for a given seed: the
host tests' fixtures/types.snap is --rows 40 --seed 29.
"""
import argparse
import random
import sys

TYPES = ["spin", "read", "write", "mutex", "rwsem_read", "rwsem_write", "rt_mutex",
         "percpu_rwsem_read", "percpu_rwsem_write", "semaphore", "rt_spin", "rt_read",
         "rt_write"]
SLEEPING = {"mutex", "rwsem_read", "rwsem_write", "rt_mutex", "percpu_rwsem_read",
            "percpu_rwsem_write", "semaphore", "rt_spin", "rt_read", "rt_write"}
STATIC = {
    "spin": ["jiffies_lock", "percpu:runqueues+0x0", "percpu:timer_bases+0x0",
             "css_set_lock", "pgd_lock", "lmt_static_lock[test_lockmeter]"],
    "read": ["tasklist_lock", "lmt_rwlock[test_lockmeter]", "binfmt_lock"],
    "write": ["tasklist_lock", "lmt_rwlock[test_lockmeter]", "file_systems_lock"],
    "mutex": ["rtnl_mutex", "cgroup_mutex", "module_mutex", "lmt_mutex[test_lockmeter]"],
    "rwsem_read": ["uts_sem", "namespace_sem", "cgroup_threadgroup_rwsem"],
    "rwsem_write": ["namespace_sem", "lmt_rwsem[test_lockmeter]", "shrinker_rwsem"],
    "rt_mutex": ["lmt_rt_mutex[test_lockmeter]"],
    "percpu_rwsem_read": ["cgroup_threadgroup_rwsem", "cpu_hotplug_lock", "file_rwsem"],
    "percpu_rwsem_write": ["cgroup_threadgroup_rwsem", "cpu_hotplug_lock",
                           "lmt_pcpu_rwsem[test_lockmeter]"],
    "semaphore": ["console_sem", "lmt_sem[test_lockmeter]"],
    # PREEMPT_RT's spinlock_t and rwlock_t
    "rt_spin": ["css_set_lock", "inode_hash_lock", "mmlist_lock"],
    "rt_read": ["tasklist_lock", "binfmt_lock"],
    "rt_write": ["tasklist_lock", "file_systems_lock"],
}
FUNCS = ["d_alloc", "__wake_up_common_lock", "try_to_wake_up", "do_wait", "copy_process",
         "release_task", "pipe_write", "pipe_read", "lock_vma_under_rcu", "vm_mmap_pgoff",
         "do_truncate", "lookup_slow", "rtnl_lock", "__mod_timer", "run_timer_softirq",
         "raw_spin_rq_lock_nested", "kmem_cache_alloc", "dput", "iput", "ext4_da_write_begin",
         "tcp_sendmsg", "unix_stream_sendmsg", "mutex_lock_io", "filemap_fault"]

LEGEND = ("# type acquired nowait spin reject abort hold_total_ns hold_min_ns hold_max_ns "
          "wait_total_ns wait_min_ns wait_max_ns oncpu_total_ns oncpu_max_ns "
          "blocked_total_ns blocked_max_ns instances lock site\n")


def row(rng, t, lock, site):
    nowait = rng.randint(1, 200000)
    spin = rng.randint(0, nowait // 10)
    reject = rng.randint(0, 50) if rng.random() < 0.1 else 0
    abort = rng.randint(0, 5) if t in SLEEPING and rng.random() < 0.05 else 0
    acq = nowait + spin
    hmin = rng.randint(50, 2000)
    hmax = hmin + rng.randint(0, 5000000)
    htot = max(hmax, acq * (hmin + (hmax - hmin) // 50))
    if spin:
        wmin = rng.randint(50, 5000)
        wmax = wmin + rng.randint(0, 3000000)
        wtot = max(wmax, spin * (wmin + (wmax - wmin) // 20))
    else:
        wmin = wmax = wtot = 0
    if t in SLEEPING:
        otot = htot * rng.randint(10, 100) // 100
        omax = min(hmax, otot)
        btot = htot - otot
        bmax = min(hmax, btot)
    else:
        otot = omax = btot = bmax = 0
    inst = rng.randint(1, 266) if lock == "[heap]" else 1
    return "%-5s %9d %9d %7d %7d %5d %13d %10d %10d %13d %10d %10d %13d %10d %13d %10d %5d %s %s\n" % (
        t, acq, nowait, spin, reject, abort, htot, hmin, hmax, wtot, wmin, wmax,
        otot, omax, btot, bmax, inst, lock, site)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rows = []
    for i in range(a.rows):
        t = TYPES[i % len(TYPES)]
        fn = FUNCS[(i // len(TYPES)) % len(FUNCS)]
        # the index makes the site unique; sizes look like real ones
        site = "%s+0x%x/0x%x" % (fn, 0x10 + i, 0x100000 + i)
        if rng.random() < 0.3:
            site += "[test_lockmeter]"
        lock = "[heap]" if rng.random() < 0.6 else rng.choice(STATIC[t])
        rows.append(row(rng, t, lock, site))
    # the overflow rows: the events of the keys that found the directory full
    for t in TYPES:
        fn = rng.choice(FUNCS)
        worst = rng.choice(STATIC[t] + ["[heap]"])
        rows.append(row(rng, t, "*overflow*(worst:%s)" % worst,
                        "%s+0x%x/0x%x" % (fn, rng.randint(0x10, 0xfff), 0x2000)))
    # full: a key per row but the overflow ones, 64 bytes each
    keys = len(rows) - len(TYPES)
    mem_keys = 64 * keys
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write("lockstat snapshot version 1\n"
              "command: record\nsource: netlink\nsystem: Linux\nnode: bench\n"
              "release: 6.12.117\nuname_version: #1 SMP PREEMPT_DYNAMIC\nmachine: x86_64\n"
              "kernel: 6.12.117\ncpus: 2\nstate: off\n"
              "start: 1732968000.000000000\nend: 1732968060.000000000\n"
              "metered_ns: 60000000000\nresets: 1\nkeys_used: %d\nkeys: %d\n"
              "slots_used: %d\nslots_per_cpu: %d\nrows: %d\nmem_percpu: 262144\n"
              "mem_tables: %d\nmem_task: 56\nmem_keys: %d\ndropped: 0\nunmatched: 31\n"
              "recursion: 0\ntable_full: 1234\nevicted: 0\n\n"
              % (keys, keys, keys, keys, len(rows), 2 * 262144 + mem_keys, mem_keys))
    out.write(LEGEND)
    out.writelines(rows)
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
