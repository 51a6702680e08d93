// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the model: units, percentages, the merge of sites under
 * locks, sort keys and directions, filters, the key table, row and
 * header parsing, option parsing, the deltas and flat lists of top, the
 * evidence that goes with a merged maximum.  No kernel, no files.
 */
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "model.h"
#include "options.h"
#include "procfs.h"
#include "tap.h"
#include "view.h"

static void test_units(void)
{
	static const struct {
		double ns;
		const char *want;
	} t[] = {
		{ 0, "0us" }, { 1, "1ns" }, { 691, "691ns" }, { 999, "999ns" },
		{ 999.6, "1.0us" }, { 1000, "1.0us" }, { 2400, "2.4us" }, { 9949, "9.9us" },
		{ 9950, "10us" }, { 13000, "13us" }, { 999499, "999us" }, { 999500, "1.0ms" },
		{ 9.5e6, "9.5ms" }, { 51e6, "51ms" }, { 999.4e6, "999ms" }, { 999.6e6, "1.0s" },
		{ 1.5e9, "1.5s" }, { 12.3e9, "12s" }, { 280e9, "280s" }, { 999.4e9, "999s" },
		/* past 999 s, minutes, hours, days, years: as narrow as the cells */
		{ 999.6e9, "17min" }, { 3600e9, "60min" }, { 60000e9, "17h" }, { 172800e9, "48h" },
		{ 8.64e16, "2.7y" }, { 8.6e16, "995d" }, { 18446744073709551615.0, "585y" },
	};
	char buf[32], what[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_fmt_time(buf, sizeof(buf), t[i].ns);
		snprintf(what, sizeof(what), "units: %.1f ns", t[i].ns);
		tap_str(buf, t[i].want, what);
	}
}

static void test_pct(void)
{
	static const struct {
		double pct;
		const char *want;
	} t[] = {
		{ 0, "0%" }, { 0.001, "0.00%" }, { 0.0164, "0.02%" }, { 0.82, "0.82%" },
		{ 0.994, "0.99%" }, { 0.996, "1.0%" }, { 2.6, "2.6%" }, { 13.72, "13.7%" },
		{ 99.94, "99.9%" }, { 99.96, "100%" }, { 100, "100%" }, { 250, "250%" },
		/* past 999%, shortened as a rate */
		{ 999.4, "999%" }, { 1500, "1.5k%" }, { 1258564039119.0, "1.3T%" },
		{ 92233720350.0, "92G%" },
	};
	char buf[32], what[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_fmt_pct(buf, sizeof(buf), t[i].pct);
		snprintf(what, sizeof(what), "percent: %g", t[i].pct);
		tap_str(buf, t[i].want, what);
	}
}

/* a row: type, nowait, spin, reject, hold total/min/max, wait total/min/max */
static struct lm_row *add(struct lm_snapshot *s, int type, const char *lock, const char *site,
			  uint64_t nowait, uint64_t spin, uint64_t reject, uint64_t ht,
			  uint64_t hmin, uint64_t hmax, uint64_t wt, uint64_t wmin, uint64_t wmax)
{
	struct lm_row *r = lm_snap_add_row(s);

	r->type = type;
	r->lock = lm_snap_strdup(s, lock);
	r->site = lm_snap_strdup(s, site);
	r->class = lm_class_of(lock);
	r->v[LM_F_ACQUIRED] = nowait + spin;
	r->v[LM_F_NOWAIT] = nowait;
	r->v[LM_F_SPIN] = spin;
	r->v[LM_F_REJECT] = reject;
	r->v[LM_F_HOLD_TOTAL] = ht;
	r->v[LM_F_HOLD_MIN] = hmin;
	r->v[LM_F_HOLD_MAX] = hmax;
	r->v[LM_F_WAIT_TOTAL] = wt;
	r->v[LM_F_WAIT_MIN] = wmin;
	r->v[LM_F_WAIT_MAX] = wmax;
	r->v[LM_F_INSTANCES] = 1;
	return r;
}

static void fixture(struct lm_snapshot *s)
{
	lm_snap_init(s);
	s->h.metered_ns = 1000000000;
	s->h.cpus = 2;
	lm_set(&s->h, LM_H_METERED_NS);
	lm_set(&s->h, LM_H_CPUS);
	/* lock A: three sites, one of them twice (two CPUs' rows) */
	add(s, LM_TYPE_SPIN, "lock_a", "f1+0x10/0x40", 10, 0, 0, 1000, 50, 300, 0, 0, 0);
	add(s, LM_TYPE_SPIN, "lock_a", "f2+0x20/0x80", 5, 5, 2, 5000, 20, 2000, 900, 30, 400);
	add(s, LM_TYPE_SPIN, "lock_a", "f1+0x10/0x40", 4, 1, 0, 800, 40, 500, 100, 100, 100);
	add(s, LM_TYPE_SPIN, "lock_a", "f3+0x30/0x90", 0, 0, 3, 0, 0, 0, 0, 0, 0);
	/* two heap sites: two locks; an overflow row */
	add(s, LM_TYPE_SPIN, "[heap]", "d_alloc+0x4c/0x1f0", 100, 50, 0, 9000, 10, 700, 5000, 10, 900)
		->v[LM_F_INSTANCES] = 37;
	add(s, LM_TYPE_SPIN, "[heap]", "iput+0x8/0x200", 20, 0, 0, 100, 2, 10, 0, 0, 0)
		->v[LM_F_INSTANCES] = 3;
	add(s, LM_TYPE_SPIN, "*overflow*", "*overflow*", 1, 1, 0, 10, 5, 5, 7, 7, 7);
	/* the same lock name under another type is another lock */
	add(s, LM_TYPE_MUTEX, "lock_a", "f9+0x1/0x2", 3, 0, 0, 3000000, 1000, 2000000, 0, 0, 0);
	add(s, LM_TYPE_MUTEX, "zeta_mutex", "f8+0x1/0x2", 2, 2, 0, 40, 10, 10, 800, 200, 600);
}

static const struct lm_lock *find_lock(const struct lm_section *sec, const char *lock,
				       const char *site)
{
	size_t i;

	for (i = 0; i < sec->nr_locks; i++) {
		const struct lm_row *a = &sec->locks[i].agg;

		if (!strcmp(a->lock, lock) && (!site || (a->site && !strcmp(a->site, site))))
			return &sec->locks[i];
	}
	return NULL;
}

static void test_merge(void)
{
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;
	const struct lm_section *spin, *mutex;
	const struct lm_lock *a, *h;
	const struct lm_row *f1 = NULL;
	size_t i;

	fixture(&s);
	lm_filter_init(&f);
	tap_ok(!lm_view_build(&v, &s, &f), "merge: view builds");
	spin = &v.sec[LM_TYPE_SPIN];
	mutex = &v.sec[LM_TYPE_MUTEX];
	tap_num(spin->nr_locks, 4, "merge: spin locks (lock_a, two [heap], *overflow*)");
	tap_num(spin->nr_rows, 6, "merge: spin site rows after merging equal keys");
	tap_num(mutex->nr_locks, 2, "merge: mutex locks");
	a = find_lock(spin, "lock_a", NULL);
	if (!tap_ok(a != NULL, "merge: lock_a is a lock")) {
		lm_view_free(&v);
		lm_snap_free(&s);
		return;
	}
	tap_num(a->nr_sites, 3, "merge: lock_a sites");
	tap_ok(a->agg.site == NULL, "merge: a named lock has no site of its own");
	tap_num(a->agg.v[LM_F_ACQUIRED], 25, "merge: lock_a acquired (sum)");
	tap_num(a->agg.v[LM_F_REJECT], 5, "merge: lock_a reject (sum)");
	tap_num(a->agg.v[LM_F_HOLD_TOTAL], 6800, "merge: lock_a hold total (sum)");
	tap_num(a->agg.v[LM_F_HOLD_MAX], 2000, "merge: lock_a hold max (max)");
	tap_num(a->agg.v[LM_F_HOLD_MIN], 20, "merge: lock_a hold min (min of rows with holds)");
	tap_num(a->agg.v[LM_F_WAIT_MIN], 30, "merge: lock_a wait min (min of rows that waited)");
	tap_num(a->agg.v[LM_F_WAIT_MAX], 400, "merge: lock_a wait max");
	tap_num(a->agg.v[LM_F_INSTANCES], 1, "merge: lock_a is one instance");
	for (i = 0; i < a->nr_sites; i++)
		if (!strcmp(a->sites[i]->site, "f1+0x10/0x40"))
			f1 = a->sites[i];
	if (tap_ok(f1 != NULL, "merge: f1 present once")) {
		tap_num(f1->v[LM_F_ACQUIRED], 15, "merge: equal keys add up (f1 acquired)");
		tap_num(f1->v[LM_F_HOLD_MIN], 40, "merge: equal keys: hold min");
		tap_num(f1->v[LM_F_HOLD_MAX], 500, "merge: equal keys: hold max");
		tap_num(f1->v[LM_F_WAIT_MIN], 100, "merge: equal keys: wait min ignores rows without waits");
	}
	h = find_lock(spin, "[heap]", "d_alloc+0x4c/0x1f0");
	tap_ok(h && h->nr_sites == 1 && h->agg.v[LM_F_INSTANCES] == 37,
	       "merge: a [heap] site is a lock of its own, with its instances");
	tap_ok(find_lock(spin, "[heap]", "iput+0x8/0x200") != NULL, "merge: second [heap] site");
	tap_ok(find_lock(spin, "*overflow*", "*overflow*") != NULL, "merge: *overflow* is a lock");
	tap_num(spin->total.v[LM_F_ACQUIRED], 25 + 150 + 20 + 2, "merge: *TOTAL* acquired");
	tap_num(spin->total.v[LM_F_HOLD_MAX], 2000, "merge: *TOTAL* hold max");
	tap_num(spin->total.v[LM_F_INSTANCES], 1 + 37 + 3 + 1, "merge: *TOTAL* instances add up");
	tap_ok(!strcmp(spin->total.lock, "*TOTAL*"), "merge: *TOTAL* is named");
	lm_view_free(&v);
	lm_snap_free(&s);
}

