// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of lockmeter's pure logic: time accumulation, the key
 * directory (claim, lookup, full), the merge of snapshots, and the
 * evidence taken with a new maximum, of a row and of an overflow row.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <uapi/linux/lockmeter.h>

#include "lockmeter.h"

static void lm_time_inc_first_sets_min(struct kunit *test)
{
	struct lm_time t = { };

	lm_time_inc(&t, 500);
	KUNIT_EXPECT_EQ(test, t.nr, 1ULL);
	KUNIT_EXPECT_EQ(test, t.total, 500ULL);
	KUNIT_EXPECT_EQ(test, t.min, 500ULL);
	KUNIT_EXPECT_EQ(test, t.max, 500ULL);
}

static void lm_time_inc_accumulates(struct kunit *test)
{
	static const u64 samples[] = { 300, 100, 900, 0, 250 };
	struct lm_time t = { };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(samples); i++)
		lm_time_inc(&t, samples[i]);
	KUNIT_EXPECT_EQ(test, t.nr, 5ULL);
	KUNIT_EXPECT_EQ(test, t.total, 1550ULL);
	KUNIT_EXPECT_EQ(test, t.min, 0ULL);
	KUNIT_EXPECT_EQ(test, t.max, 900ULL);
}

static void lm_time_add_merges(struct kunit *test)
{
	struct lm_time a = { }, b = { }, empty = { };

	lm_time_inc(&a, 40);
	lm_time_inc(&a, 60);
	lm_time_inc(&b, 10);
	lm_time_inc(&b, 200);

	lm_time_add(&empty, &a);	/* merging nothing changes nothing */
	KUNIT_EXPECT_EQ(test, a.nr, 2ULL);
	KUNIT_EXPECT_EQ(test, a.min, 40ULL);

	lm_time_add(&b, &a);
	KUNIT_EXPECT_EQ(test, a.nr, 4ULL);
	KUNIT_EXPECT_EQ(test, a.total, 310ULL);
	KUNIT_EXPECT_EQ(test, a.min, 10ULL);
	KUNIT_EXPECT_EQ(test, a.max, 200ULL);
}

static void lm_time_add_into_empty_copies(struct kunit *test)
{
	struct lm_time src = { }, dst = { };

	lm_time_inc(&src, 70);
	lm_time_inc(&src, 30);
	lm_time_add(&src, &dst);
	KUNIT_EXPECT_EQ(test, dst.nr, src.nr);
	KUNIT_EXPECT_EQ(test, dst.total, src.total);
	KUNIT_EXPECT_EQ(test, dst.min, 30ULL);
	KUNIT_EXPECT_EQ(test, dst.max, 70ULL);
}

#define T_NR	37	/* rows of a test directory: small enough to fill */

static struct lm_dir *t_dir_n(struct kunit *test, unsigned int nr)
{
	struct lm_dir *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->nr = nr;
	d->index_mask = roundup_pow_of_two(2 * nr) - 1;
	d->key = kunit_kcalloc(test, nr, sizeof(*d->key), GFP_KERNEL);
	d->ev = kunit_kcalloc(test, nr, sizeof(*d->ev), GFP_KERNEL);
	d->index = kunit_kcalloc(test, d->index_mask + 1, sizeof(*d->index), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->key);
	KUNIT_ASSERT_NOT_NULL(test, d->ev);
	KUNIT_ASSERT_NOT_NULL(test, d->index);
	return d;
}

static struct lm_dir *t_dir(struct kunit *test)
{
	return t_dir_n(test, T_NR);
}

/* A CPU's state counting into the rows of @d; vfree() it. */
static struct lm_cpu *t_cpu(struct kunit *test, struct lm_dir *d)
{
	struct lm_cpu *c = vzalloc(sizeof(*c));
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->dir = d;
	c->top = &c->held[1];
	/* every chunk of rows, so that no lookup needs the spares */
	c->nr_chunks = DIV_ROUND_UP(d->nr, LM_CHUNK_ROWS);
	c->chunk = kunit_kcalloc(test, c->nr_chunks, sizeof(*c->chunk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->chunk);
	for (i = 0; i < c->nr_chunks; i++) {
		c->chunk[i] = kunit_kcalloc(test, LM_CHUNK_ROWS, sizeof(struct lm_slot),
					    GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c->chunk[i]);
	}
	for (i = 0; i < c->nr_chunks * LM_CHUNK_ROWS; i++)
		lm_slot_init(&c->chunk[i / LM_CHUNK_ROWS][i % LM_CHUNK_ROWS], i);
	for (i = 0; i < LM_NR_TYPES; i++)
		lm_slot_init(&c->overflow[i], LM_ROW_NONE);
	return c;
}

/* Row @id of @c (t_cpu() made every chunk). */
static struct lm_slot *t_row(struct lm_cpu *c, unsigned int id)
{
	return lm_row_peek(c, id);
}

static struct lm_key t_key(unsigned long lock, unsigned long site, u32 type)
{
	return (struct lm_key){ .lock = lock, .site = site, .type = type };
}

static void lm_dir_insert_and_find(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_key a = t_key(0x1000, 0x2000, LM_spin);
	struct lm_key b = t_key(0x1000, 0x2000, LM_read);	/* type differs */
	struct lm_key c = t_key(0x1000, 0x2008, LM_spin);	/* site differs */
	struct lm_key e = t_key(0x1000, 0x2000, LM_spin);
	int ia, ib, ic;

	e.class = LM_PERCPU;					/* class differs */
	ia = lm_dir_get(d, &a);
	ib = lm_dir_get(d, &b);
	ic = lm_dir_get(d, &c);
	KUNIT_ASSERT_EQ(test, ia, 0);
	KUNIT_EXPECT_EQ(test, ib, 1);
	KUNIT_EXPECT_EQ(test, ic, 2);
	KUNIT_EXPECT_EQ(test, lm_dir_get(d, &e), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->used), 4);

	/* the same key finds the same row, claiming nothing new */
	KUNIT_EXPECT_EQ(test, lm_dir_get(d, &a), ia);
	KUNIT_EXPECT_EQ(test, d->key[ia].type, (u32)LM_spin);
	KUNIT_EXPECT_EQ(test, d->key[ia].site, 0x2000UL);
	KUNIT_EXPECT_EQ(test, d->key[ic].site, 0x2008UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->used), 4);
}

