// SPDX-License-Identifier: GPL-2.0
/*
 * What lockmeter reports for the known lock behaviour test_lockmeter.ko
 * creates: exact counts at the right (lock, site) rows, hold times that
 * bracket the module's own measurements, contention where it must be and
 * none where it cannot be; reset empties the table and off freezes it;
 * switching metering off and on under load charges no hold longer than
 * the longest the module measured.
 *
 * Each test meters its own work: reset, on, one module command, off, read.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <time.h>

#include "lockmeter_lib.h"

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The reported holds lie between the module's two measurements of each:
 * lockmeter reads the clock after the module's reads around the lock
 * call and before those inside, and the other way round at the release.
 * So the bounds hold whatever the host does to a vCPU between any two
 * clock reads (lm_span_bound()).
 */

FIXTURE(hold)
{
	struct lm_report rep;
};

/* One lock taken N times for H us at one site, by one task at a time. */
FIXTURE_VARIANT(hold)
{
	const char *cmd;
	const char *lock;
	const char *func;
	unsigned int n;
	unsigned int hold_us;
	bool sole_user;	/* no one else takes the lock: it cannot spin */
};

FIXTURE_VARIANT_ADD(hold, spin_lock)
{
	.cmd = "hold",
	.lock = "lmt_static_lock",
	.func = "lmt_hold",
	.n = 20,
	.hold_us = 200,
	.sole_user = true,
};

FIXTURE_VARIANT_ADD(hold, spin_lock_irqsave)
{
	.cmd = "hold_irqsave",
	.lock = "lmt_irq_lock",
	.func = "lmt_hold_irqsave",
	.n = 20,
	.hold_us = 200,
};

FIXTURE_VARIANT_ADD(hold, spin_lock_bh)
{
	.cmd = "hold_bh",
	.lock = "lmt_bh_lock",
	.func = "lmt_hold_bh",
	.n = 20,
	.hold_us = 200,
};

FIXTURE_SETUP(hold)
{
	lm_setup(_metadata);
}

FIXTURE_TEARDOWN(hold)
{
	EXPECT_EQ(0, lm_ctl("off"));
	lm_report_free(&self->rep);
}

TEST_F(hold, counts_and_times)
{
	uint64_t n = variant->n, mod_min, mod_max, mod_total, span_min, span_max, span_total;
	const struct lm_row *row;

	lm_metered(_metadata, "%s %u %u", variant->cmd, variant->n, variant->hold_us);
	ASSERT_EQ(n, lm_mod_value(_metadata, "count"));
	mod_min = lm_mod_value(_metadata, "hold_min_ns");
	mod_max = lm_mod_value(_metadata, "hold_max_ns");
	mod_total = lm_mod_value(_metadata, "hold_total_ns");
	span_min = lm_mod_value(_metadata, "span_min_ns");
	span_max = lm_mod_value(_metadata, "span_max_ns");
	span_total = lm_mod_value(_metadata, "span_total_ns");
	ASSERT_LT(0ULL, mod_min) TH_LOG("the module measured an empty hold");

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("spin"), variant->lock, variant->func);
	ASSERT_NE(NULL, row) TH_LOG("no spin row for %s at %s", variant->lock, variant->func);
	EXPECT_EQ(1U, lm_count_rows(&self->rep, lm_type("spin"), variant->lock, variant->func))
		TH_LOG("one call site, merged over CPUs, must be one row");
	lm_row_check(_metadata, row);

	EXPECT_EQ(n, row->acquired);
	EXPECT_EQ(n, row->nowait + row->spin + row->reject);
	EXPECT_EQ(0ULL, row->reject);
	if (variant->sole_user)
		EXPECT_EQ(0ULL, row->spin);
	EXPECT_EQ(1ULL, row->instances);
	/*
	 * On PREEMPT_RT spinlock_t sleeps (rt_spin): its holder here is busy
	 * for the whole hold, so the hold is on a CPU, but for preemption.
	 */
	if (lm_sleeping_type(row->type))
		EXPECT_LE(row->hold_total, 2 * row->oncpu_total)
			TH_LOG("%s: %" PRIu64 " of %" PRIu64 " ns on a CPU", row->type,
			       row->oncpu_total, row->hold_total);

	/* the least each can be: inside; the most: around (the hold with the least span) */
	EXPECT_LE(mod_max, row->hold_max);
	EXPECT_GE(lm_span_bound(span_max, 1), row->hold_max);
	EXPECT_LE(mod_min, row->hold_min);
	EXPECT_GE(lm_span_bound(span_min, 1), row->hold_min);
	EXPECT_LE(mod_total, row->hold_total);
	EXPECT_GE(lm_span_bound(span_total, n), row->hold_total);
}