/* counts near 2^64 in two valid rows: the sums saturate, no cell passes 100% */
static void test_saturate(void)
{
	const uint64_t big = UINT64_MAX / 2 + 1;	/* 2^63 */
	const struct lm_key *k;
	struct lm_snapshot s;
	const struct lm_row *t;
	struct lm_filter f;
	struct lm_view v;
	char buf[32];
	double pct;

	lm_snap_init(&s);
	s.h.metered_ns = 1000;
	lm_set(&s.h, LM_H_METERED_NS);
	add(&s, LM_TYPE_SPIN, "lock_a", "f1+0x1/0x2", big - 1, 1, 0, 10, 1, 5, 4, 4, 4);
	add(&s, LM_TYPE_SPIN, "lock_b", "f2+0x1/0x2", 1, big - 1, big - 1, 10, 1, 5, 4, 4, 4);
	tap_ok(!lm_row_impossible(&s.rows[0]) && !lm_row_impossible(&s.rows[1]),
	       "saturate: the rows themselves are possible");
	lm_filter_init(&f);
	if (!tap_ok(!lm_view_build(&v, &s, &f), "saturate: view builds")) {
		lm_snap_free(&s);
		return;
	}
	t = &v.sec[LM_TYPE_SPIN].total;
	tap_num(lm_row_total(t), UINT64_MAX, "saturate: *TOTAL* attempts stop at 2^64 - 1");
	tap_num(lm_row_contended(t), UINT64_MAX, "saturate: *TOTAL* contended stops at 2^64 - 1");
	pct = lm_con_pct(t);
	tap_ok(pct >= 0 && pct <= 100, "saturate: CON of *TOTAL* is a share (%g%%)", pct);
	k = lm_key_find("nowait");
	k->print(buf, sizeof(buf), t, &v.ctx);
	tap_ok(strtod(buf, NULL) <= 100, "saturate: NOWAIT of *TOTAL* is a share (%s)", buf);
	lm_view_free(&v);
	lm_snap_free(&s);
}

/* the lock names of the spin section, in order, comma-separated */
static void order(const struct lm_snapshot *s, const char *key, bool reverse, char *buf,
		  size_t len)
{
	struct lm_filter f;
	struct lm_view v;
	size_t i, n = 0;

	lm_filter_init(&f);
	f.key = lm_key_find(key);
	f.reverse = reverse;
	f.types = 1U << LM_TYPE_SPIN;
	buf[0] = '\0';
	if (!f.key || lm_view_build(&v, s, &f))
		return;
	for (i = 0; i < v.sec[LM_TYPE_SPIN].nr_locks; i++) {
		const struct lm_row *a = &v.sec[LM_TYPE_SPIN].locks[i].agg;

		n += snprintf(buf + n, len - n, "%s%s", i ? "," : "", a->site ? a->site : a->lock);
	}
	lm_view_free(&v);
}

static void test_sort(void)
{
	static const struct {
		const char *key;
		bool reverse;
		const char *want;
	} t[] = {
		{ "maxhold", false, "lock_a,d_alloc+0x4c/0x1f0,iput+0x8/0x200,*overflow*" },
		{ "maxhold", true, "*overflow*,iput+0x8/0x200,d_alloc+0x4c/0x1f0,lock_a" },
		{ "total", false, "d_alloc+0x4c/0x1f0,lock_a,iput+0x8/0x200,*overflow*" },
		{ "total", true, "*overflow*,iput+0x8/0x200,lock_a,d_alloc+0x4c/0x1f0" },
		{ "totalhold", false, "d_alloc+0x4c/0x1f0,lock_a,iput+0x8/0x200,*overflow*" },
		{ "util", false, "d_alloc+0x4c/0x1f0,lock_a,iput+0x8/0x200,*overflow*" },
		/* iput and *overflow* tie at 5 ns: the name decides */
		{ "meanhold", false, "lock_a,d_alloc+0x4c/0x1f0,*overflow*,iput+0x8/0x200" },
		{ "con", false, "*overflow*,lock_a,d_alloc+0x4c/0x1f0,iput+0x8/0x200" },
		{ "reject", false, "lock_a,*overflow*,d_alloc+0x4c/0x1f0,iput+0x8/0x200" },
		{ "nowait", false, "iput+0x8/0x200,d_alloc+0x4c/0x1f0,lock_a,*overflow*" },
		{ "spin", false, "*overflow*,d_alloc+0x4c/0x1f0,lock_a,iput+0x8/0x200" },
		{ "meanwait", false, "lock_a,d_alloc+0x4c/0x1f0,*overflow*,iput+0x8/0x200" },
		{ "maxwait", false, "d_alloc+0x4c/0x1f0,lock_a,*overflow*,iput+0x8/0x200" },
		{ "waitcpu", false, "d_alloc+0x4c/0x1f0,lock_a,*overflow*,iput+0x8/0x200" },
		/* all equal: the name, ascending, whatever the direction */
		{ "abort", false, "*overflow*,d_alloc+0x4c/0x1f0,iput+0x8/0x200,lock_a" },
		{ "abort", true, "*overflow*,d_alloc+0x4c/0x1f0,iput+0x8/0x200,lock_a" },
		/* *overflow* < [heap] (by site) < lock_a */
		{ "name", false, "*overflow*,d_alloc+0x4c/0x1f0,iput+0x8/0x200,lock_a" },
		{ "name", true, "lock_a,iput+0x8/0x200,d_alloc+0x4c/0x1f0,*overflow*" },
	};
	struct lm_snapshot s;
	char buf[256], what[64];
	unsigned int i;

	fixture(&s);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		order(&s, t[i].key, t[i].reverse, buf, sizeof(buf));
		snprintf(what, sizeof(what), "sort: %s%s", t[i].key, t[i].reverse ? " -r" : "");
		tap_str(buf, t[i].want, what);
	}
	lm_snap_free(&s);
}

static void test_sites_sorted(void)
{
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;
	const struct lm_lock *a;

	fixture(&s);
	lm_filter_init(&f);
	lm_view_build(&v, &s, &f);
	a = find_lock(&v.sec[LM_TYPE_SPIN], "lock_a", NULL);
	tap_ok(a && a->nr_sites == 3 && !strcmp(a->sites[0]->site, "f2+0x20/0x80") &&
	       !strcmp(a->sites[1]->site, "f1+0x10/0x40") && !strcmp(a->sites[2]->site, "f3+0x30/0x90"),
	       "sort: sites under a lock by the same key (maxhold: f2, f1, f3)");
	lm_view_free(&v);
	f.key = lm_key_find("name");
	lm_view_build(&v, &s, &f);
	a = find_lock(&v.sec[LM_TYPE_SPIN], "lock_a", NULL);
	tap_ok(a && !strcmp(a->sites[0]->site, "f1+0x10/0x40") &&
	       !strcmp(a->sites[2]->site, "f3+0x30/0x90"), "sort: sites by name");
	lm_view_free(&v);
	lm_snap_free(&s);
}