/* Every key gets a row of its own until the rows run out; then -1, never a wrong row. */
static void lm_dir_fills_then_refuses(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	unsigned int i, got = 0;
	struct lm_key k;
	int id;

	for (i = 0; i < 4 * T_NR; i++) {
		k = t_key(0x10000 + 64 * i, 0x400, LM_spin);
		id = lm_dir_get(d, &k);
		if (i < T_NR) {
			KUNIT_EXPECT_EQ(test, id, (int)i);
		} else {
			KUNIT_EXPECT_EQ(test, id, -1);
			continue;
		}
		if (id >= 0 && lm_key_eq(&d->key[id], &k))
			got++;
	}
	KUNIT_EXPECT_EQ(test, got, T_NR);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->used), T_NR);

	/* keys already in the full directory are still found */
	k = t_key(0x10000, 0x400, LM_spin);
	KUNIT_EXPECT_EQ(test, lm_dir_get(d, &k), 0);
	k = t_key(0x10000 + 64 * (T_NR - 1), 0x400, LM_spin);
	KUNIT_EXPECT_EQ(test, lm_dir_get(d, &k), T_NR - 1);
}

/*
 * An index entry another CPU is claiming is passed over: the key gets a
 * row of its own (a duplicate, if it was the same key, which readers
 * merge), never the half-written one.
 */
static void lm_dir_passes_busy_entries(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_key k = t_key(0x5000, 0x6000, LM_write);
	unsigned int home = lm_key_home(&k, d->index_mask);
	int id;

	d->index[home] = LM_DIR_BUSY;
	id = lm_dir_get(d, &k);
	KUNIT_ASSERT_EQ(test, id, 0);
	KUNIT_EXPECT_EQ(test, d->index[(home + 1) & d->index_mask], 1U);
	KUNIT_EXPECT_EQ(test, lm_dir_get(d, &k), 0);
	KUNIT_EXPECT_EQ(test, d->index[home], LM_DIR_BUSY);
}

/* A slot charged with known holds and waits reads back as the row they make. */
static void lm_slot_read_derives_counts(struct kunit *test)
{
	struct lm_slot s = { };
	struct lm_stat *row = kunit_kzalloc(test, sizeof(*row), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, row);

	lm_slot_init(&s, LM_ROW_NONE);
	lm_charge(NULL, &s, 40, 0, 100, NULL);	/* at once */
	lm_charge(NULL, &s, 10, 90, 100, NULL);	/* waited 10 */
	lm_charge(NULL, &s, 70, 50, 100, NULL);	/* waited 50 */
	s.oncpu_total = 100;
	s.reject = 2;
	row->key.type = LM_mutex;
	lm_slot_read(NULL, &s, row, NULL);

	KUNIT_EXPECT_EQ(test, row->nowait, 1ULL);
	KUNIT_EXPECT_EQ(test, row->spin, 2ULL);
	KUNIT_EXPECT_EQ(test, row->reject, 2ULL);
	KUNIT_EXPECT_EQ(test, row->hold.nr, 3ULL);
	KUNIT_EXPECT_EQ(test, row->hold.total, lm_ticks_to_ns(120));
	KUNIT_EXPECT_EQ(test, row->hold.min, lm_ticks_to_ns(10));
	KUNIT_EXPECT_EQ(test, row->hold.max, lm_ticks_to_ns(70));
	KUNIT_EXPECT_EQ(test, row->wait.nr, 2ULL);
	KUNIT_EXPECT_EQ(test, row->wait.total, lm_ticks_to_ns(60));
	KUNIT_EXPECT_EQ(test, row->wait.min, lm_ticks_to_ns(10));
	KUNIT_EXPECT_EQ(test, row->wait.max, lm_ticks_to_ns(50));
	/* blocked is the rest of the hold, in ns too */
	KUNIT_EXPECT_EQ(test, row->oncpu_total, lm_ticks_to_ns(100));
	KUNIT_EXPECT_EQ(test, row->blocked_total, row->hold.total - row->oncpu_total);
}

/*
 * Each hold and wait lands in the bucket of its bit length past
 * LM_HIST_SHIFT, the longest in the last; a row's buckets sum to its
 * counts, and the bounds readers get rise with the buckets.
 */
static void lm_hist_counts_every_sample(struct kunit *test)
{
	static const struct {
		u64 t;
		unsigned int b;
	} cases[] = {
		{ 0, 0 },
		{ (1 << LM_HIST_SHIFT) - 1, 0 },
		{ 1 << LM_HIST_SHIFT, 1 },
		{ (2 << LM_HIST_SHIFT) - 1, 1 },
		{ 2 << LM_HIST_SHIFT, 2 },
		{ 1ULL << (LM_HIST_SHIFT + LM_HIST_NR - 3), LM_HIST_NR - 2 },
		{ 1ULL << (LM_HIST_SHIFT + LM_HIST_NR - 2), LM_HIST_NR - 1 },
		{ 1ULL << 60, LM_HIST_NR - 1 },
	};
	struct lm_slot s = { };
	u64 holds = 0, waits = 0;
	struct lm_stat *row = kunit_kzalloc(test, sizeof(*row), GFP_KERNEL);
	struct lm_stat_hist *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_ASSERT_NOT_NULL(test, h);

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ(test, lm_hist_bucket(cases[i].t), cases[i].b);
	if (!IS_ENABLED(CONFIG_LOCKMETER_HIST))
		kunit_skip(test, "no histograms in slots (CONFIG_LOCKMETER_HIST=n)");
	lm_slot_init(&s, LM_ROW_NONE);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		/* the short ones also waited as long as they held */
		if (cases[i].t < 4096)
			lm_charge(NULL, &s, cases[i].t, 100, 100 + cases[i].t, NULL);
		else
			lm_charge(NULL, &s, cases[i].t, 0, 100, NULL);
	}
	lm_slot_read(NULL, &s, row, h);
	/* the row points to the histograms it was given */
	KUNIT_ASSERT_PTR_EQ(test, row->hist, h);
	for (i = 0; i < LM_HIST_NR; i++) {
		holds += h->hold[i];
		waits += h->wait[i];
	}
	KUNIT_EXPECT_EQ(test, holds, row->hold.nr);
	KUNIT_EXPECT_EQ(test, holds, (u64)ARRAY_SIZE(cases));
	KUNIT_EXPECT_EQ(test, waits, row->wait.nr);
	KUNIT_EXPECT_EQ(test, waits, 5ULL);
	KUNIT_EXPECT_EQ(test, h->hold[0], 2ULL);
	KUNIT_EXPECT_EQ(test, h->hold[1], 2ULL);
	KUNIT_EXPECT_EQ(test, h->hold[2], 1ULL);
	KUNIT_EXPECT_EQ(test, h->hold[LM_HIST_NR - 2], 1ULL);
	KUNIT_EXPECT_EQ(test, h->hold[LM_HIST_NR - 1], 2ULL);
	KUNIT_EXPECT_EQ(test, h->wait[0], 2ULL);
	KUNIT_EXPECT_EQ(test, h->wait[1], 2ULL);
	KUNIT_EXPECT_EQ(test, h->wait[2], 1ULL);

	KUNIT_EXPECT_EQ(test, lm_hist_bound(0), 0ULL);
	for (i = 1; i < LM_HIST_NR; i++)
		KUNIT_EXPECT_GT(test, lm_hist_bound(i), lm_hist_bound(i - 1));
}

