#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace-report.py [--ops N] A.map:A.trace [B.map:B.trace]

Instructions per function of one instruction trace (scripts/bench/trace.sh),
or of two side by side: where kernel B spends instructions kernel A does
not.  A map is the kernel's System.map; addresses below the kernel's are
[user].  --ops N divides every count by the N operations the trace holds.

Two traces of one workload rarely take the same path mix (a wakeup finds
its task queued or not, a tick lands here or there), so the comparison is
per call: for each function entered in both, B's instructions per call
minus A's, times B's calls per operation (EXCESS).  Their sum is what B's
code costs over A's on B's path mix, whatever the mix; functions only one
kernel has are listed with their whole count.
"""
import argparse
import bisect
import collections
import sys


def load_map(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in "tTwW":
                continue
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def count(mapfile, tracefile):
    """Instructions and entries (execution of the first one) per function."""
    addrs, names = load_map(mapfile)
    per, calls = collections.Counter(), collections.Counter()
    total = 0
    with open(tracefile) as f:
        for line in f:
            pc = int(line, 16)
            total += 1
            if pc < 0xffff800000000000:
                per["[user]"] += 1
                continue
            i = bisect.bisect_right(addrs, pc) - 1
            name = names[i] if i >= 0 else "[?]"
            per[name] += 1
            if i >= 0 and pc == addrs[i]:
                calls[name] += 1
    return per, calls, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    res = []
    for r in a.runs:
        m, t = r.split(":", 1)
        res.append(count(m, t))
    if len(res) == 1:
        per, calls, total = res[0]
        print("%10s %8s  function" % ("INSNS/OP", "CALLS/OP"))
        print("%10.1f %8s  total" % (total / a.ops, ""))
        for name, n in per.most_common(a.top):
            print("%10.1f %8.1f  %s" % (n / a.ops, calls[name] / a.ops, name))
        return 0
    (pa, ca, ta), (pb, cb, tb) = res[0], res[1]
    rows, excess = [], 0.0
    for k in set(pa) | set(pb):
        if ca[k] and cb[k]:
            ipa, ipb = pa[k] / ca[k], pb[k] / cb[k]
            d = (ipb - ipa) * cb[k] / a.ops
        elif pa[k] and pb[k]:
            ipa = ipb = None	# entered before the trace began, or by a jump
            d = 0.0
        else:
            ipa = pa[k] / ca[k] if ca[k] else None
            ipb = pb[k] / cb[k] if cb[k] else None
            d = (pb[k] - pa[k]) / a.ops
        excess += d
        if abs(d) >= 0.05:
            rows.append((d, k, ipa, ipb, cb[k] / a.ops))
    cell = lambda v: "%9.1f" % v if v is not None else "%9s" % "-"
    print("total per op: A %.1f, B %.1f (%+.1f); B's code over A's, per op: %+.1f"
          % (ta / a.ops, tb / a.ops, (tb - ta) / a.ops, excess))
    print("%9s %9s %9s %8s  function" % ("A/CALL", "B/CALL", "B CALLS", "EXCESS"))
    rows.sort(key=lambda x: (-abs(x[0]), x[1]))
    for d, k, ipa, ipb, n in rows[:a.top]:
        print("%s %s %9.1f %+8.1f  %s" % (cell(ipa), cell(ipb), n, d, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