static void test_ratio_exact(void)
{
	struct lm_row a = { 0 }, b = { 0 };
	const struct lm_key *k = lm_key_find("meanhold");

	/* 1/3 against 333333333/1000000000: equal in doubles, not in fact */
	a.v[LM_F_HOLD_TOTAL] = 1;
	a.v[LM_F_ACQUIRED] = 3;
	b.v[LM_F_HOLD_TOTAL] = 333333333333333333ULL;
	b.v[LM_F_ACQUIRED] = 1000000000000000000ULL;
	tap_ok(k->cmp(&a, &b, NULL) > 0 && k->cmp(&b, &a, NULL) < 0, "sort: mean comparisons are exact");
	a.v[LM_F_HOLD_TOTAL] = UINT64_MAX;
	a.v[LM_F_ACQUIRED] = UINT64_MAX;
	b.v[LM_F_HOLD_TOTAL] = UINT64_MAX - 1;
	b.v[LM_F_ACQUIRED] = UINT64_MAX - 1;
	tap_ok(k->cmp(&a, &b, NULL) == 0, "sort: no overflow near 2^64");
	b.v[LM_F_ACQUIRED] = 0;
	tap_ok(k->cmp(&a, &b, NULL) > 0, "sort: no acquisitions means a mean of 0");
	k = lm_key_find("maxhold");
	a.v[LM_F_HOLD_MAX] = UINT64_MAX;
	b.v[LM_F_HOLD_MAX] = 0;
	tap_ok(k->cmp(&a, &b, NULL) == 1 && k->cmp(&b, &a, NULL) == -1 && k->cmp(&a, &a, NULL) == 0,
	       "sort: comparators are three-way (no subtraction)");
}

static void test_filters(void)
{
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;

	fixture(&s);
	lm_filter_init(&f);
	f.name = "f2";
	lm_view_build(&v, &s, &f);
	tap_ok(v.sec[LM_TYPE_SPIN].nr_locks == 1 && v.sec[LM_TYPE_SPIN].locks[0].nr_sites == 1 &&
	       v.sec[LM_TYPE_MUTEX].nr_rows == 0, "filter: --name matches a site");
	tap_num(v.sec[LM_TYPE_SPIN].total.v[LM_F_ACQUIRED], 10, "filter: *TOTAL* counts matching rows");
	lm_view_free(&v);

	lm_filter_init(&f);
	f.name = "lock_a";
	lm_view_build(&v, &s, &f);
	tap_ok(v.sec[LM_TYPE_SPIN].nr_locks == 1 && v.sec[LM_TYPE_SPIN].locks[0].nr_sites == 3 &&
	       v.sec[LM_TYPE_MUTEX].nr_locks == 1, "filter: --name matches a lock, all its sites");
	lm_view_free(&v);

	lm_filter_init(&f);
	f.types = 1U << LM_TYPE_MUTEX;
	lm_view_build(&v, &s, &f);
	tap_ok(!v.sec[LM_TYPE_SPIN].nr_rows && v.sec[LM_TYPE_MUTEX].nr_locks == 2,
	       "filter: --type mutex");
	lm_view_free(&v);

	lm_filter_init(&f);
	f.min_con = 35;		/* lock_a 11/30 = 36.7%, d_alloc 33.3%, overflow 50% */
	lm_view_build(&v, &s, &f);
	tap_num(v.sec[LM_TYPE_SPIN].nr_locks, 2, "filter: --min-con 35");
	tap_num(v.sec[LM_TYPE_SPIN].total.v[LM_F_ACQUIRED], 197, "filter: *TOTAL* ignores --min-con");
	lm_view_free(&v);

	lm_filter_init(&f);
	f.min_util = 0.0005;	/* 0.0005% of 1 s = 5 us: lock_a 6.8 us, d_alloc 9 us */
	lm_view_build(&v, &s, &f);
	tap_num(v.sec[LM_TYPE_SPIN].nr_locks, 2, "filter: --min-util");
	lm_view_free(&v);

	lm_filter_init(&f);
	f.top = 1;
	lm_view_build(&v, &s, &f);
	tap_ok(v.sec[LM_TYPE_SPIN].nr_locks == 1 && v.sec[LM_TYPE_SPIN].locks[0].nr_sites == 1 &&
	       !strcmp(v.sec[LM_TYPE_SPIN].locks[0].sites[0]->site, "f2+0x20/0x80"),
	       "filter: --top 1 keeps the first lock and its first site");
	lm_view_free(&v);
	lm_snap_free(&s);
}

static void test_key_table(void)
{
	static const char *const names[] = {
		"maxhold", "meanhold", "totalhold", "util", "con", "maxwait", "meanwait",
		"waitcpu", "total", "nowait", "spin", "reject", "abort", "blocked", "oncpu",
		"name",
	};
	int i, j, ok = 1;

	for (i = 0; i < (int)ARRAY_SIZE(names); i++)
		tap_ok(lm_key_find(names[i]) != NULL, "keys: --sort %s exists", names[i]);
	for (i = 0; i < LM_NR_KEYS; i++) {
		if (!lm_keys[i].name || !lm_keys[i].header || !lm_keys[i].cmp || !lm_keys[i].print)
			ok = 0;
		for (j = 0; j < i; j++)
			if (!strcmp(lm_keys[i].name, lm_keys[j].name))
				ok = 0;
	}
	tap_ok(ok, "keys: every entry complete, names unique");
	tap_ok(lm_key_find("bogus") == NULL, "keys: unknown key not found");
	{
		struct lm_filter f;

		lm_filter_init(&f);
		tap_ok(f.key == lm_key_find("maxhold") && !f.reverse, "keys: maxhold is the default");
	}
}

static void test_cols_fit(void)
{
	static const enum lm_key_id cols[] = { LM_K_UTIL, LM_K_CON, LM_K_MAXHOLD, LM_K_WAITCPU };
	static const int w[] = { 10, 10, 10, 10 };
	bool show[4];
	int used;

	used = lm_cols_fit(cols, w, 4, 0, 20, NULL, show);
	tap_ok(used == 40 && show[0] && show[1] && show[2] && show[3],
	       "cols: width 0 (no limit) shows every column");
	used = lm_cols_fit(cols, w, 4, 60, 20, NULL, show);
	tap_ok(used == 40 && show[3], "cols: 40 + NAME's 20 in 60: all stay");
	used = lm_cols_fit(cols, w, 4, 59, 20, NULL, show);
	tap_ok(used == 30 && show[0] && show[1] && show[2] && !show[3],
	       "cols: one column short: %%CPU (waitcpu) drops first");
	used = lm_cols_fit(cols, w, 4, 49, 20, NULL, show);
	tap_ok(used == 20 && show[0] && !show[1] && show[2] && !show[3],
	       "cols: then CON, before UTIL and HOLD MAX");
	used = lm_cols_fit(cols, w, 4, 59, 20, &lm_keys[LM_K_WAITCPU], show);
	tap_ok(used == 30 && show[0] && !show[1] && show[2] && show[3],
	       "cols: the sort key's column stays, the next in line drops");
	used = lm_cols_fit(cols, w, 4, 25, 20, &lm_keys[LM_K_WAITCPU], show);
	tap_ok(used == 0 && !show[0] && !show[1] && !show[2] && !show[3],
	       "cols: too narrow for any: the sort key's goes last");
}

static int parse(const char *text, struct lm_perr *e)
{
	struct lm_snapshot s;
	char line[512];
	int ret;

	lm_snap_init(&s);
	snprintf(line, sizeof(line), "%s", text);
	ret = lm_row_parse(&s, line, e);
	lm_snap_free(&s);
	return ret;
}

