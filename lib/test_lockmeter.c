// SPDX-License-Identifier: GPL-2.0
/*
 * test_lockmeter: known lock behaviour for the lockmeter selftests.
 *
 * Write one command to /proc/test_lockmeter; the write returns when the
 * work is done.  Reading the file gives the results of the last command
 * as "key: value" lines, including the holds as this module measured
 * them: local_clock() right after acquiring and right before releasing,
 * inside the critical section, so lockmeter's figures for the same holds
 * can only be larger.  The commands hold, hold_irqsave, hold_bh, contend
 * and overflow_long also give each hold's span, span_*_ns: local_clock()
 * right before the lock call and right after the unlock returned, so
 * lockmeter's figures can only be smaller (lmt_account_span()).
 *
 *   hold N H            N x spin_lock(lmt_static_lock), hold H us   lmt_hold()
 *   hold_irqsave N H    the same, spin_lock_irqsave(lmt_irq_lock)   lmt_hold_irqsave()
 *   hold_bh N H         the same, spin_lock_bh(lmt_bh_lock)         lmt_hold_bh()
 *   contend K N H       K kthreads (thread i on CPU i % ncpus), each
 *                       N x spin_lock(lmt_contended_lock), H us     lmt_contend()
 *   trylock F           hold lmt_try_lock (lmt_trylock_hold()) and
 *                       fail F spin_trylock()s on it: count 1,
 *                       rejects F                                   lmt_trylock_fail()
 *   readers R N H       R kthreads on distinct CPUs, each N x
 *                       read_lock(lmt_rwlock), H us                 lmt_reader()
 *   writer N H          N x write_lock(lmt_rwlock), H us            lmt_writer()
 *   nonlifo N           N x lock a, lock b, unlock a, unlock b      lmt_nonlifo()
 *   overflow M          M distinct static locks lmt_many[], once    lmt_overflow()
 *   overflow_long M H   overflow M, then lmt_many[M - 1] held once for
 *                       H us, measured: hold_*_ns                   lmt_overflow_long()
 *   bench N             N uncontended lock/unlock pairs: ns_per_pair
 *   bench_contended N   2 kthreads x N pairs on one lock: ns_per_pair
 *   bench_mutex N       N uncontended mutex_lock/unlock pairs: ns_per_pair
 *   bench_rtmutex N, bench_sem N
 *                       the same with rt_mutex_lock/unlock and down/up,
 *                       hooked in place: ns_per_pair
 *   bench_clock N       N local_clock() reads: ns_per_pair is ns per read
 *   bench_irq N         N local_irq_save/restore pairs: ns_per_pair
 *   bench_full N        fill this CPU's table with lmt_many[], then N
 *                       pairs on lmt_full_lock, which finds no slot and
 *                       lands in the overflow row: ns_per_pair, fill
 *   bench_mutex_threads T N
 *                       T kthreads "lmt/t" each lock a mutex of their
 *                       own and sleep holding it, while a kthread
 *                       "lmt/bench" that holds nothing times N
 *                       mutex_lock/unlock pairs of lmt_bench_mutex;
 *                       then each unlocks its own: ns_per_pair,
 *                       threads (T)                          lmt_threads_holder()
 *
 * Sleeping locks:
 *
 *   mutex_sleep N M     N x mutex_lock(lmt_sleep_mutex), msleep(M ms) in
 *                       lmt_mutex_sleep_inside(): sleep_min/max_ns lmt_mutex_sleep()
 *   mutex_contend K N H K kthreads, each N x mutex_lock(lmt_contended_mutex),
 *                       busy H us                                   lmt_mutex_contend()
 *   mutex_trylock F     hold lmt_try_mutex (lmt_mutex_trylock_hold())
 *                       and fail F mutex_trylock()s: rejects F      lmt_mutex_trylock_fail()
 *   mutex_abort MS      a kthread holds lmt_abort_mutex for up to MS ms; the
 *                       writer waits in mutex_lock_interruptible() until a
 *                       signal interrupts it: aborted 1             lmt_mutex_abort()
 *   rwsem_abort MS      the same with lmt_abort_rwsem: the kthread holds the
 *                       write side, the reader waits in
 *                       down_read_interruptible()                   lmt_rwsem_abort()
 *   rwsem_readers R N H R kthreads on distinct CPUs, each N x
 *                       down_read(lmt_rwsem), busy H us             lmt_rwsem_reader()
 *   rwsem_writer N H    N x down_write(lmt_rwsem), busy H us        lmt_rwsem_writer()
 *   downgrade N H       N x down_write, H us, downgrade_write, H us,
 *                       up_read on lmt_rwsem                        lmt_downgrade()
 *   fork_hold           mutex_lock(lmt_fork_mutex) and return to user space
 *                       holding it (lockdep is told it was handed
 *                       off, as for a frozen superblock)            lmt_fork_hold()
 *   held                held: sleeping locks lockmeter records for the caller
 *   fork_release        the fork_hold caller unlocks lmt_fork_mutex
 *   irq_sleeping N      hold lmt_irq_held[] until the task has CONFIG_LOCKMETER_TASK_DEPTH
 *                       - 1 records, then churn lmt_irq_churn while a
 *                       hardirq and a softirq hrtimer each run N times,
 *                       each time two nested rwsem trylocks + releases:
 *                       count (churns), irq_ops, sirq_ops (the softirq
 *                       timer's share), held (records then),
 *                       held_before (records at the start)         lmt_irq_sleeping()
 *   mutex_migrate N M   N x mutex_lock(lmt_migrate_mutex), move to the
 *                       next CPU, msleep(M ms)                       lmt_mutex_migrate()
 *   ww N                N x ww_mutex_lock(lmt_ww_a, lmt_ww_b) in one
 *                       acquire context, then ww_mutex_trylock(lmt_ww_a)
 *                       with none                                    lmt_ww()
 *   nonowner N M        N x down_read_trylock(lmt_nonowner_rwsem) with
 *                       interrupts off, released by up_read_non_owner()
 *                       from irq_work (as BPF's mmap_read_trylock()); N x
 *                       the same trylock released by this task's
 *                       up_read(); msleep(M ms); one down_read/up_read,
 *                       timed from before the one to after the other:
 *                       count (trylocks taken), held_before, held
 *                       (records then), bound_ns (that pair)          lmt_nonowner()
 *
 * The other sleeping lock types:
 *
 *   rtmutex_hold N H    N x rt_mutex_lock(lmt_rtmutex), busy H us   lmt_rtmutex_hold()
 *   pcpu_read N H       N x percpu_down_read(lmt_pcpu_rwsem), H us  lmt_pcpu_reader()
 *   pcpu_write N H      N x percpu_down_write(lmt_pcpu_rwsem), H us lmt_pcpu_writer()
 *   sem_hold N H        N x down(lmt_sem), busy H us                lmt_sem_hold()
 *   rtmutex_contend K N H, sem_contend K N H
 *                       K kthreads, each N x lmt_rtmutex or lmt_sem,
 *                       busy H us                                   lmt_sleep_contend()
 *   rtmutex_trylock F   hold lmt_rtmutex and fail F rt_mutex_trylock()s:
 *                       rejects F                                   lmt_rtmutex_tryfail()
 *   sem_trylock F       F down_trylock()s of lmt_sem_zero (count 0): rejects F,
 *                       then one down_timeout() of it for 10 ms:
 *                       aborted 1                    lmt_sem_tryfail(), lmt_sem_timeout()
 *   pcpu_handoff H      percpu_down_write(lmt_pcpu_rwsem), busy H us, hand it
 *                       over (percpu_rwsem_release(), as freeze_super()) to
 *                       a kthread that takes it over and releases it:
 *                       hold_*_ns (until the hand-over), held_before,
 *                       held (records after it)                lmt_pcpu_handoff()
 *   sem_wait_bg         down(lmt_sem_wait), its one count, then a kthread
 *                       "lmt/semwait" waits in down() of it too
 *                       (lmt_sem_waiter()); returns once it sleeps there
 *   sem_post            up(lmt_sem_wait): the waiter takes the count and
 *                       gives it back; the command returns when it has ended
 *   sem_foreign N       XFS's buffer lock: holding lmt_foreign_mutex, N x
 *                       down() of lmt_foreign_sem[i % 16], each up()'d by a
 *                       work item, another task: count 1, hold_*_ns (the
 *                       mutex's)                                 lmt_sem_foreign()
 *
 * Evidence:
 *
 *   chain N H           a kthread "lmt/chain" takes lmt_chain_lock N times
 *                       through lmt_chain_outer() -> lmt_chain_middle() ->
 *                       lmt_chain_inner(), holding it H us the (N/2)th time
 *                       and H/8 us the others: pid (the kthread's) lmt_chain_inner()
 *
 *   hist_holds N U M    N holds of lmt_hist_lock of U us, then one of M ms,
 *                       all in lmt_hist_hold(): count N + 1,
 *                       hold_min/max_ns, short_max_ns (the longest
 *                       of the N)                                   lmt_hist_hold()
 *   mutex_hold_bg MS W  a kthread "lmt/holder" holds lmt_held_mutex for MS ms
 *                       (lmt_held_holder(), in msleep()), and then until
 *                       bg_join, so that a test sees it held however
 *                       slowly the guest runs, while W kthreads
 *                       "lmt/waiter" wait for it (lmt_held_waiter()); returns
 *                       when it is held and the waiters run: pid (the holder's)
 *   mutex_wait_bg W     W more "lmt/waiter" kthreads for the mutex that
 *                       mutex_hold_bg holds (EINVAL if none does)
 *   rwsem_hold_bg MS W  the same with lmt_held_rwsem, which the holder and
 *                       the waiters take to write: the writer's wait of an
 *                       rwbase on PREEMPT_RT, its site lmt_held_waiter()'s
 *   bg_join             let the holder of mutex_hold_bg or rwsem_hold_bg
 *                       go, and wait until its kthreads have ended
 *
 * Names:
 *
 *   slab N              take the lock of LMT_SLAB_OBJS objects of each of
 *                       the caches "lmtest_a" and "lmtest_b" N times each,
 *                       all in lmt_slab_take(): count (all of them),
 *                       slab_objs, slab_off_a, slab_off_b (the offsets of
 *                       the locks in their objects)             lmt_slab_take()
 *
 * Re-entry:
 *
 *   reenter N H         while a probe on the ipi_send_cpu tracepoint takes
 *                       lmt_reenter_inner (raw) each time it fires, as a
 *                       BPF program could, N x raw_spin_lock(lmt_reenter_lock),
 *                       H us, 5 ms apart: an alert of such a hold
 *                       raises an irq_work from inside lockmeter's charge,
 *                       and the probe runs there.  inner: the probe's
 *                       acquisitions, on any CPU              lmt_reenter_hold()
 *
 * Loading the module takes lmt_init_lock once, in __init code: that site
 * has no name once the init code is freed.
 *
 * Without CONFIG_LOCKMETER only the bench commands and the commands that
 * just take locks mean anything (make bench runs them on kernels without
 * lockmeter); fork_hold, held and fork_release fail with EOPNOTSUPP.
 */
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/lockmeter.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu-rwsem.h>
#include <linux/proc_fs.h>
#include <linux/rtmutex.h>
#include <linux/rwsem.h>
#include <linux/sched/clock.h>
#include <linux/semaphore.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/ww_mutex.h>
#ifdef CONFIG_TRACEPOINTS
#include <trace/events/ipi.h>
#endif