FIXTURE(meter)
{
	struct lm_report rep;
};

FIXTURE_SETUP(meter)
{
	lm_setup(_metadata);
}

FIXTURE_TEARDOWN(meter)
{
	EXPECT_EQ(0, lm_ctl("off"));
	lm_report_free(&self->rep);
}

/*
 * Threads on two CPUs hammering one lock: the spec guarantees contention
 * at H = 100 us, so use that rather than anything shorter.
 */
#define CONTEND_K	2
#define CONTEND_N	200
#define CONTEND_H_US	100

TEST_F(meter, contend)
{
	const uint64_t total = CONTEND_K * CONTEND_N;
	const struct lm_row *row;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "contention needs two CPUs");
	lm_metered(_metadata, "contend %u %u %u", CONTEND_K, CONTEND_N, CONTEND_H_US);
	ASSERT_EQ(total, lm_mod_value(_metadata, "count"));

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("spin"), "lmt_contended_lock", "lmt_contend");
	ASSERT_NE(NULL, row);
	EXPECT_EQ(1U, lm_count_rows(&self->rep, lm_type("spin"), "lmt_contended_lock", "lmt_contend"))
		TH_LOG("both CPUs' rows must merge into one");
	lm_row_check(_metadata, row);

	EXPECT_EQ(total, row->acquired);
	EXPECT_EQ(0ULL, row->reject);
	EXPECT_LT(0ULL, row->spin);
	EXPECT_LT(0ULL, row->wait_total);
	EXPECT_LT(0ULL, row->wait_max);
	EXPECT_EQ(1ULL, row->instances);
}

#define TRYLOCK_F	7

TEST_F(meter, trylock)
{
	const struct lm_row *fail, *hold;

	lm_metered(_metadata, "trylock %u", TRYLOCK_F);
	EXPECT_EQ(1ULL, lm_mod_value(_metadata, "count"));

	lm_report_read(_metadata, &self->rep);
	fail = lm_find_row(&self->rep, lm_type("spin"), "lmt_try_lock", "lmt_trylock_fail");
	ASSERT_NE(NULL, fail) TH_LOG("failed trylocks must have a row");
	lm_row_check(_metadata, fail);
	EXPECT_EQ((uint64_t)TRYLOCK_F, fail->reject);
	EXPECT_EQ(0ULL, fail->acquired);
	EXPECT_EQ(0ULL, fail->nowait + fail->spin);
	EXPECT_EQ(0ULL, fail->hold_max);

	hold = lm_find_row(&self->rep, lm_type("spin"), "lmt_try_lock", "lmt_trylock_hold");
	ASSERT_NE(NULL, hold);
	lm_row_check(_metadata, hold);
	EXPECT_EQ(1ULL, hold->acquired);
	EXPECT_EQ(1ULL, hold->nowait + hold->spin + hold->reject);
	EXPECT_LT(0ULL, hold->hold_max);
}

#define READERS_R	2
#define READERS_N	50
#define READERS_H_US	200