static void test_rows(void)
{
	static const struct {
		const char *line;
		int ret;
		const char *what;
	} t[] = {
		{ "spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock do_exit+0x5c/0xa40", 0,
		  "a good row" },
		{ "spin\t3  2 1 0 0 10 1 5 4 4 4 0 0 0 0 1  x  y  ", 0, "blanks and tabs" },
		{ "spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 tasklist_lock", LM_EXIT_CORRUPT,
		  "18 fields" },
		{ "spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b c", LM_EXIT_CORRUPT, "20 fields" },
		{ "spinlock 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT, "unknown type" },
		{ "rt_mutex 3 2 1 1 1 10 1 5 4 4 4 6 5 4 4 1 lmt_rt_mutex f+0x1/0x2", 0,
		  "an rt_mutex row" },
		{ "percpu_rwsem_read 3 2 1 0 0 10 1 5 4 4 4 6 5 4 4 1 file_rwsem f+0x1/0x2", 0,
		  "a percpu_rwsem_read row" },
		{ "percpu_rwsem_write 3 2 1 0 0 10 1 5 4 4 4 6 5 4 4 1 file_rwsem f+0x1/0x2", 0,
		  "a percpu_rwsem_write row" },
		{ "semaphore 3 2 1 2 1 10 1 5 4 4 4 6 5 4 4 9 [heap] f+0x1/0x2", 0, "a semaphore row" },
		{ "rt_spin 3 2 1 0 1 10 1 5 4 4 4 6 5 4 4 1 tasklist_lock f+0x1/0x2", 0,
		  "an rt_spin row" },
		{ "rt_read 3 2 1 0 0 10 1 5 4 4 4 6 5 4 4 1 tasklist_lock f+0x1/0x2", 0,
		  "an rt_read row" },
		{ "rt_write 3 2 1 0 0 10 1 5 4 4 4 6 5 4 4 1 tasklist_lock f+0x1/0x2", 0,
		  "an rt_write row" },
		{ "percpu_rwsem 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT,
		  "percpu_rwsem, no side: unknown type" },
		{ "14 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT,
		  "a type number past the known ones" },
		{ "7 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT,
		  "a type number, even a known one's" },
		{ "spin 3 2 1 0 0 1x 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT, "not a number" },
		{ "spin 3 2 1 0 0 -1 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT, "negative" },
		{ "spin 3 2 1 0 0 18446744073709551616 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT,
		  "2^64" },
		{ "spin 3 2 1 0 0 18446744073709551615 1 5 4 4 4 0 0 0 0 1 a b", 0, "2^64 - 1" },
		{ "spin 4 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a b", LM_EXIT_CORRUPT,
		  "acquired != nowait + spin" },
		{ "spin 3 2 1 0 0 10 1 5 4 4 4 0 0 0 0 1 a\x01 b", LM_EXIT_CORRUPT, "unprintable" },
		{ "", LM_EXIT_CORRUPT, "empty line" },
	};
	struct lm_perr e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int ret = parse(t[i].line, &e);

		tap_ok(ret == t[i].ret, "rows: %s %s", t[i].what, t[i].ret ? "refused" : "taken");
		if (ret != t[i].ret)
			printf("# got %d: %s\n", ret, e.msg);
	}
}

static void test_header(void)
{
	struct lm_header h = { 0 };
	const char *why = NULL;

	tap_ok(!lm_hdr_set(&h, LM_H_CPUS, "4294967295", &why) && h.cpus == 4294967295U,
	       "header: u32 max");
	tap_ok(lm_hdr_set(&h, LM_H_SLOTS_USED, "4294967296", &why), "header: u32 overflow refused");
	tap_ok(!lm_hdr_set(&h, LM_H_START, "1732968000.250000000", &why) &&
	       h.start.tv_sec == 1732968000 && h.start.tv_nsec == 250000000, "header: a time");
	tap_ok(lm_hdr_set(&h, LM_H_END, "1732968000.25", &why), "header: time needs 9 decimals");
	tap_ok(lm_hdr_set(&h, LM_H_STATE, "maybe", &why), "header: state on or off");
	tap_ok(lm_hdr_set(&h, LM_H_NODE, "a\tb", &why), "header: unprintable string refused");
	tap_ok(lm_hdr_find("metered_ns") == LM_H_METERED_NS && lm_hdr_find("nope") < 0,
	       "header: keys by name");
}

static void test_options(void)
{
	unsigned int mask = 0;
	double pct = -1;

	tap_ok(!lm_parse_pct("5", 100, &pct) && pct == 5, "options: percentage 5");
	tap_ok(!lm_parse_pct("0.5%", 100, &pct) && pct == 0.5, "options: percentage 0.5%%");
	tap_ok(lm_parse_pct("101", 100, &pct) && lm_parse_pct("x", 100, &pct) &&
	       lm_parse_pct("-1", 100, &pct) && lm_parse_pct("nan", 100, &pct),
	       "options: bad percentages refused");
	tap_ok(!lm_parse_types("spin,rwsem_write", &mask) &&
	       mask == ((1U << LM_TYPE_SPIN) | (1U << LM_TYPE_RWSEM_WRITE)), "options: types");
	mask = 0;
	tap_ok(lm_parse_types("spin,rw", &mask) && lm_parse_types(",", &mask),
	       "options: bad types refused");
}

/* the type table: names, titles, short names, which sleep, and what is none of them */
static void test_types(void)
{
	static const struct {
		enum lm_type type;
		const char *name;
		const char *title;
		const char *short_name;
		bool sleeping;
	} want[] = {
		{ LM_TYPE_SPIN, "spin", "SPINLOCKS", "spin", false },
		{ LM_TYPE_READ, "read", "RWLOCK READS", "read", false },
		{ LM_TYPE_WRITE, "write", "RWLOCK WRITES", "write", false },
		{ LM_TYPE_MUTEX, "mutex", "MUTEXES", "mutex", true },
		{ LM_TYPE_RWSEM_READ, "rwsem_read", "RWSEM READS", "rsem_r", true },
		{ LM_TYPE_RWSEM_WRITE, "rwsem_write", "RWSEM WRITES", "rsem_w", true },
		{ LM_TYPE_RT_MUTEX, "rt_mutex", "RT MUTEXES", "rt_mtx", true },
		{ LM_TYPE_PERCPU_RWSEM_READ, "percpu_rwsem_read", "PERCPU RWSEM READS", "pcrw_r", true },
		{ LM_TYPE_PERCPU_RWSEM_WRITE, "percpu_rwsem_write", "PERCPU RWSEM WRITES", "pcrw_w",
		  true },
		{ LM_TYPE_SEMAPHORE, "semaphore", "SEMAPHORES", "sem", true },
		{ LM_TYPE_RT_SPIN, "rt_spin", "RT SPINLOCKS", "rtspin", true },
		{ LM_TYPE_RT_READ, "rt_read", "RT RWLOCK READS", "rt_r", true },
		{ LM_TYPE_RT_WRITE, "rt_write", "RT RWLOCK WRITES", "rt_w", true },
	};
	char list[256];
	unsigned int mask = 0;
	size_t i;

	tap_num(LM_NR_TYPES, 14, "types: thirteen, and none");
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		uint32_t t = want[i].type;

		tap_ok(t == i + 1 && !strcmp(lm_type_name(t), want[i].name) &&
		       !strcmp(lm_type_title(t), want[i].title) && lm_type_parse(want[i].name) == (int)t &&
		       lm_type_sleeping(t) == want[i].sleeping &&
		       !strcmp(lm_type_fit(t, 6), want[i].short_name) &&
		       !strcmp(lm_type_fit(t, 18), want[i].name),
		       "types: %u is %s, %s, %s in 6 columns%s", t, want[i].name, want[i].title,
		       want[i].short_name, want[i].sleeping ? ", sleeping" : "");
	}
	tap_ok(!strcmp(lm_type_fit(LM_TYPE_PERCPU_RWSEM_READ, 11), "pcrw_r") &&
	       !strcmp(lm_type_fit(LM_TYPE_SEMAPHORE, 11), "semaphore") &&
	       !strcmp(lm_type_fit(LM_TYPE_RT_WRITE, 11), "rt_write") &&
	       !strcmp(lm_type_fit(LM_TYPE_RWSEM_WRITE, 11), "rwsem_write"),
	       "types: in 11 columns, only the percpu_rwsem sides are short");
	tap_ok(!lm_type_sleeping(LM_TYPE_NONE) && !lm_type_sleeping(LM_NR_TYPES) &&
	       !lm_type_sleeping(UINT32_MAX) && !strcmp(lm_type_name(LM_NR_TYPES), "?") &&
	       !strcmp(lm_type_title(LM_NR_TYPES), "?") && !strcmp(lm_type_fit(LM_NR_TYPES, 18), "?"),
	       "types: a number past the known ones is no type, and does not sleep");
	tap_ok(lm_type_parse("none") < 0 && lm_type_parse("rt-mutex") < 0 &&
	       lm_type_parse("percpu_rwsem") < 0 && lm_type_parse("rt_spinlock") < 0 &&
	       lm_type_parse("rtspin") < 0 && lm_type_parse("") < 0 && lm_type_parse("7") < 0,
	       "types: none, near misses and numbers do not parse");
	lm_type_list(list, sizeof(list), ", ");
	tap_str(list, "spin, read, write, mutex, rwsem_read, rwsem_write, rt_mutex, "
		"percpu_rwsem_read, percpu_rwsem_write, semaphore, rt_spin, rt_read, rt_write",
		"types: the list, in order");
	lm_type_list(list, 12, " ");
	tap_str(list, "spin read w", "types: the list cut at its buffer");
	tap_ok(!lm_parse_types("rt_mutex,percpu_rwsem_read", &mask) &&
	       !lm_parse_types("percpu_rwsem_write", &mask) && !lm_parse_types("semaphore", &mask) &&
	       mask == ((1U << LM_TYPE_RT_MUTEX) | (1U << LM_TYPE_PERCPU_RWSEM_READ) |
			(1U << LM_TYPE_PERCPU_RWSEM_WRITE) | (1U << LM_TYPE_SEMAPHORE)),
	       "options: the newer types, repeated and comma-separated");
	mask = 0;
	tap_ok(!lm_parse_types("rt_spin", &mask) && !lm_parse_types("rt_read,rt_write", &mask) &&
	       mask == ((1U << LM_TYPE_RT_SPIN) | (1U << LM_TYPE_RT_READ) |
			(1U << LM_TYPE_RT_WRITE)),
	       "options: the PREEMPT_RT types, repeated and comma-separated");
}

/* a section per type, the newer ones too, each filtered by its own --type */
static void test_type_sections(void)
{
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;
	struct lm_row *r;
	int t;

	fixture(&s);
	add(&s, LM_TYPE_RT_MUTEX, "lmt_rt_mutex", "rt_holder+0x1/0x2", 5, 1, 2, 500, 50, 200, 90,
	    40, 50)->v[LM_F_ABORT] = 1;
	add(&s, LM_TYPE_PERCPU_RWSEM_READ, "cgroup_threadgroup_rwsem", "begin+0x1/0x2", 40, 0, 0,
	    400, 5, 50, 0, 0, 0);
	add(&s, LM_TYPE_PERCPU_RWSEM_WRITE, "cgroup_threadgroup_rwsem", "attach+0x1/0x2", 1, 1, 0,
	    9000, 9000, 9000, 700, 700, 700);
	add(&s, LM_TYPE_SEMAPHORE, "console_sem", "console_lock+0x1/0x2", 7, 3, 4, 70, 5, 30, 60, 10,
	    30);
	add(&s, LM_TYPE_SEMAPHORE, "[heap]", "xfs_buf_lock+0x1/0x2", 2, 0, 0, 20, 10, 10, 0, 0, 0);
	/* PREEMPT_RT: spinlock_t and rwlock_t sleep, raw_spinlock_t stays spin */
	r = add(&s, LM_TYPE_RT_SPIN, "tasklist_lock", "do_exit+0x1/0x2", 6, 2, 1, 800, 20, 300,
		120, 40, 80);
	r->v[LM_F_ABORT] = 1;
	r->v[LM_F_ONCPU_TOTAL] = 500;
	r->v[LM_F_BLOCKED_TOTAL] = 300;
	add(&s, LM_TYPE_RT_READ, "css_set_lock", "cgroup_fork+0x1/0x2", 9, 0, 0, 90, 5, 20, 0, 0,
	    0);
	add(&s, LM_TYPE_RT_WRITE, "css_set_lock", "cgroup_exit+0x1/0x2", 2, 1, 0, 60, 20, 30, 15,
	    15, 15);
	lm_filter_init(&f);
	lm_view_build(&v, &s, &f);
	tap_ok(v.sec[LM_TYPE_RT_MUTEX].nr_locks == 1 &&
	       v.sec[LM_TYPE_RT_MUTEX].total.v[LM_F_REJECT] == 2 &&
	       v.sec[LM_TYPE_RT_MUTEX].total.v[LM_F_ABORT] == 1 &&
	       v.sec[LM_TYPE_PERCPU_RWSEM_READ].nr_locks == 1 &&
	       v.sec[LM_TYPE_PERCPU_RWSEM_WRITE].nr_locks == 1 &&
	       v.sec[LM_TYPE_SEMAPHORE].nr_locks == 2 &&
	       v.sec[LM_TYPE_SEMAPHORE].total.v[LM_F_ACQUIRED] == 12,
	       "sections: rt_mutex, both percpu_rwsem sides and semaphore, each its own");
	tap_ok(find_lock(&v.sec[LM_TYPE_PERCPU_RWSEM_READ], "cgroup_threadgroup_rwsem", NULL) &&
	       find_lock(&v.sec[LM_TYPE_PERCPU_RWSEM_WRITE], "cgroup_threadgroup_rwsem", NULL),
	       "sections: one percpu_rw_semaphore's two sides are two locks");
	tap_ok(v.sec[LM_TYPE_RT_SPIN].nr_locks == 1 &&
	       !find_lock(&v.sec[LM_TYPE_SPIN], "tasklist_lock", NULL) &&
	       v.sec[LM_TYPE_RT_SPIN].total.v[LM_F_REJECT] == 1 &&
	       v.sec[LM_TYPE_RT_SPIN].total.v[LM_F_ABORT] == 1 &&
	       v.sec[LM_TYPE_RT_SPIN].total.v[LM_F_BLOCKED_TOTAL] == 300 &&
	       find_lock(&v.sec[LM_TYPE_RT_READ], "css_set_lock", NULL) &&
	       find_lock(&v.sec[LM_TYPE_RT_WRITE], "css_set_lock", NULL),
	       "sections: rt_spin apart from spin, an RT rwlock's two sides two locks");
	lm_view_free(&v);
	for (t = LM_TYPE_RT_MUTEX; t < LM_NR_TYPES; t++) {
		int u, others = 0;

		lm_filter_init(&f);
		f.types = 1U << t;
		lm_view_build(&v, &s, &f);
		for (u = LM_TYPE_NONE + 1; u < LM_NR_TYPES; u++)
			others += u != t && v.sec[u].nr_rows;
		tap_ok(v.sec[t].nr_rows && !others, "sections: --type %s alone", lm_type_name(t));
		lm_view_free(&v);
	}
	lm_snap_free(&s);
}

static void test_site_short(void)
{
	char buf[128];

	lm_site_short(buf, sizeof(buf), "ext3_delete_inode+0x34/0x90");
	tap_str(buf, "ext3_delete_inode+0x34", "names: size dropped");
	lm_site_short(buf, sizeof(buf), "lmt_hold+0x2a/0x60[test_lockmeter]");
	tap_str(buf, "lmt_hold+0x2a[test_lockmeter]", "names: size dropped, module kept");
	lm_site_short(buf, sizeof(buf), "0xffffffff81000000");
	tap_str(buf, "0xffffffff81000000", "names: a raw address stays");
	lm_site_short(buf, sizeof(buf), "a/b");
	tap_str(buf, "a/b", "names: other slashes stay");
}

static void test_rate(void)
{
	static const struct {
		double v;
		const char *want;
	} t[] = {
		{ 0, "0" }, { 0.04, "0.0" }, { 0.5, "0.5" }, { 9.94, "9.9" }, { 9.95, "10" },
		{ 345, "345" }, { 999.4, "999" }, { 999.6, "1.0k" }, { 1234, "1.2k" },
		{ 12345, "12k" }, { 3.4e6, "3.4M" }, { 5e12, "5.0T" }, { 1.2e19, "12E" },
	};
	char buf[32], what[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_fmt_rate(buf, sizeof(buf), t[i].v);
		snprintf(what, sizeof(what), "rate: %g/s", t[i].v);
		tap_str(buf, t[i].want, what);
	}
}

/* a count as it is up to the digits it may have, else shortened */
static void test_count(void)
{
	static const struct {
		uint64_t n;
		unsigned int digits;
		const char *want;
	} t[] = {
		{ 0, 9, "0" }, { 999999999, 9, "999999999" }, { 1000000000, 9, "1.0G" },
		{ 12345679920ULL, 9, "12G" }, { 12345679920ULL, 11, "12345679920" },
		{ 18446744073709551615ULL, 9, "18E" }, { 123456, 5, "123k" },
	};
	char buf[32], what[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		lm_fmt_count(buf, sizeof(buf), t[i].n, t[i].digits);
		snprintf(what, sizeof(what), "count: %llu in %u digits",
			 (unsigned long long)t[i].n, t[i].digits);
		tap_str(buf, t[i].want, what);
	}
}

static const struct lm_row *find_row(const struct lm_snapshot *s, int type, const char *lock,
				     const char *site)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if ((int)s->rows[i].type == type && !strcmp(s->rows[i].lock, lock) &&
		    !strcmp(s->rows[i].site, site))
			return &s->rows[i];
	return NULL;
}

