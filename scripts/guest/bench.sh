#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make bench": the same benchmarks on whatever kernel this
# is, as "LM-BENCH: state=S test=T value=V unit=ns" lines, each value the
# median of 5 runs.  S is off and on on a lockmeter kernel (switched at run
# time), lock_stat on a CONFIG_LOCK_STAT kernel, none otherwise.
#
#   pair       ns per uncontended spin_lock/spin_unlock (test module)
#   contended  ns per pair, two kthreads on one spinlock (test module)
#   mutex      ns per uncontended mutex_lock/mutex_unlock (test module)
#   pipe       ns per pipe round trip between two processes (workload)
#   fork       ns per fork + exit + wait (workload)
#   clock      ns per local_clock(), of which metering reads two per pair
#   irq        ns per local_irq_save/restore, of which it does two per pair
MOD=/proc/test_lockmeter

median5() {	# median5 CMD: run the module command 5 times
	for i in 1 2 3 4 5; do
		echo "$1" > $MOD || return 1
		sed -n 's/^ns_per_pair: //p' $MOD
	done | sort -n | sed -n 3p
}

run() {		# run STATE
	for t in "pair:bench 200000" "contended:bench_contended 50000" \
		 "mutex:bench_mutex 100000" "clock:bench_clock 200000" \
		 "irq:bench_irq 200000"; do
		v=$(median5 "${t#*:}")
		[ -n "$v" ] || { echo "bench: '${t#*:}' failed"; return 1; }
		echo "LM-BENCH: state=$1 test=${t%%:*} value=$v unit=ns"
	done
	for t in "pipe 20000" "fork 300"; do
		/bin/workload $t | sed "s/^LM-BENCH: /LM-BENCH: state=$1 /" || return 1
	done
}

echo "LM-GUEST: bench begin"
insmod /lib/modules/$(uname -r)/kernel/lib/test_lockmeter.ko ||
	{ echo "bench: test_lockmeter.ko did not load"; exit 1; }
rc=0
if [ -e /proc/lockmeter ]; then
	echo off > /proc/lockmeter
	run off || rc=1
	echo reset > /proc/lockmeter
	echo on > /proc/lockmeter
	run on || rc=1
	echo off > /proc/lockmeter
	# what lockmeter itself saw, to tell whether its tables overflowed
	grep -E '^(rows|slots_used|dropped|table_full|recursion):' /proc/lockmeter |
		sed 's/^/LM-BENCH-INFO: /'
elif [ -e /proc/lock_stat ]; then
	run lock_stat || rc=1
else
	run none || rc=1
fi
echo "LM-GUEST: bench end rc=$rc"
exit $rc
