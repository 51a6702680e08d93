#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make bench": the same benchmarks on whatever kernel this
# is, as "LM-BENCH: state=S test=T value=V unit=ns" lines, each value the
# median of 5 runs (the workload's: of 7, after a warm-up run).  S is off
# and on on a lockmeter kernel (switched at run time), lock_stat on a
# CONFIG_LOCK_STAT kernel, none otherwise; watch: on, with hold and wait
# thresholds of 5 ms set (module pairs only).
#
#   pair       ns per uncontended spin_lock/spin_unlock (test module)
#   contended  ns per pair, two kthreads on one spinlock (test module)
#   mutex      ns per uncontended mutex_lock/mutex_unlock (test module)
#   rtmutex    ns per uncontended rt_mutex_lock/rt_mutex_unlock, and
#   sem        per down/up: the locks hooked in place (test module)
#   clock      ns per local_clock(), of which metering reads two per pair
#   irq        ns per local_irq_save/restore, of which it does two per pair
#   pipe       ns per pipe round trip between two processes (workload)
#   fork       ns per fork + exit + wait (workload)
#   full       lockmeter on only: ns per spin pair once this CPU's table
#              is full, the pair landing in the overflow row (test module)
#   mutex10    lockmeter on only: the mutex pair, timed in a kthread that
#              holds nothing, while 10 kthreads sleep holding a mutex
#              each (test module)
#   mutex5k    the same with 5000 kthreads: task records are per task, so
#              the figure must not move (pid_max and threads-max are
#              raised for them, after the fork test)
#
# "lmbench=module" on the kernel command line runs the module's tests
# only (make bench's boot with more CPUs); "lmbench=held" (make
# bench-held) only the held scan, metering on:
#
#   heldN      ns per "lockstat held" (its walk of every thread, in the
#              kernel, and the printing) with N sleeping threads alive
#              (the workload's), for N 0, 5000 and 20000; and, as
#              LM-BENCH-INFO heldN_scan_max_ns, the longest hold of
#              lm_ctl_mutex meanwhile, which the kernel's walk holds;
#              then LM-BENCH-INFO tasks_STATE_N_{slab,kernelstack}_kb,
#              the kernel's memory with N sleeping threads (0, 20000)
#              forked with metering on (a block each) and after a
#              release (none)
#  On a lockmeter kernel the
# "LM-BENCH-INFO: key: value" lines give lockmeter's own figures: its
# memory (mem_*) before the first "on", prefixed boot_, and after the
# runs; what its tables saw during the "on" runs; and table_full after the
# full-table test, prefixed full_.
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh
MOD=/proc/test_lockmeter
LM=/proc/lockmeter