static void test_delta(void)
{
	struct lm_snapshot prev, cur, d;
	const struct lm_row *r;
	struct lm_row *c;
	int ret;

	fixture(&prev);
	fixture(&cur);
	cur.h.metered_ns = 3000000000ULL;
	/* lock_a f2: 7 more acquisitions, a longer hold, the same longest wait */
	c = (struct lm_row *)find_row(&cur, LM_TYPE_SPIN, "lock_a", "f2+0x20/0x80");
	c->v[LM_F_ACQUIRED] += 7;
	c->v[LM_F_NOWAIT] += 4;
	c->v[LM_F_SPIN] += 3;
	c->v[LM_F_HOLD_TOTAL] += 7000;
	c->v[LM_F_HOLD_MAX] = 2500;
	c->v[LM_F_WAIT_TOTAL] += 90;
	/* zeta_mutex went down: evicted and counted again; a new row */
	c = (struct lm_row *)find_row(&cur, LM_TYPE_MUTEX, "zeta_mutex", "f8+0x1/0x2");
	c->v[LM_F_ACQUIRED] = 1;
	c->v[LM_F_NOWAIT] = 1;
	c->v[LM_F_SPIN] = 0;
	add(&cur, LM_TYPE_READ, "tasklist_lock", "do_wait+0x5/0x9", 2, 0, 0, 60, 20, 40, 0, 0, 0);

	ret = lm_snap_delta(&d, &cur, &prev);
	tap_num(ret, 0, "delta: no reset");
	tap_num(d.h.metered_ns, 2000000000ULL, "delta: metered time of the interval");
	tap_num(d.nr, 3, "delta: only the rows that did something");
	r = find_row(&d, LM_TYPE_SPIN, "lock_a", "f2+0x20/0x80");
	tap_ok(r != NULL, "delta: the changed row is there");
	if (r) {
		tap_num(r->v[LM_F_ACQUIRED], 7, "delta: acquired difference");
		tap_num(r->v[LM_F_SPIN], 3, "delta: spin difference");
		tap_num(r->v[LM_F_HOLD_TOTAL], 7000, "delta: hold total difference");
		tap_num(r->v[LM_F_HOLD_MAX], 2500, "delta: the new longest hold");
		tap_ok(r->fresh & (1U << LM_F_HOLD_MAX), "delta: the longest hold is fresh");
		tap_num(r->v[LM_F_WAIT_MAX], 400, "delta: the longest wait stays the row's");
		tap_ok(!(r->fresh & (1U << LM_F_WAIT_MAX)), "delta: the longest wait is not fresh");
		tap_num(r->v[LM_F_HOLD_MIN], 0, "delta: an unchanged minimum is unknown (0)");
	}
	r = find_row(&d, LM_TYPE_MUTEX, "zeta_mutex", "f8+0x1/0x2");
	tap_ok(r && r->v[LM_F_ACQUIRED] == 1 && r->v[LM_F_HOLD_TOTAL] == 40 &&
	       (r->fresh & (1U << LM_F_HOLD_MAX)),
	       "delta: a row whose counts went down is all new");
	r = find_row(&d, LM_TYPE_READ, "tasklist_lock", "do_wait+0x5/0x9");
	tap_ok(r && r->v[LM_F_ACQUIRED] == 2 && (r->fresh & (1U << LM_F_HOLD_MAX)),
	       "delta: a new row is all new");
	lm_snap_free(&d);

	/* the two CPUs' rows of lock_a f1 are one row in either snapshot */
	c = (struct lm_row *)find_row(&cur, LM_TYPE_SPIN, "lock_a", "f1+0x10/0x40");
	c->v[LM_F_ACQUIRED] += 1;
	c->v[LM_F_NOWAIT] += 1;
	lm_snap_delta(&d, &cur, &prev);
	r = find_row(&d, LM_TYPE_SPIN, "lock_a", "f1+0x10/0x40");
	tap_ok(r && r->v[LM_F_ACQUIRED] == 1 && r->v[LM_F_HOLD_MAX] == 500,
	       "delta: duplicate rows merge before they subtract");
	lm_snap_free(&d);

	/* the metered time went down: a reset, everything is the interval's */
	cur.h.metered_ns = 1000;
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_num(ret, 1, "delta: a reset is reported");
	tap_num(d.h.metered_ns, 1000, "delta: after a reset, the metered time since");
	tap_num(d.nr, cur.nr - 1, "delta: after a reset, every row (duplicates merged)");
	lm_snap_free(&d);

	ret = lm_snap_delta(&d, &cur, NULL);
	tap_num(ret, 1, "delta: no previous snapshot is since start");
	lm_snap_free(&d);

	/* the kernel's reset count tells even when the metered time grew */
	cur.h.metered_ns = 5000000000ULL;
	cur.h.resets = 8;
	prev.h.resets = 7;
	lm_set(&cur.h, LM_H_RESETS);
	lm_set(&prev.h, LM_H_RESETS);
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_num(ret, 1, "delta: a reset count that moved is a reset");
	tap_num(d.h.metered_ns, 5000000000ULL, "delta: after it, the metered time since");
	lm_snap_free(&d);
	prev.h.resets = 8;
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_num(ret, 0, "delta: the same reset count is one period");
	tap_num(d.h.metered_ns, 4000000000ULL, "delta: the interval's metered time");
	lm_snap_free(&d);
	lm_snap_free(&cur);
	lm_snap_free(&prev);
}

