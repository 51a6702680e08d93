// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: JSON and CSV renderings of a view, for scripts: raw ns and
 * counts, full names (sites keep their /0xsize), no humanizing.  Rows
 * come in the order, and after the filters, of the table.
 *
 * JSON: { "format": 1, "header": {...}, "sort": {...}, "sections": [ {
 *   "type", "title", "rows", "total": {counts}, "locks": [ { "lock",
 *   "class", ["site" for a [heap] or *overflow* lock], counts,
 *   "sites": [ { "site", counts } ] } ] } ] }; next to the counts of any
 *   row, "hold_evidence" and "wait_evidence" when it has them: { "pid",
 *   "comm", "context", "cpu", "time": { "sec", "nsec" } since boot,
 *   ["owner_pid", "owner_comm"], "frames": [...], ["addrs": ["0x..."]],
 *   and for a sleeping lock's hold when its holder blocked: "blocked_ns",
 *   "blocked_frames": [...], ["blocked_addrs": [...]] }.  With histograms
 *   (the header's "hist_bounds_ns"), a row's "hold_p50_ns" ...
 *   "hold_p999_ns", "hold_hist": [counts] and the same for wait, of the
 *   kinds it has (lm_json_hist()).  After the counts of every row,
 *   "hold_mean_ns", "wait_mean_ns" (of those that waited), "util_pct",
 *   "con_pct" and "wait_cpu_pct", the MEAN, UTIL, CON and (% CPU) of the
 *   table (lm_derived[]).
 *
 * CSV: a header line, then kind,type,lock,site, the 16 numbers of
 * /proc/lockmeter, hold_mean_ns,wait_mean_ns,util_pct,con_pct,wait_cpu_pct
 * and the snapshot's metered_ns,cpus (what UTIL and % CPU divide by) per
 * line; kind is total, lock or site, each lock line followed by its site
 * lines.  No evidence: it is not in /proc/lockmeter.  With histograms,
 * hold_p50_ns ... wait_p999_ns after them (empty without a histogram),
 * then hold_p50_ge ... wait_p999_ge: 1 when the number is only the lower
 * bound of the open last bucket (the table's ">="), 0 when not, empty
 * when there is no number.  No cell but lock and site holds anything but
 * a number.
 *
 * Folded stacks (--folded), for flame graphs: a line per row that has a
 * hold chain, the lock ("spin lmt_static_lock[test_lockmeter]", a heap
 * lock "mutex [heap] pipe_write+0x5a") as the root frame, so that the
 * chains of two locks never merge, then its functions
 * outermost first, joined by ';', a blank, and the row's total hold time
 * in ns.
 */
#include <string.h>

#include "lockstat.h"
#include "view.h"

/* printable ASCII without quote or backslash: copied as it is */
static bool lm_json_plain(const char *s)
{
	for (; *s; s++)
		if (*s < ' ' || *s > '~' || *s == '"' || *s == '\\')
			return false;
	return true;
}

void lm_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	if (lm_json_plain(s)) {
		fputs(s, f);
		fputc('"', f);
		return;
	}
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c > 0x7e)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/*
 * , "name": n for each of the 16 numbers; null for a minimum an interval
 * cannot tell (top's rows, lm_row_sub())
 */
void lm_json_fields(FILE *f, const struct lm_row *r)
{
	char num[24];
	int i;

	for (i = 0; i < LM_NR_FIELDS; i++) {
		if (r->nomin & (1U << i))
			snprintf(num, sizeof(num), "null");
		else
			lm_u64_str(num, r->v[i]);
		fputs(", \"", f);
		fputs(lm_field_names[i], f);
		fputs("\": ", f);
		fputs(num, f);
	}
}

/*
 * What a row's numbers say, as the table shows them: the means, UTIL and
 * CON, one table for JSON and CSV (and top's JSON)
 */
static double lm_hold_mean(const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	return lm_mean_ns(r, LM_HIST_HOLD);
}

static double lm_wait_mean(const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	return lm_mean_ns(r, LM_HIST_WAIT);
}

static double lm_con(const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	return lm_con_pct(r);
}

static const struct {
	const char *name;
	const char *fmt;	/* of the number, after the separator */
	double (*val)(const struct lm_row *r, const struct lm_ctx *c);
} lm_derived[] = {
	{ "hold_mean_ns", "%.3f", lm_hold_mean },
	{ "wait_mean_ns", "%.3f", lm_wait_mean },
	{ "util_pct", "%.4f", lm_util_pct },
	{ "con_pct", "%.4f", lm_con },
	{ "wait_cpu_pct", "%.4f", lm_waitcpu_pct },
};

/*
 * , "hold_mean_ns": N, "wait_mean_ns": N, "util_pct": P, "con_pct": P,
 * "wait_cpu_pct": P
 */
void lm_json_derived(FILE *f, const struct lm_row *r, const struct lm_ctx *c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lm_derived); i++) {
		fprintf(f, ", \"%s\": ", lm_derived[i].name);
		fprintf(f, lm_derived[i].fmt, lm_derived[i].val(r, c));
	}
}

