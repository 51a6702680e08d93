#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of "make demo": meter a short workload with lockstat and print
# its report, then the evidence (task and call chain) behind the longest
# holds and waits of its top rows, the histograms of one kernel mutex, a
# diff against a second run with a regression in it, the locks held
# right now while the test module holds a mutex, and lockstat watch's
# alerts of its long mutex holds as they happen (the
# raw /proc/lockmeter is in the log too, after it).
# shellcheck source=scripts/guest/lib.sh
. /lm/lib.sh
lm_mark "demo begin"
if [ ! -e /proc/lockmeter ]; then
	echo "demo: /proc/lockmeter missing: kernel without CONFIG_LOCKMETER"
	exit 1
fi
# A little of everything: fork/exec, pipes, tmpfs files, directory walks,
# a mutex held across a sleep by the test module, and its locks of the
# other sleeping types.
cat > /tmp/workload <<'W'
i=0
while [ $i -lt 200 ]; do
	echo "line $i" | cat > /tmp/f.$i
	i=$((i + 1))
done
find / -xdev > /dev/null 2>&1
dd if=/dev/zero of=/tmp/big bs=64k count=64 2>/dev/null
cat /tmp/f.* | wc -l > /dev/null
rm -f /tmp/f.* /tmp/big
[ -w /proc/test_lockmeter ] && echo "mutex_sleep 3 20" > /proc/test_lockmeter
# the other sleeping lock types: an rt_mutex and a counting semaphore two
# kthreads contend for, a percpu_rw_semaphore read and written
for c in "rtmutex_contend 2 20 200" "sem_contend 2 20 200" "pcpu_read 20 100" \
	"pcpu_write 5 300"; do
	[ -w /proc/test_lockmeter ] && echo "$c" > /proc/test_lockmeter
done
true
W
insmod "/lib/modules/$(uname -r)/kernel/lib/test_lockmeter.ko" 2>/dev/null
lm_mark "report begin"
lockstat record --top 8 -o /tmp/demo.snap -- sh /tmp/workload
rc=$?
echo
echo "Who held and who waited longest, for the top 3 of each lock type:"
lockstat report --stacks --top 3 /tmp/demo.snap || rc=1
# the hold and wait histograms of a kernel mutex every fork takes
echo
echo "Histograms of pcpu_alloc_mutex (kernels with CONFIG_LOCKMETER_HIST):"
lockstat hist pcpu_alloc_mutex /tmp/demo.snap || echo "(none in this run)"
# The same workload once more, the test module's mutex held three times as
# long: a regression between two runs, as lockstat diff shows it.
sed 's/mutex_sleep 3 20/mutex_sleep 3 60/' /tmp/workload > /tmp/workload2
lockstat record -o /tmp/demo2.snap -- sh /tmp/workload2 > /dev/null || rc=1
echo
echo "The workload again with lmt_sleep_mutex held 3x longer: lockstat diff of the two runs"
echo "(its summary, the 4 largest regressions, and the mutex made slower; under"
echo "single-threaded TCG the vCPUs take turns, and a spin lock held when its vCPU's"
echo "turn ended looks held until the next: that is what tops a diff of two runs"
echo "on one kernel here):"
lockstat diff /tmp/demo.snap /tmp/demo2.snap > /tmp/demo.diff || rc=1
grep '^Matched' /tmp/demo.diff
sed -n '/^REGRESS /,$p' /tmp/demo.diff | head -n 18
echo "..."
awk '/ A .* lmt_sleep_mutex/ { n = 3 } n-- > 0' /tmp/demo.diff
lockstat diff --fail-over 100 --min-hold 10ms /tmp/demo.snap /tmp/demo2.snap > /dev/null
echo "lockstat diff --fail-over 100 --min-hold 10ms: exit $? (9: a row regressed more than 100%)"
if [ -w /proc/test_lockmeter ]; then
	# a mutex held 3 s by a kthread, another waiting: held right now
	lockstat on > /dev/null
	echo "mutex_hold_bg 3000 1" > /proc/test_lockmeter
	sleep 1
	echo
	echo "Locks held right now for more than 500ms:"
	lockstat held --over 500ms || rc=1
	echo bg_join > /proc/test_lockmeter
	# told as it happens: alerts pushed by the kernel while the module
	# holds its mutex 3 x 20 ms, then another 1.5 s with a waiter
	echo
	echo "lockstat watch --over 15ms --type mutex --stacks, while the module holds a mutex"
	echo "3 x 20 ms and then 1.5 s with a task waiting (held: the alert while it is held):"
	lockstat watch --over 15ms --type mutex --stacks > /tmp/watch.out 2>&1 &
	wpid=$!
	sleep 1
	echo "mutex_sleep 3 20" > /proc/test_lockmeter
	echo "mutex_hold_bg 1500 1" > /proc/test_lockmeter
	sleep 1
	echo bg_join > /proc/test_lockmeter
	sleep 1
	kill -INT $wpid
	wait $wpid || rc=1
	# indented: the host takes lines that begin "[  12.345678]" for the
	# kernel's, as watch's lines begin
	sed 's/^/  /' /tmp/watch.out
	lockstat off > /dev/null
fi
lm_mark "report end"
lm_mark "raw begin"
cat /proc/lockmeter
lm_mark "raw end"
lm_mark "demo end rc=$rc"
exit $rc