static void test_flat(void)
{
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_flat fl;

	fixture(&s);
	lm_filter_init(&f);
	f.key = lm_key_find("rate");
	tap_ok(f.key != NULL, "flat: the rate key exists");
	if (!f.key)
		return;
	lm_flat_build(&fl, &s, &f, LM_FLAT_LOCK);
	/* locks: spin lock_a, 2 heap, overflow; mutex lock_a, zeta_mutex */
	tap_num(fl.nr, 6, "flat: one row per lock across types");
	tap_str(fl.rows[0]->lock, "[heap]", "flat: by rate, the busiest first");
	tap_num(fl.rows[0]->v[LM_F_ACQUIRED], 150, "flat: the busiest is d_alloc's heap lock");
	tap_str(fl.rows[1]->lock, "lock_a", "flat: then lock_a's sites summed");
	tap_num(fl.rows[1]->v[LM_F_ACQUIRED], 25, "flat: lock_a's acquisitions summed");
	lm_flat_free(&fl);

	lm_flat_build(&fl, &s, &f, LM_FLAT_SITE);
	/* nine rows, two of them one (type, lock, site) */
	tap_num(fl.nr, 8, "flat: by site, one row per (lock, site)");
	lm_flat_free(&fl);

	f.types = 1U << LM_TYPE_MUTEX;
	f.key = lm_key_find("type");
	lm_flat_build(&fl, &s, &f, LM_FLAT_LOCK);
	tap_num(fl.nr, 2, "flat: the type filter");
	tap_num(fl.nr_all, s.nr, "flat: the rows before the filters");
	tap_str(fl.rows[0]->lock, "lock_a", "flat: by type, then name");
	lm_flat_free(&fl);

	f.types = 0;
	f.name = "zeta";
	f.key = lm_key_find("name");
	f.reverse = true;
	f.top = 1;
	lm_flat_build(&fl, &s, &f, LM_FLAT_SITE);
	tap_ok(fl.nr == 1 && !strcmp(fl.rows[0]->lock, "zeta_mutex"), "flat: name filter, --top");
	lm_flat_free(&fl);

	f.name = NULL;
	f.top = 0;
	f.min_con = 50;
	lm_flat_build(&fl, &s, &f, LM_FLAT_SITE);
	/* CON >= 50%: f2 (7 of 12), f3 (3 rejects), zeta (2 of 4), overflow (1 of 2) */
	tap_num(fl.nr, 4, "flat: --min-con per site");
	lm_flat_free(&fl);
	lm_snap_free(&s);
}

/* evidence told apart by its pid */
static const struct lm_evidence *ev_pid(struct lm_snapshot *s, uint32_t pid)
{
	struct lm_evidence *ev = lm_snap_add_ev(s);

	ev->pid = pid;
	ev->comm = "t";
	return ev;
}

static uint32_t pid_of(const struct lm_row *r, int kind)
{
	return r->ev[kind] ? r->ev[kind]->pid : 0;
}