/*
 * , "hold_p50_ns": N ... "hold_p999_ns": N, "hold_hist": [ counts ] and
 * the same for wait, of the histograms @r has (none without bounds): the
 * percentiles are estimates at bucket resolution, in whole ns; one in the
 * open last bucket is its lower bound, and "hold_p999_ge": true says so
 */
void lm_json_hist(FILE *f, const struct lm_row *r, const struct lm_ctx *c)
{
	enum lm_pct_res res;
	uint32_t i;
	double ns;
	int k, p;

	for (k = 0; c->nr_buckets && k < LM_NR_HIST; k++) {
		if (!(r->hist & (1U << k)))
			continue;
		for (p = 0; p < LM_NR_PCT; p++) {
			res = lm_row_pct(r, c, k, p, &ns);
			if (res == LM_PCT_NONE)
				continue;
			fprintf(f, ", \"%s_%s_ns\": %.0f", lm_hist_names[k], lm_pcts[p].json, ns);
			if (res == LM_PCT_GE)
				fprintf(f, ", \"%s_%s_ge\": true", lm_hist_names[k], lm_pcts[p].json);
		}
		fprintf(f, ", \"%s_hist\": [", lm_hist_names[k]);
		for (i = 0; i < c->nr_buckets; i++)
			fprintf(f, "%s%llu", i ? ", " : " ", (unsigned long long)r->hc[k][i]);
		fputs(" ]", f);
	}
}

/* , "@fkey": [ "frame", ... ] and, with @addrs, , "@akey": [ "0x...", ... ] */
void lm_json_chain(FILE *f, const char *fkey, const char *akey, const char *const *frame,
		   const uint64_t *addr, uint32_t n, bool addrs)
{
	uint32_t i;

	fprintf(f, ", \"%s\": [", fkey);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : " ", f);
		lm_json_str(f, frame[i]);
	}
	fputs(n ? " ]" : "]", f);
	if (!addrs || !n)
		return;
	/* hex strings: a double cannot hold a kernel address */
	fprintf(f, ", \"%s\": [", akey);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"0x%llx\"", i ? ", " : " ", (unsigned long long)addr[i]);
	fputs(" ]", f);
}