scope=all
for arg in $(cat /proc/cmdline); do
	case $arg in
	lmbench=*) scope=${arg#lmbench=} ;;
	esac
done
# "lmbench=quick" (make bench-quick): a tenth of every count.  Under
# icount the module's pairs come out within 1 instruction of a full run,
# pipe and fork+exit within 1% (2026-12-03: 37 s instead of 1 min 57 s)
scale=1
[ "$scope" = quick ] && scale=10

median5() {	# median5 CMD: run the module command 5 times
	for _ in 1 2 3 4 5; do
		echo "$1" > $MOD || return 1
		sed -n 's/^ns_per_pair: //p' $MOD
	done | sort -n | sed -n 3p
}

module() {	# module STATE TEST:COMMAND...: module tests, one line each
	st=$1
	shift
	for t in "$@"; do
		v=$(median5 "${t#*:}")
		[ -n "$v" ] || { echo "bench: '${t#*:}' failed"; return 1; }
		echo "LM-BENCH: state=$st test=${t%%:*} value=$v unit=ns"
	done
}

# The contended pair needs a second CPU: on one, its two kthreads take
# turns, and it would measure the uncontended pair again.
cpus=$(grep -c '^processor' /proc/cpuinfo)
[ "$cpus" -gt 1 ] || echo "LM-BENCH-INFO: contended: not measured, 1 CPU"
contended() {	# contended STATE
	[ "$cpus" -gt 1 ] || return 0
	module "$1" "contended:bench_contended $((50000 / scale))"
}

run() {		# run STATE
	module "$1" "pair:bench $((200000 / scale))" || return 1
	contended "$1" || return 1
	module "$1" "mutex:bench_mutex $((100000 / scale))" \
		"rtmutex:bench_rtmutex $((100000 / scale))" "sem:bench_sem $((100000 / scale))" \
		"clock:bench_clock $((200000 / scale))" \
		"irq:bench_irq $((200000 / scale))" || return 1
	[ "$scope" = module ] && return 0
	for t in "pipe $((20000 / scale))" "fork $((1000 / scale))"; do
		# shellcheck disable=SC2086
		out=$(/bin/workload $t) || { echo "bench: workload $t failed"; return 1; }
		echo "$out" | sed -e "s/^LM-BENCH: /LM-BENCH: state=$1 /" \
			-e "s/^LM-BENCH-RUNS: /LM-BENCH-RUNS: state=$1 /"
	done
}

info() {	# info PREFIX "KEY...": those keys of /proc/lockmeter's header
	keys=$(echo "$2" | tr ' ' '|')
	sed -n '/^$/q;p' $LM | grep -E "^($keys):" | sed "s/^/LM-BENCH-INFO: $1/"
}

MEM="mem_percpu mem_tables mem_task"

# the longest hold of lm_ctl_mutex in /proc/lockmeter (the held scan's)
ctl_hold_max() {
	awk '$1 == "mutex" && $18 == "lm_ctl_mutex" && $9 > m { m = $9 } END { print m + 0 }' $LM
}

held() {
	echo 65536 > /proc/sys/kernel/pid_max
	echo 65536 > /proc/sys/kernel/threads-max
	echo on > $LM
	for n in 0 5000 20000; do
		echo reset > $LM
		out=$(/bin/workload threads $n lockstat held) ||
			{ echo "bench: workload threads $n lockstat held failed"; return 1; }
		echo "$out" | sed -e "s/^LM-BENCH: /LM-BENCH: state=on /" \
			-e "s/^LM-BENCH-RUNS: /LM-BENCH-RUNS: state=on /"
		echo "LM-BENCH-INFO: held${n}_scan_max_ns: $(ctl_hold_max)"
	done
	echo off > $LM
	# what a task's block costs: Slab and KernelStack (kB) with N sleeping
	# threads, forked while metering is on (each gets a block) and after
	# a release (none does)
	for state in on released; do
		[ $state = on ] || echo release > $LM
		[ $state = on ] && echo on > $LM
		for n in 0 20000; do
			/bin/workload threads $n sh -c \
				"grep -E '^(Slab|KernelStack):' /proc/meminfo > /tmp/mem" >/dev/null ||
				{ echo "bench: workload threads $n (meminfo) failed"; return 1; }
			awk -v p="tasks_${state}_$n" \
				'{ sub(":", "", $1); print "LM-BENCH-INFO: " p "_" tolower($1) "_kb: " $2 }' \
				/tmp/mem
		done
		echo off > $LM
	done
}

lm_mark "bench begin"
# Every pid below 4096, so the pid IDR keeps two levels: fork+exit cost
# 1% more while the workload's children had pids past 4096 and it did
# not (each fork grew the tree a level, each reap shrank it), and where
# that began depended on how many processes the boot had made.
echo 4096 > /proc/sys/kernel/pid_max
insmod "/lib/modules/$(uname -r)/kernel/lib/test_lockmeter.ko" ||
	{ echo "bench: test_lockmeter.ko did not load"; exit 1; }
rc=0
if [ "$scope" = held ]; then
	held || rc=1
elif [ -e $LM ]; then
	echo off > $LM
	info boot_ "$MEM"
	run off || rc=1
	echo reset > $LM
	echo on > $LM
	run on || rc=1
	# the same pairs with alert thresholds set (lockstat watch), which the
	# module's pairs never cross: what a threshold costs the lock path
	if echo 'watch hold 5ms' > $LM 2>/dev/null && echo 'watch wait 5ms' > $LM; then
		{ module watch "pair:bench $((200000 / scale))" && contended watch &&
		  module watch "mutex:bench_mutex $((100000 / scale))"; } || rc=1
		echo 'watch off' > $LM
	fi
	# what lockmeter itself saw, to tell whether its tables overflowed
	info "" "rows slots_used dropped table_full recursion captures stacks_full cache_fills slots_per_cpu $MEM"
	if [ "$scope" != module ]; then
		module on "full:bench_full $((50000 / scale))" || rc=1
		info full_ table_full
		echo reset > $LM
		echo 32768 > /proc/sys/kernel/pid_max
		echo 32768 > /proc/sys/kernel/threads-max
		module on "mutex10:bench_mutex_threads 10 $((100000 / scale))" \
			"mutex5k:bench_mutex_threads 5000 $((100000 / scale))" || rc=1
		info threads_ notask
	fi
	echo off > $LM
	echo reset > $LM	# the full-table test left this CPU's table full
elif [ -e /proc/lock_stat ]; then
	run lock_stat || rc=1
else
	run none || rc=1
fi
lm_mark "bench end rc=$rc"
exit $rc