#include "../kernel/locking/lockmeter_compat.h"

#define LMT_MAX_THREADS	8
#define LMT_MANY	20480	/* more than the key directory's default rows */
#define LMT_MAX_HOLD_US	1000000

static DEFINE_SPINLOCK(lmt_static_lock);
static DEFINE_SPINLOCK(lmt_irq_lock);
static DEFINE_SPINLOCK(lmt_bh_lock);
static DEFINE_SPINLOCK(lmt_contended_lock);
static DEFINE_SPINLOCK(lmt_try_lock);
static DEFINE_SPINLOCK(lmt_nl_a);
static DEFINE_SPINLOCK(lmt_nl_b);
static DEFINE_SPINLOCK(lmt_bench_lock);
static DEFINE_SPINLOCK(lmt_full_lock);
static DEFINE_SPINLOCK(lmt_chain_lock);
static DEFINE_SPINLOCK(lmt_hist_lock);
static DEFINE_RWLOCK(lmt_rwlock);
static spinlock_t lmt_many[LMT_MANY];
static DEFINE_MUTEX(lmt_sleep_mutex);
static DEFINE_MUTEX(lmt_contended_mutex);
static DEFINE_MUTEX(lmt_try_mutex);
static DEFINE_MUTEX(lmt_abort_mutex);
static DECLARE_RWSEM(lmt_abort_rwsem);
static DEFINE_MUTEX(lmt_fork_mutex);
static DEFINE_MUTEX(lmt_bench_mutex);
static DECLARE_RWSEM(lmt_rwsem);
static struct task_struct *lmt_fork_holder;
static DEFINE_SPINLOCK(lmt_init_lock);
static DEFINE_MUTEX(lmt_irq_churn);
static DEFINE_MUTEX(lmt_migrate_mutex);
static DECLARE_RWSEM(lmt_hirq_a);
static DECLARE_RWSEM(lmt_hirq_b);
static DECLARE_RWSEM(lmt_sirq_a);
static DECLARE_RWSEM(lmt_sirq_b);
static DEFINE_WD_CLASS(lmt_ww_class);
static DECLARE_RWSEM(lmt_nonowner_rwsem);
static struct ww_mutex lmt_ww_a, lmt_ww_b;
static DEFINE_RT_MUTEX(lmt_rtmutex);
DEFINE_STATIC_PERCPU_RWSEM(lmt_pcpu_rwsem);
static struct semaphore lmt_sem = __SEMAPHORE_INITIALIZER(lmt_sem, 1);
static struct semaphore lmt_sem_zero = __SEMAPHORE_INITIALIZER(lmt_sem_zero, 0);
static struct semaphore lmt_sem_wait = __SEMAPHORE_INITIALIZER(lmt_sem_wait, 1);

/* Held together, so each needs a lockdep class of its own. */
#define LMT_IRQ_HELD	32
static struct mutex lmt_irq_held[LMT_IRQ_HELD];
static struct lock_class_key lmt_irq_held_keys[LMT_IRQ_HELD];

/* One command at a time; its results stay readable until the next. */
static DEFINE_MUTEX(lmt_mutex);

struct lmt_result {
	char cmd[24];
	u64 count;
	u64 hold_min;
	u64 hold_max;
	u64 hold_total;
	u64 span_min;
	u64 span_max;
	u64 span_total;
	u64 ns_per_pair;
	u64 rejects;
	u64 aborted;
	u64 irq_ops;
	u64 sirq_ops;
	u64 fill;
	u64 sleep_min;
	u64 sleep_max;
	u64 short_max;
	u64 bound;
	int task_depth;
	int held;
	int held_before;
	unsigned int threads;
	int max_readers;
	pid_t pid;
	bool has_hold;
	bool has_span;
	bool has_bench;
	bool has_fill;
	bool has_readers;
	bool has_rejects;
	bool has_aborted;
	bool has_held;
	bool has_irq;
	bool has_pid;
	bool has_short;
	bool has_nonowner;
	bool has_slab;
	bool has_inner;
	u64 inner;
	unsigned int slab_objs;
	size_t slab_off_a;
	size_t slab_off_b;
};

/*
 * Busy for @us by local_clock(), the clock the module measures its holds
 * with, not by udelay(): that runs on each CPU's loops_per_jiffy, which a
 * CPU whose calibration failed gets wrong by orders of magnitude (the
 * secondary vCPUs under QEMU's multi-threaded TCG: "calibrate_delay_direct()
 * failed to get a good estimate", and 300 ms came out as 0.4 ms).
 */
static void lmt_delay(unsigned int us)
{
	u64 end = local_clock() + (u64)us * NSEC_PER_USEC;

	while (local_clock() < end)
		cpu_relax();
}

static struct lmt_result lmt_res;
static DEFINE_SPINLOCK(lmt_res_lock);	/* guards lmt_res against the kthreads */
static atomic_t lmt_readers_in;

/* One more duration @d into a minimum, maximum and total; @first: the first. */
static void lmt_extremes(u64 d, bool first, u64 *min, u64 *max, u64 *total)
{
	if (first || d < *min)
		*min = d;
	if (d > *max)
		*max = d;
	*total += d;
}

static void lmt_account(u64 t0, u64 t1)
{
	unsigned long flags;

	/*
	 * This lock is metered too, but at its own site, so it never mixes
	 * with the locks under test.
	 */
	spin_lock_irqsave(&lmt_res_lock, flags);
	lmt_extremes(t1 - t0, !lmt_res.count, &lmt_res.hold_min, &lmt_res.hold_max,
		     &lmt_res.hold_total);
	lmt_res.count++;
	spin_unlock_irqrestore(&lmt_res_lock, flags);
}

/*
 * A hold measured twice: inside, from @t0 just after the lock was taken
 * to @t1 just before its release (lmt_account()), and around, from @s0
 * just before the lock call to @s1 just after the unlock returned.
 * lockmeter reads its clock between the two, so the hold it reports lies
 * between them whatever the host does to the vCPU meanwhile: the inside
 * the least it can be, the span the most (a wait for the lock included).
 */
static void lmt_account_span(u64 s0, u64 t0, u64 t1, u64 s1)
{
	unsigned long flags;

	spin_lock_irqsave(&lmt_res_lock, flags);
	lmt_extremes(s1 - s0, !lmt_res.has_span, &lmt_res.span_min, &lmt_res.span_max,
		     &lmt_res.span_total);
	lmt_res.has_span = true;
	spin_unlock_irqrestore(&lmt_res_lock, flags);
	lmt_account(t0, t1);
}

/* One hold of lmt_hist_lock of @us, measured: the histogram's subject. */
static noinline void lmt_hist_hold(unsigned int us)
{
	u64 t0, t1;

	spin_lock(&lmt_hist_lock);
	t0 = local_clock();
	lmt_delay(us);
	t1 = local_clock();
	spin_unlock(&lmt_hist_lock);
	lmt_account(t0, t1);
	cond_resched();
}

static noinline void lmt_hold(unsigned int n, unsigned int us)
{
	u64 s0, t0, t1, s1;

	while (n--) {
		s0 = local_clock();
		spin_lock(&lmt_static_lock);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		spin_unlock(&lmt_static_lock);
		s1 = local_clock();
		lmt_account_span(s0, t0, t1, s1);
		cond_resched();
	}
}

static noinline void lmt_hold_irqsave(unsigned int n, unsigned int us)
{
	unsigned long flags;
	u64 s0, t0, t1, s1;

	while (n--) {
		s0 = local_clock();
		spin_lock_irqsave(&lmt_irq_lock, flags);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		spin_unlock_irqrestore(&lmt_irq_lock, flags);
		s1 = local_clock();
		lmt_account_span(s0, t0, t1, s1);
		cond_resched();
	}
}

static noinline void lmt_hold_bh(unsigned int n, unsigned int us)
{
	u64 s0, t0, t1, s1;

	while (n--) {
		s0 = local_clock();
		spin_lock_bh(&lmt_bh_lock);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		spin_unlock_bh(&lmt_bh_lock);
		s1 = local_clock();
		lmt_account_span(s0, t0, t1, s1);
		cond_resched();
	}
}

static noinline unsigned int lmt_trylock_fail(unsigned int f)
{
	unsigned int failed = 0;

	while (f--) {
		if (spin_trylock(&lmt_try_lock))
			spin_unlock(&lmt_try_lock);	/* cannot happen: we hold it */
		else
			failed++;
	}
	return failed;
}

static noinline void lmt_trylock_hold(unsigned int f)
{
	unsigned int failed;
	u64 t0, t1;

	spin_lock(&lmt_try_lock);
	t0 = local_clock();
	failed = lmt_trylock_fail(f);
	t1 = local_clock();
	spin_unlock(&lmt_try_lock);
	lmt_account(t0, t1);
	lmt_res.rejects = failed;
}

static noinline void lmt_writer(unsigned int n, unsigned int us)
{
	u64 t0, t1;

	while (n--) {
		write_lock(&lmt_rwlock);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		write_unlock(&lmt_rwlock);
		lmt_account(t0, t1);
		cond_resched();
	}
}

static noinline void lmt_nonlifo(unsigned int n)
{
	while (n--) {
		spin_lock(&lmt_nl_a);
		spin_lock(&lmt_nl_b);
		lmt_delay(5);
		spin_unlock(&lmt_nl_a);
		lmt_delay(5);
		spin_unlock(&lmt_nl_b);
		lmt_res.count++;
		cond_resched();
	}
}

