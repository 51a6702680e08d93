// SPDX-License-Identifier: GPL-2.0
/*
 * The sleeping lock types hooked in place, beyond mutex and rw_semaphore:
 * rt_mutex, percpu_rw_semaphore (read and write) and the counting
 * semaphore.  test_lockmeter.ko takes a lock of each with holds it
 * measures itself; each row must have the exact counts at the right
 * (type, lock, site), holds at least as long as the module's, the hold
 * split into on-CPU and blocked time, contention where two CPUs fight
 * for one lock, failed trylocks as rejects and a wait that timed out as
 * an abort.
 *
 * Each test meters its own work: reset, on, module command, off, read.
 */
#define _GNU_SOURCE
#include "lockmeter_lib.h"

#define HOLD_N			10
#define HOLD_US			200

#define CONTEND_K		2
#define CONTEND_N		100
#define CONTEND_H_US		200

#define TRYLOCK_F		7

/*
 * Right after "on", releases of locks taken before it count as unmatched:
 * wait this long before taking the counter as a baseline.  Any task's
 * release counts there, so a run whose count moved is made again, up to
 * HANDOFF_RUNS times: the module's own unmatched release would move it in
 * every run.
 */
#define SETTLE_US		100000
#define HANDOFF_RUNS		5

/*
 * A holder that busy-waits stays on its CPU; only preemption turns part
 * of its hold into blocked time.  Half of the hold on a CPU is loose.
 */
#define BUSY_ONCPU_MIN_PCT	50

FIXTURE(types)
{
	struct lm_report rep;
};

FIXTURE_SETUP(types)
{
	lm_setup(_metadata);
}

FIXTURE_TEARDOWN(types)
{
	EXPECT_EQ(0, lm_ctl("off"));
	lm_report_free(&self->rep);
}

/*
 * "@cmd HOLD_N HOLD_US": HOLD_N uncontended holds of @lock at @func, each
 * as long as the module measured it or longer, mostly on a CPU, and no
 * row of the other side of a read-write lock (@other) at that site.
 */
static void holds_check(struct __test_metadata *_metadata, struct lm_report *rep,
			const char *cmd, const char *type, const char *other,
			const char *lock, const char *func)
{
	const struct lm_row *row;
	uint64_t mod_max, mod_total;

	lm_metered(_metadata, "%s %u %u", cmd, HOLD_N, HOLD_US);
	ASSERT_EQ((uint64_t)HOLD_N, lm_mod_value(_metadata, "count"));
	mod_max = lm_mod_value(_metadata, "hold_max_ns");
	mod_total = lm_mod_value(_metadata, "hold_total_ns");

	lm_report_read(_metadata, rep);
	row = lm_sole_row(_metadata, rep, type, lock, func);
	EXPECT_EQ((uint64_t)HOLD_N, row->acquired);
	EXPECT_EQ(0ULL, row->spin) TH_LOG("nothing else takes %s", lock);
	EXPECT_EQ(0ULL, row->reject + row->abort);
	EXPECT_EQ(1ULL, row->instances);
	EXPECT_LE(mod_max, row->hold_max);
	EXPECT_LE(mod_total, row->hold_total);
	EXPECT_TRUE(row->oncpu_total * 100 >= row->hold_total * BUSY_ONCPU_MIN_PCT)
		TH_LOG("%s: %" PRIu64 " of %" PRIu64 " ns on a CPU", lock,
		       row->oncpu_total, row->hold_total);
	if (other)
		EXPECT_EQ(NULL, lm_find_row(rep, other, lock, func));
}

TEST_F(types, rt_mutex_hold)
{
	holds_check(_metadata, &self->rep, "rtmutex_hold", "rt_mutex", NULL,
		    "lmt_rtmutex", "lmt_rtmutex_hold");
}

TEST_F(types, percpu_rwsem_read_hold)
{
	holds_check(_metadata, &self->rep, "pcpu_read", "percpu_rwsem_read",
		    "percpu_rwsem_write", "lmt_pcpu_rwsem", "lmt_pcpu_reader");
}

TEST_F(types, percpu_rwsem_write_hold)
{
	holds_check(_metadata, &self->rep, "pcpu_write", "percpu_rwsem_write",
		    "percpu_rwsem_read", "lmt_pcpu_rwsem", "lmt_pcpu_writer");
}

TEST_F(types, semaphore_hold)
{
	holds_check(_metadata, &self->rep, "sem_hold", "semaphore", NULL,
		    "lmt_sem", "lmt_sem_hold");
}

/* "@cmd K N H": two kthreads on two CPUs fight for @lock. */
static void contend_check(struct __test_metadata *_metadata, struct lm_report *rep,
			  const char *cmd, const char *type, const char *lock)
{
	const uint64_t total = CONTEND_K * CONTEND_N;
	const struct lm_row *row;
	uint64_t mod_max;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "contention needs two CPUs");
	lm_metered(_metadata, "%s %u %u %u", cmd, CONTEND_K, CONTEND_N, CONTEND_H_US);
	ASSERT_EQ(total, lm_mod_value(_metadata, "count"));
	mod_max = lm_mod_value(_metadata, "hold_max_ns");

	lm_report_read(_metadata, rep);
	row = lm_sole_row(_metadata, rep, type, lock, "lmt_sleep_contend");
	EXPECT_EQ(total, row->acquired);
	EXPECT_LT(0ULL, row->spin) TH_LOG("two CPUs, one %s, never contended", type);
	EXPECT_LT(0ULL, row->wait_max);
	EXPECT_EQ(0ULL, row->reject + row->abort);
	EXPECT_LE(mod_max, row->hold_max);
}