TEST_F(meter, readers)
{
	const uint64_t total = READERS_R * READERS_N;
	const struct lm_row *row;

	if (sysconf(_SC_NPROCESSORS_ONLN) < READERS_R)
		SKIP(return, "%d readers need as many CPUs", READERS_R);
	lm_metered(_metadata, "readers %u %u %u", READERS_R, READERS_N, READERS_H_US);
	ASSERT_EQ(total, lm_mod_value(_metadata, "count"));
	EXPECT_LE(2ULL, lm_mod_value(_metadata, "max_readers"))
		TH_LOG("the readers never overlapped: nothing to test");

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("read"), "lmt_rwlock", "lmt_reader");
	ASSERT_NE(NULL, row);
	EXPECT_EQ(1U, lm_count_rows(&self->rep, lm_type("read"), "lmt_rwlock", "lmt_reader"));
	lm_row_check(_metadata, row);
	EXPECT_EQ(total, row->acquired);
	EXPECT_EQ(0ULL, row->spin) TH_LOG("readers must not wait for readers");
	EXPECT_EQ(0ULL, row->reject);
	EXPECT_EQ(NULL, lm_find_row(&self->rep, lm_type("write"), "lmt_rwlock", "lmt_reader"));
}

#define WRITER_N	10
#define WRITER_H_US	100

TEST_F(meter, writer)
{
	const struct lm_row *row;

	lm_metered(_metadata, "writer %u %u", WRITER_N, WRITER_H_US);
	ASSERT_EQ((uint64_t)WRITER_N, lm_mod_value(_metadata, "count"));

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("write"), "lmt_rwlock", "lmt_writer");
	ASSERT_NE(NULL, row);
	lm_row_check(_metadata, row);
	EXPECT_EQ((uint64_t)WRITER_N, row->acquired);
	EXPECT_EQ(0ULL, row->reject);
	EXPECT_LT(0ULL, row->hold_max);
	EXPECT_EQ(NULL, lm_find_row(&self->rep, lm_type("read"), "lmt_rwlock", "lmt_writer"));
}

#define NONLIFO_N	30

/* Unlocks in acquisition order (a, b, unlock a, unlock b): both still count. */
TEST_F(meter, nonlifo)
{
	static const char * const locks[] = { "lmt_nl_a", "lmt_nl_b" };
	const struct lm_row *row;
	size_t i;

	lm_metered(_metadata, "nonlifo %u", NONLIFO_N);
	lm_report_read(_metadata, &self->rep);
	for (i = 0; i < ARRAY_SIZE(locks); i++) {
		row = lm_find_row(&self->rep, lm_type("spin"), locks[i], "lmt_nonlifo");
		ASSERT_NE(NULL, row) TH_LOG("no row for %s", locks[i]);
		lm_row_check(_metadata, row);
		EXPECT_EQ((uint64_t)NONLIFO_N, row->acquired) TH_LOG("%s", locks[i]);
		EXPECT_LT(0ULL, row->hold_max) TH_LOG("%s", locks[i]);
	}
}

/* reset with metering off: the module's rows and all counters are gone. */
TEST_F(meter, reset_zeroes)
{
	static const char * const zero[] = {
		"metered_ns", "slots_used", "dropped", "unmatched", "recursion",
		"table_full", "evicted", "notask", "stacks_full", "captures",
	};
	const struct lm_report *rep = &self->rep;
	uint64_t resets;
	size_t i;

	lm_metered(_metadata, "hold 10 50");
	lm_report_read(_metadata, &self->rep);
	ASSERT_NE(NULL, lm_find_row(rep, lm_type("spin"), "lmt_static_lock", "lmt_hold"));
	resets = lm_header_u64(_metadata, rep->text, "resets");
	lm_report_free(&self->rep);

	ASSERT_EQ(0, lm_ctl("reset"));
	lm_report_read(_metadata, &self->rep);
	EXPECT_FALSE(lm_is_on(_metadata));
	/* the count of resets is what tells readers apart the periods */
	EXPECT_EQ(resets + 1, lm_header_u64(_metadata, rep->text, "resets"));
	EXPECT_EQ(0U, lm_nr_mod_rows(rep));
	for (i = 0; i < ARRAY_SIZE(zero); i++) {
		uint64_t v = lm_header_u64(_metadata, rep->text, zero[i]);

		EXPECT_EQ(0ULL, v) TH_LOG("%s after reset", zero[i]);
	}
	/* Only empty rows (say, an always-printed overflow row) may remain. */
	for (i = 0; i < rep->nr_rows; i++)
		EXPECT_EQ(0ULL, rep->rows[i].acquired | rep->rows[i].reject)
			TH_LOG("%s %s %s survived reset", rep->rows[i].type,
			       rep->rows[i].lock, rep->rows[i].site);
}