/*
 * A 16-bit bucket that wraps is counted in its CPU's spill table, and
 * read back whole; with no room left there the wrap is counted lost.
 */
static void lm_hist_wraps_spill(struct kunit *test)
{
#ifdef CONFIG_LOCKMETER_HIST
	struct lm_cpu *c = t_cpu(test, t_dir(test));
	unsigned long flags;
	struct lm_slot *s;
	unsigned int i;

	s = t_row(c, 5);
	s->hold_hist[2] = U16_MAX;
	local_irq_save(flags);
	lm_charge(c, s, 2 << LM_HIST_SHIFT, 0, 100, NULL);
	lm_charge(c, s, 2 << LM_HIST_SHIFT, 0, 200, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->nr_spill, 1U);
	KUNIT_EXPECT_EQ(test, lm_hist_count(c, s, &s->hold_hist[2]), 65537ULL);
	KUNIT_EXPECT_EQ(test, lm_hist_count(c, s, &s->hold_hist[3]), 0ULL);

	/* every entry taken (odd keys: no bucket's): the next wrap is lost */
	for (i = 0; i < LM_SPILLS; i++)
		c->spill[i].key = 2 * i + 1;
	s->wait_hist[0] = U16_MAX;
	local_irq_save(flags);
	lm_charge(c, s, 1, 1, 1, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->loss.hist_lost, 1ULL);
	KUNIT_EXPECT_EQ(test, lm_hist_count(c, s, &s->wait_hist[0]), 0ULL);
	/* ... and the counts do not depend on the histograms */
	KUNIT_EXPECT_EQ(test, s->nr, 3ULL);
	KUNIT_EXPECT_EQ(test, s->spin, 1ULL);
	vfree(c);
#else
	kunit_skip(test, "no histograms in slots (CONFIG_LOCKMETER_HIST=n)");
#endif
}

/* A reader that catches an update half way never sees a huge count. */
static void lm_slot_read_clamps_torn_updates(struct kunit *test)
{
	struct lm_slot s = { .nr = 4, .spin = 5, .hold_total = 50, .oncpu_total = 60 };
	struct lm_stat *row = kunit_kzalloc(test, sizeof(*row), GFP_KERNEL);
	struct lm_stat_hist *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u64 holds = 0, waits = 0;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_ASSERT_NOT_NULL(test, h);

#ifdef CONFIG_LOCKMETER_HIST
	/* histograms a wrap short: the counts are the counters' still */
	s.hold_hist[1] = 2;
	s.wait_hist[1] = 3;
#endif
	row->key.type = LM_rwsem_read;
	lm_slot_read(NULL, &s, row, h);
	if (IS_ENABLED(CONFIG_LOCKMETER_HIST)) {
		/* ... and the histograms were made to sum to them */
		KUNIT_ASSERT_PTR_EQ(test, row->hist, h);
		for (i = 0; i < LM_HIST_NR; i++) {
			holds += h->hold[i];
			waits += h->wait[i];
		}
		KUNIT_EXPECT_EQ(test, holds, row->hold.nr);
		KUNIT_EXPECT_EQ(test, waits, row->wait.nr);
	} else {
		KUNIT_EXPECT_PTR_EQ(test, row->hist, NULL);
	}
	KUNIT_EXPECT_EQ(test, row->nowait, 0ULL);
	KUNIT_EXPECT_EQ(test, row->spin, 4ULL);
	KUNIT_EXPECT_EQ(test, row->hold.nr, row->spin);
	KUNIT_EXPECT_EQ(test, row->blocked_total, 0ULL);
	KUNIT_EXPECT_EQ(test, row->oncpu_total, lm_ticks_to_ns(50));
}

static void lm_rows_merge_folds_equal_keys(struct kunit *test)
{
	struct lm_stat *rows = kunit_kcalloc(test, 5, sizeof(*rows), GFP_KERNEL);
	struct lm_stat_hist *h = kunit_kcalloc(test, 2, sizeof(*h), GFP_KERNEL);
	size_t n;

	KUNIT_ASSERT_NOT_NULL(test, rows);
	KUNIT_ASSERT_NOT_NULL(test, h);
	/* the same (lock, site, type) from three CPUs, plus two others */
	rows[0].key = t_key(0x100, 0x200, LM_spin);
	rows[0].nowait = 5;
	lm_time_inc(&rows[0].hold, 10);
	rows[1].key = t_key(0x100, 0x300, LM_spin);
	rows[1].nowait = 1;
	rows[2].key = t_key(0x100, 0x200, LM_spin);
	rows[2].spin = 2;
	lm_time_inc(&rows[2].hold, 90);
	lm_time_inc(&rows[2].wait, 7);
	rows[3].key = t_key(0x100, 0x200, LM_read);
	rows[3].reject = 4;
	rows[4].key = t_key(0x100, 0x200, LM_spin);
	rows[4].reject = 1;
	rows[4].inst = 0x5;
	/* histograms on two of the three: the sum is in one of theirs */
	h[0].hold[1] = 1;
	rows[0].hist = &h[0];
	h[1].hold[3] = 2;
	h[1].wait[2] = 2;
	rows[2].hist = &h[1];

	n = lm_rows_merge(rows, 5);
	KUNIT_ASSERT_EQ(test, n, (size_t)3);
	/* sorted by key: type first, then lock, then site */
	KUNIT_EXPECT_EQ(test, rows[0].key.type, (u32)LM_spin);
	KUNIT_EXPECT_EQ(test, rows[0].key.site, 0x200UL);
	KUNIT_EXPECT_EQ(test, rows[0].nowait, 5ULL);
	KUNIT_EXPECT_EQ(test, rows[0].spin, 2ULL);
	KUNIT_EXPECT_EQ(test, rows[0].reject, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].hold.nr, 2ULL);
	KUNIT_EXPECT_EQ(test, rows[0].hold.max, 90ULL);
	KUNIT_EXPECT_EQ(test, rows[0].hold.min, 10ULL);
	KUNIT_EXPECT_EQ(test, rows[0].wait.total, 7ULL);
	KUNIT_EXPECT_EQ(test, rows[0].inst, 0x5ULL);
	KUNIT_ASSERT_NOT_NULL(test, rows[0].hist);
	KUNIT_EXPECT_EQ(test, rows[0].hist->hold[1], 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].hist->hold[3], 2ULL);
	KUNIT_EXPECT_EQ(test, rows[0].hist->wait[2], 2ULL);
	KUNIT_EXPECT_PTR_EQ(test, rows[1].hist, NULL);
	KUNIT_EXPECT_EQ(test, rows[1].key.site, 0x300UL);
	KUNIT_EXPECT_EQ(test, rows[1].nowait, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[2].key.type, (u32)LM_read);
	KUNIT_EXPECT_EQ(test, rows[2].reject, 4ULL);

	KUNIT_EXPECT_EQ(test, lm_rows_merge(rows, 0), (size_t)0);
}