static noinline void lmt_overflow(unsigned int m)
{
	unsigned int i;

	/*
	 * One CPU, so one table sees all m keys: with preemption off, but on
	 * PREEMPT_RT, where spinlock_t may sleep, with migration off.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_disable();
	else
		preempt_disable();
	for (i = 0; i < m; i++) {
		spin_lock(&lmt_many[i]);
		spin_unlock(&lmt_many[i]);
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_enable();
	else
		preempt_enable();
	lmt_res.count = m;
}

/*
 * The longest hold among keys that found the directory full: after
 * @m locks in a row, the last of them again, once, for @us (measured),
 * at a site of its own.  With @m past the directory's rows, that lock
 * has no row, and the overflow row must name it.
 */
static noinline void lmt_overflow_long(unsigned int m, unsigned int us)
{
	u64 s0, t0, t1, s1;

	lmt_overflow(m);
	s0 = local_clock();
	spin_lock(&lmt_many[m - 1]);
	t0 = local_clock();
	lmt_delay(us);
	t1 = local_clock();
	spin_unlock(&lmt_many[m - 1]);
	s1 = local_clock();
	lmt_res.count = 0;
	lmt_account_span(s0, t0, t1, s1);
	lmt_res.count = m;
}

/* @n uncontended pairs of @lock and @unlock: the time they took, ns */
#define LMT_BENCH_FN(name, lock, unlock)				\
static noinline void name(unsigned int n, u64 *ns)			\
{									\
	u64 t0, t1;							\
	unsigned int i;							\
									\
	t0 = local_clock();						\
	for (i = 0; i < n; i++) {					\
		lock;							\
		unlock;							\
	}								\
	t1 = local_clock();						\
	*ns = t1 - t0;							\
}

LMT_BENCH_FN(lmt_bench_loop, spin_lock(&lmt_bench_lock), spin_unlock(&lmt_bench_lock))
LMT_BENCH_FN(lmt_bench_mutex_loop, mutex_lock(&lmt_bench_mutex), mutex_unlock(&lmt_bench_mutex))
/* the pairs of locks hooked in place: an rt_mutex's and a semaphore's */
LMT_BENCH_FN(lmt_bench_rtmutex_loop, rt_mutex_lock(&lmt_rtmutex), rt_mutex_unlock(&lmt_rtmutex))
LMT_BENCH_FN(lmt_bench_sem_loop, down(&lmt_sem), up(&lmt_sem))

/* what metering costs per lock operation at least: a clock read ... */
static noinline u64 lmt_bench_clock_loop(unsigned int n)
{
	u64 t0, t1, sink = 0;
	unsigned int i;

	t0 = local_clock();
	for (i = 0; i < n; i++)
		sink += local_clock();
	t1 = local_clock();
	barrier_data(&sink);
	return t1 - t0;
}

/* ... and interrupts off around its bookkeeping */
static noinline u64 lmt_bench_irq_loop(unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	t0 = local_clock();
	for (i = 0; i < n; i++) {
		local_irq_save(flags);
		barrier();
		local_irq_restore(flags);
	}
	t1 = local_clock();
	return t1 - t0;
}

/*
 * What a pair costs once the table is full.  Every lock of lmt_many[] is
 * a static lock of its own, so each is a row of its own: LMT_MANY of them
 * fill a table of up to LMT_MANY / 2 slots with room to spare.  Then the
 * timed pairs on lmt_full_lock, touched by nothing else, find no slot and
 * are counted in the overflow row.  Migration stays disabled from the
 * fill to the end of the loop, so both meet the same CPU's table; the
 * table stays full until the next reset.  Without lockmeter this just
 * takes the locks.
 */
static noinline u64 lmt_bench_full_loop(unsigned int n)
{
	unsigned int i;
	u64 t0, t1;

	migrate_disable();
	for (i = 0; i < LMT_MANY; i++) {
		spin_lock(&lmt_many[i]);
		spin_unlock(&lmt_many[i]);
	}
	t0 = local_clock();
	for (i = 0; i < n; i++) {
		spin_lock(&lmt_full_lock);
		spin_unlock(&lmt_full_lock);
	}
	t1 = local_clock();
	migrate_enable();
	return t1 - t0;
}

/* ---- sleeping locks, in the caller's context ---- */

/* Where the holder blocks: msleep(@ms), measured into the sleep range. */
static noinline void lmt_mutex_sleep_inside(unsigned int ms)
{
	u64 t0 = local_clock(), t;

	msleep(ms);
	t = local_clock() - t0;
	if (!lmt_res.sleep_min || t < lmt_res.sleep_min)
		lmt_res.sleep_min = t;
	if (t > lmt_res.sleep_max)
		lmt_res.sleep_max = t;
}

static noinline void lmt_mutex_sleep(unsigned int n, unsigned int ms)
{
	u64 t0, t1;

	while (n--) {
		mutex_lock(&lmt_sleep_mutex);
		t0 = local_clock();
		lmt_mutex_sleep_inside(ms);
		t1 = local_clock();
		mutex_unlock(&lmt_sleep_mutex);
		lmt_account(t0, t1);
	}
}

static noinline unsigned int lmt_mutex_trylock_fail(unsigned int f)
{
	unsigned int failed = 0;

	while (f--) {
		if (mutex_trylock(&lmt_try_mutex))
			mutex_unlock(&lmt_try_mutex);	/* cannot happen: we hold it */
		else
			failed++;
	}
	return failed;
}

static noinline void lmt_mutex_trylock_hold(unsigned int f)
{
	mutex_lock(&lmt_try_mutex);
	lmt_res.rejects = lmt_mutex_trylock_fail(f);
	mutex_unlock(&lmt_try_mutex);
	lmt_res.count = 1;
}

static noinline void lmt_rwsem_writer(unsigned int n, unsigned int us)
{
	u64 t0, t1;

	while (n--) {
		down_write(&lmt_rwsem);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		up_write(&lmt_rwsem);
		lmt_account(t0, t1);
		cond_resched();
	}
}

static noinline void lmt_downgrade(unsigned int n, unsigned int us)
{
	while (n--) {
		down_write(&lmt_rwsem);
		lmt_delay(us);
		downgrade_write(&lmt_rwsem);
		lmt_delay(us);
		up_read(&lmt_rwsem);
		lmt_res.count++;
		cond_resched();
	}
}

/* ---- the other sleeping lock types ---- */

/* N holds of H us each between @lock and @unlock, measured. */
#define LMT_HOLD_FN(name, lock, unlock)					\
static noinline void name(unsigned int n, unsigned int us)		\
{									\
	u64 t0, t1;							\
									\
	while (n--) {							\
		lock;							\
		t0 = local_clock();					\
		lmt_delay(us);						\
		t1 = local_clock();					\
		unlock;							\
		lmt_account(t0, t1);					\
		cond_resched();						\
	}								\
}

/*
 * percpu_down_read() is inline and, as lockdep, names the caller of the
 * function it is inlined into: wrapped as cpus_read_lock() wraps it, the
 * site is the wrapper's caller, lmt_pcpu_reader().
 */
static noinline void lmt_pcpu_down_read(void)
{
	percpu_down_read(&lmt_pcpu_rwsem);
}

LMT_HOLD_FN(lmt_rtmutex_hold, rt_mutex_lock(&lmt_rtmutex), rt_mutex_unlock(&lmt_rtmutex))
LMT_HOLD_FN(lmt_pcpu_reader, lmt_pcpu_down_read(), percpu_up_read(&lmt_pcpu_rwsem))
LMT_HOLD_FN(lmt_pcpu_writer, percpu_down_write(&lmt_pcpu_rwsem),
	    percpu_up_write(&lmt_pcpu_rwsem))
LMT_HOLD_FN(lmt_sem_hold, down(&lmt_sem), up(&lmt_sem))

static noinline unsigned int lmt_rtmutex_tryfail(unsigned int f)
{
	unsigned int failed = 0;

	while (f--) {
		if (rt_mutex_trylock(&lmt_rtmutex))
			rt_mutex_unlock(&lmt_rtmutex);	/* cannot happen: we hold it */
		else
			failed++;
	}
	return failed;
}

static noinline unsigned int lmt_sem_tryfail(unsigned int f)
{
	unsigned int failed = 0;

	while (f--) {
		if (down_trylock(&lmt_sem_zero))
			failed++;
		else
			up(&lmt_sem_zero);	/* cannot happen: its count is 0 */
	}
	return failed;
}

/* The kthread that takes the semaphore over, and releases it. */
static int lmt_pcpu_takeover(void *arg)
{
	percpu_rwsem_acquire(&lmt_pcpu_rwsem, false, _THIS_IP_);
	percpu_up_write(&lmt_pcpu_rwsem);
	complete(arg);
	return 0;
}

static noinline int lmt_pcpu_handoff(unsigned int us)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct task_struct *t;
	u64 t0, t1;

#ifdef CONFIG_LOCKMETER
	lmt_res.held_before = lockmeter_current_held();
#endif
	percpu_down_write(&lmt_pcpu_rwsem);
	t0 = local_clock();
	lmt_delay(us);
	t1 = local_clock();
	lm_percpu_rwsem_release(&lmt_pcpu_rwsem, false, _THIS_IP_);
	lmt_account(t0, t1);
#ifdef CONFIG_LOCKMETER
	lmt_res.held = lockmeter_current_held();
#endif
	t = kthread_run(lmt_pcpu_takeover, &done, "lmt/takeover");
	if (IS_ERR(t)) {
		/* take it back and release it here */
		percpu_rwsem_acquire(&lmt_pcpu_rwsem, false, _THIS_IP_);
		percpu_up_write(&lmt_pcpu_rwsem);
		return PTR_ERR(t);
	}
	wait_for_completion(&done);
	return 0;
}

static struct {
	struct completion started;
	struct completion exited;
	struct task_struct *task;
} lmt_semwait;

/* Waits for the count sem_post gives lmt_sem_wait, and gives it back. */
static noinline int lmt_sem_waiter(void *arg)
{
	complete(&lmt_semwait.started);
	down(&lmt_sem_wait);
	up(&lmt_sem_wait);
	complete(&lmt_semwait.exited);
	return 0;
}

/* A wait for a count no one gives: it ends when the timeout expires. */
static noinline bool lmt_sem_timeout(void)
{
	if (!down_timeout(&lmt_sem_zero, msecs_to_jiffies(10))) {
		up(&lmt_sem_zero);
		return false;
	}
	return true;
}

