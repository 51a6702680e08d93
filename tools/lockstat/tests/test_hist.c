// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the histograms: percentiles against values worked out by
 * hand (inside a bucket, all in one bucket, the open last bucket, empty,
 * the row's minimum and maximum as limits), the merge of a lock's sites
 * and of a section's total, deltas between snapshots (the interval's
 * counts, a bucket that went down, other bounds), the sort keys, and
 * snapshot files: histograms written and read back, old files without
 * them, and every kind of damaged histogram line refused with its line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "snapfile.h"
#include "tap.h"

/* six buckets, as a kernel with a 3 GHz TSC would send the first six */
static const uint64_t bounds[] = { 0, 85, 170, 341, 682, 1365 };

#define NB	ARRAY_SIZE(bounds)

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

static void test_pct_cases(void)
{
	const uint64_t spread[NB] = { 0, 2, 5, 0, 2, 1 };	/* 10 samples */
	const uint64_t one[NB] = { 0, 0, 0, 4, 0, 0 };
	const uint64_t last[NB] = { 0, 0, 0, 0, 0, 3 };
	const uint64_t tail[NB] = { 0, 999, 0, 0, 0, 1 };	/* 1000 samples */
	const uint64_t empty[NB] = { 0 };
	double ns = -1;

	/* p50: rank 5; 2 below bucket 2, the 3rd of its 5: 170 + 3/5 * 171 */
	tap_ok(lm_hist_pct(spread, bounds, NB, 500, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 272.6), "pct: p50 inside its bucket (272.6)");
	/* p90: rank 9; 7 below bucket 4, the 2nd of 2: 682 + 2/2 * 683 */
	tap_ok(lm_hist_pct(spread, bounds, NB, 900, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 1365), "pct: p90 at its bucket's upper bound (1365)");
	/* p99: rank 9.9, in the last bucket: its lower bound only */
	tap_ok(lm_hist_pct(spread, bounds, NB, 990, 0, UINT64_MAX, &ns) == LM_PCT_GE &&
	       near(ns, 1365), "pct: p99 in the open last bucket is >= its bound");
	/* p20: rank 2, the 2nd of bucket 1's 2: 85 + 2/2 * 85 */
	tap_ok(lm_hist_pct(spread, bounds, NB, 200, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 170), "pct: a rank that ends a bucket stays in it (170)");
	/* all in one bucket [341, 682): p50 341 + 2/4 * 341, p99.9 341 + 3.996/4 * 341 */
	tap_ok(lm_hist_pct(one, bounds, NB, 500, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 511.5), "pct: all in one bucket, p50 at its middle (511.5)");
	tap_ok(lm_hist_pct(one, bounds, NB, 999, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 341 + 3.996 / 4 * 341), "pct: all in one bucket, p99.9 near its top");
	/* the row's own limits: no sample was above 400 or below 350 */
	tap_ok(lm_hist_pct(one, bounds, NB, 999, 0, 400, &ns) == LM_PCT_EST && near(ns, 400),
	       "pct: never above the row's maximum");
	tap_ok(lm_hist_pct(one, bounds, NB, 10, 350, 400, &ns) == LM_PCT_EST && near(ns, 350),
	       "pct: never below the row's minimum");
	tap_ok(lm_hist_pct(last, bounds, NB, 500, 0, UINT64_MAX, &ns) == LM_PCT_GE &&
	       near(ns, 1365), "pct: all in the last bucket: >= its bound, for p50 too");
	/* 1000 samples, one in the last bucket: p99.9 is rank 999, still bucket 1 */
	tap_ok(lm_hist_pct(tail, bounds, NB, 999, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 170), "pct: 1 in 1000 above: p99.9 is the 999th (170)");
	tap_ok(lm_hist_pct(tail, bounds, NB, 500, 0, UINT64_MAX, &ns) == LM_PCT_EST &&
	       near(ns, 85 + 500.0 / 999 * 85), "pct: 1 in 1000 above: p50 in bucket 1");
	ns = -1;
	tap_ok(lm_hist_pct(empty, bounds, NB, 500, 0, UINT64_MAX, &ns) == LM_PCT_NONE &&
	       ns == -1, "pct: an empty histogram has none, and sets nothing");
	tap_ok(lm_hist_pct(spread, bounds, 0, 500, 0, UINT64_MAX, &ns) == LM_PCT_NONE,
	       "pct: no buckets, none");
}

