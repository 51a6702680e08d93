// SPDX-License-Identifier: GPL-2.0
/*
 * Task records of sleeping locks under load and across contexts.
 *
 * - Thousands of tasks that each hold a mutex of their own, all at once,
 *   all get their records: a task's block comes with the task at fork,
 *   not from a shared pool that runs dry (notask: the old pool had 4096
 *   blocks) or turns into a global lock.  The pair's cost with them alive
 *   goes to the log (its instruction count, compared with ten tasks, is
 *   make bench-quick's: a timed figure proves nothing here).
 * - A read trylock of an rw_semaphore with interrupts off, released by
 *   up_read_non_owner() from irq_work (as BPF's mmap_read_trylock()) or
 *   by the task itself, leaves no record behind: the locks held now do
 *   not show it, nothing counts as unmatched for it, and the next hold
 *   of that rw_semaphore is charged its own length, not a phantom's.
 */
#define _GNU_SOURCE
#include "lockmeter_lib.h"

#define THREADS_T		5000
#define THREADS_PAIRS		1000
#define THREADS_FEW		10
/* pid_max and threads-max for THREADS_T more tasks */
#define THREADS_ROOM		32768

#define NONOWNER_N		200
#define NONOWNER_MS		100

FIXTURE(task)
{
	struct lm_report rep;
	long pid_max, threads_max;	/* to restore, or 0 */
	bool fork_held;
};

FIXTURE_SETUP(task)
{
	lm_setup(_metadata);
}

/* A number from a /proc/sys file, or -1. */
static long sysctl_read(const char *path)
{
	char *text = lm_read_file(path);
	long v = -1;

	if (text) {
		v = strtol(text, NULL, 10);
		free(text);
	}
	return v;
}

static int sysctl_write(const char *path, long v)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", v);

	return lm_write(path, buf, n);
}

FIXTURE_TEARDOWN(task)
{
	if (self->fork_held)
		EXPECT_EQ(0, lm_mod_write("fork_release"));
	EXPECT_EQ(0, lm_ctl("off"));
	if (self->pid_max > 0)
		EXPECT_EQ(0, sysctl_write("/proc/sys/kernel/pid_max", self->pid_max));
	if (self->threads_max > 0)
		EXPECT_EQ(0, sysctl_write("/proc/sys/kernel/threads-max", self->threads_max));
	lm_report_free(&self->rep);
}

/* Make room for @path's limit to be at least @want; keep the old value. */
static void sysctl_at_least(struct __test_metadata *_metadata, const char *path,
			    long want, long *saved)
{
	long v = sysctl_read(path);

	ASSERT_LT(0, v) TH_LOG("%s unreadable", path);
	if (v >= want)
		return;
	ASSERT_EQ(0, sysctl_write(path, want)) TH_LOG("%s: %ld refused", path, want);
	*saved = v;
}

TEST_F_TIMEOUT(task, thousands_of_tasks_all_metered, 600)
{
	uint64_t notask, ns_many, ns_few, held = 0;
	const struct lm_row *row;
	size_t i;

	sysctl_at_least(_metadata, "/proc/sys/kernel/pid_max", THREADS_ROOM, &self->pid_max);
	sysctl_at_least(_metadata, "/proc/sys/kernel/threads-max", THREADS_ROOM,
			&self->threads_max);

	lm_metered(_metadata, "bench_mutex_threads %u %u", THREADS_FEW, THREADS_PAIRS);
	ns_few = lm_mod_value(_metadata, "ns_per_pair");
	lm_metered(_metadata, "bench_mutex_threads %u %u", THREADS_T, THREADS_PAIRS);
	ASSERT_EQ((uint64_t)THREADS_T, lm_mod_value(_metadata, "threads"));
	ns_many = lm_mod_value(_metadata, "ns_per_pair");
	ksft_print_msg("mutex pair with %u tasks alive: %" PRIu64 " ns, with %u: %" PRIu64
		       " ns\n", THREADS_FEW, ns_few, THREADS_T, ns_many);

	lm_report_read(_metadata, &self->rep);
	notask = lm_header_u64(_metadata, self->rep.text, "notask");
	EXPECT_EQ(0ULL, notask) TH_LOG("%" PRIu64 " acquisitions found no task records",
				       notask);
	/* each task's own mutex: heap locks, one row by their site */
	for (i = 0; i < self->rep.nr_rows; i++) {
		row = &self->rep.rows[i];
		if (!strcmp(row->type, "mutex") && lm_site_in(row->site, "lmt_threads_holder"))
			held += row->acquired;
	}
	EXPECT_EQ((uint64_t)THREADS_T, held)
		TH_LOG("%u tasks held a mutex, %" PRIu64 " metered", THREADS_T, held);
	row = lm_find_row(&self->rep, "mutex", "lmt_bench_mutex", "lmt_bench_mutex_loop");
	ASSERT_NE(NULL, row);
	EXPECT_EQ((uint64_t)THREADS_PAIRS, row->acquired);
}