static void lm_inst_estimate_counts(struct kunit *test)
{
	unsigned long lock;
	u64 inst = 0;

	KUNIT_EXPECT_EQ(test, lm_inst_estimate(0), 0ULL);
	KUNIT_EXPECT_EQ(test, lm_inst_estimate(lm_inst_bit(0x1234)), 1ULL);
	/* the same instance twice is one instance */
	inst = lm_inst_bit(0x1234) | lm_inst_bit(0x1234);
	KUNIT_EXPECT_EQ(test, lm_inst_estimate(inst), 1ULL);
	/* 20 distinct instances: linear counting is within a few */
	inst = 0;
	for (lock = 0; lock < 20; lock++)
		inst |= lm_inst_bit(0xffff888000000000UL + lock * 192);
	KUNIT_EXPECT_GE(test, lm_inst_estimate(inst), 14ULL);
	KUNIT_EXPECT_LE(test, lm_inst_estimate(inst), 26ULL);
	/* saturated */
	KUNIT_EXPECT_EQ(test, lm_inst_estimate(~0ULL), 266ULL);
}

/* Merged rows keep the evidence of the larger maximum, whichever comes first. */
static void lm_stat_add_keeps_evidence_of_max(struct kunit *test)
{
	static const struct lm_stat_ev a_hold = { .set = 1, .pid = 11 };
	static const struct lm_stat_ev b_hold = { .set = 1, .pid = 22 };
	static const struct lm_stat_ev b_wait = { .set = 1, .pid = 22 };
	static const struct lm_stat_ev c_hold = { .set = 1, .pid = 33 };
	struct lm_stat *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct lm_stat *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);

	a->hold.nr = 1;
	a->hold.max = 50;
	a->hold_ev = &a_hold;
	b->hold.nr = 1;
	b->hold.max = 90;
	b->hold_ev = &b_hold;
	b->wait.nr = 1;
	b->wait.max = 5;
	b->wait_ev = &b_wait;
	lm_stat_add(b, a);
	KUNIT_EXPECT_EQ(test, a->hold.max, 90ULL);
	KUNIT_EXPECT_PTR_EQ(test, a->hold_ev, &b_hold);
	KUNIT_EXPECT_PTR_EQ(test, a->wait_ev, &b_wait);

	/* a smaller maximum leaves the evidence alone */
	b->hold.max = 10;
	b->hold_ev = &c_hold;
	lm_stat_add(b, a);
	KUNIT_EXPECT_PTR_EQ(test, a->hold_ev, &b_hold);
}

/* Sleeping locks' records: one that waited, three that blocked (the last not). */
static const struct lm_task_held t_waited = { .owner = { .pid = 77, .comm = "owner" } };
static const struct lm_task_held t_blocked[] = {
	{ .blk = 300, .blk_nr = 2, .blk_ip = { 0x5, 0x55 } },
	{ .blk = 350, .blk_nr = 1, .blk_ip = { 0x6 } },
	{ },
};

/* Its address is a static lock's, for rows found through a CPU's cache. */
static int t_watched;

/*
 * A new maximum takes the current task and chain, a smaller hold takes
 * nothing.
 */

/*
 * A threshold costs the fast path nothing: a row's trip is its longest
 * hold, lowered to the threshold when one is set, so that a hold over the
 * threshold but not over the longest still takes the slow path, and is an
 * alert; a hold under both is not, nor a wait under its threshold.
 * Setting one (lm_watch_trip_cpu(), on every CPU) walks no row: it
 * empties the CPU's cache, and a row's trip comes down when the CPU finds
 * the row again.  Without a CPU's queue of alerts (none before a
 * threshold is set) each alert is counted as dropped.
 */
static void lm_watch_trips_and_alerts(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_cpu *c = t_cpu(test, d);
	struct lm_task_held h = { .lock = 0x1000, .site = 0x2000, .type = LM_mutex };
	u64 hold = lm_watch_hold[LM_mutex], wait = lm_watch_wait[LM_mutex];
	bool watching = lm_watching;
	struct lm_alert_ring *r = this_cpu_read(lm_alert_rings);
	unsigned long flags;
	struct lm_slot *s;

	if (r)
		kunit_skip(test, "a threshold was set: alerts would be sent");
	local_irq_save(flags);
	s = lm_slot_of(c, (unsigned long)&t_watched, 0x2000, LM_mutex);
	KUNIT_EXPECT_PTR_EQ(test, s, t_row(c, 0));
	lm_charge(c, s, 100, 0, 1000, &h);
	KUNIT_EXPECT_EQ(test, s->hold_trip, 100ULL);
	WRITE_ONCE(lm_watch_hold[LM_mutex], 30);
	WRITE_ONCE(lm_watch_wait[LM_mutex], 35);
	WRITE_ONCE(lm_watching, true);
	lm_watch_trip_cpu(c, NULL);
	/* no row walked, whatever the number of keys ... */
	KUNIT_EXPECT_EQ(test, s->hold_trip, 100ULL);
	KUNIT_EXPECT_EQ(test, lm_cache_entry(c, (unsigned long)&t_watched, 0x2000)->lock, 0UL);
	/* ... the row's trip comes down as its CPU finds it again */
	KUNIT_EXPECT_PTR_EQ(test, lm_slot_of(c, (unsigned long)&t_watched, 0x2000, LM_mutex), s);
	KUNIT_EXPECT_EQ(test, s->hold_trip, 30ULL);
	lm_charge(c, s, 50, 0, 2000, &h);	/* over the threshold only */
	lm_charge(c, s, 20, 0, 3000, &h);	/* under both */
	lm_charge(c, s, 10, 2960, 3000, &h);	/* a wait of 40 */
	lm_charge(c, s, 10, 3970, 4000, &h);	/* a wait of 30 */
	lm_charge(c, s, 200, 0, 5000, &h);	/* a new longest, over too */
	WRITE_ONCE(lm_watching, watching);
	WRITE_ONCE(lm_watch_hold[LM_mutex], hold);
	WRITE_ONCE(lm_watch_wait[LM_mutex], wait);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, s->nr, 6ULL);
	KUNIT_EXPECT_EQ(test, s->hold_max, 200ULL);
	KUNIT_EXPECT_EQ(test, s->hold_trip, 30ULL);
	KUNIT_EXPECT_EQ(test, s->alerts, 3U);
	KUNIT_EXPECT_EQ(test, s->alerts_dropped, 3U);
	KUNIT_EXPECT_EQ(test, c->loss.alerts, 3ULL);
	KUNIT_EXPECT_EQ(test, c->loss.alerts_dropped, 3ULL);
	vfree(c);
}