/* lm_row_add(): the evidence of a maximum goes with the maximum */
static void test_evidence_add(void)
{
	struct lm_snapshot s;
	struct lm_row d = { 0 }, x = { 0 };

	lm_snap_init(&s);
	d.v[LM_F_HOLD_MAX] = 5;
	d.ev[LM_EV_HOLD] = ev_pid(&s, 1);
	d.v[LM_F_WAIT_MAX] = 50;
	d.ev[LM_EV_WAIT] = ev_pid(&s, 10);
	x.v[LM_F_HOLD_MAX] = 7;
	x.ev[LM_EV_HOLD] = ev_pid(&s, 2);
	x.v[LM_F_WAIT_MAX] = 40;
	x.ev[LM_EV_WAIT] = ev_pid(&s, 20);
	lm_row_add(&d, &x);
	tap_num(pid_of(&d, LM_EV_HOLD), 2, "evidence: a larger hold maximum brings its evidence");
	tap_num(pid_of(&d, LM_EV_WAIT), 10, "evidence: a smaller wait maximum leaves the wait's");
	x.v[LM_F_HOLD_MAX] = 3;
	x.ev[LM_EV_HOLD] = ev_pid(&s, 3);
	lm_row_add(&d, &x);
	tap_num(pid_of(&d, LM_EV_HOLD), 2, "evidence: a smaller maximum leaves it");
	x.v[LM_F_HOLD_MAX] = 7;
	lm_row_add(&d, &x);
	tap_num(pid_of(&d, LM_EV_HOLD), 2, "evidence: an equal maximum leaves it");
	x.ev[LM_EV_HOLD] = NULL;
	x.v[LM_F_HOLD_MAX] = 9;
	lm_row_add(&d, &x);
	tap_ok(d.v[LM_F_HOLD_MAX] == 9 && !d.ev[LM_EV_HOLD],
	       "evidence: a larger maximum without evidence leaves none, not the smaller's");
	x.ev[LM_EV_HOLD] = ev_pid(&s, 4);
	lm_row_add(&d, &x);
	tap_num(pid_of(&d, LM_EV_HOLD), 4, "evidence: an equal maximum fills in what is missing");
	/* in a delta: of two equal maxima, the one of the interval */
	x.ev[LM_EV_HOLD] = ev_pid(&s, 5);
	x.fresh = 1U << LM_F_HOLD_MAX;
	lm_row_add(&d, &x);
	tap_ok(pid_of(&d, LM_EV_HOLD) == 5 && (d.fresh & (1U << LM_F_HOLD_MAX)),
	       "evidence: of equal maxima, the fresh one's, and the maximum is fresh");
	x.ev[LM_EV_HOLD] = ev_pid(&s, 6);
	x.fresh = 0;
	lm_row_add(&d, &x);
	tap_num(pid_of(&d, LM_EV_HOLD), 5, "evidence: an older equal maximum does not replace it");
	lm_snap_free(&s);
}

/* in a view: equal keys (two CPUs' rows), a lock's sites, *TOTAL*; in a delta */
static void test_evidence_view(void)
{
	struct lm_snapshot s, prev, d;
	const struct lm_lock *a;
	const struct lm_row *f1 = NULL;
	struct lm_filter f;
	struct lm_view v;
	size_t i;

	fixture(&s);
	/* lock_a: f1 twice, hold max 300 and 500; f2 hold max 2000, wait max 400 */
	s.rows[0].ev[LM_EV_HOLD] = ev_pid(&s, 300);
	s.rows[2].ev[LM_EV_HOLD] = ev_pid(&s, 500);
	s.rows[2].ev[LM_EV_WAIT] = ev_pid(&s, 100);
	s.rows[1].ev[LM_EV_HOLD] = ev_pid(&s, 2000);
	s.rows[1].ev[LM_EV_WAIT] = ev_pid(&s, 400);
	/* [heap] d_alloc: the section's longest wait, 900 */
	s.rows[4].ev[LM_EV_WAIT] = ev_pid(&s, 900);
	lm_filter_init(&f);
	if (!tap_ok(!lm_view_build(&v, &s, &f), "evidence: view builds"))
		goto out;
	a = find_lock(&v.sec[LM_TYPE_SPIN], "lock_a", NULL);
	for (i = 0; a && i < a->nr_sites; i++)
		if (!strcmp(a->sites[i]->site, "f1+0x10/0x40"))
			f1 = a->sites[i];
	tap_ok(f1 && pid_of(f1, LM_EV_HOLD) == 500 && pid_of(f1, LM_EV_WAIT) == 100,
	       "evidence: two CPUs' rows of a site keep the larger maximum's");
	tap_ok(a && pid_of(&a->agg, LM_EV_HOLD) == 2000 && pid_of(&a->agg, LM_EV_WAIT) == 400,
	       "evidence: a lock has its worst site's");
	tap_ok(pid_of(&v.sec[LM_TYPE_SPIN].total, LM_EV_HOLD) == 2000 &&
	       pid_of(&v.sec[LM_TYPE_SPIN].total, LM_EV_WAIT) == 900,
	       "evidence: *TOTAL* has the section's worst, whichever lock it is of");
	lm_view_free(&v);

	/* a delta: the current snapshot's evidence, fresh when its maximum is */
	fixture(&prev);
	s.rows[1].v[LM_F_ACQUIRED]++;
	s.rows[1].v[LM_F_NOWAIT]++;
	s.rows[1].v[LM_F_HOLD_MAX] = 2500;
	s.rows[1].v[LM_F_HOLD_TOTAL] += 2500;
	if (tap_ok(lm_snap_delta(&d, &s, &prev) == 0 && d.nr == 1, "evidence: a delta of one row")) {
		tap_ok(d.rows[0].ev[LM_EV_HOLD] == s.rows[1].ev[LM_EV_HOLD] &&
		       (d.rows[0].fresh & (1U << LM_F_HOLD_MAX)),
		       "evidence: a delta's hold evidence is the interval's");
		tap_ok(d.rows[0].ev[LM_EV_WAIT] == s.rows[1].ev[LM_EV_WAIT] &&
		       !(d.rows[0].fresh & (1U << LM_F_WAIT_MAX)),
		       "evidence: its wait evidence is older, and marked so");
	}
	lm_snap_free(&d);
	lm_snap_free(&prev);
out:
	lm_snap_free(&s);
}

/* stacks_full is a loss: the banner says it */
static void test_stacks_full_banner(void)
{
	struct lm_header h = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	h.loss[LM_L_STACKS_FULL] = 3;
	lm_set(&h, LM_H_LOSS + LM_L_STACKS_FULL);
	f = open_memstream(&buf, &len);
	lm_table_losses(f, &h);
	fclose(f);
	tap_str(buf, "WARNING: 3 call chains were not kept: a CPU's store of chains was full; that evidence has no frames\n",
		"evidence: stacks_full in the loss banner");
	free(buf);
}

/* an overflow row named after its longest hold is still an overflow row */
static void test_overflow_named(void)
{
	static const struct {
		const char *lock;
		uint32_t class;
	} t[] = {
		{ "*overflow*", LM_CLASS_OVERFLOW },
		{ "*overflow*(worst:lmt_many+0x1a0[test_lockmeter])", LM_CLASS_OVERFLOW },
		{ "*overflow*(worst:[heap])", LM_CLASS_OVERFLOW },
		{ "*overflow*(worst:percpu:runqueues+0x0)", LM_CLASS_OVERFLOW },
		{ "overflow_lock", LM_CLASS_STATIC },
		{ "x*overflow*", LM_CLASS_STATIC },
		{ "*overflo", LM_CLASS_STATIC },
		{ "[heap]", LM_CLASS_HEAP },
		{ "percpu:runqueues+0x0", LM_CLASS_PERCPU },
	};
	const char *site = "raw_spin_rq_lock_nested+0xd/0xf";
	const struct lm_lock *rq, *ovf;
	struct lm_snapshot s;
	struct lm_filter f;
	struct lm_view v;
	char what[96];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(what, sizeof(what), "overflow: %s is class", t[i].lock);
		tap_str(lm_class_name(lm_class_of(t[i].lock)), lm_class_name(t[i].class), what);
	}
	/* at the site of a lock's row, named after that lock: a lock of its own */
	lm_snap_init(&s);
	s.h.metered_ns = 1000000000;
	lm_set(&s.h, LM_H_METERED_NS);
	add(&s, LM_TYPE_SPIN, "percpu:runqueues+0x0", site, 100, 4, 0, 9000, 10, 900, 40, 5, 20);
	add(&s, LM_TYPE_SPIN, "*overflow*(worst:percpu:runqueues+0x0)", site, 7, 1, 0, 5000,
	    20, 4000, 9, 9, 9);
	add(&s, LM_TYPE_SPIN, "*overflow*(worst:lmt_many+0x1a0[test_lockmeter])",
	    "lmt_overflow_long+0x3c/0x90[test_lockmeter]", 2, 0, 0, 300, 100, 200, 0, 0, 0);
	lm_filter_init(&f);
	if (!tap_ok(!lm_view_build(&v, &s, &f), "overflow: view builds")) {
		lm_snap_free(&s);
		return;
	}
	tap_num(v.sec[LM_TYPE_SPIN].nr_locks, 3, "overflow: two named overflow rows, two locks");
	rq = find_lock(&v.sec[LM_TYPE_SPIN], "percpu:runqueues+0x0", NULL);
	ovf = find_lock(&v.sec[LM_TYPE_SPIN], "*overflow*(worst:percpu:runqueues+0x0)", site);
	tap_ok(rq && rq->nr_sites == 1 && rq->agg.v[LM_F_ACQUIRED] == 104,
	       "overflow: the lock it is named after keeps its own counts");
	tap_ok(ovf && ovf->agg.class == LM_CLASS_OVERFLOW && ovf->agg.site &&
	       lm_lock_per_site(ovf->agg.class) && ovf->agg.v[LM_F_HOLD_MAX] == 4000,
	       "overflow: identified by its site, its worst hold its own");
	lm_view_free(&v);
	lm_snap_free(&s);
}