/* With metering off, locking leaves the report byte for byte as it was. */
TEST_F(meter, off_freezes_report)
{
	const struct lm_row *row;
	char *before, *after;
	uint64_t metered;

	lm_metered(_metadata, "hold 5 50");
	before = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, before);
	metered = lm_header_u64(_metadata, before, "metered_ns");
	EXPECT_LT(0ULL, metered);

	/* Module locking, then 10 ms of whatever else the system locks. */
	lm_mod_cmd(_metadata, "hold 10 50");
	ASSERT_EQ(10ULL, lm_mod_value(_metadata, "count"));
	usleep(10000);
	after = lm_read_file(LM_PROC);
	ASSERT_NE(NULL, after);
	EXPECT_EQ(metered, lm_header_u64(_metadata, after, "metered_ns"));
	EXPECT_EQ(0, strcmp(before, after))
		TH_LOG("report changed while off, first at line %zu", lm_diff_line(before, after));

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("spin"), "lmt_static_lock", "lmt_hold");
	ASSERT_NE(NULL, row);
	EXPECT_EQ(5ULL, row->acquired);
	free(before);
	free(after);
}

/*
 * Off and on, again and again, while two threads hammer one lock.  The
 * static key flips site by site: a lock taken metered just before "off"
 * and released unmetered leaves a record, and a release metered during
 * the next "on" must not match it and charge the whole off time as one
 * hold.  No reported hold may be longer than the longest span of a hold
 * the module measured around the lock and unlock calls.  The contention runs again until
 * FLIP_MIN flips fell in it, however fast this machine is.  Between flips
 * metering stays on for FLIP_ON_US: a switch takes far longer than a
 * hold, and back to back the switches would leave no whole hold metered.
 */
#define FLIP_CMD	"contend 2 4000 100"
#define FLIP_MIN	10U
#define FLIP_ROUNDS	20
#define FLIP_ON_US	3000

/* Run FLIP_CMD in a child, flipping until it ends; the flips made. */
static unsigned int flip_round(struct __test_metadata *_metadata, uint64_t *mod_max)
{
	unsigned int flips = 0;
	int status;
	pid_t pid, done;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(lm_mod_write(FLIP_CMD) ? 1 : 0);
	for (;;) {
		done = waitpid(pid, &status, WNOHANG);
		ASSERT_LE(0, done);
		if (done)
			break;
		ASSERT_EQ(0, lm_ctl("off"));
		ASSERT_EQ(0, lm_ctl("on"));
		flips++;
		/* metering stays on long enough for whole holds to be charged */
		usleep(FLIP_ON_US);
	}
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("'%s' failed", FLIP_CMD);
	lm_mod_done(_metadata, "contend");
	*mod_max = max_u64(*mod_max, lm_mod_value(_metadata, "span_max_ns"));
	return flips;
}

TEST_F(meter, flips_charge_no_stale_holds)
{
	unsigned int flips = 0, rounds = 0;
	const struct lm_row *row;
	uint64_t mod_max = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "contention needs two CPUs");
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	while (flips < FLIP_MIN && rounds++ < FLIP_ROUNDS)
		flips += flip_round(_metadata, &mod_max);
	ASSERT_EQ(0, lm_ctl("off"));
	TH_LOG("%u flips during %u rounds of contention", flips, rounds);
	ASSERT_LE(FLIP_MIN, flips) TH_LOG("not enough flips in %u rounds", FLIP_ROUNDS);

	lm_report_read(_metadata, &self->rep);
	row = lm_find_row(&self->rep, lm_type("spin"), "lmt_contended_lock", "lmt_contend");
	if (!row)
		lm_report_dump(_metadata, &self->rep, "lmt_contended");
	ASSERT_NE(NULL, row);
	lm_row_check(_metadata, row);
	EXPECT_GE(lm_span_bound(mod_max, 1), row->hold_max)
		TH_LOG("a hold of %" PRIu64 " ns, the module's longest span %" PRIu64 " ns",
		       row->hold_max, mod_max);
}

