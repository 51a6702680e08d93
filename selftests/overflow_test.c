// SPDX-License-Identifier: GPL-2.0
/*
 * A full per-CPU stats table loses nothing: test_lockmeter.ko takes twice
 * as many distinct static spinlocks on one CPU as a table has slots.  Those
 * that found no slot must be counted in the "*overflow*" row and in the
 * table_full header counter instead.
 */
#define _GNU_SOURCE
#include "lockmeter_lib.h"

/* The module has this many lmt_many[] locks. */
#define MAX_LOCKS	16384

FIXTURE(overflow)
{
	struct lm_report rep;
};

FIXTURE_SETUP(overflow)
{
	lm_setup(_metadata);
}

/* Leave an empty table behind: a full one would hide later events. */
FIXTURE_TEARDOWN(overflow)
{
	EXPECT_EQ(0, lm_ctl("off"));
	EXPECT_EQ(0, lm_ctl("reset"));
	lm_report_free(&self->rep);
}

TEST_F_TIMEOUT(overflow, nothing_lost, 60)
{
	const struct lm_report *rep = &self->rep;
	uint64_t slots, m, sum = 0, odd = 0;
	const struct lm_row *ov;
	size_t i;

	lm_report_read(_metadata, &self->rep);
	slots = lm_header_u64(_metadata, rep->text, "slots_per_cpu");
	lm_report_free(&self->rep);
	ASSERT_LT(0ULL, slots);
	if (slots > MAX_LOCKS / 2)
		SKIP(return, "%" PRIu64 " slots per CPU: the module has too few locks", slots);
	m = 2 * slots;

	lm_metered(_metadata, "overflow %" PRIu64, m);
	ASSERT_EQ(m, lm_mod_value(_metadata, "count"));

	lm_report_read(_metadata, &self->rep);
	EXPECT_LT(0ULL, lm_header_u64(_metadata, rep->text, "table_full"));
	for (i = 0; i < rep->nr_rows; i++) {
		const struct lm_row *row = &rep->rows[i];

		if (strcmp(row->type, "spin") || !lm_site_in(row->site, "lmt_overflow"))
			continue;
		sum += row->acquired;
		odd += !lm_lock_is(row->lock, "lmt_many") || row->acquired != 1 ||
		       row->instances != 1;
	}
	EXPECT_EQ(0ULL, odd) TH_LOG("rows at lmt_overflow not one lmt_many[] lock taken once");
	EXPECT_LT(0ULL, sum) TH_LOG("no lmt_many[] lock found a slot");
	EXPECT_GT(m, sum) TH_LOG("%" PRIu64 " locks fit in %" PRIu64 " slots", m, slots);
	EXPECT_GE(slots, sum) TH_LOG("one CPU's rows exceed its table");

	ov = lm_overflow_row(rep, "spin");
	ASSERT_NE(NULL, ov) TH_LOG("no spin *overflow* row with table_full set");
	EXPECT_LE(m, sum + ov->acquired) TH_LOG("%" PRIu64 " in rows, %" PRIu64 " in overflow",
						sum, ov->acquired);
}

TEST_HARNESS_MAIN