struct lmt_abort_holder {
	struct completion held;
	struct completion release;
	struct completion done;
	unsigned int ms;
	bool rwsem;		/* lmt_abort_rwsem's write side, not lmt_abort_mutex */
};

static int lmt_abort_holder_fn(void *arg)
{
	struct lmt_abort_holder *h = arg;

	if (h->rwsem)
		down_write(&lmt_abort_rwsem);
	else
		mutex_lock(&lmt_abort_mutex);
	complete(&h->held);
	wait_for_completion_timeout(&h->release, msecs_to_jiffies(h->ms));
	if (h->rwsem)
		up_write(&lmt_abort_rwsem);
	else
		mutex_unlock(&lmt_abort_mutex);
	complete(&h->done);
	return 0;
}

/* Start the holder of @h; 0 once it holds its lock. */
static int lmt_abort_start(struct lmt_abort_holder *h)
{
	struct task_struct *t;

	init_completion(&h->held);
	init_completion(&h->release);
	init_completion(&h->done);
	t = kthread_run(lmt_abort_holder_fn, h, "lmt/abort");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wait_for_completion(&h->held);
	return 0;
}

/* The wait ended with @ret: let the holder go. */
static void lmt_abort_end(struct lmt_abort_holder *h, int ret)
{
	lmt_res.aborted = ret == -EINTR;
	complete(&h->release);
	wait_for_completion(&h->done);
}

/* Wait for a mutex another task holds until a signal ends the wait. */
static noinline int lmt_mutex_abort(unsigned int ms)
{
	struct lmt_abort_holder h = { .ms = ms };
	int ret;

	ret = lmt_abort_start(&h);
	if (ret)
		return ret;
	ret = mutex_lock_interruptible(&lmt_abort_mutex);
	if (!ret)
		mutex_unlock(&lmt_abort_mutex);	/* the holder timed out first */
	lmt_abort_end(&h, ret);
	return 0;
}

/* The same for an rw_semaphore's reader, while a writer holds it. */
static noinline int lmt_rwsem_abort(unsigned int ms)
{
	struct lmt_abort_holder h = { .ms = ms, .rwsem = true };
	int ret;

	ret = lmt_abort_start(&h);
	if (ret)
		return ret;
	ret = down_read_interruptible(&lmt_abort_rwsem);
	if (!ret)
		up_read(&lmt_abort_rwsem);	/* the holder timed out first */
	lmt_abort_end(&h, ret);
	return 0;
}

/*
 * The mutex stays held across the return to user space, which lockdep
 * does not allow a lock it tracks: tell it the lock was handed off, and
 * taken back in fork_release, as the VFS does for frozen superblocks.
 */
static noinline void lmt_fork_hold(void)
{
	mutex_lock(&lmt_fork_mutex);
	mutex_release(&lmt_fork_mutex.dep_map, _THIS_IP_);
	lmt_fork_holder = current;
}

/* ---- sleeping locks in interrupts, while a task edits its records ---- */

#define LMT_IRQ_PERIOD_NS	(200 * NSEC_PER_USEC)
#define LMT_IRQ_TIMEOUT_MS	60000

struct lmt_irq {
	struct hrtimer timer;
	struct rw_semaphore *a, *b;
	atomic_t runs;
	atomic_t ops;		/* sleeping-lock operations done */
	bool stop;
};

static struct lmt_irq lmt_hirq = { .a = &lmt_hirq_a, .b = &lmt_hirq_b };
static struct lmt_irq lmt_sirq = { .a = &lmt_sirq_a, .b = &lmt_sirq_b };

/* Two nested trylocks and their releases, in the timer's context. */
static enum hrtimer_restart lmt_irq_fn(struct hrtimer *timer)
{
	struct lmt_irq *q = container_of(timer, struct lmt_irq, timer);

