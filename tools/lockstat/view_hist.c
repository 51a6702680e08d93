// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the text histograms of one lock's hold and wait (lockstat
 * hist, record --hist).  All the lock's sites are summed, or only those
 * of SITE, a function: offsets and sizes are ignored as diff ignores them
 * ("lmt_take" is "lmt_take+0x1e/0x40"), and so is a module name when the
 * argument gives none ("lmt_lock" is "lmt_lock[test_lockmeter]").  A
 * lock name taken as more than one type (an rwlock's read and write
 * sides) gets a pair of histograms per type.
 *
 * One line per non-empty bucket: its bounds in ns as the kernel reports
 * them (and humanized), the count, its share of the total and the
 * cumulative share, and a bar scaled to the terminal (a terminal's on
 * standard output, else COLUMNS, else 80: lm_out_width()); on a line too
 * narrow for a bar of 10, the bounds in ns drop first; a run of empty
 * buckets between two non-empty ones is one line of 0.  Above each
 * histogram the percentiles, estimates at bucket resolution (model.c).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lockstat.h"
#include "view.h"

/* whether @s ends in a "[module]" */
static bool hist_has_mod(const char *s)
{
	size_t n = strlen(s);

	return n && s[n - 1] == ']' && strrchr(s, '[') > s;
}

/*
 * How a name is matched: the function of a site or lock name (no
 * +0xoff/0xsize), and without its "[module]" when @keep_mod is false
 */
static void hist_norm(char *buf, size_t len, const char *name, bool keep_mod)
{
	lm_site_func(buf, len, name);
	if (!keep_mod && hist_has_mod(buf))
		*strrchr(buf, '[') = '\0';
}

/* NAME[@SITE]: the lock, and the site after the first '@' */
int lm_hist_target(struct lm_hist_target *p, const char *arg)
{
	const char *at = strchr(arg, '@');
	char lock[1024];
	size_t n = at ? (size_t)(at - arg) : strlen(arg);

	if (!n || n >= sizeof(lock) || (at && (!at[1] || strlen(at + 1) >= sizeof(lock)))) {
		lm_err("'%s' is not NAME or NAME@SITE", arg);
		return LM_EXIT_USAGE;
	}
	memcpy(lock, arg, n);
	lock[n] = '\0';
	p->arg = arg;
	p->width = -1;
	p->json = false;
	hist_norm(p->name, sizeof(p->name), lock, true);
	if (at)
		hist_norm(p->site, sizeof(p->site), at + 1, true);
	return 0;
}

/* whether @r is a row of the lock, and site, asked for */
static bool hist_match(const struct lm_hist_target *p, const struct lm_row *r)
{
	char buf[1024];

	if (r->type <= LM_TYPE_NONE || r->type >= LM_NR_TYPES)
		return false;
	if (p->types && !(p->types & (1U << r->type)))
		return false;
	hist_norm(buf, sizeof(buf), r->lock, hist_has_mod(p->name));
	if (strcmp(buf, p->name))
		return false;
	if (!p->site[0])
		return true;
	hist_norm(buf, sizeof(buf), r->site, hist_has_mod(p->site));
	return !strcmp(buf, p->site);
}

/* the width of the output (--width, else lm_out_width()'s), else 80 */
static int hist_columns(const struct lm_hist_target *p)
{
	int w = lm_out_width(p->width);

	return w ? w : 80;
}

#define HIST_LEAD	61	/* the columns before the bar, its two blanks too */
#define HIST_RAW_W	22	/* of them FROM_NS and TO_NS, which drop first */
#define HIST_BAR_MIN	10

/*
 * The line's layout at @width columns: FROM_NS and TO_NS drop when the
 * bar would be shorter than HIST_BAR_MIN; the bar then has what is left
 * (none on a line too narrow even for the rest)
 */
struct hist_layout {
	bool raw;		/* FROM_NS and TO_NS shown */
	int bar;		/* columns of the longest bar */
	int width;
};

static void hist_layout(struct hist_layout *lo, int width)
{
	lo->width = width;
	lo->raw = width - HIST_LEAD >= HIST_BAR_MIN;
	lo->bar = width - HIST_LEAD + (lo->raw ? 0 : HIST_RAW_W);
	if (lo->bar < 1)
		lo->bar = 0;
}

