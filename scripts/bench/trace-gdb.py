# SPDX-License-Identifier: GPL-2.0
#
# Run inside gdb by scripts/bench/trace.sh.  Stops at the tracee's first
# marker (MARK_ADDR, its getpgid call), turns QEMU's execution log on
# (in singlestep mode every translation block is one instruction, and
# "nochain" logs every execution), runs to the second marker and turns
# the log off.  The guest runs at full speed in between, interrupts and
# all, as in the benchmark.
import os
import gdb

mark = int(os.environ["MARK_ADDR"], 16)

gdb.execute("set pagination off")
gdb.execute("target remote " + os.environ.get("GDB_REMOTE", "localhost:1234"))
gdb.execute("hbreak *0x%x" % mark)
gdb.execute("continue")
# one instruction per block from here on: setting a breakpoint makes
# QEMU drop the blocks it translated so far
gdb.execute("monitor singlestep on")
gdb.execute("delete")
gdb.execute("hbreak *0x%x" % mark)
gdb.execute("monitor log exec,nochain")
gdb.execute("continue")
gdb.execute("monitor log none")
print("trace: logged between the markers")
gdb.execute("kill")