	/* only this timer takes these, so the trylocks cannot fail */
	if (down_read_trylock(q->a)) {
		if (down_write_trylock(q->b)) {
			up_write(q->b);
			atomic_add(2, &q->ops);
		}
		up_read(q->a);
		atomic_add(2, &q->ops);
	}
	atomic_inc(&q->runs);
	if (READ_ONCE(q->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(LMT_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void lmt_irq_start(struct lmt_irq *q, enum hrtimer_mode mode)
{
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, mode);
	q->timer.function = lmt_irq_fn;
	atomic_set(&q->runs, 0);
	atomic_set(&q->ops, 0);
	WRITE_ONCE(q->stop, false);
	hrtimer_start(&q->timer, ns_to_ktime(LMT_IRQ_PERIOD_NS), mode);
}

static void lmt_irq_stop(struct lmt_irq *q)
{
	WRITE_ONCE(q->stop, true);
	hrtimer_cancel(&q->timer);
}

static noinline int lmt_irq_sleeping(unsigned int n)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(LMT_IRQ_TIMEOUT_MS);
	int want = 0, i, ret = 0;

#ifdef CONFIG_LOCKMETER
	/*
	 * The command mutex is one record already, and the write's freeze
	 * protection (sb_writers of /proc, a percpu_rw_semaphore) another.
	 */
	lmt_res.task_depth = CONFIG_LOCKMETER_TASK_DEPTH;
	lmt_res.held_before = lockmeter_current_held();
	want = CONFIG_LOCKMETER_TASK_DEPTH - 1 - lmt_res.held_before;
#endif
	if (want < 0 || want > LMT_IRQ_HELD)
		return -EINVAL;
	for (i = 0; i < want; i++)
		mutex_lock(&lmt_irq_held[i]);
	lmt_irq_start(&lmt_hirq, HRTIMER_MODE_REL_HARD);
	lmt_irq_start(&lmt_sirq, HRTIMER_MODE_REL_SOFT);
	while (atomic_read(&lmt_hirq.runs) < n || atomic_read(&lmt_sirq.runs) < n) {
		if (time_after(jiffies, deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		/* the top record comes and goes while the timers fire */
		mutex_lock(&lmt_irq_churn);
		lmt_delay(20);
		mutex_unlock(&lmt_irq_churn);
		lmt_delay(20);
		lmt_res.count++;
		cond_resched();
	}
	lmt_irq_stop(&lmt_hirq);
	/*
	 * On PREEMPT_RT softirqs run in tasks and their sleeping locks are
	 * metered there.  Cancelling a soft timer whose callback runs takes
	 * the softirq_expiry_lock, a spinlock_t, with bottom halves off,
	 * and may run the callback in this task: three records more than
	 * its table has room for while lmt_irq_held[] is held.  So there,
	 * the soft timer stops once they are released.
	 */
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		lmt_irq_stop(&lmt_sirq);
#ifdef CONFIG_LOCKMETER
	lmt_res.held = lockmeter_current_held();
#endif
	while (i--)
		mutex_unlock(&lmt_irq_held[i]);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		lmt_irq_stop(&lmt_sirq);
	lmt_res.sirq_ops = atomic_read(&lmt_sirq.ops);
	lmt_res.irq_ops = atomic_read(&lmt_hirq.ops) + lmt_res.sirq_ops;
	return ret;
}

/* A mutex holder that moves to another CPU while it sleeps. */
static noinline int lmt_mutex_migrate(unsigned int n, unsigned int ms)
{
	cpumask_var_t saved;
	unsigned int cpu;
	u64 t0, t1;
	int ret = 0;

	if (!alloc_cpumask_var(&saved, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(saved, current->cpus_ptr);
	while (n-- && !ret) {
		mutex_lock(&lmt_migrate_mutex);
		t0 = local_clock();
		cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));
		msleep(ms);
		t1 = local_clock();
		mutex_unlock(&lmt_migrate_mutex);
		lmt_account(t0, t1);
	}
	set_cpus_allowed_ptr(current, saved);
	free_cpumask_var(saved);
	return ret;
}

/* ww_mutexes in an acquire context, and a trylock without one. */
static noinline void lmt_ww(unsigned int n)
{
	struct ww_acquire_ctx ctx;

	while (n--) {
		ww_acquire_init(&ctx, &lmt_ww_class);
		/* nobody else takes them: no -EDEADLK to back off from */
		if (!ww_mutex_lock(&lmt_ww_a, &ctx)) {
			if (!ww_mutex_lock(&lmt_ww_b, &ctx))
				ww_mutex_unlock(&lmt_ww_b);
			ww_mutex_unlock(&lmt_ww_a);
		}
		ww_acquire_fini(&ctx);
		lmt_res.count++;
	}
	if (ww_mutex_trylock(&lmt_ww_a, NULL))
		ww_mutex_unlock(&lmt_ww_a);
}

/* ---- kthread scenarios ---- */

enum lmt_work {
	LMT_CONTEND, LMT_READ, LMT_BENCH, LMT_MUTEX, LMT_RWSEM_READ, LMT_RTMUTEX, LMT_SEM
};

struct lmt_thread {
	struct task_struct *task;
	struct completion *go;
	struct completion done;
	enum lmt_work work;
	unsigned int n;
	unsigned int us;
	u64 elapsed;
};

static noinline void lmt_contend(struct lmt_thread *t)
{
	unsigned int n = t->n;
	u64 s0, t0, t1, s1;

	while (n--) {
		s0 = local_clock();
		spin_lock(&lmt_contended_lock);
		t0 = local_clock();
		lmt_delay(t->us);
		t1 = local_clock();
		spin_unlock(&lmt_contended_lock);
		s1 = local_clock();
		lmt_account_span(s0, t0, t1, s1);
		cond_resched();
	}
}

/* Inside a read section: busy @us, measured; returns the readers inside. */
static int lmt_read_section(unsigned int us, u64 *t0, u64 *t1)
{
	int in;

	*t0 = local_clock();
	in = atomic_inc_return(&lmt_readers_in);
	lmt_delay(us);
	atomic_dec(&lmt_readers_in);
	*t1 = local_clock();
	return in;
}

/* After the read section: its hold, and the most readers seen at once. */
static void lmt_account_reader(u64 t0, u64 t1, int in)
{
	unsigned long flags;

	lmt_account(t0, t1);
	spin_lock_irqsave(&lmt_res_lock, flags);
	if (in > lmt_res.max_readers)
		lmt_res.max_readers = in;
	spin_unlock_irqrestore(&lmt_res_lock, flags);
}

static noinline void lmt_reader(struct lmt_thread *t)
{
	unsigned int n = t->n;
	u64 t0, t1;
	int in;

	while (n--) {
		read_lock(&lmt_rwlock);
		in = lmt_read_section(t->us, &t0, &t1);
		read_unlock(&lmt_rwlock);
		lmt_account_reader(t0, t1, in);
		cond_resched();
	}
}

static noinline void lmt_mutex_contend(struct lmt_thread *t)
{
	unsigned int n = t->n;
	u64 t0, t1;

	while (n--) {
		mutex_lock(&lmt_contended_mutex);
		t0 = local_clock();
		lmt_delay(t->us);
		t1 = local_clock();
		mutex_unlock(&lmt_contended_mutex);
		lmt_account(t0, t1);
		cond_resched();
	}
}

static noinline void lmt_rwsem_reader(struct lmt_thread *t)
{
	unsigned int n = t->n;
	u64 t0, t1;
	int in;

	while (n--) {
		down_read(&lmt_rwsem);
		in = lmt_read_section(t->us, &t0, &t1);
		up_read(&lmt_rwsem);
		lmt_account_reader(t0, t1, in);
		cond_resched();
	}
}

/* rtmutex_contend, sem_contend */
static noinline void lmt_sleep_contend(struct lmt_thread *t)
{
	unsigned int n = t->n;
	u64 t0, t1;

	while (n--) {
		if (t->work == LMT_RTMUTEX)
			rt_mutex_lock(&lmt_rtmutex);
		else
			down(&lmt_sem);
		t0 = local_clock();
		lmt_delay(t->us);
		t1 = local_clock();
		if (t->work == LMT_RTMUTEX)
			rt_mutex_unlock(&lmt_rtmutex);
		else
			up(&lmt_sem);
		lmt_account(t0, t1);
		cond_resched();
	}
}

static int lmt_thread_fn(void *arg)
{
	struct lmt_thread *t = arg;

	wait_for_completion(t->go);
	switch (t->work) {
	case LMT_CONTEND:
		lmt_contend(t);
		break;
	case LMT_READ:
		lmt_reader(t);
		break;
	case LMT_BENCH:
		lmt_bench_loop(t->n, &t->elapsed);
		break;
	case LMT_MUTEX:
		lmt_mutex_contend(t);
		break;
	case LMT_RWSEM_READ:
		lmt_rwsem_reader(t);
		break;
	case LMT_RTMUTEX:
	case LMT_SEM:
		lmt_sleep_contend(t);
		break;
	}
	complete(&t->done);
	return 0;
}

/* Start k threads, thread i bound to CPU i % online CPUs; wait for all. */
static int lmt_run_threads(unsigned int k, enum lmt_work work, unsigned int n,
			   unsigned int us, u64 *elapsed_max)
{
	struct lmt_thread *th;
	DECLARE_COMPLETION_ONSTACK(go);
	unsigned int i, started = 0, cpu = cpumask_first(cpu_online_mask);
	int ret = 0;

	th = kcalloc(k, sizeof(*th), GFP_KERNEL);
	if (!th)
		return -ENOMEM;
	for (i = 0; i < k; i++) {
		th[i].go = &go;
		th[i].work = work;
		th[i].n = n;
		th[i].us = us;
		init_completion(&th[i].done);
		th[i].task = kthread_create(lmt_thread_fn, &th[i], "lmt/%u", i);
		if (IS_ERR(th[i].task)) {
			ret = PTR_ERR(th[i].task);
			break;
		}
		kthread_bind(th[i].task, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		wake_up_process(th[i].task);
		started++;
	}
	/* threads already started must finish even if a later one failed */
	complete_all(&go);
	for (i = 0; i < started; i++) {
		wait_for_completion(&th[i].done);
		if (elapsed_max && th[i].elapsed > *elapsed_max)
			*elapsed_max = th[i].elapsed;
	}
	kfree(th);
	return ret;
}

/* ---- evidence: a known call chain, from a kthread of a known name ---- */

struct lmt_chain {
	unsigned int n;
	unsigned int us;
	struct completion done;
};

static noinline void lmt_chain_inner(unsigned int us)
{
	u64 t0, t1;

	spin_lock(&lmt_chain_lock);
	t0 = local_clock();
	lmt_delay(us);
	t1 = local_clock();
	spin_unlock(&lmt_chain_lock);
	lmt_account(t0, t1);
}

/* Each calls the next and then does something, so none is a tail call. */
static noinline void lmt_chain_middle(unsigned int us)
{
	lmt_chain_inner(us);
	barrier();
}

static noinline void lmt_chain_outer(unsigned int us)
{
	lmt_chain_middle(us);
	barrier();
}

static int lmt_chain_fn(void *arg)
{
	struct lmt_chain *c = arg;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		lmt_chain_outer(i == c->n / 2 ? c->us : c->us / 8);
		cond_resched();
	}
	complete(&c->done);
	return 0;
}

static noinline int lmt_chain_run(unsigned int n, unsigned int us)
{
	struct lmt_chain c = { .n = n, .us = us };
	struct task_struct *t;

	init_completion(&c.done);
	t = kthread_run(lmt_chain_fn, &c, "lmt/chain");
	if (IS_ERR(t))
		return PTR_ERR(t);
	lmt_res.pid = task_pid_nr(t);
	wait_for_completion(&c.done);
	return 0;
}

/* ---- the locks held now: a mutex held in the background ---- */

static DEFINE_MUTEX(lmt_held_mutex);
static DECLARE_RWSEM(lmt_held_rwsem);

/* The kthreads of mutex_hold_bg or rwsem_hold_bg, until bg_join; under lmt_mutex. */
static struct {
	struct completion holding;	/* the holder has the lock */
	struct completion release;	/* bg_join: the holder may let it go */
	struct completion exited;	/* once per kthread */
	unsigned int nr;		/* kthreads started, not yet joined */
	unsigned int ms;
	bool rwsem;			/* lmt_held_rwsem, not lmt_held_mutex */
} lmt_bg;

static noinline void lmt_held_holder(unsigned int ms)
{
	if (lmt_bg.rwsem)
		down_write(&lmt_held_rwsem);
	else
		mutex_lock(&lmt_held_mutex);
	complete(&lmt_bg.holding);
	msleep(ms);
	/* still in msleep(), as the tests expect its chain to show */
	while (!completion_done(&lmt_bg.release))
		msleep(20);
	if (lmt_bg.rwsem)
		up_write(&lmt_held_rwsem);
	else
		mutex_unlock(&lmt_held_mutex);
}

static noinline void lmt_held_waiter(void)
{
	if (lmt_bg.rwsem) {
		down_write(&lmt_held_rwsem);
		up_write(&lmt_held_rwsem);
	} else {
		mutex_lock(&lmt_held_mutex);
		mutex_unlock(&lmt_held_mutex);
	}
}

static int lmt_bg_holder_fn(void *arg)
{
	lmt_held_holder(lmt_bg.ms);
	kthread_complete_and_exit(&lmt_bg.exited, 0);
}

static int lmt_bg_waiter_fn(void *arg)
{
	lmt_held_waiter();
	kthread_complete_and_exit(&lmt_bg.exited, 0);
}

static void lmt_bg_join(void)
{
	if (lmt_bg.nr)
		complete_all(&lmt_bg.release);
	for (; lmt_bg.nr; lmt_bg.nr--)
		wait_for_completion(&lmt_bg.exited);
}

/* @nr kthreads that wait for lmt_held_mutex; how many started. */
static unsigned int lmt_bg_waiters(unsigned int nr)
{
	struct task_struct *t;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		t = kthread_run(lmt_bg_waiter_fn, NULL, "lmt/waiter");
		if (IS_ERR(t))
			break;
		lmt_bg.nr++;
	}
	return i;
}

static int lmt_cmd_hold_bg(const unsigned int *a)
{
	struct task_struct *t;

	if (!a[0] || a[0] > 10000 || a[1] > LMT_MAX_THREADS)
		return -EINVAL;
	if (lmt_bg.nr)
		return -EBUSY;
	init_completion(&lmt_bg.holding);
	init_completion(&lmt_bg.release);
	init_completion(&lmt_bg.exited);
	lmt_bg.ms = a[0];
	lmt_bg.rwsem = !strcmp(lmt_res.cmd, "rwsem_hold_bg");
	t = kthread_run(lmt_bg_holder_fn, NULL, "lmt/holder");
	if (IS_ERR(t))
		return PTR_ERR(t);
	lmt_bg.nr = 1;
	lmt_res.pid = task_pid_nr(t);
	lmt_res.has_pid = true;
	wait_for_completion(&lmt_bg.holding);
	lmt_bg_waiters(a[1]);
	return 0;
}

static int lmt_cmd_wait_bg(const unsigned int *a)
{
	if (!a[0] || a[0] > LMT_MAX_THREADS || !lmt_bg.nr)
		return -EINVAL;
	return lmt_bg_waiters(a[0]) ? 0 : -ENOMEM;
}

static int lmt_cmd_hist_holds(const unsigned int *a)
{
	unsigned int i;

	if (!a[0] || a[0] > 100000 || a[1] > LMT_MAX_HOLD_US || a[2] > LMT_MAX_HOLD_US / 1000)
		return -EINVAL;
	lmt_res.has_hold = true;
	for (i = 0; i < a[0]; i++)
		lmt_hist_hold(a[1]);
	/* the longest short hold: a vCPU or task stalled in one shows here */
	lmt_res.short_max = lmt_res.hold_max;
	lmt_res.has_short = true;
	lmt_hist_hold(a[2] * 1000);
	return 0;
}

static int lmt_cmd_bg_join(const unsigned int *a)
{
	lmt_bg_join();
	return 0;
}

/* ---- the control file ---- */

#define LMT_HOLD_US_OK(us)	((us) <= LMT_MAX_HOLD_US)

static int lmt_cmd_hold(const unsigned int *a)
{
	if (!LMT_HOLD_US_OK(a[1]))
		return -EINVAL;
	lmt_res.has_hold = true;
	if (!strcmp(lmt_res.cmd, "hold"))
		lmt_hold(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "hold_irqsave"))
		lmt_hold_irqsave(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "hold_bh"))
		lmt_hold_bh(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "writer"))
		lmt_writer(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "rtmutex_hold"))
		lmt_rtmutex_hold(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "pcpu_read"))
		lmt_pcpu_reader(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "pcpu_write"))
		lmt_pcpu_writer(a[0], a[1]);
	else if (!strcmp(lmt_res.cmd, "sem_hold"))
		lmt_sem_hold(a[0], a[1]);
	else
		lmt_rwsem_writer(a[0], a[1]);
	return 0;
}