/* one line: buckets @i to @j (inclusive) with @count between them */
static void hist_line(FILE *f, const struct lm_ctx *c, uint32_t i, uint32_t j, uint64_t count,
		      uint64_t total, uint64_t cum, uint64_t peak, const struct hist_layout *lo)
{
	char from[24], to[24], hfrom[32], hto[32], share[16], cshare[16], cnt[24];
	bool last = j + 1 == c->nr_buckets;
	int n, k;

	lm_u64_str(from, c->bound[i]);
	lm_fmt_time(hfrom, sizeof(hfrom), (double)c->bound[i]);
	if (!c->bound[i])
		snprintf(hfrom, sizeof(hfrom), "0ns");
	if (last) {
		snprintf(to, sizeof(to), "-");
		snprintf(hto, sizeof(hto), "-");
	} else {
		lm_u64_str(to, c->bound[j + 1]);
		lm_fmt_time(hto, sizeof(hto), (double)c->bound[j + 1]);
	}
	lm_fmt_pct(share, sizeof(share), 100.0 * (double)count / (double)total);
	lm_fmt_pct(cshare, sizeof(cshare), 100.0 * (double)cum / (double)total);
	lm_fmt_count(cnt, sizeof(cnt), count, 9);
	if (lo->raw)
		fprintf(f, "%10s %10s ", from, to);
	fprintf(f, "%6s %6s %9s %6s %6s", hfrom, hto, cnt, share, cshare);
	n = count ? (int)((double)count / (double)peak * lo->bar + 0.5) : 0;
	if (count && lo->bar && n < 1)
		n = 1;
	if (n)
		fputs("  ", f);
	for (k = 0; k < n; k++)
		fputc('#', f);
	fputc('\n', f);
}

/* the histogram of @kind of @r, with its percentiles above it, in @width columns */
static void hist_print_kind(FILE *f, const struct lm_row *r, const struct lm_ctx *c, int kind,
			    int width)
{
	uint64_t total = kind == LM_HIST_HOLD ? r->v[LM_F_ACQUIRED] : r->v[LM_F_SPIN];
	uint64_t max = kind == LM_HIST_HOLD ? r->v[LM_F_HOLD_MAX] : r->v[LM_F_WAIT_MAX];
	const uint64_t *hc = r->hc[kind];
	uint64_t peak = 0, cum = 0;
	uint32_t i, prev = UINT32_MAX;
	struct hist_layout lo;
	char buf[32];
	int p, at;

	hist_layout(&lo, width);
	fprintf(f, "\n%s: ", kind == LM_HIST_HOLD ? "HOLD" : "WAIT");
	if (!(r->hist & (1U << kind))) {
		fputs("no histogram (a row of this lock came without one)\n", f);
		return;
	}
	lm_fmt_time(buf, sizeof(buf), (double)max);
	fprintf(f, "%llu %s, max %s", (unsigned long long)total,
		kind == LM_HIST_HOLD ? (total == 1 ? "hold" : "holds") :
		(total == 1 ? "wait" : "waits"), total ? buf : "-");
	if (!total) {
		fputs("\n", f);
		return;
	}
	/* the percentiles, wrapped between them at the width */
	at = fprintf(f, "\n  estimated at bucket resolution:") - 1;
	for (p = 0; p < LM_NR_PCT; p++) {
		lm_fmt_pct_cell(buf, sizeof(buf), r, c, kind, p);
		if (at + 2 + (int)(strlen(lm_pcts[p].label) + strlen(buf)) > lo.width)
			at = fprintf(f, "\n   ") - 1;
		at += fprintf(f, " %s %s", lm_pcts[p].label, buf);
	}
	fputc('\n', f);
	if (lo.raw)
		fprintf(f, "%10s %10s ", "FROM_NS", "TO_NS");
	fprintf(f, "%6s %6s %9s %6s %6s\n", "FROM", "TO", "COUNT", "SHARE", "CUM");
	for (i = 0; i < c->nr_buckets; i++)
		if (hc[i] > peak)
			peak = hc[i];
	for (i = 0; i < c->nr_buckets; i++) {
		if (!hc[i])
			continue;
		if (prev != UINT32_MAX && i > prev + 1)
			hist_line(f, c, prev + 1, i - 1, 0, total, cum, peak, &lo);
		cum += hc[i];
		hist_line(f, c, i, i, hc[i], total, cum, peak, &lo);
		prev = i;
	}
}

/* the rows of @s the arguments name, summed per type: how many types */
static int hist_collect(const struct lm_hist_target *p, const struct lm_snapshot *s,
			struct lm_row *agg, size_t *nr_sites)
{
	int t, found = 0;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const struct lm_row *r = &s->rows[i];

		if (!hist_match(p, r))
			continue;
		if (!nr_sites[r->type]++)
			agg[r->type] = *r;
		else
			lm_row_add(&agg[r->type], r);
	}
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++)
		found += nr_sites[t] > 0;
	return found;
}