/* a spin row with its hold histogram @h (and no waits) */
static void hist_row(struct lm_row *r, const char *lock, const char *site, const uint64_t *h,
		     uint64_t min, uint64_t max)
{
	uint64_t n = lm_hist_sum(h, NB);

	memset(r, 0, sizeof(*r));
	r->type = LM_TYPE_SPIN;
	r->lock = lock;
	r->site = site;
	r->v[LM_F_ACQUIRED] = n;
	r->v[LM_F_NOWAIT] = n;
	r->v[LM_F_HOLD_TOTAL] = n * min;
	r->v[LM_F_HOLD_MIN] = min;
	r->v[LM_F_HOLD_MAX] = max;
	r->v[LM_F_INSTANCES] = 1;
	r->hist = LM_HIST_ALL;
	memcpy(r->hc[LM_HIST_HOLD], h, NB * sizeof(*h));
}

static void snap_hist(struct lm_snapshot *s, uint64_t metered)
{
	lm_snap_init(s);
	s->h.cpus = 2;
	s->h.metered_ns = metered;
	lm_set(&s->h, LM_H_CPUS);
	lm_set(&s->h, LM_H_METERED_NS);
	s->h.nr_buckets = NB;
	memcpy(s->h.bound, bounds, sizeof(bounds));
}

static void test_merge_hist(void)
{
	const uint64_t a[NB] = { 0, 2, 5, 0, 0, 0 }, b[NB] = { 0, 0, 1, 3, 0, 1 };
	const uint64_t sum[NB] = { 0, 2, 6, 3, 0, 1 };
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;
	const struct lm_lock *lk;
	double ns;

	snap_hist(&s, 1000000);
	hist_row(lm_snap_add_row(&s), "l", "f+0x1/0x2", a, 100, 300);
	hist_row(lm_snap_add_row(&s), "l", "g+0x1/0x2", b, 200, 2000);
	hist_row(lm_snap_add_row(&s), "m", "h+0x1/0x2", b, 200, 2000);
	s.rows[2].hist = 0;	/* a row without histograms */
	lm_filter_init(&f);
	f.key = lm_key_find("name");
	tap_ok(!lm_view_build(&v, &s, &f), "merge: the view builds");
	lk = &v.sec[LM_TYPE_SPIN].locks[0];
	tap_ok(lk->agg.hist == LM_HIST_ALL &&
	       !memcmp(lk->agg.hc[LM_HIST_HOLD], sum, sizeof(sum)) &&
	       lm_hist_sum(lk->agg.hc[LM_HIST_HOLD], NB) == lk->agg.v[LM_F_ACQUIRED],
	       "merge: a lock's sites add bucket by bucket, and still sum to acquired");
	/* 12 holds: p50 rank 6, 2 below bucket 2, 4 of its 6: 170 + 4/6 * 171 */
	tap_ok(lm_row_pct(&lk->agg, &v.ctx, LM_HIST_HOLD, LM_P50, &ns) == LM_PCT_EST &&
	       near(ns, 284), "merge: the p50 of the merged histogram (284)");
	tap_ok(!v.sec[LM_TYPE_SPIN].locks[1].agg.hist &&
	       lm_row_pct(&v.sec[LM_TYPE_SPIN].locks[1].agg, &v.ctx, LM_HIST_HOLD, LM_P50, &ns) ==
	       LM_PCT_NONE, "merge: a row without histograms has no percentiles");
	tap_ok(!v.sec[LM_TYPE_SPIN].total.hist,
	       "merge: a total over a row without histograms has none (no invented counts)");
	lm_view_free(&v);
	s.rows[2].hist = LM_HIST_ALL;
	tap_ok(!lm_view_build(&v, &s, &f), "merge: the view builds again");
	tap_ok(v.sec[LM_TYPE_SPIN].total.hist == LM_HIST_ALL &&
	       lm_hist_sum(v.sec[LM_TYPE_SPIN].total.hc[LM_HIST_HOLD], NB) == 17 &&
	       v.sec[LM_TYPE_SPIN].total.hc[LM_HIST_HOLD][5] == 2,
	       "merge: the section's total has every row's counts");
	lm_view_free(&v);
	lm_snap_free(&s);
}