/* contend, readers, mutex_contend, rwsem_readers: K threads x N x H us */
static int lmt_cmd_threads(const unsigned int *a)
{
	bool readers = strstr(lmt_res.cmd, "readers");
	enum lmt_work work;

	if (!a[0] || a[0] > LMT_MAX_THREADS || !LMT_HOLD_US_OK(a[2]) ||
	    (readers && a[0] > num_online_cpus()))
		return -EINVAL;
	if (!strcmp(lmt_res.cmd, "contend"))
		work = LMT_CONTEND;
	else if (!strcmp(lmt_res.cmd, "readers"))
		work = LMT_READ;
	else if (!strcmp(lmt_res.cmd, "mutex_contend"))
		work = LMT_MUTEX;
	else if (!strcmp(lmt_res.cmd, "rtmutex_contend"))
		work = LMT_RTMUTEX;
	else if (!strcmp(lmt_res.cmd, "sem_contend"))
		work = LMT_SEM;
	else
		work = LMT_RWSEM_READ;
	lmt_res.has_hold = true;
	lmt_res.has_readers = readers;
	return lmt_run_threads(a[0], work, a[1], a[2], NULL);
}

/*
 * bench_mutex_threads: the mutex pair with many tasks alive, each holding
 * a metered mutex of its own (so each needs its task records at once),
 * timed in a kthread that holds nothing, whose every release leaves it
 * with no record.
 */
#define LMT_THREADS_MAX	20000

static atomic_t lmt_threads_in;
static DECLARE_WAIT_QUEUE_HEAD(lmt_threads_wq);

static int lmt_threads_holder(void *arg)
{
	struct mutex *own = arg;

	mutex_lock(own);
	atomic_inc(&lmt_threads_in);
	wake_up(&lmt_threads_wq);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	mutex_unlock(own);
	return 0;
}

struct lmt_bench_run {
	unsigned int n;
	u64 elapsed;
	struct completion done;
};

static int lmt_bench_thread(void *arg)
{
	struct lmt_bench_run *run = arg;

	lmt_bench_mutex_loop(run->n, &run->elapsed);
	kthread_complete_and_exit(&run->done, 0);
}

static int lmt_bench_mutex_threads(unsigned int t, unsigned int n, u64 *elapsed)
{
	struct lmt_bench_run run = { .n = n };
	struct task_struct **tasks, *bench;
	struct mutex *own;	/* one per holder kthread, held while it sleeps */
	unsigned int i, nr;
	int ret = 0;

	tasks = kvcalloc(t, sizeof(*tasks), GFP_KERNEL);
	own = kvcalloc(t, sizeof(*own), GFP_KERNEL);
	if (!tasks || !own) {
		ret = -ENOMEM;
		goto out;
	}
	atomic_set(&lmt_threads_in, 0);
	for (nr = 0; nr < t; nr++) {
		mutex_init(&own[nr]);
		tasks[nr] = kthread_run(lmt_threads_holder, &own[nr], "lmt/t%u", nr);
		if (IS_ERR(tasks[nr])) {
			ret = PTR_ERR(tasks[nr]);
			break;
		}
	}
	if (!ret) {
		/* all hold their mutex, and sleep */
		wait_event(lmt_threads_wq, atomic_read(&lmt_threads_in) == nr);
		init_completion(&run.done);
		bench = kthread_run(lmt_bench_thread, &run, "lmt/bench");
		if (IS_ERR(bench)) {
			ret = PTR_ERR(bench);
		} else {
			wait_for_completion(&run.done);
			*elapsed = run.elapsed;
		}
	}
	for (i = 0; i < nr; i++)
		kthread_stop(tasks[i]);
	lmt_res.threads = nr;
out:
	kvfree(own);
	kvfree(tasks);
	return ret;
}

/*
 * nonowner: read holds of an rw_semaphore that end elsewhere.  Taken by
 * down_read_trylock() with interrupts off and handed to irq_work for the
 * up_read_non_owner(), as bpf_mmap_unlock_mm() does with mmap_lock; and
 * taken the same way but released by this task.  Neither may leave this
 * task a record, and the down_read() after them is charged its own hold.
 */
static atomic_t lmt_nonowner_released;

static void lmt_nonowner_release(struct irq_work *work)
{
	up_read_non_owner(&lmt_nonowner_rwsem);
	atomic_inc(&lmt_nonowner_released);
}

static struct irq_work lmt_nonowner_work = IRQ_WORK_INIT_HARD(lmt_nonowner_release);

static noinline int lmt_nonowner(unsigned int n, unsigned int ms)
{
	unsigned int i;
	bool taken;
	u64 t0;

#ifdef CONFIG_LOCKMETER
	lmt_res.held_before = lockmeter_current_held();
#endif
	atomic_set(&lmt_nonowner_released, 0);
	for (i = 0; i < n; i++) {
		local_irq_disable();
		taken = down_read_trylock(&lmt_nonowner_rwsem);
		if (taken) {
			/* as bpf_mmap_unlock_mm(): lockdep hears of it now */
			rwsem_release(&lmt_nonowner_rwsem.dep_map, _THIS_IP_);
			irq_work_queue(&lmt_nonowner_work);
		}
		local_irq_enable();
		irq_work_sync(&lmt_nonowner_work);
		lmt_res.count += taken;
	}
	if (atomic_read(&lmt_nonowner_released) != lmt_res.count)
		return -EIO;
	for (i = 0; i < n; i++) {
		local_irq_disable();
		taken = down_read_trylock(&lmt_nonowner_rwsem);
		local_irq_enable();
		if (taken)
			up_read(&lmt_nonowner_rwsem);
		lmt_res.count += taken;
	}
#ifdef CONFIG_LOCKMETER
	lmt_res.held = lockmeter_current_held();
#endif
	msleep(ms);
	t0 = local_clock();
	down_read(&lmt_nonowner_rwsem);
	up_read(&lmt_nonowner_rwsem);
	lmt_res.bound = local_clock() - t0;
	return 0;
}

static int lmt_cmd_trylock(const unsigned int *a)
{
	lmt_res.has_rejects = true;
	if (!strcmp(lmt_res.cmd, "trylock")) {
		lmt_trylock_hold(a[0]);
	} else if (!strcmp(lmt_res.cmd, "rtmutex_trylock")) {
		rt_mutex_lock(&lmt_rtmutex);
		lmt_res.rejects = lmt_rtmutex_tryfail(a[0]);
		rt_mutex_unlock(&lmt_rtmutex);
		lmt_res.count = 1;
	} else if (!strcmp(lmt_res.cmd, "sem_trylock")) {
		lmt_res.rejects = lmt_sem_tryfail(a[0]);
		lmt_res.has_aborted = true;
		lmt_res.aborted = lmt_sem_timeout();
	} else {
		lmt_mutex_trylock_hold(a[0]);
	}
	return 0;
}

static int lmt_cmd_nonlifo(const unsigned int *a)
{
	lmt_nonlifo(a[0]);
	return 0;
}

static int lmt_cmd_overflow(const unsigned int *a)
{
	if (a[0] > LMT_MANY)
		return -EINVAL;
	lmt_overflow(a[0]);
	return 0;
}

static int lmt_cmd_overflow_long(const unsigned int *a)
{
	if (!a[0] || a[0] > LMT_MANY || !LMT_HOLD_US_OK(a[1]))
		return -EINVAL;
	lmt_res.has_hold = true;
	lmt_overflow_long(a[0], a[1]);
	return 0;
}

static int lmt_cmd_bench(const unsigned int *a)
{
	u64 elapsed = 0;
	int ret = 0;

	if (!a[0])
		return -EINVAL;
	lmt_res.has_bench = true;
	if (!strcmp(lmt_res.cmd, "bench")) {
		lmt_res.count = a[0];
		lmt_bench_loop(a[0], &elapsed);
	} else if (!strcmp(lmt_res.cmd, "bench_mutex")) {
		lmt_res.count = a[0];
		lmt_bench_mutex_loop(a[0], &elapsed);
	} else if (!strcmp(lmt_res.cmd, "bench_rtmutex")) {
		lmt_res.count = a[0];
		lmt_bench_rtmutex_loop(a[0], &elapsed);
	} else if (!strcmp(lmt_res.cmd, "bench_sem")) {
		lmt_res.count = a[0];
		lmt_bench_sem_loop(a[0], &elapsed);
	} else if (!strcmp(lmt_res.cmd, "bench_clock")) {
		lmt_res.count = a[0];
		elapsed = lmt_bench_clock_loop(a[0]);
	} else if (!strcmp(lmt_res.cmd, "bench_irq")) {
		lmt_res.count = a[0];
		elapsed = lmt_bench_irq_loop(a[0]);
	} else if (!strcmp(lmt_res.cmd, "bench_mutex_threads")) {
		if (!a[1] || a[0] > LMT_THREADS_MAX)
			return -EINVAL;
		lmt_res.count = a[1];
		ret = lmt_bench_mutex_threads(a[0], a[1], &elapsed);
		lmt_res.ns_per_pair = div_u64(elapsed, a[1]);
		return ret;
	} else if (!strcmp(lmt_res.cmd, "bench_full")) {
		lmt_res.count = a[0];
		lmt_res.fill = LMT_MANY;
		lmt_res.has_fill = true;
		elapsed = lmt_bench_full_loop(a[0]);
	} else {
		lmt_res.count = 2ULL * a[0];
		ret = lmt_run_threads(2, LMT_BENCH, a[0], 0, &elapsed);
	}
	lmt_res.ns_per_pair = div_u64(elapsed, a[0]);
	return ret;
}

static int lmt_cmd_mutex_sleep(const unsigned int *a)
{
	if (a[1] > LMT_MAX_HOLD_US / 1000)
		return -EINVAL;
	lmt_res.has_hold = true;
	lmt_mutex_sleep(a[0], a[1]);
	return 0;
}

static int lmt_cmd_mutex_abort(const unsigned int *a)
{
	if (!a[0] || a[0] > 60000)
		return -EINVAL;
	lmt_res.has_aborted = true;
	return lmt_mutex_abort(a[0]);
}

static int lmt_cmd_rwsem_abort(const unsigned int *a)
{
	if (!a[0] || a[0] > 60000)
		return -EINVAL;
	lmt_res.has_aborted = true;
	return lmt_rwsem_abort(a[0]);
}

static int lmt_cmd_downgrade(const unsigned int *a)
{
	if (!LMT_HOLD_US_OK(a[1]))
		return -EINVAL;
	lmt_downgrade(a[0], a[1]);
	return 0;
}

