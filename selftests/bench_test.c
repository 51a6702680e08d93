// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of a spin_lock/spin_unlock pair with metering off and on, as
 * measured by test_lockmeter.ko.  Nothing is asserted beyond the commands
 * succeeding: the numbers go to the log as KTAP diagnostics ("# ..."), for
 * comparison between kernels booted in the same guest.
 */
#define _GNU_SOURCE
#include "lockmeter_lib.h"

#define BENCH_PAIRS		200000
#define BENCH_CONTENDED_PAIRS	50000

FIXTURE(bench)
{
};

FIXTURE_SETUP(bench)
{
	lm_setup(_metadata);
}

FIXTURE_TEARDOWN(bench)
{
	EXPECT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(0, lm_ctl("reset"));
}

/* ns per pair of one bench command. */
static uint64_t bench(struct __test_metadata *_metadata, const char *cmd, unsigned int pairs)
{
	uint64_t ns;

	lm_mod_cmd(_metadata, "%s %u", cmd, pairs);
	ns = lm_mod_value(_metadata, "ns_per_pair");
	ksft_print_msg("%s %u, metering %s: %" PRIu64 " ns/pair\n", cmd, pairs,
		       lm_is_on(_metadata) ? "on" : "off", ns);
	return ns;
}

static void ratio(const char *what, uint64_t on, uint64_t off)
{
	if (off)
		ksft_print_msg("%s on/off: %.2f\n", what, (double)on / off);
	else
		ksft_print_msg("%s on/off: n/a (off took 0 ns/pair)\n", what);
}

TEST_F_TIMEOUT(bench, ns_per_pair, 240)
{
	bool two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	uint64_t off, on, coff = 0, con = 0;

	ASSERT_EQ(0, lm_ctl("off"));
	ASSERT_EQ(0, lm_ctl("reset"));
	off = bench(_metadata, "bench", BENCH_PAIRS);
	if (two)
		coff = bench(_metadata, "bench_contended", BENCH_CONTENDED_PAIRS);
	ASSERT_EQ(0, lm_ctl("on"));
	on = bench(_metadata, "bench", BENCH_PAIRS);
	if (two)
		con = bench(_metadata, "bench_contended", BENCH_CONTENDED_PAIRS);
	else
		ksft_print_msg("bench_contended skipped: needs two CPUs\n");
	ASSERT_EQ(0, lm_ctl("off"));

	ratio("bench", on, off);
	if (two)
		ratio("bench_contended", con, coff);
}

TEST_HARNESS_MAIN
