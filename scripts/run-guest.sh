#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh BZIMAGE INITRD LOG TIMEOUT MODE [CMDLINE...]
#
# Boot the test guest under QEMU/TCG.  LOG is the test channel: the
# guest's second serial port (ttyS1, lmout=ttyS1 on the command line), where
# /init and the tests print, and run-guest.sh's "LM-HOST:" lines.  The
# kernel console (ttyS0) goes to the file beside it, LOG with its .log
# replaced by .console.log (LOG.console when LOG does not end in .log), so
# no kernel message lands inside a test's line.
# MODE is check, demo, bench, torture, scenario, scenarios, upgrade, scale, soak or shell
# (interactive: console and tests on the terminal, no test channel).
# SMP (default 2) and MEM (default 512) select the machine size;
# QEMU_EXTRA adds options.  DISK=IMG attaches the raw image IMG as a
# virtio-blk disk (/dev/vda in the guest), and DISK_BPS=N has QEMU throttle
# it to N bytes per second, reads and writes together (the journal
# scenario).  TCG_THREAD=single|multi (default single) selects
# -accel tcg,thread=...: single-threaded TCG is the default, multi-threaded
# TCG (vCPUs truly in parallel) patches kernel text unreliably: a static
# key flipped at run time ends in "Oops: int3" on vanilla 6.12 too
# (scripts/keyflip/, Documentation/locking/lockmeter.rst); boots under
# multi use lockmeter=pinned, which flips no key after boot;
# -icount needs single-threaded TCG, so multi refuses it in QEMU_EXTRA.
# QEMU_CPU (default qemu64,-hypervisor) is the -cpu model: without the
# CPUID hypervisor bit the guest takes the native lock paths
# (PARAVIRT_SPINLOCKS kernels otherwise switch on virt_spin_lock_key).
set -u

die() { echo "run-guest: $*" >&2; exit 1; }

kernel=$1 initrd=$2 log=$3 tmo=$4 mode=$5
shift 5
smp=${SMP:-2}
mem=${MEM:-512}
tcg=${TCG_THREAD:-single}
cpu=${QEMU_CPU:-qemu64,-hypervisor}
append="console=ttyS0 panic=-1 tsc=reliable oops=panic lmguest=$mode $*"
case $log in
*.log) console=${log%.log}.console.log ;;
*) console=$log.console ;;
esac

command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
case $tcg in
single) ;;
multi)
	case " ${QEMU_EXTRA:-}" in
	*" -icount"* | *" --icount"*)
		die "TCG_THREAD=multi with -icount in QEMU_EXTRA: icount needs single-threaded TCG" ;;
	esac ;;
*) die "TCG_THREAD=$tcg: single or multi" ;;
esac

disk=
if [ -n "${DISK:-}" ]; then
	[ -f "$DISK" ] || die "disk image $DISK missing"
	disk="-drive file=$DISK,if=virtio,format=raw${DISK_BPS:+,throttling.bps-total=$DISK_BPS}"
fi

# QEMU_EXTRA: more QEMU options, e.g. "-icount shift=0,sleep=off" (benchmarks)
# shellcheck disable=SC2086
set -- qemu-system-x86_64 -accel "tcg,thread=$tcg" -cpu "$cpu" -M pc -smp "$smp" -m "$mem" \
	-no-reboot -kernel "$kernel" -initrd "$initrd" $disk ${QEMU_EXTRA:-}

if [ "$mode" = shell ]; then
	exec "$@" -append "$append" -nographic
fi

rm -f "$log" "$console"
start=$(date +%s)
timeout -k 10 "$tmo" "$@" -append "$append lmout=ttyS1" -display none -monitor none \
	-serial "file:$console" -serial "file:$log" </dev/null
rc=$?
secs=$(($(date +%s) - start))
echo "LM-HOST: guest ran ${secs}s" >> "$log"
echo "LM-HOST: qemu smp=$smp tcg=$tcg cpu=$cpu" >> "$log"
echo "  QEMU    $(basename "$log"): ${secs}s"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "run-guest: guest still running after ${tmo}s: killed (timeout)" >&2
	echo "LM-HOST: timeout after ${tmo}s" >> "$log"
	exit 124
fi
exit $rc
