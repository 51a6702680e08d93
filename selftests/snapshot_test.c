// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot costs memory in proportion to the keys, not to CPUs times
 * keys: with the key directory full and every online CPU having counted
 * into every row, opening /proc/lockmeter (which takes the snapshot) may
 * grow vmalloc by about one merged row per key, whatever the CPU count.
 * The time the open took is printed, not judged: under QEMU's -icount it
 * is the guest instructions the snapshot took (scripts/bench/snapshot.sh).
 * So is the longest time a real-time task on the reader's CPU waited to
 * run while the snapshot was taken: how long the snapshot went without
 * a chance to reschedule.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include "lockmeter_lib.h"

/* The module's lmt_many[] locks: more than the directory's default rows. */
#define MAX_LOCKS	20480

/*
 * A merged row (struct lm_stat) is about 200 bytes; evidence, where a
 * row has it, about 90 more and 8 a frame of its chain (16 at most);
 * with histograms, 512 bytes.  Every row of this test has the evidence
 * of its longest hold: allow 640 bytes a key, and 512 more for
 * histograms.
 */
#define ROW_BYTES	640
#define HIST_BYTES	512

/* The probe's sleep: short, so that it is due again soon after it ran. */
#define PROBE_NS	100000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The latency probe: a SCHED_FIFO task on @cpu that sleeps PROBE_NS at a
 * time until *@stop and keeps in *@worst how much later than asked for
 * it woke.  Only a stretch of kernel code that does not reschedule
 * makes it much later.
 */
static pid_t probe_start(int cpu, volatile uint64_t *worst, volatile int *stop)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts = { 0, PROBE_NS };
	uint64_t t0, late;
	cpu_set_t one;
	pid_t pid;

	pid = fork();
	if (pid)
		return pid;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	while (!*stop) {
		t0 = now_ns();
		nanosleep(&ts, NULL);
		late = now_ns() - t0 - PROBE_NS;
		if (late > *worst)
			*worst = late;
	}
	_exit(0);
}

FIXTURE(snap)
{
	struct lm_report rep;
};

FIXTURE_SETUP(snap)
{
	lm_setup(_metadata);
}

/* Leave an empty directory behind: a full one would hide later events. */
FIXTURE_TEARDOWN(snap)
{
	EXPECT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(0, lm_ctl("reset"));
	lm_report_free(&self->rep);
}

TEST_F_TIMEOUT(snap, memory_per_key_not_per_cpu, 600)
{
	uint64_t keys, used, cpus = 0, t0, t1, hist, idle_worst;
	volatile uint64_t *worst;
	volatile int *stop;
	long before, during;
	cpu_set_t all, one;
	int cpu, fd, st;
	char buf[4096];
	pid_t probe;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, lm_ctl("reset"));
	ASSERT_EQ(0, lm_ctl("on"));
	/* every CPU takes every lock: every row has counts on every CPU */
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
		lm_mod_cmd(_metadata, "overflow %u", MAX_LOCKS);
		cpus++;
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	ASSERT_EQ(0, lm_ctl("off"));

	lm_report_read(_metadata, &self->rep);
	keys = lm_header_u64(_metadata, self->rep.text, "keys");
	used = lm_header_u64(_metadata, self->rep.text, "keys_used");
	hist = lm_header_u64(_metadata, self->rep.text, "hist_buckets");
	lm_report_free(&self->rep);
	if (keys + 1000 > MAX_LOCKS)
		SKIP(return, "%" PRIu64 " keys: the module has too few locks", keys);
	EXPECT_EQ(keys, used);

	/* the reader and the probe on one CPU: the reader's */
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	worst = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, worst);
	stop = (volatile int *)(worst + 1);
	probe = probe_start(cpu, worst, stop);
	ASSERT_LT(0, probe);
	/* what the probe sees with the CPU otherwise idle, for comparison */
	usleep(20000);
	idle_worst = *worst;
	*worst = 0;

	before = vmalloc_used_kb();
	ASSERT_LT(0, before);
	t0 = now_ns();
	fd = open(LM_PROC, O_RDONLY);
	t1 = now_ns();
	*stop = 1;
	ASSERT_EQ(probe, waitpid(probe, &st, 0));
	ASSERT_LE(0, fd);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("the latency probe could not run as SCHED_FIFO on CPU %d", cpu);
	ASSERT_LT(0, read(fd, buf, sizeof(buf)));
	during = vmalloc_used_kb();
	close(fd);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));

	ksft_print_msg("snapshot of %" PRIu64 " keys on %" PRIu64 " CPUs (%ld possible): %" PRIu64
		       " ns to open, vmalloc +%ld KiB; a SCHED_FIFO task on the reader's CPU"
		       " waited at most %" PRIu64 " ns to run (%" PRIu64 " ns idle)\n",
		       used, cpus, sysconf(_SC_NPROCESSORS_CONF), t1 - t0, during - before,
		       *worst, idle_worst);
	EXPECT_GE((long)((used + 64) * (ROW_BYTES + (hist ? HIST_BYTES : 0)) / 1024),
		  during - before)
		TH_LOG("%ld KiB for %" PRIu64 " keys", during - before, used);
	munmap((void *)worst, 4096);
}

TEST_HARNESS_MAIN