static void test_delta_hist(void)
{
	const uint64_t p[NB] = { 0, 2, 5, 0, 0, 0 }, c[NB] = { 0, 2, 5, 0, 4, 0 };
	const uint64_t down[NB] = { 0, 1, 6, 0, 0, 0 };
	struct lm_snapshot prev, cur, d;
	double ns;
	struct lm_ctx ctx;
	int ret;

	snap_hist(&prev, 1000000);
	snap_hist(&cur, 2000000);
	hist_row(lm_snap_add_row(&prev), "l", "f+0x1/0x2", p, 100, 300);
	hist_row(lm_snap_add_row(&cur), "l", "f+0x1/0x2", c, 100, 1000);
	ret = lm_snap_delta(&d, &cur, &prev);
	lm_ctx_init(&ctx, &d.h);
	tap_ok(!ret && d.nr == 1 && d.rows[0].hist == LM_HIST_ALL &&
	       d.rows[0].hc[LM_HIST_HOLD][4] == 4 && lm_hist_sum(d.rows[0].hc[LM_HIST_HOLD], NB) == 4 &&
	       d.rows[0].v[LM_F_ACQUIRED] == 4, "delta: the interval's counts per bucket");
	/* the interval's 4 holds in [682, 1365), max 1000: p99 682 + 3.96/4 * 683, at most 1000 */
	tap_ok(lm_row_pct(&d.rows[0], &ctx, LM_HIST_HOLD, LM_P99, &ns) == LM_PCT_EST &&
	       near(ns, 1000), "delta: the interval's p99, within the maximum (1000)");
	/* p25: rank 1 of 4 in [682, 1365): 682 + 1/4 * 683, below the maximum */
	tap_ok(lm_hist_pct(d.rows[0].hc[LM_HIST_HOLD], ctx.bound, ctx.nr_buckets, 250, 0, 1000,
			   &ns) == LM_PCT_EST && near(ns, 852.75), "delta: the interval's p25 (852.75)");
	lm_snap_free(&d);

	/* a bucket went down, the counts did not: evicted and counted again */
	memcpy(cur.rows[0].hc[LM_HIST_HOLD], down, sizeof(down));
	cur.rows[0].v[LM_F_ACQUIRED] = cur.rows[0].v[LM_F_NOWAIT] = 7;
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_ok(!ret && d.nr == 1 && !memcmp(d.rows[0].hc[LM_HIST_HOLD], down, sizeof(down)),
	       "delta: a bucket that went down: the row is all of the current one");
	lm_snap_free(&d);

	/* the previous row had no histogram: the interval cannot have one */
	memcpy(cur.rows[0].hc[LM_HIST_HOLD], c, sizeof(c));
	cur.rows[0].v[LM_F_ACQUIRED] = cur.rows[0].v[LM_F_NOWAIT] = 11;
	prev.rows[0].hist = 0;
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_ok(!ret && d.nr == 1 && !d.rows[0].hist, "delta: from a row without histograms: none");
	lm_snap_free(&d);
	prev.rows[0].hist = LM_HIST_ALL;

	/* other bounds (another kernel): no histograms in the interval */
	prev.h.bound[3] = 342;
	ret = lm_snap_delta(&d, &cur, &prev);
	lm_ctx_init(&ctx, &d.h);
	tap_ok(!ret && !d.h.nr_buckets &&
	       lm_row_pct(&d.rows[0], &ctx, LM_HIST_HOLD, LM_P50, &ns) == LM_PCT_NONE,
	       "delta: other bounds between the snapshots: no percentiles");
	lm_snap_free(&d);
	lm_snap_free(&cur);
	lm_snap_free(&prev);
}

