#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# gen_seeds.py DIR: write the binary seeds of the netlink and option
# fuzzers (DIR/nl, DIR/opts); the text seeds are the fixtures.  Attribute
# numbers are those of include/uapi/linux/lockmeter.h.
import os
import struct
import sys


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * (-n % 4)


def u32(kind, v):
    return attr(kind, struct.pack("=I", v))


def u64(kind, v):
    return attr(kind, struct.pack("=Q", v))


def string(kind, s):
    return attr(kind, s.encode() + b"\0")


def row(kind=1, nowait=4, spin=3):
    # type, class, then the 16 counters (R_ACQUIRED = 3 ...), lock, site
    vals = [nowait + spin, nowait, spin, 1, 0, 900, 10, 400, 60, 20, 30,
            0, 0, 0, 0, 1]
    body = u32(1, kind) + u32(2, 0)
    for i, v in enumerate(vals):
        body += u32(3 + i, v) if v < 2**32 else u64(3 + i, v)
    body += string(19, "tasklist_lock") + string(20, "do_exit+0x5c/0xa40")
    return attr(15 | 0x8000, body)


def evidence(kind, pid, comm, frames, addrs=False, owner=None, blocked=None):
    # E_PID 1, E_COMM 2, E_CONTEXT 3, E_CPU 4, E_TIME 5, E_OWNER_PID 6,
    # E_OWNER_COMM 7, E_FRAME 8 (one per frame), E_FRAME_ADDR 9,
    # E_BLOCKED_NS 10, E_BLOCKED_FRAME 11, E_BLOCKED_FRAME_ADDR 12
    body = (u32(1, pid) + attr(2, comm + b"\0") + u32(3, 1) + u32(4, 1) +
            u64(5, 52104331877))
    if owner:
        body += u32(6, owner[0]) + string(7, owner[1])
    for i, f in enumerate(frames):
        body += string(8, f)
        if addrs:
            body += u64(9, 0xffffffffc0a01100 + i)
    if blocked:
        body += u32(10, blocked[0])
        for i, f in enumerate(blocked[1]):
            body += string(11, f)
            if addrs:
                body += u64(12, 0xffffffff81b0c400 + i)
    return attr(kind | 0x8000, body)


def held():
    # A_TRUNCATED 18, then A_HELD 25: H_TYPE 1, H_CLASS 2, H_LOCK 3, H_SITE 4,
    # H_HELD_NS 5, H_PID 6, H_COMM 7, H_CPU 8, H_FRAME 9, H_FRAME_ADDR 10,
    # H_WAITER 11 (W_PID 1, W_COMM 2, W_SITE 3, W_TYPE 4, W_WAITED_NS 5)
    body = (u32(1, 4) + u32(2, 0) + string(3, "lmt_held_mutex[test_lockmeter]") +
            string(4, "lmt_held_holder+0x2a/0x60[test_lockmeter]") + u64(5, 2000412000) +
            u32(6, 431) + string(7, "lmt/holder"))
    for i, f in enumerate(["msleep+0x2d/0x50", "lmt_held_holder+0x3a/0x60 [test_lockmeter]"]):
        body += string(9, f) + u64(10, 0xffffffffc0a02000 + i)
    for pid in (432, 433):
        body += attr(11 | 0x8000, u32(1, pid) + string(2, "lmt/waiter") +
                     string(3, "lmt_held_waiter+0x1e/0x40[test_lockmeter]") + u32(4, 4) +
                     u32(5, 1500000000))
    return u32(18, 1) + attr(25 | 0x8000, body)


def row_evidence():
    # a mutex row, then R_HOLD_EVIDENCE 22 and R_WAIT_EVIDENCE 23 in its nest
    vals = [7, 4, 3, 1, 0, 900, 10, 400, 60, 20, 30, 0, 0, 0, 0, 1]
    body = u32(1, 4) + u32(2, 0)
    for i, v in enumerate(vals):
        body += u32(3 + i, v)
    body += string(19, "lmt_mutex[test_lockmeter]") + string(20, "lmt_hold+0x22/0x50[test_lockmeter]")
    body += evidence(22, 2231, b"my prog\x01\xff",
                     ["lmt_hold+0x22/0x50 [test_lockmeter]", "kthread+0xd2/0x100"], addrs=True,
                     blocked=(49100441, ["schedule_timeout+0x9e/0x170", "msleep+0x2d/0x50"]))
    body += evidence(23, 2232, b"cat", ["pipe_write+0x5a/0x6b0"], owner=(2231, "sh"))
    return attr(15 | 0x8000, body)