/* , "hold_evidence": {...}, "wait_evidence": {...}, those @r has */
void lm_json_evidence(FILE *f, const struct lm_row *r)
{
	struct timespec ts;
	int k;

	for (k = 0; k < LM_NR_EV; k++) {
		const struct lm_evidence *ev = r->ev[k];

		if (!ev)
			continue;
		fprintf(f, ", \"%s_evidence\": { \"pid\": %u, \"comm\": ", lm_ev_names[k], ev->pid);
		lm_json_str(f, ev->comm);
		fprintf(f, ", \"context\": \"%s\", \"cpu\": %u, \"time\": ",
			lm_context_name(ev->context), ev->cpu);
		ts.tv_sec = (time_t)(ev->time_ns / 1000000000);
		ts.tv_nsec = (long)(ev->time_ns % 1000000000);
		lm_json_time(f, &ts);
		if (lm_ev_has(ev, LM_EB_OWNER_PID))
			fprintf(f, ", \"owner_pid\": %u", ev->owner_pid);
		if (lm_ev_has(ev, LM_EB_OWNER_COMM)) {
			fputs(", \"owner_comm\": ", f);
			lm_json_str(f, ev->owner_comm);
		}
		lm_json_chain(f, "frames", "addrs", ev->frame, ev->addr, ev->nr_frames,
			      lm_ev_has(ev, LM_EB_ADDRS));
		if (lm_ev_has(ev, LM_EB_BLOCKED)) {
			fprintf(f, ", \"blocked_ns\": %llu", (unsigned long long)ev->blocked_ns);
			lm_json_chain(f, "blocked_frames", "blocked_addrs", ev->blocked_frame,
				      ev->blocked_addr, ev->nr_blocked,
				      lm_ev_has(ev, LM_EB_BLOCKED_ADDRS));
		}
		fputs(" }", f);
	}
}

/*
 * A wall-clock time, exactly: { "sec": S, "nsec": N }, in every JSON
 * lockstat prints (a decimal of 19 digits would not survive a double).
 */
void lm_json_time(FILE *f, const struct timespec *ts)
{
	fprintf(f, "{ \"sec\": %lld, \"nsec\": %ld }", (long long)ts->tv_sec, ts->tv_nsec);
}

void lm_json_header(FILE *f, const struct lm_header *h, int indent)
{
	const char *sep = "";
	int bit;

	fputc('{', f);
	for (bit = 0; bit < LM_NR_HDR; bit++) {
		const struct lm_hdr_key *k = &lm_hdr_keys[bit];
		const char *p = (const char *)h + k->off;
		const struct timespec *ts = (const struct timespec *)p;

		if (!lm_has(h, bit))
			continue;
		fprintf(f, "%s\n%*s\"%s\": ", sep, indent + 2, "", k->name);
		sep = ",";
		switch (k->kind) {
		case LM_HK_STR:
			lm_json_str(f, p);
			break;
		case LM_HK_U32:
			fprintf(f, "%u", *(const uint32_t *)p);
			break;
		case LM_HK_U64:
			fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)p);
			break;
		case LM_HK_TIME:
			lm_json_time(f, ts);
			break;
		case LM_HK_STATE:
			fprintf(f, "\"%s\"", *(const uint32_t *)p ? "on" : "off");
			break;
		}
	}
	if (h->nr_buckets) {
		fprintf(f, "%s\n%*s\"hist_bounds_ns\": [", sep, indent + 2, "");
		for (bit = 0; bit < (int)h->nr_buckets; bit++)
			fprintf(f, "%s%llu", bit ? ", " : " ", (unsigned long long)h->bound[bit]);
		fputs(" ]", f);
	}
	fprintf(f, "\n%*s}", indent, "");
}

static void lm_json_lock(FILE *f, const struct lm_lock *lk, const struct lm_ctx *c)
{
	size_t j;

	fputs("        { \"lock\": ", f);
	lm_json_str(f, lk->agg.lock);
	fprintf(f, ", \"class\": \"%s\"", lm_class_name(lk->agg.class));
	if (lk->agg.site) {
		fputs(", \"site\": ", f);
		lm_json_str(f, lk->agg.site);
	}
	lm_json_fields(f, &lk->agg);
	lm_json_derived(f, &lk->agg, c);
	lm_json_hist(f, &lk->agg, c);
	lm_json_evidence(f, &lk->agg);
	fputs(",\n          \"sites\": [", f);
	for (j = 0; j < lk->nr_sites; j++) {
		fprintf(f, "%s\n            { \"site\": ", j ? "," : "");
		lm_json_str(f, lk->sites[j]->site);
		lm_json_fields(f, lk->sites[j]);
		lm_json_derived(f, lk->sites[j], c);
		lm_json_hist(f, lk->sites[j], c);
		lm_json_evidence(f, lk->sites[j]);
		fputs(" }", f);
	}
	fputs(lk->nr_sites ? "\n          ] }" : "] }", f);
}