/* CLOCK_MONOTONIC in ns */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Run @cpu's work from now on, if it is online; 0 or -errno. */
static int pin_to(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

/*
 * CPU 1 goes offline while metering is off and comes back after "on": a
 * record its held stack kept from before must not survive "on" there
 * either.  A child keeps lmt_static_lock held most of the time on CPU 1,
 * so "off" finds it held there, and the release that follows, unmetered,
 * leaves the record.  Left there, such records pile up, one or more per
 * cycle, until the stack is full and CPU 1 meters nothing (dropped), and
 * a release that finds one charges a hold spanning the time offline.
 * Every hold is charged within one metering period, so none may be longer
 * than the longest period, which this test brackets from outside.
 */
#define HOTPLUG_CYCLES		24
#define HOTPLUG_OFF_US		100000
#define HOTPLUG_ON_US		50000

TEST_F(meter, hotplug_no_stale_holds)
{
	uint64_t t0, longest = 0;
	const struct lm_row *row;
	unsigned int i;
	pid_t pid;
	size_t r;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "CPU 1 cannot go offline (CONFIG_HOTPLUG_CPU, two CPUs)");
	ASSERT_EQ(0, lm_ctl("reset"));
	/* short commands: a kill ends the child at the next one */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (;;) {
			pin_to(0, 1);
			if (lm_mod_write("hold 50 1000"))
				_exit(1);
			/*
			 * On PREEMPT_RT a spinlock_t holder runs with migration
			 * off, not preemption, and a CPU going offline pushes
			 * a task away only when it schedules with migration on:
			 * this child, busy in holds, never would, and CPU 1
			 * would wait for it (seen: 25 s and more).
			 */
			if (lm_preempt_rt())
				usleep(1000);
		}
	}
	for (i = 0; i < HOTPLUG_CYCLES; i++) {
		t0 = now_ns();
		ASSERT_EQ(0, lm_ctl("on"));
		ASSERT_EQ(0, lm_cpu_online_set(1, true));
		/* back to CPU 1, where its stale record would be */
		pin_to(pid, 1);
		usleep(HOTPLUG_ON_US);
		ASSERT_EQ(0, lm_ctl("off"));
		longest = max_u64(longest, now_ns() - t0);
		ASSERT_EQ(0, lm_cpu_online_set(1, false));
		usleep(HOTPLUG_OFF_US);
	}
	ASSERT_EQ(0, lm_cpu_online_set(1, true));
	kill(pid, SIGKILL);
	lm_wait_child(pid);

	lm_report_read(_metadata, &self->rep);
	EXPECT_EQ(0ULL, lm_header_u64(_metadata, self->rep.text, "dropped"))
		TH_LOG("a CPU's held stack filled up with records from before");
	row = lm_find_row(&self->rep, lm_type("spin"), "lmt_static_lock", "lmt_hold");
	ASSERT_NE(NULL, row) TH_LOG("the child did not hold lmt_static_lock metered");
	for (r = 0; r < self->rep.nr_rows; r++) {
		row = &self->rep.rows[r];
		EXPECT_GE(longest, row->hold_max)
			TH_LOG("%s %s at %s: a hold of %" PRIu64 " ns, periods of at most %"
			       PRIu64 " ns", row->type, row->lock, row->site, row->hold_max,
			       longest);
	}
}

