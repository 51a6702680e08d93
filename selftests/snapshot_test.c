// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot costs memory in proportion to the keys, not to CPUs times
 * keys: with the key directory full and every online CPU having counted
 * into every row, opening /proc/lockmeter (which takes the snapshot) may
 * grow vmalloc by about one merged row per key, whatever the CPU count.
 * The time the open took is printed, not judged: under QEMU's -icount it
 * is the guest instructions the snapshot took (scripts/bench/snapshot.sh).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>
#include "lockmeter_lib.h"

/* The module's lmt_many[] locks: more than the directory's default rows. */
#define MAX_LOCKS	20480

/* A merged row (struct lm_stat) is about 1.3 KB: allow 2 KB a key. */
#define ROW_BYTES	2048

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
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
	uint64_t keys, used, cpus = 0, t0, t1;
	long before, during;
	cpu_set_t all, one;
	char buf[4096];
	int cpu, fd;

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
	lm_report_free(&self->rep);
	if (keys + 1000 > MAX_LOCKS)
		SKIP(return, "%" PRIu64 " keys: the module has too few locks", keys);
	EXPECT_EQ(keys, used);

	before = vmalloc_used_kb();
	ASSERT_LT(0, before);
	t0 = now_ns();
	fd = open(LM_PROC, O_RDONLY);
	ASSERT_LE(0, fd);
	t1 = now_ns();
	ASSERT_LT(0, read(fd, buf, sizeof(buf)));
	during = vmalloc_used_kb();
	close(fd);

	ksft_print_msg("snapshot of %" PRIu64 " keys on %" PRIu64 " CPUs (%ld possible): %" PRIu64
		       " ns to open, vmalloc +%ld KiB\n", used, cpus, sysconf(_SC_NPROCESSORS_CONF),
		       t1 - t0, during - before);
	EXPECT_GE((long)((used + 64) * ROW_BYTES / 1024), during - before)
		TH_LOG("%ld KiB for %" PRIu64 " keys", during - before, used);
}

TEST_HARNESS_MAIN