static int hist_none(const struct lm_hist_target *p, const char *from)
{
	lm_err("no lock '%s'%s%s%s%s in %s", p->name, p->site[0] ? " at site '" : "",
	       p->site, p->site[0] ? "'" : "", p->types ? " of those types" : "", from);
	return LM_EXIT_NOTFOUND;
}

/*
 * --json: { "lock", ["site"], "hist_bounds_ns": [...], "types": [ { "type",
 * "sites", the 16 numbers summed, the derived ones, the percentiles and
 * counts (lm_json_hist(), as report --json has them) } ] }; a type whose
 * rows have no histogram has no percentiles and no counts.
 */
static int hist_json(FILE *f, const struct lm_hist_target *p, const struct lm_snapshot *s,
		     const char *from)
{
	struct lm_row agg[LM_NR_TYPES];
	size_t nr_sites[LM_NR_TYPES] = { 0 };
	const char *sep = "";
	struct lm_ctx c;
	uint32_t i;
	int t, with = 0;

	lm_ctx_init(&c, &s->h);
	if (!hist_collect(p, s, agg, nr_sites))
		return hist_none(p, from);
	fputs("{ \"lock\": ", f);
	lm_json_str(f, p->name);
	if (p->site[0]) {
		fputs(", \"site\": ", f);
		lm_json_str(f, p->site);
	}
	fputs(", \"hist_bounds_ns\": [", f);
	for (i = 0; i < c.nr_buckets; i++)
		fprintf(f, "%s%llu", i ? ", " : " ", (unsigned long long)c.bound[i]);
	fputs(c.nr_buckets ? " ], \"types\": [" : "], \"types\": [", f);
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!nr_sites[t])
			continue;
		fprintf(f, "%s\n  { \"type\": \"%s\", \"sites\": %zu", sep, lm_type_name(t),
			nr_sites[t]);
		lm_json_fields(f, &agg[t]);
		lm_json_derived(f, &agg[t], &c);
		lm_json_hist(f, &agg[t], &c);
		fputs(" }", f);
		sep = ",";
		with += c.nr_buckets && agg[t].hist;
	}
	fputs("\n] }\n", f);
	if (!with) {
		lm_err("no histogram of '%s'", p->arg);
		return LM_EXIT_ERR;
	}
	return 0;
}

/* the histograms as text, their lines laid out for hist_columns() */
static int hist_text(FILE *f, const struct lm_hist_target *p, const struct lm_ctx *c,
		     const struct lm_row *agg, const size_t *nr_sites)
{
	int t, k, none = 0, shown = 0;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const struct lm_row *r = &agg[t];

		if (!nr_sites[t])
			continue;
		fprintf(f, "%s%s (%s)", shown++ ? "\n\n" : "", r->lock, lm_type_name(t));
		if (p->site[0])
			fprintf(f, " at %s", p->site);
		fprintf(f, ": %zu %s\n", nr_sites[t], nr_sites[t] == 1 ? "site" : "sites summed");
		if (!c->nr_buckets || !r->hist) {
			fputs("no histogram: ", f);
			fputs(c->nr_buckets ? "its rows came without histograms\n" :
			      "this kernel or snapshot has none (no hist_bounds; /proc has none)\n",
			      f);
			none++;
			continue;
		}
		fprintf(f, "%u buckets, lower bounds in ns as the kernel reports them\n",
			c->nr_buckets);
		for (k = 0; k < LM_NR_HIST; k++)
			hist_print_kind(f, r, c, k, hist_columns(p));
	}
	return none == shown;
}

/*
 * The text of hist_text() fitted to the width (lm_fit_text()): the lines
 * it lays out fit already; the titles wrap, a row too wide is cut
 */
int lm_hist_print(FILE *f, const struct lm_hist_target *p, const struct lm_snapshot *s,
		  const char *from)
{
	struct lm_row agg[LM_NR_TYPES];
	size_t nr_sites[LM_NR_TYPES] = { 0 }, len;
	struct lm_ctx c;
	char *buf;
	FILE *mem;
	int none;

	lm_ctx_init(&c, &s->h);
	if (p->json)
		return hist_json(f, p, s, from);
	if (!hist_collect(p, s, agg, nr_sites))
		return hist_none(p, from);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	none = hist_text(mem, p, &c, agg, nr_sites);
	if (!fclose(mem))
		lm_fit_text(f, buf, len, hist_columns(p));
	free(buf);
	if (none) {
		lm_err("no histogram of '%s'", p->arg);
		return LM_EXIT_ERR;
	}
	return 0;
}
