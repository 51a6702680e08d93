#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace.sh KOBJ OUT OP N [CMDLINE...]
#
# Every instruction a CPU executes for N operations OP (pipe: a round
# trip between two processes; fork: fork, exit, wait), in the guest booted
# from KOBJ's bzImage on one CPU under QEMU's gdbstub: scripts/bench/tracee.c
# is /init, and gdb single-steps from its first marker syscall to the
# second (scripts/bench/trace-gdb.py).  OUT gets one address a line;
# scripts/bench/trace-report.py turns it into instructions per function,
# or into the difference between two kernels: where a hot-path change
# costs or saves its instructions.  CMDLINE adds kernel arguments
# (lockmeter=on).  Takes about a minute for a pipe round trip.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kobj=$1 out=$2 op=$3 n=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=$((20000 + $$ % 10000))

gcc -static -O2 -Wall -Wextra -Werror -o "$work/init" "$top/scripts/bench/tracee.c"
mkdir "$work/root" "$work/root/dev"
cp "$work/init" "$work/root/init"
mknod "$work/root/dev/console" c 5 1
(cd "$work/root" && find . | cpio -o -H newc --quiet) > "$work/initrd.cpio"

mark=$(awk '$3 == "__x64_sys_getpgid" { print $1 }' "$kobj/System.map")
[ -n "$mark" ] || { echo "trace: no __x64_sys_getpgid in $kobj/System.map" >&2; exit 1; }

qemu-system-x86_64 -accel tcg,thread=single -M pc -smp 1 -m 512 -no-reboot \
	-display none -monitor none -serial "file:$out.console" \
	-kernel "$kobj/arch/x86/boot/bzImage" -initrd "$work/initrd.cpio" \
	-append "console=ttyS0 panic=-1 tsc=reliable $* -- $op $n" \
	-icount shift=0,sleep=off -D "$work/exec.log" -gdb "tcp:127.0.0.1:$port" -S &
qpid=$!
MARK_ADDR=$mark GDB_REMOTE=127.0.0.1:$port \
	timeout 1800 gdb -q -batch -nx -x "$top/scripts/bench/trace-gdb.py" "$kobj/vmlinux" \
	> "$work/gdb.log" 2>&1 || true
kill "$qpid" 2>/dev/null || true
wait "$qpid" 2>/dev/null || true
grep -q '^trace:' "$work/gdb.log" || { cat "$work/gdb.log" >&2; exit 1; }
# "Trace 0: 0x7f.. [00000000/ffffffff81234567/...]": the address executed
sed -n 's/^Trace [0-9]*: [^[]*\[[0-9a-f]*\/\([0-9a-f]*\)\/.*/\1/p' "$work/exec.log" > "$out"
echo "trace: $(wc -l < "$out") instructions between the markers"