/* a longer hold renames the overflow row: top's interval is still its own */
static void test_overflow_delta(void)
{
	struct lm_snapshot prev, cur, d;
	const struct lm_row *r;
	struct lm_row *c;
	int ret;

	fixture(&prev);
	fixture(&cur);
	/* fixture()'s "*overflow*" row: 4 more acquisitions, one a new worst hold */
	c = (struct lm_row *)find_row(&cur, LM_TYPE_SPIN, "*overflow*", "*overflow*");
	if (!tap_ok(c != NULL, "overflow delta: the fixture has an overflow row"))
		return;
	c->lock = lm_snap_strdup(&cur, "*overflow*(worst:lock_a)");
	c->site = lm_snap_strdup(&cur, "f1+0x10/0x40");
	c->v[LM_F_NOWAIT] += 4;
	c->v[LM_F_ACQUIRED] += 4;
	c->v[LM_F_HOLD_TOTAL] += 900;
	c->v[LM_F_HOLD_MAX] = 800;
	ret = lm_snap_delta(&d, &cur, &prev);
	tap_num((unsigned long long)ret, 0, "overflow delta: an interval");
	r = ret < 0 ? NULL : find_row(&d, LM_TYPE_SPIN, "*overflow*(worst:lock_a)", "f1+0x10/0x40");
	tap_ok(r && r->v[LM_F_ACQUIRED] == 4 && r->v[LM_F_HOLD_MAX] == 800 &&
	       (r->fresh & (1U << LM_F_HOLD_MAX)),
	       "overflow delta: renamed, the interval's counts under the new name");
	tap_ok(ret >= 0 && !find_row(&d, LM_TYPE_SPIN, "*overflow*", "*overflow*"),
	       "overflow delta: the old name is gone, not a row of its own");
	if (ret >= 0)
		lm_snap_free(&d);
	lm_snap_free(&cur);
	lm_snap_free(&prev);
}

/* keys_used and keys when the kernel has them; the older slots otherwise */
static void test_key_use(void)
{
	struct lm_header h = { 0 };
	struct lm_key_use u;
	const char *why;

	tap_ok(!lm_hdr_key_use(&h, &u), "keys: none without either pair of lines");
	lm_hdr_set(&h, LM_H_SLOTS_USED, "291", &why);
	lm_hdr_set(&h, LM_H_SLOTS_PER_CPU, "4096", &why);
	tap_ok(lm_hdr_key_use(&h, &u) && u.used == 291 && u.size == 4096 && !u.shared,
	       "keys: an older kernel's slots, per CPU");
	lm_hdr_set(&h, LM_H_KEYS_USED, "300", &why);
	tap_ok(lm_hdr_key_use(&h, &u) && u.used == 291 && !u.shared,
	       "keys: keys_used without keys is no pair");
	lm_hdr_set(&h, LM_H_KEYS, "16384", &why);
	tap_ok(lm_hdr_key_use(&h, &u) && u.used == 300 && u.size == 16384 && u.shared,
	       "keys: keys_used and keys win over the slots");
	tap_ok(lm_key_use_pct(&u) > 1.83 && lm_key_use_pct(&u) < 1.84, "keys: percent in use");
	u.size = 0;
	tap_ok(lm_key_use_pct(&u) == 0, "keys: no percent of an empty directory");
	tap_ok(lm_hdr_find("keys") == LM_H_KEYS && lm_hdr_find("keys_used") == LM_H_KEYS_USED &&
	       lm_hdr_find("mem_keys") == LM_H_MEM_KEYS, "keys: header lines by name");
}

/* the table_full banner: the key directory, or an older kernel's CPU table */
static void test_table_full_banner(void)
{
	struct lm_header h = { 0 };
	const char *why;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	h.loss[LM_L_TABLE_FULL] = 12;
	lm_set(&h, LM_H_LOSS + LM_L_TABLE_FULL);
	lm_hdr_set(&h, LM_H_KEYS_USED, "16384", &why);
	lm_hdr_set(&h, LM_H_KEYS, "16384", &why);
	f = open_memstream(&buf, &len);
	lm_table_losses(f, &h);
	fclose(f);
	tap_str(buf, "WARNING: 12 events found the key directory full; their keys have no rows of their own, totals are exact (see the *overflow* rows, named after their longest hold)\n",
		"keys: table_full banner, one line");
	free(buf);
	buf = NULL;
	h.present &= ~((1ULL << LM_H_KEYS_USED) | (1ULL << LM_H_KEYS));
	lm_hdr_set(&h, LM_H_SLOTS_USED, "4096", &why);
	lm_hdr_set(&h, LM_H_SLOTS_PER_CPU, "4096", &why);
	f = open_memstream(&buf, &len);
	lm_table_losses(f, &h);
	fclose(f);
	tap_str(buf, "WARNING: 12 events found a CPU's table full; rows are missing, totals are exact (see the *overflow* rows)\n",
		"keys: table_full banner of a kernel of per-CPU tables");
	free(buf);
}

/* --stacks is the table's; --folded is a format of its own */
static void test_evidence_options(void)
{
	static const struct option opts[] = { LM_VIEW_LONGOPTS, { NULL, 0, NULL, 0 } };
	static const struct {
		const char *a, *b;
		int want;
		enum lm_fmt fmt;
	} t[] = {
		{ "--stacks", "-r", 0, LM_FMT_TABLE },
		{ "--stacks", "--json", 0, LM_FMT_JSON },
		{ "--json", "--stacks", 0, LM_FMT_JSON },
		{ "--stacks", "--folded", 0, LM_FMT_FOLDED },
		{ "--folded", "-r", 0, LM_FMT_FOLDED },
		{ "--stacks", "--csv", LM_EXIT_USAGE, 0 },
		{ "--csv", "--stacks", LM_EXIT_USAGE, 0 },
		{ "--folded", "--json", LM_EXIT_USAGE, 0 },
		{ "--csv", "--folded", LM_EXIT_USAGE, 0 },
	};
	struct lm_opts o;
	unsigned int i;
	bool stacks;
	int ret;

	fprintf(stderr, "# expected: four messages on options that exclude each other\n");
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char cmd[] = "report", a[16], b[16];
		char *argv[] = { cmd, a, b, NULL };

		snprintf(a, sizeof(a), "%s", t[i].a);
		snprintf(b, sizeof(b), "%s", t[i].b);
		optind = 0;	/* glibc: start over */
		ret = lm_opts_parse(&o, 3, argv, ":r", opts);
		stacks = !strcmp(a, "--stacks") || !strcmp(b, "--stacks");
		tap_ok(ret == t[i].want && (ret || (o.view.fmt == t[i].fmt &&
						    o.view.filter.stacks == stacks)),
		       "options: %s %s: %s", t[i].a, t[i].b, t[i].want ? "refused" : "taken");
	}
}

/* --min-hold's durations: units, decimals, and what is refused */
static void test_duration(void)
{
	static const struct {
		const char *arg;
		uint64_t ns;
	} good[] = {
		{ "0", 0 }, { "0.0", 0 }, { "750ns", 750 }, { "10us", 10000 },
		{ "1.5ms", 1500000 }, { "2s", 2000000000 }, { "0.25us", 250 },
	};
	static const char *const bad[] = {
		"", "us", ".5us", "1..5ms", "10 us", "10m", "-1us", "1e3", "10usx",
		"99999999999s", "750", "5",	/* a bare number: no unit, no duration */
	};
	unsigned int i;
	uint64_t ns;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ns = 1;
		tap_ok(!lm_parse_duration(good[i].arg, &ns) && ns == good[i].ns,
		       "duration '%s' is %llu ns", good[i].arg, (unsigned long long)good[i].ns);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		tap_ok(lm_parse_duration(bad[i], &ns) == -1, "duration '%s' refused", bad[i]);
}

int main(void)
{
	test_units();
	test_pct();
	test_merge();
	test_saturate();
	test_sort();
	test_sites_sorted();
	test_ratio_exact();
	test_filters();
	test_key_table();
	test_cols_fit();
	test_rows();
	test_header();
	test_options();
	test_types();
	test_type_sections();
	test_site_short();
	test_rate();
	test_count();
	test_delta();
	test_flat();
	test_evidence_add();
	test_evidence_view();
	test_stacks_full_banner();
	test_overflow_named();
	test_overflow_delta();
	test_key_use();
	test_table_full_banner();
	test_evidence_options();
	test_duration();
	return tap_done();
}
