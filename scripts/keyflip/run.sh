#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KOBJ OUTDIR THREAD MODE [FLIPS]
#
# The reproducer of "Oops: int3" under QEMU's multi-threaded TCG: build
# keyflip.ko against the kernel in KOBJ, pack it with busybox and
# scripts/keyflip/init, and boot KOBJ's bzImage with SMP (2) vCPUs under
# -accel tcg,thread=THREAD (single or multi).  MODE is module (keyflip.ko's
# own key: needs no lockmeter) or lockmeter (lockmeter on/off in a loop).
# The serial log is OUTDIR/keyflip-MODE-THREAD.log; exits 0 when the
# guest ended without an oops.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kobj=$(cd "$1" && pwd) out=$2 thread=$3 mode=$4 flips=${5:-2000}
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$out/keyflip-stage
rm -rf "$stage" "$out/keyflip-mod"
mkdir -p "$stage/bin" "$stage/proc" "$stage/sys" "$stage/dev" "$out/keyflip-mod"
cp "$top/scripts/keyflip/keyflip.c" "$top/scripts/keyflip/Kbuild" "$out/keyflip-mod/"
make -s -C "$kobj" M="$out/keyflip-mod" modules
cp "$out/keyflip-mod/keyflip.ko" "$stage/"
cp /bin/busybox "$stage/bin/busybox"
cp "$top/scripts/keyflip/init" "$stage/init"
chmod +x "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out/keyflip.cpio.gz"
log=$out/keyflip-$mode-$thread.log
timeout -k 10 "${TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread="$thread" -M pc \
	-cpu "${QEMU_CPU:-qemu64,-hypervisor}" -smp "${SMP:-2}" -m 512 -no-reboot \
	-kernel "$kobj/arch/x86/boot/bzImage" -initrd "$out/keyflip.cpio.gz" \
	-append "console=ttyS0 panic=-1 oops=panic tsc=reliable kf=$mode kf_flips=$flips" \
	-display none -monitor none -serial "file:$log" </dev/null || true
grep -a 'KEYFLIP:\|Oops\|int3\|RIP:' "$log" || true
! grep -aq 'Oops' "$log" && grep -aq 'KEYFLIP: end' "$log"