/* fork_hold, held, fork_release: a sleeping lock across fork() */
static int lmt_cmd_fork(const unsigned int *a)
{
	if (!IS_ENABLED(CONFIG_LOCKMETER))
		return -EOPNOTSUPP;
	if (!strcmp(lmt_res.cmd, "fork_hold")) {
		if (lmt_fork_holder)
			return -EBUSY;
		lmt_fork_hold();
	} else if (!strcmp(lmt_res.cmd, "fork_release")) {
		if (lmt_fork_holder != current)
			return -EPERM;
		lmt_fork_holder = NULL;
		mutex_acquire(&lmt_fork_mutex.dep_map, 0, 0, _THIS_IP_);
		mutex_unlock(&lmt_fork_mutex);
	}
	lmt_res.has_held = true;
#ifdef CONFIG_LOCKMETER
	lmt_res.held = lockmeter_current_held();
#endif
	return 0;
}

static int lmt_cmd_irq_sleeping(const unsigned int *a)
{
	if (!IS_ENABLED(CONFIG_LOCKMETER))
		return -EOPNOTSUPP;
	lmt_res.has_held = true;
	lmt_res.has_irq = true;
	return lmt_irq_sleeping(a[0]);
}

static int lmt_cmd_mutex_migrate(const unsigned int *a)
{
	if (a[1] > LMT_MAX_HOLD_US / 1000)
		return -EINVAL;
	lmt_res.has_hold = true;
	return lmt_mutex_migrate(a[0], a[1]);
}

static int lmt_cmd_nonowner(const unsigned int *a)
{
	if (!IS_ENABLED(CONFIG_LOCKMETER))
		return -EOPNOTSUPP;
	if (a[1] > LMT_MAX_HOLD_US / 1000)
		return -EINVAL;
	lmt_res.has_held = true;
	lmt_res.has_nonowner = true;
	return lmt_nonowner(a[0], a[1]);
}

static int lmt_cmd_ww(const unsigned int *a)
{
	lmt_ww(a[0]);
	return 0;
}

static int lmt_cmd_chain(const unsigned int *a)
{
	if (!a[0] || !LMT_HOLD_US_OK(a[1]))
		return -EINVAL;
	lmt_res.has_hold = true;
	lmt_res.has_pid = true;
	return lmt_chain_run(a[0], a[1]);
}

/*
 * Locks in objects of two slab caches of the module's own, at offsets of
 * their own: lockmeter names them "lmtest_a+0x18" and "lmtest_b+0x64"
 * (0x68 where spinlock_t has pointers: lockdep).  SLAB_NO_MERGE keeps the caches apart
 * from caches of the same size, whose names they would otherwise share.
 */
struct lmt_obj_a {
	u64 pad[3];
	spinlock_t lock;	/* taken by lmt_slab_take() alone */
};

struct lmt_obj_b {
	char pad[100];
	spinlock_t lock;	/* taken by lmt_slab_take() alone */
	u64 tail;
};

#define LMT_SLAB_OBJS	4	/* objects of each cache locked */
#define LMT_SLAB_TRIES	64	/* objects allocated at most to find them */
#define LMT_INST_BITS	6	/* lockmeter's set of instances: 64 buckets */

static struct kmem_cache *lmt_cache_a, *lmt_cache_b;

static noinline void lmt_slab_take(spinlock_t *lock, unsigned int n)
{
	while (n--) {
		spin_lock(lock);
		spin_unlock(lock);
	}
}

/*
 * Lock LMT_SLAB_OBJS objects of @cache, each @n times, their locks at
 * @off.  lockmeter counts a row's instances in a set of 64 buckets of
 * hash_64(address): the objects are picked so that their locks fall into
 * distinct buckets, which makes its count exact.
 */
static int lmt_slab_run(struct kmem_cache *cache, size_t off, unsigned int n)
{
	void *obj[LMT_SLAB_TRIES], *pick[LMT_SLAB_OBJS];
	unsigned int i, nr, got = 0;
	u64 seen = 0;
	u32 b;

	for (nr = 0; nr < LMT_SLAB_TRIES && got < LMT_SLAB_OBJS; nr++) {
		obj[nr] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!obj[nr])
			break;
		spin_lock_init((spinlock_t *)(obj[nr] + off));
		b = hash_64((unsigned long)obj[nr] + off, LMT_INST_BITS);
		if (seen & BIT_ULL(b))
			continue;
		seen |= BIT_ULL(b);
		pick[got++] = obj[nr];
	}
	if (got == LMT_SLAB_OBJS)
		for (i = 0; i < got; i++)
			lmt_slab_take((spinlock_t *)(pick[i] + off), n);
	for (i = 0; i < nr; i++)
		kmem_cache_free(cache, obj[i]);
	if (got < LMT_SLAB_OBJS)
		return -ENOMEM;
	lmt_res.count += (u64)got * n;
	return 0;
}

static int lmt_cmd_slab(const unsigned int *a)
{
	int ret;

	lmt_res.has_slab = true;
	lmt_res.slab_objs = LMT_SLAB_OBJS;
	lmt_res.slab_off_a = offsetof(struct lmt_obj_a, lock);
	lmt_res.slab_off_b = offsetof(struct lmt_obj_b, lock);
	ret = lmt_slab_run(lmt_cache_a, lmt_res.slab_off_a, a[0]);
	return ret ?: lmt_slab_run(lmt_cache_b, lmt_res.slab_off_b, a[0]);
}

static int lmt_cmd_sem_bg(const unsigned int *a)
{
	struct task_struct *t;
	int i;

	if (!strcmp(lmt_res.cmd, "sem_post")) {
		if (!lmt_semwait.task)
			return -EINVAL;
		up(&lmt_sem_wait);
		wait_for_completion(&lmt_semwait.exited);
		lmt_semwait.task = NULL;
		return 0;
	}
	if (lmt_semwait.task)
		return -EBUSY;
	down(&lmt_sem_wait);
	init_completion(&lmt_semwait.started);
	init_completion(&lmt_semwait.exited);
	t = kthread_run(lmt_sem_waiter, NULL, "lmt/semwait");
	if (IS_ERR(t)) {
		up(&lmt_sem_wait);
		return PTR_ERR(t);
	}
	lmt_semwait.task = t;
	wait_for_completion(&lmt_semwait.started);
	/* until it sleeps in down(): bounded, not timed */
	for (i = 0; i < 10000 && READ_ONCE(t->__state) != TASK_UNINTERRUPTIBLE; i++)
		usleep_range(1000, 2000);
	return READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE ? 0 : -ETIMEDOUT;
}

#define LMT_FOREIGN_SEMS	16
static struct semaphore lmt_foreign_sem[LMT_FOREIGN_SEMS];
static DEFINE_MUTEX(lmt_foreign_mutex);

struct lmt_foreign {
	struct work_struct work;
	struct semaphore *sem;
};

static void lmt_foreign_up(struct work_struct *work)
{
	up(container_of(work, struct lmt_foreign, work)->sem);
}

/*
 * Each down() here leaves a record with this task, since its up() runs
 * in a kworker; the mutex, held across them all, must keep its own.
 */
static noinline void lmt_sem_foreign(unsigned int n)
{
	struct lmt_foreign f;
	unsigned int i;
	u64 t0, t1;

	INIT_WORK_ONSTACK(&f.work, lmt_foreign_up);
	mutex_lock(&lmt_foreign_mutex);
	t0 = local_clock();
	for (i = 0; i < n; i++) {
		f.sem = &lmt_foreign_sem[i % LMT_FOREIGN_SEMS];
		down(f.sem);
		queue_work(system_wq, &f.work);
		flush_work(&f.work);
	}
	t1 = local_clock();
	mutex_unlock(&lmt_foreign_mutex);
	destroy_work_on_stack(&f.work);
	lmt_account(t0, t1);
}

static int lmt_cmd_sem_foreign(const unsigned int *a)
{
	if (!a[0] || a[0] > 10000)
		return -EINVAL;
	lmt_res.has_hold = true;
	lmt_sem_foreign(a[0]);
	return 0;
}

static int lmt_cmd_pcpu_handoff(const unsigned int *a)
{
	if (!LMT_HOLD_US_OK(a[0]))
		return -EINVAL;
	lmt_res.has_hold = true;
	lmt_res.has_held = true;
	lmt_res.has_nonowner = true;
	return lmt_pcpu_handoff(a[0]);
}

#if defined(CONFIG_TRACEPOINTS) && LM_HAS_TRACE_IPI_SEND_CPU
static DEFINE_RAW_SPINLOCK(lmt_reenter_lock);
static DEFINE_RAW_SPINLOCK(lmt_reenter_inner);
static atomic64_t lmt_reenter_count;

/*
 * On ipi_send_cpu, which irq_work_queue() fires before it raises the
 * interrupt: a metered lock, taken wherever the tracepoint fires, lockmeter's
 * charge of an alert included.  Not in NMIs, where the lock could be held
 * by the code interrupted.
 */
static void lmt_reenter_probe(void *data, const unsigned int cpu, unsigned long site, void *fn)
{
	unsigned long flags;

	if (in_nmi())
		return;
	raw_spin_lock_irqsave(&lmt_reenter_inner, flags);
	atomic64_inc(&lmt_reenter_count);
	raw_spin_unlock_irqrestore(&lmt_reenter_inner, flags);
}

static noinline void lmt_reenter_hold(unsigned int n, unsigned int us)
{
	unsigned long flags;
	u64 t0, t1;

	while (n--) {
		raw_spin_lock_irqsave(&lmt_reenter_lock, flags);
		t0 = local_clock();
		lmt_delay(us);
		t1 = local_clock();
		raw_spin_unlock_irqrestore(&lmt_reenter_lock, flags);
		/* a spinlock_t: not under a raw one (PREEMPT_RT) */
		lmt_account(t0, t1);
		usleep_range(5000, 10000);
	}
}

static int lmt_cmd_reenter(const unsigned int *a)
{
	int ret;

	if (!a[0] || a[0] > 1000 || !LMT_HOLD_US_OK(a[1]))
		return -EINVAL;
	atomic64_set(&lmt_reenter_count, 0);
	ret = register_trace_ipi_send_cpu(lmt_reenter_probe, NULL);
	if (ret)
		return ret;
	lmt_res.has_hold = true;
	lmt_reenter_hold(a[0], a[1]);
	unregister_trace_ipi_send_cpu(lmt_reenter_probe, NULL);
	/* no probe still running after this */
	tracepoint_synchronize_unregister();
	lmt_res.has_inner = true;
	lmt_res.inner = atomic64_read(&lmt_reenter_count);
	return 0;
}
#else
static int lmt_cmd_reenter(const unsigned int *a)
{
	return -EOPNOTSUPP;
}
#endif

