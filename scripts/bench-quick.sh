#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-quick.sh KOBJ MODROOT [LOCKSTAT]: "make bench-quick".  Boots the lockmeter
# kernel of make check once under QEMU's -icount shift=0,sleep=off, where
# the guest clock advances 1 ns per guest instruction, so every figure of
# scripts/guest/bench.sh is an instruction count, the same from boot to
# boot.  Prints them, off and on, for judging a change to the hot path as
# it is made, with the full-table pair against the normal one and the
# memory lockmeter reports; "make bench" compares whole kernels.  With
# lmbench=quick the guest runs a tenth of make bench's counts.
# LMBENCH=held (make bench-held, with LOCKSTAT in the initramfs): the
# held scan's cost at 0, 5000 and 20000 threads instead; MEM (1536 MiB
# then) is the guest's memory.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kobj=$1 modroot=$2 lockstat=${3:-}
scope=${LMBENCH:-quick}
# KVER=6.1 in the environment: that line's kernel, its own build/bench-6.1
out=$top/build/bench
[ "${KVER:-6.12}" = 6.12 ] || out=$out-$KVER
mkdir -p "$out"

gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$out/workload" \
	"$top/scripts/bench/workload.c"
# shellcheck disable=SC2086
"$top/scripts/mkinitramfs.sh" "$out/$scope.cpio.gz" "$out/$scope.stage" "$modroot" \
	/nonexistent "$out/workload" $lockstat
log=$out/$scope.log
# One CPU on 6.1: QEMU's round-robin TCG under -icount never runs its
# second vCPU again once it waits for its callout at boot (scripts/bench.sh).
smp=${SMP:-2}
[ "${KVER:-6.12}" = 6.12 ] || smp=1
echo "  QEMU    bench ($scope), icount, $smp CPU(s): log in $log"
QEMU_EXTRA="-icount shift=0,sleep=off" SMP=$smp "$top/scripts/run-guest.sh" \
	"$kobj/arch/x86/boot/bzImage" "$out/$scope.cpio.gz" "$log" \
	"${TIMEOUT:-1200}" bench lmbench="$scope" || true
"$top/scripts/guest-verdict.py" --mode bench --cpus "$smp" "$log"
echo "instructions per operation (icount), lockmeter kernel:"
sed -n 's/.*LM-BENCH: state=\([a-z_]*\) test=\([a-z0-9]*\) value=\([0-9]*\) unit=ns.*/\2 \1 \3/p' \
	"$log" | awk '
	{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	function cell(t, s) { return ((t, s) in v) ? v[t, s] : "-" }
	END {
		printf "  %-10s %12s %12s %12s\n", "test", "off", "on", "on-off"
		for (i = 0; i < n; i++) {
			t = order[i]
			d = ((t, "on") in v && (t, "off") in v) ? v[t, "on"] - v[t, "off"] : "-"
			printf "  %-10s %12s %12s %12s\n", t, cell(t, "off"), cell(t, "on"), d
		}
		# the pairs with a threshold set (lockstat watch) against on
		for (i = 0; i < n; i++) {
			t = order[i]
			if ((t, "watch") in v && (t, "on") in v)
				printf "  %-10s threshold set: %d (on %d, %+d)\n", t, v[t, "watch"],
					v[t, "on"], v[t, "watch"] - v[t, "on"]
		}
		# the full-table pair against the normal one, both over the off pair
		if (("full", "on") in v && ("pair", "on") in v && ("pair", "off") in v) {
			a = v["full", "on"] - v["pair", "off"]
			b = v["pair", "on"] - v["pair", "off"]
			r = b > 0 ? a / b : 0
			printf "  full table: adds %d per spin pair, the normal pair %d (%.2fx; at most 2x)\n",
				a, b, r
		}
		# the mutex pair with 5000 tasks alive against 10: per-task records
		if (("mutex5k", "on") in v && ("mutex10", "on") in v && v["mutex10", "on"] > 0)
			printf "  mutex pair, 5000 tasks alive: %d, 10 tasks: %d (%+.2f%%; within 2%%)\n",
				v["mutex5k", "on"], v["mutex10", "on"],
				100 * (v["mutex5k", "on"] - v["mutex10", "on"]) / v["mutex10", "on"]
	}'
mem=$(sed -n 's/.*LM-BENCH-INFO: \(\(boot_\)\{0,1\}mem_[a-z]*\): \([0-9]*\).*/\1 \3/p' \
	"$log" | tr '\n' ' ' | sed 's/ $//')
echo "  memory, bytes: ${mem:-not reported (no mem_* keys in /proc/lockmeter)}"
if [ "$scope" = held ]; then
	echo "  the held scan's longest hold of lm_ctl_mutex, instructions:" \
		"$(sed -n 's/.*LM-BENCH-INFO: held\([0-9]*\)_scan_max_ns: \([0-9]*\).*/\1 threads: \2;/p' \
		"$log" | tr '\n' ' ')"
	# bytes a task: its lockmeter block, and the kernel's own (slab and stack)
	awk '/LM-BENCH-INFO: tasks_/ { sub(":", "", $2); v[$2] = $3 }
	END {
		on = v["tasks_on_20000_slab_kb"] - v["tasks_on_0_slab_kb"]
		off = v["tasks_released_20000_slab_kb"] - v["tasks_released_0_slab_kb"]
		st = v["tasks_released_20000_kernelstack_kb"] - v["tasks_released_0_kernelstack_kb"]
		if (off > 0)
			printf "  20000 sleeping threads: lockmeter blocks %d KiB (%d B a task); the kernel without them %d KiB slab + %d KiB stacks (%d B a task)\n",
				on - off, 1024 * (on - off) / 20000, off, st, 1024 * (off + st) / 20000
	}' "$log"
fi