def row_hist():
    # a spin row of 7 acquisitions, 3 of them waited, then R_HOLD_HIST 24 and
    # R_WAIT_HIST 25: one HI_COUNT 1 per bucket of fuzz_nl's 4 bounds
    vals = [7, 4, 3, 1, 0, 900, 10, 400, 60, 20, 30, 0, 0, 0, 0, 1]
    body = u32(1, 1) + u32(2, 0)
    for i, v in enumerate(vals):
        body += u32(3 + i, v)
    body += string(19, "lmt_hist_lock[test_lockmeter]")
    body += string(20, "lmt_hist_hold+0x2a/0x60[test_lockmeter]")
    body += attr(24 | 0x8000, u32(1, 0) + u32(1, 2) + u64(1, 4) + u32(1, 1))
    body += attr(25 | 0x8000, u32(1, 3) + u32(1, 0) + u32(1, 0) + u32(1, 0))
    return attr(15 | 0x8000, body)


def status_hist():
    # A_HIST_BOUND 27, once per bucket: a TSC kernel's first bounds
    return (status() + b"".join(u32(27, b) for b in (0, 85, 170, 341, 682)) +
            u64(27, 5726623061))


def status():
    return (u32(1, 1) + string(2, "6.12.117") + u32(3, 2) + u32(4, 1) +
            u64(5, 5000000000) + u32(6, 291) + u32(7, 4096) + u32(9, 8) +
            u64(11, 1 << 40) + u32(16, 3) + u32(23, 2) + u64(24, 57))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1]
    nl = os.path.join(out, "nl")
    opts = os.path.join(out, "opts")
    os.makedirs(nl, exist_ok=True)
    os.makedirs(opts, exist_ok=True)
    write(os.path.join(nl, "dump-row"), b"\0" + row())
    write(os.path.join(nl, "dump-mutex"), b"\0" + row(4, 1, 1))
    write(os.path.join(nl, "dump-evidence"), b"\0" + row_evidence())
    write(os.path.join(nl, "status"), b"\1" + status())
    write(os.path.join(nl, "dump-hist"), b"\0" + row_hist())
    write(os.path.join(nl, "status-hist"), b"\1" + status_hist())
    write(os.path.join(nl, "held"), b"\3" + held())
    # error: flags NLM_F_ACK_TLVS | NLM_F_CAPPED, struct nlmsgerr, a message
    err = struct.pack("=i", -22) + struct.pack("=IHHII", 20, 0x13, 5, 1, 0)
    write(os.path.join(nl, "error"), b"\2" + struct.pack("=H", 0x300) + err +
          string(1, "bad attribute"))
    for name, args in {
        "sort": ["--sort", "maxwait", "-r", "--top", "3"],
        "filters": ["--type", "spin,mutex", "--min-con", "5%", "--min-util=0.5",
                    "--name", "lock"],
        "source": ["--source=proc", "--cpu", "1", "-o", "x.snap", "--json"],
        "bad": ["--csv", "--json", "--top", "0", "--bogus", "-x"],
        "held": ["--over", "500ms", "--json", "--over=0", "--over", "1.5s", "10us"],
        "hist": ["--percentiles", "--sort", "p99hold", "--sort=p999wait", "-r",
                 "lmt_hist_lock@lmt_hist_hold", "--percentiles"],
        "diff": ["10us", "1.5ms", "2s", "1..5ms", "99999999999s", "init_task+0x668",
                 "lmt_hold+0x2a/0x60[test_lockmeter]", "f+0x/0x1", "+0x1"],
    }.items():
        write(os.path.join(opts, name), b"\0".join(a.encode() for a in args))


if __name__ == "__main__":
    main()