static void test_sort_hist(void)
{
	const uint64_t lo[NB] = { 0, 10, 0, 0, 0, 0 }, hi[NB] = { 0, 0, 0, 10, 0, 0 };
	static const char *const keys[] = {
		"p50hold", "p90hold", "p99hold", "p999hold",
		"p50wait", "p90wait", "p99wait", "p999wait",
	};
	struct lm_snapshot s;
	struct lm_row a, b, none;
	struct lm_ctx c;
	unsigned int i;
	const struct lm_key *k;

	snap_hist(&s, 1000);
	lm_ctx_init(&c, &s.h);
	hist_row(&a, "a", "f", lo, 90, 150);
	hist_row(&b, "b", "f", hi, 400, 600);
	hist_row(&none, "n", "f", hi, 400, 600);
	none.hist = 0;
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		tap_ok(lm_key_find(keys[i]) && lm_key_find(keys[i])->desc,
		       "sort: key %s exists, largest first", keys[i]);
	k = lm_key_find("p99hold");
	tap_ok(k->cmp(&a, &b, &c) == -1 && k->cmp(&b, &a, &c) == 1 && k->cmp(&a, &a, &c) == 0,
	       "sort: p99hold is three-way on the estimates");
	tap_ok(k->cmp(&none, &a, &c) == -1 && k->cmp(&none, &none, &c) == 0,
	       "sort: a row without a histogram sorts below any with one");
	a.v[LM_F_SPIN] = 10;
	a.v[LM_F_NOWAIT] = 0;
	a.v[LM_F_WAIT_MAX] = 5000;
	memcpy(a.hc[LM_HIST_WAIT], hi, sizeof(hi));
	k = lm_key_find("p99wait");
	tap_ok(k->cmp(&a, &b, &c) == 1, "sort: p99wait on the wait histogram (b has no waits)");
	lm_snap_free(&s);
}

/* ---- snapshot files ---- */

static int read_mem(const char *text, struct lm_snapshot *s, struct lm_perr *e)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -1;
	memset(e, 0, sizeof(*e));
	lm_snap_init(s);
	ret = lm_snap_read(f, s, e);
	fclose(f);
	return ret;
}

#define HDR	"lockstat snapshot version 2\ncpus: 2\nmetered_ns: 1000\nrows: 1\n"
#define BOUNDS	"hist_bounds: 0 85 170 341\n"
#define ROW	"spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_exit+0x5c/0xa40\n"

