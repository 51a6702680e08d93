#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# top_hangup.py: lockstat top on a pseudo-terminal that goes away, or is
# signalled, while top waits in a prompt or between frames.  Each case
# must end the process within 2 s (polled every 50 ms), however long the
# prompt would have waited for a key; a process still there after that
# is killed and the case fails.  Prints "ok - " / "not ok - " lines for
# run.sh.
#
# Two kinds of terminal: one that is top's controlling terminal (a hang-up
# sends SIGHUP), and one that is not (no signal; only reads and polls of
# the terminal say it is gone, as when a tmux server is killed under a
# process re-parented to init).
#
# usage: top_hangup.py LOCKSTAT FIXTURES [PROCFILE]
import errno
import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import time

LOCKSTAT, FIXTURES = sys.argv[1], sys.argv[2]
results = []


def report(ok, name, why=""):
    results.append(("ok - " if ok else "not ok - ") + "top hangup: " + name)
    if not ok and why:
        results.extend("# " + l for l in why.splitlines()[-12:])


class Top:
    """lockstat top ARGS on a new 120x40 pseudo-terminal."""

    def __init__(self, args, ctty, env=None):
        self.out = b""
        master, slave = os.openpty()
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        e = dict(os.environ, TERM="screen", TZ="UTC")
        e.update(env or {})
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                if ctty:
                    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                os.close(master)
                os.close(slave)
                os.execve(LOCKSTAT, [LOCKSTAT, "top"] + args, e)
            finally:
                os._exit(127)
        os.close(slave)
        self.pid, self.master, self.status = pid, master, None

    def read(self, secs):
        """what the terminal got within @secs"""
        end = time.monotonic() + secs
        while self.master >= 0 and time.monotonic() < end:
            r, _, _ = select.select([self.master], [], [], 0.05)
            if not r:
                continue
            try:
                b = os.read(self.master, 65536)
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                b = b""
            if not b:
                return
            self.out += b

    def wait_for(self, pattern, secs=5):
        """the screen shows @pattern (a bytes regex) within @secs"""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if re.search(pattern, self.out):
                return True
            self.read(0.1)
        return bool(re.search(pattern, self.out))

    def send(self, keys):
        os.write(self.master, keys)

    def hangup(self):
        os.close(self.master)
        self.master = -1

    def gone_within(self, secs):
        """the process ended within @secs; else it is killed"""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = st
                # what it wrote last may still be in the pty: read it all
                # (the read ends at EIO once no process has the slave)
                if self.master >= 0:
                    self.read(1)
                return True
            if self.master >= 0:
                self.read(0.05)
            else:
                time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return False

    def close(self):
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def screen(self):
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b" ", self.out).decode("ascii", "replace")


def case(name, args, ctty, keys, prompt, action, env=None):
    """top ARGS; once a frame is shown, @keys; once @prompt is, @action"""
    t = Top(args, ctty, env)
    try:
        if not t.wait_for(rb"ACQ/s"):
            report(False, name + ": the first frame", t.screen())
            t.gone_within(0)
            return None
        if keys:
            t.send(keys)
        if prompt and not t.wait_for(prompt):
            report(False, name + ": the prompt", t.screen())
            t.gone_within(0)
            return None
        t.read(0.2)
        action(t)
        ok = t.gone_within(2)
        report(ok, name + ": the process ends within 2 s", "" if ok else t.screen())
        return t if ok else None
    finally:
        t.close()


snap = os.path.join(FIXTURES, "stacks.snap")
replay = ["-d", "2", "--replay", snap]
sigterm = lambda t: os.kill(t.pid, signal.SIGTERM)

# the reproduction of the issue: the interval prompt, then the terminal goes
case("hang-up in the d prompt, SIGHUP", replay, True, b"d", rb"interval in seconds", Top.hangup)
t = case("hang-up in the d prompt, no SIGHUP (not the controlling terminal)", replay, False, b"d",
         rb"interval in seconds", Top.hangup)
if t:
    report(os.WIFEXITED(t.status) and os.WEXITSTATUS(t.status) == 1,
           "hang-up in the d prompt, no SIGHUP: exit 1", "status %r" % t.status)
case("hang-up in the / prompt, no SIGHUP", replay, False, b"/", rb"show names containing",
     Top.hangup)
case("hang-up between frames, no SIGHUP", replay, False, b"", None, Top.hangup)
case("hang-up on the help screen, no SIGHUP", replay, False, b"h", rb"press any key", Top.hangup)
t = case("SIGTERM in the d prompt", replay, True, b"d", rb"interval in seconds", sigterm)
if t:
    report(os.WIFEXITED(t.status) and os.WEXITSTATUS(t.status) == 0,
           "SIGTERM in the d prompt: exit 0", "status %r" % t.status)
    # TERM=screen: rmcup leaves the alternate screen, cnorm shows the cursor
    tail = t.out[t.out.rfind(b"interval in seconds"):]
    report(b"\x1b[?1049l" in tail and b"\x1b[?25h" in tail,
           "SIGTERM in the d prompt: the terminal restored (rmcup, cnorm)", repr(tail[-200:]))
t = case("SIGHUP in the d prompt, the terminal still there", replay, True, b"d",
         rb"interval in seconds", lambda t: os.kill(t.pid, signal.SIGHUP))
if t:
    report(os.WIFEXITED(t.status) and os.WEXITSTATUS(t.status) == 1,
           "SIGHUP in the d prompt: exit 1", "status %r" % t.status)
    report(b"the terminal hung up" in t.out, "SIGHUP in the d prompt: says the terminal hung up",
           repr(t.out[-200:]))
t = case("SIGINT from outside in the s prompt", replay, True, b"s", rb"sort key",
         lambda t: os.kill(t.pid, signal.SIGINT))
# the questions of r and o (a live source: a stand-in file)
if len(sys.argv) > 3:
    proc = ["-d", "2", "--source", "proc"]
    env = {"LOCKSTAT_PROC": sys.argv[3]}
    case("hang-up in the question of r, no SIGHUP", proc, False, b"r", rb"reset all statistics",
         Top.hangup, env)
    case("SIGTERM in the question of o", proc, True, b"o", rb"metering (off|on)\?", sigterm, env)

print("\n".join(results))