TEST_F(types, rt_mutex_contend)
{
	contend_check(_metadata, &self->rep, "rtmutex_contend", "rt_mutex", "lmt_rtmutex");
}

TEST_F(types, semaphore_contend)
{
	contend_check(_metadata, &self->rep, "sem_contend", "semaphore", "lmt_sem");
}

TEST_F(types, rt_mutex_trylock)
{
	const struct lm_row *row;

	lm_metered(_metadata, "rtmutex_trylock %u", TRYLOCK_F);
	EXPECT_EQ((uint64_t)TRYLOCK_F, lm_mod_value(_metadata, "rejects"));

	lm_report_read(_metadata, &self->rep);
	row = lm_sole_row(_metadata, &self->rep, "rt_mutex", "lmt_rtmutex", "lmt_rtmutex_tryfail");
	EXPECT_EQ((uint64_t)TRYLOCK_F, row->reject);
	EXPECT_EQ(0ULL, row->acquired + row->abort);
	EXPECT_EQ(0ULL, row->hold_max);

	/* the hold the trylocks failed on, at its own site */
	row = lm_sole_row(_metadata, &self->rep, "rt_mutex", "lmt_rtmutex", "lmt_cmd_trylock");
	EXPECT_EQ(1ULL, row->acquired);
	EXPECT_EQ(0ULL, row->reject + row->abort);
}

/*
 * down_trylock() of a semaphore whose count is 0 fails: a reject each;
 * down_timeout() of it waits until the timeout and ends without the
 * count: an abort, with no hold.
 */
TEST_F(types, semaphore_trylock_and_timeout)
{
	const struct lm_row *row;

	lm_metered(_metadata, "sem_trylock %u", TRYLOCK_F);
	EXPECT_EQ((uint64_t)TRYLOCK_F, lm_mod_value(_metadata, "rejects"));
	EXPECT_EQ(1ULL, lm_mod_value(_metadata, "aborted"));

	lm_report_read(_metadata, &self->rep);
	row = lm_sole_row(_metadata, &self->rep, "semaphore", "lmt_sem_zero", "lmt_sem_tryfail");
	EXPECT_EQ((uint64_t)TRYLOCK_F, row->reject);
	EXPECT_EQ(0ULL, row->acquired + row->abort);

	row = lm_sole_row(_metadata, &self->rep, "semaphore", "lmt_sem_zero", "lmt_sem_timeout");
	EXPECT_EQ(1ULL, row->abort);
	EXPECT_EQ(0ULL, row->acquired + row->reject);
	EXPECT_EQ(0ULL, row->hold_total);
}

/*
 * A write hold handed over to a kthread, as freeze_super() hands
 * sb_writers over to the thaw: the task's hold ends at the hand-over
 * (its record goes), and the kthread's release, finding no record, is
 * expected: not unmatched.
 */
TEST_F(types, percpu_rwsem_handoff)
{
	uint64_t unmatched, now, mod_max = 0;
	const struct lm_row *row;
	int run;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	usleep(SETTLE_US);
	for (run = 1;; run++) {
		unmatched = lm_file_value(_metadata, LM_PROC, "unmatched");
		lm_mod_cmd(_metadata, "pcpu_handoff %u", HOLD_US);
		now = lm_file_value(_metadata, LM_PROC, "unmatched");
		EXPECT_EQ(lm_mod_value(_metadata, "held_before"), lm_mod_value(_metadata, "held"))
			TH_LOG("the task kept a record of what it handed over");
		if (lm_mod_value(_metadata, "hold_max_ns") > mod_max)
			mod_max = lm_mod_value(_metadata, "hold_max_ns");
		if (now == unmatched || run == HANDOFF_RUNS)
			break;
		TH_LOG("run %d: %" PRIu64 " unmatched releases meanwhile, again", run,
		       now - unmatched);
	}
	ASSERT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(unmatched, now)
		TH_LOG("the kthread's release of the handed-over semaphore was unmatched");

	lm_report_read(_metadata, &self->rep);
	row = lm_sole_row(_metadata, &self->rep, "percpu_rwsem_write", "lmt_pcpu_rwsem",
		      "lmt_pcpu_handoff");
	EXPECT_EQ((uint64_t)run, row->acquired);
	EXPECT_LE(mod_max, row->hold_max);
}

/*
 * A wait that spans a switch of metering: it began while metering was on,
 * metering went off and on again, then it ended.  Its start belongs to an
 * earlier period: the acquisition counts, without a wait (before, it was
 * charged the whole time since the first period).
 */
TEST_F(types, wait_across_switch_is_not_charged)
{
	const struct lm_row *row;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "sem_wait_bg");
	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "sem_post");
	ASSERT_EQ(0, lm_ctl("off"));

	lm_report_read(_metadata, &self->rep);
	row = lm_sole_row(_metadata, &self->rep, "semaphore", "lmt_sem_wait", "lmt_sem_waiter");
	EXPECT_EQ(1ULL, row->acquired);
	EXPECT_EQ(0ULL, row->spin) TH_LOG("a wait of an earlier period was charged");
	EXPECT_EQ(0ULL, row->wait_max);
}

TEST_HARNESS_MAIN
