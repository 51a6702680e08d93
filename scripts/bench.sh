#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh KSRC: the guest side of "make bench".  Builds three kernels
# (and a fourth, below) from the same tree KSRC: a baseline without
# lockmeter, lockmeter with
# its Kconfig defaults (not make check's kernel, which adds the KUnit
# suites and the histograms; bench-quick measures that one), and one
# with upstream CONFIG_LOCK_STAT, boots each in the same QEMU guest with lmguest=bench
# (scripts/guest/bench.sh) twice: under -icount shift=0,sleep=off, where
# every figure is a count of guest instructions (the primary result, the
# same from boot to boot), and as is, in wall time under TCG (secondary).
# Then the lockmeter kernel once more under icount with WIDE_SMP CPUs,
# the module's tests only (lmbench=module): the per-pair figures must not
# depend on the machine's size.  Then the lockmeter kernel with
# PREEMPT_RT (config/bench-rt.config) under icount: its pairs, where the
# spin pair is a spinlock_t, an rtmutex there.  Writes build/bench/report.txt: the
# medians, their ratios to the baseline and the targets, for both
# (scripts/bench-report.py).
#
# Environment: SMP (2), WIDE_SMP (8), TIMEOUT (1200 s per boot), KVER
# (6.12): the kernel line of KSRC.  Another line (6.1) has its own
# build/bench-6.1 and QEMU config, and no PREEMPT_RT kernel (no
# architecture supports it before 6.12).  Its icount boots have one CPU,
# and there is no machine-size boot: under -icount, QEMU 7.2's
# round-robin TCG never runs a 6.1 kernel's second vCPU again once that
# CPU spins in wait_for_master_cpu() for its callout (the boot CPU loops
# on schedule() in native_cpu_up(), the callout bit set; 6.12 boots APs
# otherwise).  Its report marks the contended pair and the machine-size
# targets n/a; the wall-time boots have SMP CPUs.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$1
line=${KVER:-6.12}
out=$top/build/bench
[ "$line" = 6.12 ] || out=$out-$line
smp=${SMP:-2}
wide=${WIDE_SMP:-8}
ismp=$smp
[ "$line" = 6.12 ] || ismp=1
tmo=${TIMEOUT:-1200}
mkdir -p "$out"

echo "  CC      $out/workload (static)"
gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$out/workload" "$top/scripts/bench/workload.c"

# build_bench NAME FRAGMENT...: the kernel of variant NAME, on top of the
# QEMU config, and its initramfs
build_bench() {
	v=$1
	shift
	"$top/scripts/build-kernel.sh" "$ksrc" "$out/$v/obj" "$out/$v/modroot" \
		"$top/config/qemu-$line.config" "$top/config/scenarios.config" "$@"
	"$top/scripts/mkinitramfs.sh" "$out/$v.cpio.gz" "$out/$v.stage" "$out/$v/modroot" \
		/nonexistent "$out/workload"
}

# boot_bench NAME LOG CPUS QEMU_EXTRA [GUEST ARG...]: variant NAME's
# kernel runs the guest's bench, judged by guest-verdict.py
boot_bench() {
	v=$1 log=$2 cpus=$3 extra=$4
	shift 4
	QEMU_EXTRA="$extra" SMP=$cpus "$top/scripts/run-guest.sh" \
		"$out/$v/obj/arch/x86/boot/bzImage" "$out/$v.cpio.gz" "$log" "$tmo" bench "$@" || true
	"$top/scripts/guest-verdict.py" --mode bench --cpus "$cpus" "$log"
}

icount="-icount shift=0,sleep=off"
logs="" ilogs=""
for v in baseline lockmeter lockstat; do
	build_bench "$v" "$top/config/bench-$v.config"
	echo "  QEMU    bench on the $v kernel, icount: log in $out/$v-icount.log"
	boot_bench "$v" "$out/$v-icount.log" "$ismp" "$icount"
	echo "  QEMU    bench on the $v kernel, wall time: log in $out/$v.log"
	boot_bench "$v" "$out/$v.log" "$smp" ""
	logs="$logs $v=$out/$v.log"
	ilogs="$ilogs $v=$out/$v-icount.log"
done
wide_log=
rt=
if [ "$line" = 6.12 ]; then
	echo "  QEMU    bench on the lockmeter kernel, $wide CPUs, icount: log in $out/wide-icount.log"
	boot_bench lockmeter "$out/wide-icount.log" "$wide" "$icount" lmbench=module
	wide_log=wide=$out/wide-icount.log
	build_bench rt "$top/config/bench-lockmeter.config" "$top/config/bench-rt.config"
	echo "  QEMU    bench on the PREEMPT_RT lockmeter kernel, icount: log in $out/rt-icount.log"
	boot_bench rt "$out/rt-icount.log" "$smp" "$icount"
	rt=rt=$out/rt-icount.log
fi
# shellcheck disable=SC2086
{
	echo "Linux $line ($ksrc)"
	"$top/scripts/bench-report.py" --icount $ilogs $wide_log $rt
	echo
	"$top/scripts/bench-report.py" $logs
} > "$out/report.txt"
cat "$out/report.txt"