static const struct lmt_cmd {
	const char *name;
	int nargs;
	int (*run)(const unsigned int *a);
} lmt_cmds[] = {
	{ "bench",		1, lmt_cmd_bench },
	{ "bench_contended",	1, lmt_cmd_bench },
	{ "bench_clock",	1, lmt_cmd_bench },
	{ "bench_full",		1, lmt_cmd_bench },
	{ "bench_irq",		1, lmt_cmd_bench },
	{ "bench_mutex",	1, lmt_cmd_bench },
	{ "bench_mutex_threads", 2, lmt_cmd_bench },
	{ "bench_rtmutex",	1, lmt_cmd_bench },
	{ "bench_sem",		1, lmt_cmd_bench },
	{ "bg_join",		0, lmt_cmd_bg_join },
	{ "chain",		2, lmt_cmd_chain },
	{ "contend",		3, lmt_cmd_threads },
	{ "downgrade",		2, lmt_cmd_downgrade },
	{ "fork_hold",		0, lmt_cmd_fork },
	{ "fork_release",	0, lmt_cmd_fork },
	{ "held",		0, lmt_cmd_fork },
	{ "hist_holds",		3, lmt_cmd_hist_holds },
	{ "hold",		2, lmt_cmd_hold },
	{ "hold_bh",		2, lmt_cmd_hold },
	{ "hold_irqsave",	2, lmt_cmd_hold },
	{ "irq_sleeping",	1, lmt_cmd_irq_sleeping },
	{ "mutex_abort",	1, lmt_cmd_mutex_abort },
	{ "rwsem_abort",	1, lmt_cmd_rwsem_abort },
	{ "rwsem_hold_bg",	2, lmt_cmd_hold_bg },
	{ "mutex_contend",	3, lmt_cmd_threads },
	{ "mutex_hold_bg",	2, lmt_cmd_hold_bg },
	{ "mutex_migrate",	2, lmt_cmd_mutex_migrate },
	{ "mutex_sleep",	2, lmt_cmd_mutex_sleep },
	{ "mutex_trylock",	1, lmt_cmd_trylock },
	{ "mutex_wait_bg",	1, lmt_cmd_wait_bg },
	{ "nonlifo",		1, lmt_cmd_nonlifo },
	{ "nonowner",		2, lmt_cmd_nonowner },
	{ "overflow",		1, lmt_cmd_overflow },
	{ "overflow_long",	2, lmt_cmd_overflow_long },
	{ "pcpu_handoff",	1, lmt_cmd_pcpu_handoff },
	{ "pcpu_read",		2, lmt_cmd_hold },
	{ "pcpu_write",		2, lmt_cmd_hold },
	{ "readers",		3, lmt_cmd_threads },
	{ "reenter",		2, lmt_cmd_reenter },
	{ "rtmutex_contend",	3, lmt_cmd_threads },
	{ "rtmutex_hold",	2, lmt_cmd_hold },
	{ "rtmutex_trylock",	1, lmt_cmd_trylock },
	{ "rwsem_readers",	3, lmt_cmd_threads },
	{ "rwsem_writer",	2, lmt_cmd_hold },
	{ "sem_contend",	3, lmt_cmd_threads },
	{ "sem_foreign",	1, lmt_cmd_sem_foreign },
	{ "sem_post",		0, lmt_cmd_sem_bg },
	{ "sem_hold",		2, lmt_cmd_hold },
	{ "sem_trylock",	1, lmt_cmd_trylock },
	{ "sem_wait_bg",	0, lmt_cmd_sem_bg },
	{ "slab",		1, lmt_cmd_slab },
	{ "trylock",		1, lmt_cmd_trylock },
	{ "writer",		2, lmt_cmd_hold },
	{ "ww",			1, lmt_cmd_ww },
};

static int lmt_run(char *line)
{
	unsigned int a[3] = { };
	char cmd[24], extra;
	unsigned int i;
	int n, ret;

	n = sscanf(line, "%23s %u %u %u %c", cmd, &a[0], &a[1], &a[2], &extra);
	if (n < 1)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(lmt_cmds); i++)
		if (!strcmp(cmd, lmt_cmds[i].name))
			break;
	if (i == ARRAY_SIZE(lmt_cmds) || n != 1 + lmt_cmds[i].nargs)
		return -EINVAL;
	memset(&lmt_res, 0, sizeof(lmt_res));
	strscpy(lmt_res.cmd, cmd, sizeof(lmt_res.cmd));
	ret = lmt_cmds[i].run(a);
	if (ret)
		lmt_res.cmd[0] = '\0';
	return ret;
}

static ssize_t lmt_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char line[64];
	int ret;

	if (!count || count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	if (!mutex_trylock(&lmt_mutex))
		return -EBUSY;
	ret = lmt_run(line);
	mutex_unlock(&lmt_mutex);
	return ret ? ret : count;
}

static int lmt_show(struct seq_file *m, void *v)
{
	guard(mutex)(&lmt_mutex);
	if (!lmt_res.cmd[0])
		return 0;
	seq_printf(m, "cmd: %s\ncount: %llu\n", lmt_res.cmd, lmt_res.count);
	if (lmt_res.has_hold)
		seq_printf(m, "hold_min_ns: %llu\nhold_max_ns: %llu\nhold_total_ns: %llu\n",
			   lmt_res.hold_min, lmt_res.hold_max, lmt_res.hold_total);
	if (lmt_res.has_span)
		seq_printf(m, "span_min_ns: %llu\nspan_max_ns: %llu\nspan_total_ns: %llu\n",
			   lmt_res.span_min, lmt_res.span_max, lmt_res.span_total);
	if (lmt_res.sleep_max)
		seq_printf(m, "sleep_min_ns: %llu\nsleep_max_ns: %llu\n",
			   lmt_res.sleep_min, lmt_res.sleep_max);
	if (lmt_res.has_rejects)
		seq_printf(m, "rejects: %llu\n", lmt_res.rejects);
	if (lmt_res.has_aborted)
		seq_printf(m, "aborted: %llu\n", lmt_res.aborted);
	if (lmt_res.has_held)
		seq_printf(m, "held: %d\n", lmt_res.held);
	if (lmt_res.has_irq)
		seq_printf(m, "irq_ops: %llu\nsirq_ops: %llu\ntask_depth: %d\nheld_before: %d\n",
			   lmt_res.irq_ops, lmt_res.sirq_ops, lmt_res.task_depth,
			   lmt_res.held_before);
	if (lmt_res.has_readers)
		seq_printf(m, "max_readers: %d\n", lmt_res.max_readers);
	if (lmt_res.has_bench)
		seq_printf(m, "ns_per_pair: %llu\n", lmt_res.ns_per_pair);
	if (lmt_res.has_fill)
		seq_printf(m, "fill: %llu\n", lmt_res.fill);
	if (lmt_res.has_pid)
		seq_printf(m, "pid: %d\n", lmt_res.pid);
	if (lmt_res.has_short)
		seq_printf(m, "short_max_ns: %llu\n", lmt_res.short_max);
	if (lmt_res.threads)
		seq_printf(m, "threads: %u\n", lmt_res.threads);
	if (lmt_res.has_nonowner)
		seq_printf(m, "held_before: %d\nbound_ns: %llu\n", lmt_res.held_before,
			   lmt_res.bound);
	if (lmt_res.has_slab)
		seq_printf(m, "slab_objs: %u\nslab_off_a: %zu\nslab_off_b: %zu\n",
			   lmt_res.slab_objs, lmt_res.slab_off_a, lmt_res.slab_off_b);
	if (lmt_res.has_inner)
		seq_printf(m, "inner: %llu\n", lmt_res.inner);
	return 0;
}

static int lmt_open(struct inode *inode, struct file *file)
{
	return single_open(file, lmt_show, NULL);
}

static const struct proc_ops lmt_proc_ops = {
	.proc_open	= lmt_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_write	= lmt_write,
	.proc_release	= single_release,
};

static struct proc_dir_entry *lmt_proc;

/* A site in init code, which has no name once the module is up. */
static noinline void __init lmt_init_touch(void)
{
	spin_lock(&lmt_init_lock);
	spin_unlock(&lmt_init_lock);
}

static int __init test_lockmeter_init(void)
{
	unsigned int i;

	for (i = 0; i < LMT_MANY; i++)
		spin_lock_init(&lmt_many[i]);
	for (i = 0; i < LMT_FOREIGN_SEMS; i++)
		sema_init(&lmt_foreign_sem[i], 1);
	for (i = 0; i < LMT_IRQ_HELD; i++)
		__mutex_init(&lmt_irq_held[i], "lmt_irq_held", &lmt_irq_held_keys[i]);
	ww_mutex_init(&lmt_ww_a, &lmt_ww_class);
	ww_mutex_init(&lmt_ww_b, &lmt_ww_class);
	lmt_init_touch();
	lmt_cache_a = kmem_cache_create("lmtest_a", sizeof(struct lmt_obj_a), 0,
					SLAB_NO_MERGE, NULL);
	if (!lmt_cache_a)
		return -ENOMEM;
	lmt_cache_b = kmem_cache_create("lmtest_b", sizeof(struct lmt_obj_b), 0,
					SLAB_NO_MERGE, NULL);
	if (!lmt_cache_b)
		goto err_destroy_a;
	lmt_proc = proc_create("test_lockmeter", 0600, NULL, &lmt_proc_ops);
	if (!lmt_proc)
		goto err_destroy_b;
	return 0;

err_destroy_b:
	kmem_cache_destroy(lmt_cache_b);
err_destroy_a:
	kmem_cache_destroy(lmt_cache_a);
	return -ENOMEM;
}
module_init(test_lockmeter_init);

static void __exit test_lockmeter_exit(void)
{
	proc_remove(lmt_proc);
	lmt_bg_join();
	/* a sem_wait_bg waiter still waiting: let it finish */
	if (lmt_semwait.task) {
		up(&lmt_sem_wait);
		wait_for_completion(&lmt_semwait.exited);
	}
	kmem_cache_destroy(lmt_cache_b);
	kmem_cache_destroy(lmt_cache_a);
}
module_exit(test_lockmeter_exit);

MODULE_DESCRIPTION("Known lock behaviour for the lockmeter selftests");
MODULE_LICENSE("GPL");