void lm_json_print(FILE *f, const struct lm_view *v)
{
	const char *sep = "";
	size_t i;
	int t;

	fputs("{\n  \"format\": 1,\n  \"header\": ", f);
	lm_json_header(f, v->h, 2);
	fprintf(f, ",\n  \"sort\": { \"key\": \"%s\", \"reverse\": %s },\n  \"sections\": [",
		v->filter->key->name, v->filter->reverse ? "true" : "false");
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const struct lm_section *sec = &v->sec[t];

		if (!sec->nr_rows)
			continue;
		fprintf(f, "%s\n    { \"type\": \"%s\", \"title\": \"%s\", \"rows\": %zu,\n", sep,
			lm_type_name(t), lm_type_title(t), sec->nr_rows);
		sep = ",";
		fputs("      \"total\": { \"lock\": \"*TOTAL*\"", f);
		lm_json_fields(f, &sec->total);
		lm_json_derived(f, &sec->total, &v->ctx);
		lm_json_hist(f, &sec->total, &v->ctx);
		lm_json_evidence(f, &sec->total);
		fputs(" },\n      \"locks\": [", f);
		for (i = 0; i < sec->nr_locks; i++) {
			fputs(i ? ",\n" : "\n", f);
			lm_json_lock(f, &sec->locks[i], &v->ctx);
		}
		fputs(sec->nr_locks ? "\n      ] }" : "] }", f);
	}
	fputs(*sep ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* RFC 4180: quote a field with a comma, quote or line break in it */
void lm_csv_str(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/*
 * The percentile cells: a number or empty; then, in as many cells, 1 for
 * a number that is only the lower bound of the open last bucket, 0 for an
 * estimate, empty for none (the numbers stay numbers)
 */
static void lm_csv_pcts(FILE *f, const struct lm_row *r, const struct lm_ctx *c)
{
	enum lm_pct_res res[LM_NR_HIST][LM_NR_PCT];
	double ns;
	int k, p;

	for (k = 0; c->nr_buckets && k < LM_NR_HIST; k++) {
		for (p = 0; p < LM_NR_PCT; p++) {
			res[k][p] = lm_row_pct(r, c, k, p, &ns);
			if (res[k][p] == LM_PCT_NONE)
				fputc(',', f);
			else
				fprintf(f, ",%.0f", ns);
		}
	}
	for (k = 0; c->nr_buckets && k < LM_NR_HIST; k++)
		for (p = 0; p < LM_NR_PCT; p++)
			fputs(res[k][p] == LM_PCT_NONE ? "," : res[k][p] == LM_PCT_GE ? ",1" : ",0", f);
}

static void lm_csv_row(FILE *f, const char *kind, uint32_t type, const char *lock,
		       const char *site, const struct lm_row *r, const struct lm_ctx *c)
{
	char num[24];
	size_t i;

	fprintf(f, "%s,%s,", kind, lm_type_name(type));
	lm_csv_str(f, lock);
	fputc(',', f);
	lm_csv_str(f, site ? site : "");
	for (i = 0; i < LM_NR_FIELDS; i++) {
		num[0] = ',';
		lm_u64_str(num + 1, r->v[i]);
		fputs(num, f);
	}
	for (i = 0; i < ARRAY_SIZE(lm_derived); i++) {
		fputc(',', f);
		fprintf(f, lm_derived[i].fmt, lm_derived[i].val(r, c));
	}
	fprintf(f, ",%.0f,%.0f", c->elapsed_ns, c->cpus);
	lm_csv_pcts(f, r, c);
	fputc('\n', f);
}

void lm_csv_print(FILE *f, const struct lm_view *v)
{
	size_t i, j;
	int t;

	fputs("kind,type,lock,site", f);
	for (i = 0; i < LM_NR_FIELDS; i++)
		fprintf(f, ",%s", lm_field_names[i]);
	for (i = 0; i < ARRAY_SIZE(lm_derived); i++)
		fprintf(f, ",%s", lm_derived[i].name);
	fputs(",metered_ns,cpus", f);
	for (t = 0; v->ctx.nr_buckets && t < LM_NR_HIST; t++)
		for (i = 0; i < LM_NR_PCT; i++)
			fprintf(f, ",%s_%s_ns", lm_hist_names[t], lm_pcts[i].json);
	for (t = 0; v->ctx.nr_buckets && t < LM_NR_HIST; t++)
		for (i = 0; i < LM_NR_PCT; i++)
			fprintf(f, ",%s_%s_ge", lm_hist_names[t], lm_pcts[i].json);
	fputc('\n', f);
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const struct lm_section *sec = &v->sec[t];

		if (!sec->nr_rows)
			continue;
		lm_csv_row(f, "total", t, "*TOTAL*", NULL, &sec->total, &v->ctx);
		for (i = 0; i < sec->nr_locks; i++) {
			const struct lm_lock *lk = &sec->locks[i];

			lm_csv_row(f, "lock", t, lk->agg.lock, lk->agg.site, &lk->agg, &v->ctx);
			for (j = 0; j < lk->nr_sites; j++)
				lm_csv_row(f, "site", t, lk->agg.lock, lk->sites[j]->site,
					   lk->sites[j], &v->ctx);
		}
	}
}

/*
 * A frame as a flame graph names it: "func+0xoff/0xsize [mod]" is
 * "func [mod]" (one box per function, wherever in it the call was), and
 * nothing in it may be taken for the separators (';', a line break) or be
 * unprintable.
 */
static void lm_folded_char(FILE *f, char c)
{
	fputc(c >= ' ' && c < 0x7f && c != ';' ? c : '?', f);
}

static void lm_folded_frame(FILE *f, const char *frame)
{
	const char *plus = strstr(frame, "+0x");
	const char *skip = plus && plus > frame ? plus + strcspn(plus, " [") : NULL;

	for (; *frame; frame++) {
		if (frame == plus && skip)
			frame = skip;
		if (!*frame)
			break;
		lm_folded_char(f, *frame);
	}
}

/*
 * the root frame: the lock's type and name as they are, offset and module
 * too; a [heap] lock, which has no name, as the table names it: "[heap]
 * site", so that two heap locks' chains do not merge either
 */
static void lm_folded_lock(FILE *f, const struct lm_row *r)
{
	char site[1024];
	const char *s;

	fprintf(f, "%s ", lm_type_name(r->type));
	for (s = r->lock; *s; s++)
		lm_folded_char(f, *s);
	if (r->class == LM_CLASS_HEAP && r->site) {
		lm_site_short(site, sizeof(site), r->site);
		fputc(' ', f);
		for (s = site; *s; s++)
			lm_folded_char(f, *s);
	}
	fputc(';', f);
}

/* 1: a line printed; 0: the row has no hold chain */
static int lm_folded_row(FILE *f, const struct lm_row *r)
{
	const struct lm_evidence *ev = r->ev[LM_EV_HOLD];
	char num[24];
	uint32_t i;

	if (!ev || !ev->nr_frames)
		return 0;
	lm_folded_lock(f, r);
	for (i = ev->nr_frames; i-- > 0;) {
		lm_folded_frame(f, ev->frame[i]);
		if (i)
			fputc(';', f);
	}
	lm_u64_str(num, r->v[LM_F_HOLD_TOTAL]);
	fprintf(f, " %s\n", num);
	return 1;
}

/*
 * Only the worst hold's chain of a row is known: the graph shows where
 * long holds were released, each chain weighted by its whole row's hold
 * time.  Rows come in the order, and after the filters, of the table.
 * The lines printed are counted.
 */
size_t lm_folded_print(FILE *f, const struct lm_view *v)
{
	size_t i, j, n = 0;
	int t;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const struct lm_section *sec = &v->sec[t];

		for (i = 0; i < sec->nr_locks; i++) {
			const struct lm_lock *lk = &sec->locks[i];

			for (j = 0; j < lk->nr_sites; j++)
				n += lm_folded_row(f, lk->sites[j]);
		}
	}
	return n;
}