/*
 * A reset may change the clock of the holds (a TSC found unstable:
 * local_clock() from then on).  Each CPU's second of alerts then starts
 * again in the new clock, not at the end of one in the old clock's
 * ticks, which local_clock() might take years to reach.
 */
static void lm_reset_restarts_alert_windows(struct kunit *test)
{
	struct lm_alert_ring *r;
	unsigned int cpu;

	/* every CPU's queue, no threshold set */
	KUNIT_ASSERT_EQ(test, lockmeter_watch_set(LM_NONE, LM_WATCH_KEEP, LM_WATCH_KEEP), 0);
	if (READ_ONCE(lm_watching))
		kunit_skip(test, "a threshold is set: alerts are being raised");
	for_each_possible_cpu(cpu)
		KUNIT_ASSERT_NOT_NULL(test, per_cpu(lm_alert_rings, cpu));
	mutex_lock(&lm_ctl_mutex);
	for_each_possible_cpu(cpu) {
		r = per_cpu(lm_alert_rings, cpu);
		/* the end of a second in TSC ticks, far ahead of local_clock() */
		r->window = U64_MAX;
		r->budget = 0;
	}
	lm_watch_reset();
	mutex_unlock(&lm_ctl_mutex);
	for_each_possible_cpu(cpu) {
		r = per_cpu(lm_alert_rings, cpu);
		KUNIT_EXPECT_EQ(test, r->window, 0ULL);
	}
}

/*
 * A failed setup at boot (no cache for the task blocks) leaves metering
 * off for good: "on" fails with its error and changes nothing, so that
 * no fork allocates from a cache that does not exist.
 */
static void lm_on_refused_after_failed_setup(struct kunit *test)
{
	bool on = READ_ONCE(lm_on);
	int err = lm_setup_err;

	KUNIT_ASSERT_EQ(test, err, 0);
	lm_setup_err = -ENOMEM;
	KUNIT_EXPECT_EQ(test, lockmeter_control(LM_CTL_ON), -ENOMEM);
	lm_setup_err = err;
	KUNIT_EXPECT_EQ(test, READ_ONCE(lm_on), on);
	if (READ_ONCE(lm_on) != on)
		lockmeter_control(on ? LM_CTL_ON : LM_CTL_OFF);
}

static void lm_charge_takes_evidence(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_cpu *c = t_cpu(test, d), *c2 = t_cpu(test, d);
	struct lm_evidence *ev = &d->ev[3];
	unsigned long ip[LM_STACK_DEPTH];
	unsigned long flags;
	bool gone = false;
	struct lm_slot *s;
	u64 chain_min;

	/* every maximum keeps its chain here, whatever the boot chose */
	chain_min = lm_chain_min;
	WRITE_ONCE(lm_chain_min, 0);
	s = t_row(c, 3);

	local_irq_save(flags);
	lm_charge(c, s, 100, 0, 1000, NULL);
	lm_charge(c, s, 40, 0, 2000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->captures, 1ULL);
	KUNIT_EXPECT_EQ(test, (u32)ev->hold.set, 1U);
	KUNIT_EXPECT_EQ(test, ev->hold.ticks, 100ULL);
	KUNIT_EXPECT_EQ(test, ev->hold.pid, (u32)current->pid);
	KUNIT_EXPECT_STREQ(test, ev->hold.comm, current->comm);
	KUNIT_EXPECT_EQ(test, ev->hold.t, 1100ULL);
	KUNIT_EXPECT_EQ(test, (u32)ev->hold.ctx, (u32)LOCKMETER_CTX_TASK);
	KUNIT_EXPECT_EQ(test, (u32)ev->hold.cpu, raw_smp_processor_id());
	KUNIT_EXPECT_EQ(test, ev->seq, 2U);
	KUNIT_ASSERT_NE(test, ev->hold.stack, LM_NO_STACK);
	KUNIT_EXPECT_GT(test, c->stacks[ev->hold.stack & 0xffff].nr, 0U);
	KUNIT_EXPECT_EQ(test, (u32)ev->wait.set, 0U);

	/* a wait that sets the maximum, with its owner */
	local_irq_save(flags);
	lm_charge(c, s, 10, 900, 1000, &t_waited);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->captures, 2ULL);
	KUNIT_EXPECT_EQ(test, s->wait_max, 100ULL);
	KUNIT_EXPECT_EQ(test, (u32)ev->wait.set, 1U);
	/* its chain, taken here at the charge, as a release's would be */
	KUNIT_EXPECT_NE(test, ev->wait.stack, LM_NO_STACK);
	KUNIT_EXPECT_EQ(test, ev->owner_pid, 77U);
	KUNIT_EXPECT_STREQ(test, ev->owner_comm, "owner");

	/* a sleeping lock's new maximum keeps where its holder blocked */
	local_irq_save(flags);
	lm_charge(c, s, 500, 0, 3000, &t_blocked[0]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->captures, 3ULL);
	KUNIT_EXPECT_EQ(test, ev->blk, 300ULL);
	KUNIT_EXPECT_EQ(test, lm_stack_copy(c, ev->blk_stack, ip, &gone), 2U);
	KUNIT_EXPECT_EQ(test, ip[0], 0x5UL);
	KUNIT_EXPECT_EQ(test, ip[1], 0x55UL);
	KUNIT_EXPECT_FALSE(test, gone);
	/* ... a shorter hold leaves it, a longer one that never blocked clears it */
	local_irq_save(flags);
	lm_charge(c, s, 400, 0, 4000, &t_blocked[1]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ev->blk, 300ULL);
	local_irq_save(flags);
	lm_charge(c, s, 600, 0, 5000, &t_blocked[2]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ev->blk, 0ULL);
	KUNIT_EXPECT_EQ(test, ev->blk_stack, LM_NO_STACK);

	/*
	 * Another CPU's first hold of the key is its own maximum, but not
	 * the key's: the key's evidence stays; a longer one replaces it.
	 */
	local_irq_save(flags);
	lm_charge(c2, t_row(c2, 3), 550, 0, 6000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, t_row(c2, 3)->hold_max, 550ULL);
	KUNIT_EXPECT_EQ(test, c2->captures, 0ULL);
	KUNIT_EXPECT_EQ(test, ev->hold.ticks, 600ULL);
	local_irq_save(flags);
	lm_charge(c2, t_row(c2, 3), 650, 0, 7000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c2->captures, 1ULL);
	KUNIT_EXPECT_EQ(test, ev->hold.ticks, 650ULL);
	KUNIT_EXPECT_EQ(test, ev->hold.t, 7650ULL);

	/* evidence some other CPU is writing is left to it */
	ev->seq = 7;
	local_irq_save(flags);
	lm_charge(c, s, 900, 0, 8000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, s->hold_max, 900ULL);
	KUNIT_EXPECT_EQ(test, ev->hold.ticks, 650ULL);
	ev->seq = 8;

	KUNIT_EXPECT_EQ(test, c->loss.stacks_full, 0ULL);
	WRITE_ONCE(lm_chain_min, chain_min);
	vfree(c);
	vfree(c2);
}