static void test_file_hist(void)
{
	static const struct {
		const char *text;
		unsigned long line;
		const char *msg;
	} bad[] = {
		{ HDR "\n" ROW "> hold_hist 0 3 0 0\n", 7,
		  "hold histogram: the header has no hist_bounds line" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 3 0\n", 8,
		  "hold histogram: 3 counts for the 4 buckets of hist_bounds" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 3 0 0 0\n", 8,
		  "hold histogram: more counts than the 4 buckets of hist_bounds" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 3 x 0\n", 8,
		  "hold histogram: a count is not an unsigned 64-bit integer" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 3 -1 0\n", 8,
		  "hold histogram: a count is not an unsigned 64-bit integer" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 2 0 0\n", 8,
		  "the hold histogram does not sum to acquired" },
		{ HDR BOUNDS "\n" ROW "> hold_hist 0 3 0 0\n> wait_hist 0 0 0 2\n", 8,
		  "the wait histogram does not sum to spin" },
		{ HDR BOUNDS "\n" ROW "> wait_hist 1 0 0 0\n> wait_hist 1 0 0 0\n", 9,
		  "wait histogram: a second one for one row" },
		{ HDR "hist_bounds: 0 85 85 170\n\n" ROW, 5,
		  "header key 'hist_bounds': histogram bounds are not strictly increasing" },
		{ HDR "hist_bounds: 1 85\n\n" ROW, 5,
		  "header key 'hist_bounds': the first histogram bound is not 0" },
		{ HDR "hist_bounds: 0\n\n" ROW, 5,
		  "header key 'hist_bounds': fewer than 2 histogram buckets" },
		{ HDR "hist_bounds: 0 8a\n\n" ROW, 5,
		  "header key 'hist_bounds': not an unsigned integer: '8a'" },
		{ HDR BOUNDS BOUNDS "\n" ROW, 6, "header key 'hist_bounds' given twice" },
		{ "lockstat snapshot version 1\ncpus: 2\nmetered_ns: 1000\nrows: 1\n" BOUNDS "\n" ROW
		  "> hold_hist 0 3 0 0\n", 8,
		  "an evidence line, new in snapshot version 2, in a file of an older format" },
	};
	struct lm_snapshot s, t;
	struct lm_perr e;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	int ret;

	ret = read_mem(HDR BOUNDS "\n" ROW "> hold_hist 0 3 0 0\n> wait_hist 0 0 1 0\n", &s, &e);
	tap_ok(!ret && s.h.nr_buckets == 4 && s.h.bound[3] == 341 && s.nr == 1 &&
	       s.rows[0].hist == LM_HIST_ALL && s.rows[0].hc[LM_HIST_HOLD][1] == 3 &&
	       s.rows[0].hc[LM_HIST_WAIT][2] == 1, "file: bounds and both histograms read");
	f = open_memstream(&buf, &len);
	ret = f ? lm_snap_write(f, &s) : -1;
	if (f)
		fclose(f);
	tap_ok(!ret && buf && strstr(buf, "\nhist_bounds: 0 85 170 341\n") &&
	       strstr(buf, "\n> hold_hist 0 3 0 0\n> wait_hist 0 0 1 0\n"),
	       "file: written as hist_bounds and > hold_hist, > wait_hist lines");
	tap_ok(buf && !read_mem(buf, &t, &e) && t.h.nr_buckets == 4 &&
	       !memcmp(t.h.bound, s.h.bound, sizeof(s.h.bound)) && t.rows[0].hist == LM_HIST_ALL &&
	       !memcmp(t.rows[0].hc, s.rows[0].hc, sizeof(s.rows[0].hc)),
	       "file: written and read back, the same histograms");
	lm_snap_free(&t);
	lm_snap_free(&s);
	free(buf);

	ret = read_mem(HDR "\n" ROW, &s, &e);
	tap_ok(!ret && !s.h.nr_buckets && !s.rows[0].hist, "file: an older file has no histograms");
	lm_snap_free(&s);
	ret = read_mem(HDR BOUNDS "\n" ROW "> wait_hist 0 1 0 0\n", &s, &e);
	tap_ok(!ret && s.rows[0].hist == 1U << LM_HIST_WAIT, "file: a wait histogram alone");
	lm_snap_free(&s);
	ret = read_mem(HDR BOUNDS "\n" ROW "> hold_hist 0 3 0 0\n> soon_hist 1 2\n", &s, &e);
	tap_ok(!ret && s.rows[0].hist == 1U << LM_HIST_HOLD,
	       "file: a kind of a newer writer is skipped");
	lm_snap_free(&s);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = read_mem(bad[i].text, &s, &e);
		tap_ok(ret == LM_EXIT_CORRUPT && e.line == bad[i].line && !strcmp(e.msg, bad[i].msg),
		       "file: refused at line %lu: %s (got %d, line %lu: %s)", bad[i].line,
		       bad[i].msg, ret, e.line, e.msg);
		lm_snap_free(&s);
	}
}

int main(void)
{
	test_pct_cases();
	test_merge_hist();
	test_delta_hist();
	test_sort_hist();
	test_file_hist();
	return tap_done();
}