/*
 * Holds of one row, each longer than the last and all above the chain
 * floor (CONFIG_LOCKMETER_CHAIN_MIN_US, 10 us by default): more new
 * maxima than a CPU's store has chains (512), each of which takes one.
 * The chains of the maxima beaten are free again, so none of them may
 * find the store full; the longest keeps its chain.
 */
#define MAXIMA_N	600
#define MAXIMA_FIRST_US	20

TEST_F(meter, new_maxima_keep_chains)
{
	uint64_t full, captures;
	struct lm_row *row;
	unsigned int i;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	for (i = 0; i < MAXIMA_N; i++)
		lm_mod_cmd(_metadata, "hold 1 %u", MAXIMA_FIRST_US + i);
	ASSERT_EQ(0, lm_ctl("off"));
	lm_report_read(_metadata, &self->rep);
	full = lm_header_u64(_metadata, self->rep.text, "stacks_full");
	captures = lm_header_u64(_metadata, self->rep.text, "captures");
	ksft_print_msg("%u rising holds: captures %llu, stacks_full %llu\n", MAXIMA_N,
		       (unsigned long long)captures, (unsigned long long)full);
	EXPECT_EQ(0ULL, full);
	row = lm_find_row(&self->rep, lm_type("spin"), "lmt_static_lock", "lmt_hold");
	ASSERT_NE(NULL, row) TH_LOG("no row for the holds");
	EXPECT_LE((MAXIMA_FIRST_US + MAXIMA_N - 1) * 1000ULL, row->hold_max);
}

/*
 * Snapshots while resets come: each must lie in one metering period.
 * While a hold loop keeps lmt_static_lock busy, no snapshot may charge it
 * with more hold time than the period it reports, plus one hold.  Up to
 * RESET_READS snapshots, but no more than RESET_BUDGET_NS of them once
 * RESET_MIN_READS are done (a lockdep kernel metering everything reads
 * slowly), and resets must have come between them.
 */
#define RESET_READS		300
#define RESET_MIN_READS		30
#define RESET_BUDGET_NS		(15ULL * 1000000000)

TEST_F(meter, snapshot_within_one_period)
{
	uint64_t metered, bad = 0, resets, first_resets = 0, t0;
	unsigned int i, periods = 0;
	const struct lm_row *row;
	pid_t holder, resetter;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	/* short commands: a kill ends the child at the next one */
	holder = fork();
	ASSERT_LE(0, holder);
	if (!holder) {
		while (!lm_mod_write("hold 100 1000"))
			;
		_exit(1);
	}
	resetter = fork();
	ASSERT_LE(0, resetter);
	if (!resetter) {
		for (;;) {
			if (lm_ctl("reset"))
				_exit(1);
			usleep(3000);
		}
	}
	t0 = now_ns();
	for (i = 0; i < RESET_READS &&
		    (i < RESET_MIN_READS || now_ns() - t0 < RESET_BUDGET_NS); i++) {
		lm_report_read(_metadata, &self->rep);
		metered = lm_header_u64(_metadata, self->rep.text, "metered_ns");
		resets = lm_header_u64(_metadata, self->rep.text, "resets");
		if (!i)
			first_resets = resets;
		periods = resets - first_resets + 1;
		row = lm_find_row(&self->rep, lm_type("spin"), "lmt_static_lock", "lmt_hold");
		if (row && row->hold_total > metered + row->hold_max) {
			bad++;
			TH_LOG("held %" PRIu64 " ns in a period of %" PRIu64 " ns",
			       row->hold_total, metered);
		}
		lm_report_free(&self->rep);
	}
	kill(resetter, SIGKILL);
	lm_wait_child(resetter);
	kill(holder, SIGKILL);
	lm_wait_child(holder);
	ASSERT_EQ(0, lm_ctl("off"));
	ksft_print_msg("%u snapshots over %u metering periods\n", i, periods);
	EXPECT_LE(2U, periods) TH_LOG("no reset came between the snapshots");
	EXPECT_EQ(0ULL, bad) TH_LOG("snapshots mixed rows of two periods");
}

TEST_HARNESS_MAIN