/* The chain @ref names in @c's store, its frames into @ip: how many, 0 if gone. */
static u32 t_chain(struct lm_cpu *c, u64 ref, unsigned long *ip)
{
	bool gone = false;

	return lm_stack_copy(c, ref, ip, &gone);
}

/*
 * Successive new maxima of one row, more than the store has entries:
 * each keeps its chain, since the chains of the maxima it beat are
 * free again, and nothing is counted as stacks_full.  The chain of a
 * beaten maximum reads as gone once its entry is reused.
 */
static void lm_chain_every_new_maximum(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_cpu *c = t_cpu(test, d);
	struct lm_evidence *ev = &d->ev[5];
	unsigned long ip[LM_STACK_DEPTH];
	unsigned int i, kept = 0;
	unsigned long flags;
	u64 chain_min, first = LM_NO_STACK;
	bool gone = false;

	chain_min = lm_chain_min;
	WRITE_ONCE(lm_chain_min, 0);
	for (i = 1; i <= 3 * LM_STACKS; i++) {
		local_irq_save(flags);
		/* a longer hold each time, that waited as long as it held */
		lm_charge(c, t_row(c, 5), 10 * i, 1000 * i, 1000 * i + 10 * i, NULL);
		local_irq_restore(flags);
		if (first == LM_NO_STACK)
			first = ev->hold.stack;
		kept += ev->hold.stack != LM_NO_STACK && t_chain(c, ev->hold.stack, ip) > 0 &&
			ev->wait.stack == ev->hold.stack;
	}
	KUNIT_EXPECT_EQ(test, kept, 3 * LM_STACKS);
	KUNIT_EXPECT_EQ(test, ev->hold.ticks, 10ULL * 3 * LM_STACKS);
	KUNIT_EXPECT_EQ(test, c->loss.stacks_full, 0ULL);
	KUNIT_EXPECT_EQ(test, c->captures, 2ULL * 3 * LM_STACKS);
	/* the first maximum's entry was taken again: its reference reads as gone */
	KUNIT_EXPECT_EQ(test, lm_stack_copy(c, first, ip, &gone), 0U);
	KUNIT_EXPECT_TRUE(test, gone);
	WRITE_ONCE(lm_chain_min, chain_min);
	vfree(c);
}

/*
 * A store full of chains still in use (one per row, LM_STACKS rows)
 * leaves the next row's new maximum without a chain, counted as
 * stacks_full, and without a walk: no entry is written.  A row whose
 * maximum then moves on frees its chain for the next.
 */
