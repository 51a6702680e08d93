#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh BZIMAGE INITRD LOG TIMEOUT MODE [CMDLINE...]
#
# Boot the test guest under QEMU/TCG with the serial console in LOG.
# MODE is check, demo, bench, torture, scenario, scenarios or shell
# (interactive, console on the terminal).
# SMP (default 2) and MEM (default 512) select the machine size;
# QEMU_EXTRA adds options.  DISK=IMG attaches the raw image IMG as a
# virtio-blk disk (/dev/vda in the guest), and DISK_BPS=N has QEMU throttle
# it to N bytes per second, reads and writes together (the journal
# scenario).  QEMU is
# single-threaded TCG: multi-threaded TCG crashes on run-time static-key
# flips (see DESIGN.md, section 2).
set -u

kernel=$1 initrd=$2 log=$3 tmo=$4 mode=$5
shift 5
smp=${SMP:-2}
mem=${MEM:-512}
append="console=ttyS0 panic=-1 tsc=reliable oops=panic lmguest=$mode $*"

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run-guest: qemu-system-x86_64 missing (apt-get install qemu-system-x86)" >&2; exit 1; }

disk=
if [ -n "${DISK:-}" ]; then
	[ -f "$DISK" ] || { echo "run-guest: disk image $DISK missing" >&2; exit 1; }
	disk="-drive file=$DISK,if=virtio,format=raw${DISK_BPS:+,throttling.bps-total=$DISK_BPS}"
fi

# QEMU_EXTRA: more QEMU options, e.g. "-icount shift=0,sleep=off" (benchmarks)
# shellcheck disable=SC2086
set -- qemu-system-x86_64 -accel tcg,thread=single -M pc -smp "$smp" -m "$mem" \
	-no-reboot -kernel "$kernel" -initrd "$initrd" -append "$append" $disk ${QEMU_EXTRA:-}

if [ "$mode" = shell ]; then
	exec "$@" -nographic
fi

rm -f "$log"
start=$(date +%s)
timeout -k 10 "$tmo" "$@" -display none -monitor none -serial "file:$log" </dev/null
rc=$?
secs=$(($(date +%s) - start))
echo "LM-HOST: guest ran ${secs}s" >> "$log"
echo "  QEMU    $(basename "$log"): ${secs}s"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "run-guest: guest still running after ${tmo}s: killed (timeout)" >&2
	echo "LM-HOST: timeout after ${tmo}s" >> "$log"
	exit 124
fi
exit $rc
