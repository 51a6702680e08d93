// SPDX-License-Identifier: GPL-2.0
/*
 * A full key directory loses nothing and hides nothing: test_lockmeter.ko
 * takes more distinct static spinlocks than the directory has rows, then
 * the last of them once more, held long.  Every key that got a row must
 * have its own exact row; the events of those that did not are counted
 * in the "*overflow*" row and in table_full; and the overflow row is
 * named after its longest hold, the module's long one, with its site.
 */
#define _GNU_SOURCE
#include "lockmeter_lib.h"

/* The module has this many lmt_many[] locks. */
#define MAX_LOCKS	20480

/* The long hold among the keys that found no row, in us. */
#define LONG_US		20000

FIXTURE(overflow)
{
	struct lm_report rep;
};

FIXTURE_SETUP(overflow)
{
	lm_setup(_metadata);
}

/* Leave an empty directory behind: a full one would hide later events. */
FIXTURE_TEARDOWN(overflow)
{
	EXPECT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(0, lm_ctl("reset"));
	lm_report_free(&self->rep);
}

TEST_F_TIMEOUT(overflow, nothing_lost_worst_named, 120)
{
	const struct lm_report *rep = &self->rep;
	uint64_t keys, used, m, sum = 0, odd = 0, others = 0, inner = 0, long_ns, span_ns;
	const struct lm_row *ov;
	char want[64];
	size_t i;

	lm_report_read(_metadata, &self->rep);
	keys = lm_header_u64(_metadata, rep->text, "keys");
	lm_report_free(&self->rep);
	ASSERT_LT(0ULL, keys);
	if (keys + 1000 > MAX_LOCKS)
		SKIP(return, "%" PRIu64 " keys: the module has too few locks", keys);
	/* all of the module's locks: past the directory however busy the rest */
	m = MAX_LOCKS;

	lm_metered(_metadata, "overflow_long %" PRIu64 " %u", m, LONG_US);
	ASSERT_EQ(m, lm_mod_value(_metadata, "count"));
	long_ns = lm_mod_value(_metadata, "hold_max_ns");
	span_ns = lm_mod_value(_metadata, "span_max_ns");

	lm_report_read(_metadata, &self->rep);
	used = lm_header_u64(_metadata, rep->text, "keys_used");
	EXPECT_EQ(keys, used) TH_LOG("the directory did not fill");
	EXPECT_LT(0ULL, lm_header_u64(_metadata, rep->text, "table_full"));
	for (i = 0; i < rep->nr_rows; i++) {
		const struct lm_row *row = &rep->rows[i];

		if (!strncmp(row->lock, "*overflow*", 10))
			continue;
		if (strcmp(row->type, lm_type("spin")) || !lm_site_in(row->site, "lmt_overflow")) {
			/*
			 * On PREEMPT_RT a spinlock_t is an rtmutex, and the raw
			 * spinlock inside, its wait_lock, is taken at the
			 * rtmutex's sites: keys of the module's locks too.
			 */
			if (!strcmp(row->type, "spin") && lm_lock_is(row->lock, "lmt_many"))
				inner++;
			else
				others++;
			continue;
		}
		sum += row->acquired;
		odd += !lm_lock_is(row->lock, "lmt_many") || row->acquired != 1 ||
		       row->instances != 1;
	}
	EXPECT_EQ(0ULL, odd) TH_LOG("rows at lmt_overflow not one lmt_many[] lock taken once");
	if (!lm_preempt_rt())
		EXPECT_EQ(0ULL, inner) TH_LOG("rows of lmt_many[] taken elsewhere");
	EXPECT_LT(keys / 2, sum + inner)
		TH_LOG("%" PRIu64 " + %" PRIu64 " of the module's keys got a row", sum, inner);
	EXPECT_GT(m, sum) TH_LOG("%" PRIu64 " locks fit in %" PRIu64 " rows", m, keys);
	/* one row per key: the module's and everybody else's fill it exactly */
	EXPECT_GE(keys, sum + inner + others)
		TH_LOG("%" PRIu64 " + %" PRIu64 " + %" PRIu64 " rows in %" PRIu64,
		       sum, inner, others, keys);

	ov = lm_overflow_row(rep, lm_type("spin"));
	ASSERT_NE(NULL, ov) TH_LOG("no spin *overflow* row with table_full set");
	EXPECT_LE(m - sum, ov->acquired) TH_LOG("%" PRIu64 " in rows, %" PRIu64 " in overflow",
						sum, ov->acquired);
	/* the worst hold among them is the module's, named with its site */
	snprintf(want, sizeof(want), "*overflow*(worst:lmt_many+");
	EXPECT_EQ(0, strncmp(ov->lock, want, strlen(want))) TH_LOG("overflow row \"%s\"", ov->lock);
	EXPECT_TRUE(lm_site_in(ov->site, "lmt_overflow_long")) TH_LOG("its site \"%s\"", ov->site);
	ksft_print_msg("keys %" PRIu64 "/%" PRIu64 ": %" PRIu64 " module rows, %" PRIu64
		       " others; %s at %s: %" PRIu64 " acquired, hold max %" PRIu64
		       " ns (the module's long hold %" PRIu64 " ns inside, %" PRIu64
		       " ns around)\n", used, keys, sum, others, ov->lock, ov->site,
		       ov->acquired, ov->hold_max, long_ns, span_ns);
	/* between the module's clock reads inside the hold and those around it */
	EXPECT_LE(long_ns, ov->hold_max);
	EXPECT_GE(lm_span_bound(span_ns, 1), ov->hold_max);
}

TEST_HARNESS_MAIN