static void lm_chain_full_store_skips_walk(struct kunit *test)
{
	struct lm_dir *d = t_dir_n(test, LM_STACKS + 1);
	struct lm_cpu *c = t_cpu(test, d);
	unsigned long ip[LM_STACK_DEPTH];
	unsigned int i, kept = 0, same = 0;
	unsigned long flags;
	u64 chain_min;
	u32 *seq;

	seq = kunit_kcalloc(test, LM_STACKS, sizeof(*seq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seq);
	chain_min = lm_chain_min;
	WRITE_ONCE(lm_chain_min, 0);
	local_irq_save(flags);
	for (i = 0; i < LM_STACKS; i++)
		lm_charge(c, t_row(c, i), 100, 0, 1000, NULL);
	local_irq_restore(flags);
	for (i = 0; i < LM_STACKS; i++) {
		kept += t_chain(c, d->ev[i].hold.stack, ip) > 0;
		seq[i] = c->stacks[i].seq;
	}
	KUNIT_EXPECT_EQ(test, kept, LM_STACKS);
	KUNIT_EXPECT_EQ(test, c->loss.stacks_full, 0ULL);

	local_irq_save(flags);
	lm_charge(c, t_row(c, LM_STACKS), 100, 0, 1000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->loss.stacks_full, 1ULL);
	KUNIT_EXPECT_EQ(test, (u32)d->ev[LM_STACKS].hold.set, 1U);
	KUNIT_EXPECT_EQ(test, d->ev[LM_STACKS].hold.stack, LM_NO_STACK);
	for (i = 0; i < LM_STACKS; i++)
		same += c->stacks[i].seq == seq[i];
	KUNIT_EXPECT_EQ(test, same, LM_STACKS);

	/* row 7's evidence moves on without a chain (below the floor) ... */
	WRITE_ONCE(lm_chain_min, 1000);
	local_irq_save(flags);
	lm_charge(c, t_row(c, 7), 200, 0, 2000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, d->ev[7].hold.stack, LM_NO_STACK);
	/* ... and the full row's next maximum gets the entry it let go */
	WRITE_ONCE(lm_chain_min, 0);
	local_irq_save(flags);
	lm_charge(c, t_row(c, LM_STACKS), 300, 0, 3000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, c->loss.stacks_full, 1ULL);
	KUNIT_EXPECT_GT(test, t_chain(c, d->ev[LM_STACKS].hold.stack, ip), 0U);
	KUNIT_EXPECT_EQ(test, d->ev[LM_STACKS].hold.stack & 0xffff, 7ULL);
	WRITE_ONCE(lm_chain_min, chain_min);
	vfree(c);
}

/*
 * A reset moves every entry a generation on: a reference from before it
 * reads as no chain, even once its entry holds a chain again.
 */
static void lm_chain_reset_makes_stale(struct kunit *test)
{
	struct lm_dir *d = t_dir(test);
	struct lm_cpu *c = t_cpu(test, d);
	unsigned long ip[LM_STACK_DEPTH];
	unsigned long flags;
	u64 chain_min, old;
	bool gone = false;

	chain_min = lm_chain_min;
	WRITE_ONCE(lm_chain_min, 0);
	local_irq_save(flags);
	lm_charge(c, t_row(c, 2), 100, 0, 1000, NULL);
	local_irq_restore(flags);
	old = d->ev[2].hold.stack;
	KUNIT_ASSERT_GT(test, t_chain(c, old, ip), 0U);

	lm_stacks_clear(c);
	KUNIT_EXPECT_EQ(test, lm_stack_copy(c, old, ip, &gone), 0U);
	KUNIT_EXPECT_TRUE(test, gone);
	/* the same entry, written again for other evidence: still not @old's */
	memset(&d->ev[2], 0, sizeof(d->ev[2]));
	local_irq_save(flags);
	lm_charge(c, t_row(c, 3), 100, 0, 1000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, d->ev[3].hold.stack & 0xffff, old & 0xffff);
	KUNIT_EXPECT_NE(test, d->ev[3].hold.stack, old);
	KUNIT_EXPECT_GT(test, t_chain(c, d->ev[3].hold.stack, ip), 0U);
	gone = false;
	KUNIT_EXPECT_EQ(test, lm_stack_copy(c, old, ip, &gone), 0U);
	KUNIT_EXPECT_TRUE(test, gone);
	WRITE_ONCE(lm_chain_min, chain_min);
	vfree(c);
}

static int lm_kunit_lock_word;	/* a static "lock": its address is all we need */

/* An overflow row keeps the key of its longest hold and wait, classified. */
static void lm_overflow_names_its_worst(struct kunit *test)
{
	struct lm_cpu *c = t_cpu(test, t_dir(test));
	struct lm_slot *ov = &c->overflow[LM_spin];
	unsigned long lock = (unsigned long)&lm_kunit_lock_word;
	struct lm_ovf *o = &c->ovf[LM_spin];
	unsigned long flags;

	/* each charge's spinning record, just popped, is at the top */
	local_irq_save(flags);
	c->top = &c->held[1];
	*c->top = (struct lm_held){ .lock = lock, .site = 0x1234 };
	lm_charge(c, ov, 300, 0, 1000, NULL);
	*c->top = (struct lm_held){ .lock = lock + 64, .site = 0x5678 };
	lm_charge(c, ov, 200, 0, 2000, NULL);
	*c->top = (struct lm_held){ .lock = 0xffff888000001000UL, .site = 0x9abc };
	lm_charge(c, ov, 100, 2950, 3000, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ov->nr, 3ULL);
	KUNIT_EXPECT_EQ(test, o->hold_key.site, 0x1234UL);
	KUNIT_EXPECT_EQ(test, o->hold_key.lock, lock);
	KUNIT_EXPECT_EQ(test, o->hold_key.type, (u32)LM_spin);
	KUNIT_EXPECT_EQ(test, o->hold_key.class, (u32)LM_STATIC);
	KUNIT_EXPECT_EQ(test, o->ev.hold.ticks, 300ULL);
	KUNIT_EXPECT_EQ(test, (u32)o->ev.hold.set, 1U);
	/* the wait's key is the waiter's, classified as a heap lock */
	KUNIT_EXPECT_EQ(test, o->wait_key.site, 0x9abcUL);
	KUNIT_EXPECT_EQ(test, o->wait_key.class, (u32)LM_HEAP);
	KUNIT_EXPECT_EQ(test, o->wait_key.lock, 0UL);
	KUNIT_EXPECT_EQ(test, o->ev.wait.ticks, 50ULL);
	vfree(c);
}

struct lm_kunit_obj {
	u64 pad[3];
	spinlock_t lock;	/* never taken: its address is all we need */
};

/* The name of @k, as a reader of a snapshot with its one row gets it. */
static const char *lm_kunit_name(struct kunit *test, const struct lm_key *k)
{
	struct lm_snapshot *snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	struct lm_names *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	char *buf = kunit_kzalloc(test, LM_NAME_LEN, GFP_KERNEL);
	struct lm_stat row = { .key = *k };

	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	snap->rows = &row;
	snap->nr = 1;
	lm_names_init(n, snap, false);
	buf = (char *)lm_lock_name(n, k, buf, LM_NAME_LEN);
	lm_names_free(n);
	return buf;
}

/*
 * A lock in a slab object is keyed by its cache and its offset in the
 * object, and named "cache+0xoff" while the cache exists, "[slab]+0xoff"
 * once it is destroyed; a lock outside slab objects is a heap lock.
 */
static void lm_slab_lock_named_by_cache(struct kunit *test)
{
	u32 off = offsetof(struct lm_kunit_obj, lock);
	struct lm_kunit_obj *obj;
	struct kmem_cache *cache;
	struct lm_key k = { };
	char want[32];
	void *v;

	cache = kmem_cache_create("lm_kunit_slab", sizeof(*obj), 0, SLAB_NO_MERGE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, cache);
	obj = kmem_cache_alloc(cache, GFP_KERNEL);
	if (obj) {
		lm_classify((unsigned long)&obj->lock, &k);
		kmem_cache_free(cache, obj);
	}
	KUNIT_EXPECT_EQ(test, k.class, (u32)LM_SLAB);
	KUNIT_EXPECT_EQ(test, k.lock, (unsigned long)cache);
	KUNIT_EXPECT_EQ(test, k.off, off);
	snprintf(want, sizeof(want), "lm_kunit_slab+0x%x", off);
	KUNIT_EXPECT_STREQ(test, lm_kunit_name(test, &k), want);
	kmem_cache_destroy(cache);
	snprintf(want, sizeof(want), "[slab]+0x%x", off);
	KUNIT_EXPECT_STREQ(test, lm_kunit_name(test, &k), want);

	v = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, v);
	lm_classify((unsigned long)v + 64, &k);
	vfree(v);
	KUNIT_EXPECT_EQ(test, k.class, (u32)LM_HEAP);
	KUNIT_EXPECT_EQ(test, k.lock, 0UL);
	KUNIT_EXPECT_EQ(test, k.off, 0U);
	v = (void *)__get_free_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, v);
	lm_classify((unsigned long)v + 64, &k);
	free_page((unsigned long)v);
	KUNIT_EXPECT_EQ(test, k.class, (u32)LM_HEAP);
}

/*
 * An address kallsyms cannot name is shown as it is only to a reader
 * that may see kernel addresses, and hashed to any other, whatever the
 * credentials of the task that does the naming: an alert is named in a
 * kworker, which %pK would judge, not the listener.  kptr_restrict=1 is
 * where the two differ (this test runs with the kernel's credentials).
 */
static void lm_unknown_address_shown_by_reader(struct kunit *test)
{
	struct lm_snapshot snap = { };
	char *buf = kunit_kzalloc(test, LM_NAME_LEN, GFP_KERNEL);
	struct lm_names *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	unsigned long addr = (unsigned long)buf;
	int restrict_was;
	char raw[24];

	if (!IS_BUILTIN(CONFIG_LOCKMETER_KUNIT_TEST))
		kunit_skip(test, "sets kptr_restrict: built in only");
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, n);
	snprintf(raw, sizeof(raw), "%lx", addr);
	restrict_was = READ_ONCE(kptr_restrict);
	WRITE_ONCE(kptr_restrict, 1);
	lm_names_init(n, &snap, false);
	lm_addr_name(n, addr, true, buf, LM_NAME_LEN);
	lm_names_free(n);
	WRITE_ONCE(kptr_restrict, restrict_was);
	KUNIT_EXPECT_NULL_MSG(test, strstr(buf, raw), "%s names %s", buf, raw);

	lm_names_init(n, &snap, true);
	lm_addr_name(n, addr, true, buf, LM_NAME_LEN);
	lm_names_free(n);
	KUNIT_EXPECT_STREQ(test, buf + 2, raw);
}

