// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers of fuzz.h.  A snapshot that parsed is rendered as the table,
 * JSON, CSV and Prometheus text (whole, rolled up, exact sites), sorted
 * by every key, and as a top frame against itself;
 * written back and read again, it must parse again: a snapshot lockstat
 * wrote is one it reads, with the same evidence and histograms.  The evidence is also
 * rendered under the table (--stacks) and as folded stacks, and the first
 * row's lock as lockstat hist prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lockstat.h"
#include "snapfile.h"
#include "view.h"
#include "view_prom.h"

static FILE *fuzz_null;

FILE *fuzz_stream(const uint8_t *data, size_t size)
{
	/* fmemopen() of 0 bytes fails: an empty file is a file too */
	return size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "re");
}

void fuzz_quiet(void)
{
	static char msg[512];

	msg[0] = '\0';
	lm_err_capture(msg, sizeof(msg));
	if (!fuzz_null)
		fuzz_null = fopen("/dev/null", "we");
	if (!fuzz_null)
		abort();
}

static void fuzz_views(const struct lm_snapshot *s)
{
	static const enum lm_fmt fmts[] = { LM_FMT_TABLE, LM_FMT_JSON, LM_FMT_CSV };
	struct lm_filter f;
	struct lm_prom p;
	struct lm_flat fl;
	unsigned int i, k;

	lm_filter_init(&f);
	for (i = 0; i < ARRAY_SIZE(fmts); i++)
		lm_render(fuzz_null, s, &f, fmts[i]);
	for (i = 0; i < 3; i++) {
		if (lm_prom_build(&p, s, i == 1 ? 1 : LM_PROM_MAX_SERIES, i == 2))
			continue;
		lm_prom_print(fuzz_null, &p);
		lm_prom_free(&p);
	}
	for (k = 0; k < LM_NR_KEYS; k++) {
		f.key = &lm_keys[k];
		f.top = 2;
		/* narrow lines too: columns dropped, rows cut, prose wrapped */
		f.width = (int)(k * 7 % 120);
		lm_render(fuzz_null, s, &f, LM_FMT_TABLE);
		if (!lm_flat_build(&fl, s, &f, k & 1))
			lm_flat_free(&fl);
	}
}

/*
 * the table with the evidence under each site and the percentiles, the
 * folded stacks, and the histograms of a lock (lockstat hist)
 */
static void fuzz_evidence_views(const struct lm_snapshot *s)
{
	struct lm_filter f;

	struct lm_hist_target t;

	lm_filter_init(&f);
	f.stacks = true;
	f.percentiles = true;
	lm_render(fuzz_null, s, &f, LM_FMT_TABLE);
	f.width = 80;
	lm_render(fuzz_null, s, &f, LM_FMT_TABLE);
	f.width = -1;
	lm_render(fuzz_null, s, &f, LM_FMT_FOLDED);
	/* the histograms of the first row's lock, all its sites and its own */
	if (s->nr && !lm_hist_target(&t, s->rows[0].lock))
		lm_hist_print(fuzz_null, &t, s, "fuzz");
	if (s->nr && strlen(s->rows[0].lock) + strlen(s->rows[0].site) < 1000) {
		char arg[1024];

		snprintf(arg, sizeof(arg), "%s@%s", s->rows[0].lock, s->rows[0].site);
		if (!lm_hist_target(&t, arg))
			lm_hist_print(fuzz_null, &t, s, "fuzz");
	}
}

/* the evidence of each row of @a is that of the same row of @b */
static bool fuzz_same_evidence(const struct lm_snapshot *a, const struct lm_snapshot *b)
{
	size_t i;
	int k;

	for (i = 0; i < a->nr; i++)
		for (k = 0; k < LM_NR_EV; k++)
			if (!lm_ev_equal(a->rows[i].ev[k], b->rows[i].ev[k]))
				return false;
	return true;
}

/* the bounds of @a are those of @b, and each row's histograms the same row's */
static bool fuzz_same_hist(const struct lm_snapshot *a, const struct lm_snapshot *b)
{
	size_t i;

	if (a->h.nr_buckets != b->h.nr_buckets ||
	    memcmp(a->h.bound, b->h.bound, a->h.nr_buckets * sizeof(a->h.bound[0])))
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->rows[i].hist != b->rows[i].hist ||
		    memcmp(a->rows[i].hc, b->rows[i].hc, sizeof(a->rows[i].hc)))
			return false;
	return true;
}

/* written back, the snapshot reads again, with as many rows */
static void fuzz_roundtrip(const struct lm_snapshot *s)
{
	struct lm_perr e = { 0 };
	struct lm_snapshot again;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f || lm_snap_write(f, s) || fclose(f))
		abort();
	f = fmemopen(buf, len, "r");
	if (!f)
		abort();
	lm_snap_init(&again);
	if (lm_snap_read(f, &again, &e) || again.nr != s->nr) {
		fprintf(stderr, "a written snapshot does not read back: line %lu: %s\n",
			e.line, e.msg);
		abort();
	}
	if (!fuzz_same_evidence(s, &again)) {
		fprintf(stderr, "a written snapshot reads back with other evidence\n");
		abort();
	}
	if (!fuzz_same_hist(s, &again)) {
		fprintf(stderr, "a written snapshot reads back with other histograms\n");
		abort();
	}
	fclose(f);
	free(buf);
	lm_snap_free(&again);
}

void fuzz_render(const struct lm_snapshot *s)
{
	struct lm_snapshot delta;

	fuzz_views(s);
	fuzz_evidence_views(s);
	fuzz_roundtrip(s);
	lm_snap_init(&delta);
	if (lm_snap_delta(&delta, s, s) >= 0)
		fuzz_views(&delta);
	lm_snap_free(&delta);
}

/* @data through @parse (a text parser), and what parses through fuzz_render() */
int fuzz_text(const uint8_t *data, size_t size, fuzz_parser parse)
{
	struct lm_perr e = { 0 };
	struct lm_snapshot s;
	FILE *f;

	fuzz_quiet();
	f = fuzz_stream(data, size);
	if (!f)
		return 0;
	lm_snap_init(&s);
	if (!parse(f, &s, &e))
		fuzz_render(&s);
	lm_snap_free(&s);
	fclose(f);
	return 0;
}
