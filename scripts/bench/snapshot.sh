#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# snapshot.sh KOBJ INITRD [ONLINE [POSSIBLE]]: what a snapshot of a full
# key directory costs with many CPUs.  Boots a kernel and its initramfs
# (the distro-sized kernel's for more than 8: make check's has NR_CPUS=8)
# with ONLINE vCPUs (default 64) of POSSIBLE (default ONLINE; QEMU 7.2's
# -M pc offers the kernel no hot-pluggable CPUs, so more are not
# possible in the guest, whatever -smp maxcpus= says) under
# QEMU's -icount shift=0,sleep=off, where the guest clock advances 1 ns a
# guest instruction, and runs snapshot_test alone: every online CPU
# counts into every one of the directory's rows, then one open of
# /proc/lockmeter takes the snapshot.  Prints the test's line: the
# instructions the open took ("ns to open") and what it added to vmalloc.
# 64 vCPUs take turns on one host thread: about 8 minutes.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
kobj=$1 initrd=$2 online=${3:-64} possible=${4:-${3:-64}}
log=$top/build/snapshot-$online-of-$possible.log

# rows: 4.3 MB per possible CPU with histograms, and the snapshot's 13 MB
mem=$((512 + possible * 5))
QEMU_EXTRA="-icount shift=0,sleep=off" SMP="$online,maxcpus=$possible" MEM=$mem \
	"$top/scripts/run-guest.sh" "$kobj/arch/x86/boot/bzImage" "$initrd" "$log" \
	"${TIMEOUT:-1800}" check lmtests=lockmeter:snapshot_test || true
grep -h "snapshot of" "$log" || { echo "snapshot.sh: no result in $log" >&2; exit 1; }
grep -h "^ok\|^not ok\|^# ok\|^# not ok" "$log" | grep snapshot