/* Whether "lockstat held --over 0" names @lock; -1 if lockstat did not run. */
static int held_now(const char *lock)
{
	char line[512];
	bool found = false;
	FILE *f;

	f = popen("lockstat held --over 0 2>&1", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, lock))
			found = true;
	if (pclose(f))
		return -1;
	return found;
}

TEST_F(task, nonowner_release_leaves_no_record)
{
	uint64_t unmatched, irqctx, acquired = 0, hold_max = 0, bound;
	const struct lm_row *row;
	size_t i;
	int held;

	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	lm_mod_cmd(_metadata, "nonowner %u %u", NONOWNER_N, NONOWNER_MS);
	ASSERT_EQ(2ULL * NONOWNER_N, lm_mod_value(_metadata, "count"))
		TH_LOG("a trylock of the module's own rw_semaphore failed");
	EXPECT_EQ(lm_mod_value(_metadata, "held_before"), lm_mod_value(_metadata, "held"))
		TH_LOG("the trylocks left records behind");
	bound = lm_mod_value(_metadata, "bound_ns");

	/* the locks held now: the premise (a lock still held), then none left */
	lm_mod_cmd(_metadata, "fork_hold");
	self->fork_held = true;
	held = held_now("lmt_fork_mutex");
	if (held < 0) {
		ksft_print_msg("lockstat held did not run: locks held now not checked\n");
	} else {
		EXPECT_EQ(1, held) TH_LOG("lockstat held misses a mutex held now");
		EXPECT_EQ(0, held_now("lmt_nonowner_rwsem"))
			TH_LOG("lockstat held shows a released rw_semaphore");
	}
	lm_mod_cmd(_metadata, "fork_release");
	self->fork_held = false;
	ASSERT_EQ(0, lm_ctl("off"));

	lm_report_read(_metadata, &self->rep);
	for (i = 0; i < self->rep.nr_rows; i++) {
		row = &self->rep.rows[i];
		if (!lm_row_is(row, "rwsem_read", "lmt_nonowner_rwsem", "lmt_nonowner"))
			continue;
		acquired += row->acquired;
		if (row->hold_max > hold_max)
			hold_max = row->hold_max;
	}
	/* the down_read() alone: the trylocks with interrupts off are not recorded */
	EXPECT_EQ(1ULL, acquired);
	/* its hold lies within the module's bounds of the pair, not the sleep's */
	EXPECT_GE(bound + bound / 4 + 10000, hold_max)
		TH_LOG("held %" PRIu64 " ns, the pair took %" PRIu64 " ns", hold_max, bound);
	unmatched = lm_header_u64(_metadata, self->rep.text, "unmatched");
	EXPECT_GT((uint64_t)NONOWNER_N, unmatched)
		TH_LOG("the releases of the task's own unrecorded trylocks went unmatched");
	/* the trylocks, and the releases of the task's own */
	irqctx = lm_header_u64(_metadata, self->rep.text, "irqctx");
	EXPECT_LE(3ULL * NONOWNER_N, irqctx);
}

TEST_HARNESS_MAIN