/*
 * Once the held rows are all taken, a hold longer than the shortest
 * takes its place and a shorter one is left out; both are counted.
 */
static void lm_held_keeps_longest(struct kunit *test)
{
	struct lm_held_snap hs = {};
	struct lm_held_row *r;
	u64 min = U64_MAX;
	size_t i;

	hs.rows = vzalloc(array_size(LM_HELD_ROWS, sizeof(*hs.rows)));
	KUNIT_ASSERT_NOT_NULL(test, hs.rows);
	for (i = 0; i < LM_HELD_ROWS; i++) {
		r = lm_held_row_new(&hs, 1000 + i);
		KUNIT_ASSERT_NOT_NULL(test, r);
		r->lock = i + 1;
	}
	KUNIT_EXPECT_EQ(test, hs.truncated, 0ULL);
	KUNIT_EXPECT_NULL(test, lm_held_row_new(&hs, 999));
	KUNIT_EXPECT_EQ(test, hs.truncated, 1ULL);
	r = lm_held_row_new(&hs, 5000);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->ns, 5000ULL);
	KUNIT_EXPECT_EQ(test, r->lock, 0UL);
	KUNIT_EXPECT_EQ(test, hs.truncated, 2ULL);
	KUNIT_EXPECT_EQ(test, hs.nr, (size_t)LM_HELD_ROWS);
	for (i = 0; i < hs.nr; i++)
		min = min(min, hs.rows[i].ns);
	/* the hold of 1000 made room */
	KUNIT_EXPECT_EQ(test, min, 1001ULL);
	vfree(hs.rows);
}

/*
 * A lock waited for with no recorded holder gets a row of its own (pid 0,
 * held as long as its longest wait) if that wait is long enough; the
 * waiters go to their rows, longest first.
 */
static void lm_held_lists_unrecorded_holders(struct kunit *test)
{
	struct lm_held_waiter w[3] = {
		{ .lock = 0x2000, .ns = 50, .pid = 11, .type = LM_mutex },
		{ .lock = 0x1000, .ns = 70, .pid = 12, .type = LM_mutex },
		{ .lock = 0x1000, .ns = 90, .pid = 13, .type = LM_mutex },
	};
	struct lm_held_snap hs = { .waiters = w, .nr_waiters = ARRAY_SIZE(w) };
	struct lm_held_row *r;

	hs.rows = vzalloc(array_size(LM_HELD_ROWS, sizeof(*hs.rows)));
	KUNIT_ASSERT_NOT_NULL(test, hs.rows);
	/* 0x2000 is held by a task with a record */
	r = lm_held_row_new(&hs, 500);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->lock = 0x2000;
	r->key.type = LM_mutex;
	r->pid = 10;
	lm_held_match(&hs, 60);
	KUNIT_ASSERT_EQ(test, hs.nr, (size_t)2);
	KUNIT_EXPECT_EQ(test, hs.rows[0].lock, 0x2000UL);
	KUNIT_EXPECT_EQ(test, hs.rows[0].pid, 10U);
	KUNIT_EXPECT_EQ(test, hs.rows[0].nr_waiters, (size_t)1);
	KUNIT_EXPECT_EQ(test, w[hs.rows[0].waiter].pid, 11U);
	KUNIT_EXPECT_EQ(test, hs.rows[1].lock, 0x1000UL);
	KUNIT_EXPECT_EQ(test, hs.rows[1].ns, 90ULL);
	KUNIT_EXPECT_EQ(test, hs.rows[1].pid, 0U);
	KUNIT_EXPECT_EQ(test, hs.rows[1].comm[0], '\0');
	KUNIT_EXPECT_EQ(test, hs.rows[1].key.site, 0UL);
	KUNIT_EXPECT_EQ(test, hs.rows[1].key.type, (u32)LM_mutex);
	KUNIT_EXPECT_EQ(test, hs.rows[1].nr_waiters, (size_t)2);
	KUNIT_EXPECT_EQ(test, w[hs.rows[1].waiter].pid, 13U);
	KUNIT_EXPECT_EQ(test, w[hs.rows[1].waiter + 1].pid, 12U);

	/* a wait shorter than asked for: no row for its lock */
	memset(hs.rows, 0, array_size(LM_HELD_ROWS, sizeof(*hs.rows)));
	hs.nr = 0;
	lm_held_match(&hs, 100);
	KUNIT_EXPECT_EQ(test, hs.nr, (size_t)0);
	vfree(hs.rows);
}

static struct kunit_case lockmeter_table_cases[] = {
	KUNIT_CASE(lm_dir_insert_and_find),
	KUNIT_CASE(lm_dir_fills_then_refuses),
	KUNIT_CASE(lm_dir_passes_busy_entries),
	KUNIT_CASE(lm_slot_read_derives_counts),
	KUNIT_CASE(lm_hist_counts_every_sample),
	KUNIT_CASE(lm_hist_wraps_spill),
	KUNIT_CASE(lm_slot_read_clamps_torn_updates),
	KUNIT_CASE(lm_rows_merge_folds_equal_keys),
	KUNIT_CASE(lm_inst_estimate_counts),
	KUNIT_CASE(lm_stat_add_keeps_evidence_of_max),
	KUNIT_CASE(lm_charge_takes_evidence),
	KUNIT_CASE(lm_watch_trips_and_alerts),
	KUNIT_CASE(lm_reset_restarts_alert_windows),
	KUNIT_CASE(lm_on_refused_after_failed_setup),
	KUNIT_CASE(lm_chain_every_new_maximum),
	KUNIT_CASE(lm_chain_full_store_skips_walk),
	KUNIT_CASE(lm_chain_reset_makes_stale),
	KUNIT_CASE(lm_overflow_names_its_worst),
	KUNIT_CASE(lm_slab_lock_named_by_cache),
	KUNIT_CASE(lm_unknown_address_shown_by_reader),
	KUNIT_CASE(lm_held_keeps_longest),
	KUNIT_CASE(lm_held_lists_unrecorded_holders),
	{}
};

static struct kunit_suite lockmeter_table_suite = {
	.name = "lockmeter_table",
	.test_cases = lockmeter_table_cases,
};

static struct kunit_case lockmeter_time_cases[] = {
	KUNIT_CASE(lm_time_inc_first_sets_min),
	KUNIT_CASE(lm_time_inc_accumulates),
	KUNIT_CASE(lm_time_add_merges),
	KUNIT_CASE(lm_time_add_into_empty_copies),
	{}
};

static struct kunit_suite lockmeter_time_suite = {
	.name = "lockmeter_time",
	.test_cases = lockmeter_time_cases,
};

kunit_test_suites(&lockmeter_time_suite, &lockmeter_table_suite);

MODULE_DESCRIPTION("KUnit tests for lockmeter");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
