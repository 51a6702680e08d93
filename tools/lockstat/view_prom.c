// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: a snapshot in the Prometheus text exposition format (0.0.4),
 * for node_exporter's textfile collector and PCP's pmdaopenmetrics.
 *
 * One series per (type, lock, site) label set, the site a function name
 * unless exact sites are asked for: "lmt_hold+0x2a/0x60[test_lockmeter]"
 * is "lmt_hold[test_lockmeter]", and the rows that become one label set
 * are merged (lm_row_add()).  The label sets with the most hold time are
 * kept, max_series of them; the others are summed per type into
 * lock="other",site="other", so that the number of series is bounded
 * whatever the kernel meters.  An overflow row is lock="*overflow*",
 * site="*overflow*" whichever longest hold names it.  Times are seconds (ns / 1e9, printed
 * exactly), counts and totals are counters ("_total"), the maxima since
 * the last reset gauges.  The header's state, metered time, resets and
 * loss counters are series of their own.
 *
 * Each metric is a line of lm_prom_row_metrics[].  The kernel's hold and
 * wait histograms are not exported yet: they would be one more kind
 * there, with its own printer, named lockmeter_hold_duration_seconds and
 * lockmeter_wait_duration_seconds.  Nothing here does I/O but to the FILE.
 */
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "view_prom.h"

enum lm_prom_kind {
	LM_PROM_COUNTER,
	LM_PROM_GAUGE,
};

/* values of a row that are no field of their own */
#define LM_PROM_F_CONTENDED	LM_NR_FIELDS
#define LM_PROM_F_ALERTS	(LM_NR_FIELDS + 1)	/* rows with has_alerts only */
#define LM_PROM_F_ALERTS_DROPPED	(LM_NR_FIELDS + 2)	/* the same */

static const struct lm_prom_metric {
	const char *name;
	enum lm_prom_kind kind;
	int field;		/* LM_F_*, or LM_PROM_F_CONTENDED */
	bool ns;		/* ns, printed as seconds */
	bool sleeping;		/* only the sleeping lock types have it */
	const char *help;
} lm_prom_row_metrics[] = {
	{ "lockmeter_acquisitions_total", LM_PROM_COUNTER, LM_F_ACQUIRED, false, false,
	  "Acquisitions (at once or after a wait) since the last reset." },
	{ "lockmeter_contended_total", LM_PROM_COUNTER, LM_PROM_F_CONTENDED, false, false,
	  "Attempts not satisfied at once: waits (spin) plus failed trylocks (rejected)." },
	{ "lockmeter_rejected_total", LM_PROM_COUNTER, LM_F_REJECT, false, false,
	  "Failed trylocks." },
	{ "lockmeter_alerts_total", LM_PROM_COUNTER, LM_PROM_F_ALERTS, false, false,
	  "Holds and waits over a lockstat watch threshold." },
	{ "lockmeter_alerts_lost_total", LM_PROM_COUNTER, LM_PROM_F_ALERTS_DROPPED, false, false,
	  "Of those, alerts their CPU dropped: its queue of alerts to send was full." },
	{ "lockmeter_aborted_total", LM_PROM_COUNTER, LM_F_ABORT, false, true,
	  "Sleeping waits ended by a signal or a timeout." },
	{ "lockmeter_hold_seconds_total", LM_PROM_COUNTER, LM_F_HOLD_TOTAL, true, false,
	  "Time the lock was held, summed over acquisitions." },
	{ "lockmeter_wait_seconds_total", LM_PROM_COUNTER, LM_F_WAIT_TOTAL, true, false,
	  "Time spent waiting for the lock, summed over the waits." },
	{ "lockmeter_hold_oncpu_seconds_total", LM_PROM_COUNTER, LM_F_ONCPU_TOTAL, true, true,
	  "Hold time the holder spent on a CPU." },
	{ "lockmeter_hold_blocked_seconds_total", LM_PROM_COUNTER, LM_F_BLOCKED_TOTAL, true,
	  true, "Hold time the holder spent blocked (off CPU)." },
	{ "lockmeter_hold_max_seconds", LM_PROM_GAUGE, LM_F_HOLD_MAX, true, false,
	  "Longest single hold since the last reset." },
	{ "lockmeter_wait_max_seconds", LM_PROM_GAUGE, LM_F_WAIT_MAX, true, false,
	  "Longest single wait since the last reset." },
	{ "lockmeter_hold_oncpu_max_seconds", LM_PROM_GAUGE, LM_F_ONCPU_MAX, true, true,
	  "Longest on-CPU part of one hold since the last reset." },
	{ "lockmeter_hold_blocked_max_seconds", LM_PROM_GAUGE, LM_F_BLOCKED_MAX, true, true,
	  "Longest blocked part of one hold since the last reset." },
};

/* the header's alert counters */
static const struct {
	const char *name;
	int bit;		/* enum lm_hdr_bit */
	const char *help;
} lm_prom_alerts[] = {
	{ "lockmeter_alerts_raised_total", LM_H_ALERTS,
	  "Holds and waits over a lockstat watch threshold, and sleeping locks held over one." },
	{ "lockmeter_alerts_sent_total", LM_H_ALERTS_SENT,
	  "Alerts sent to the lockmeter alerts netlink group." },
	{ "lockmeter_alerts_dropped_total", LM_H_ALERTS_DROPPED,
	  "Alerts not sent: queue full, rate limit, no memory or no listener." },
};

static const char *const lm_prom_kinds[] = {
	[LM_PROM_COUNTER] = "counter",
	[LM_PROM_GAUGE] = "gauge",
};

/* "S.NNNNNNNNN" without trailing zeros; "0" for 0: exact, no double */
void lm_prom_seconds(char *buf, size_t len, uint64_t ns)
{
	size_t n;

	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000));
	n = strlen(buf);
	while (n && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* a label value: backslash, double quote and line feed escaped */
void lm_prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static int lm_prom_cmp_labels(const struct lm_row *a, const struct lm_row *b)
{
	int c = (a->type > b->type) - (a->type < b->type);

	if (!c)
		c = strcmp(a->lock, b->lock);
	return c ? c : strcmp(a->site, b->site);
}

static int lm_prom_by_labels(const void *pa, const void *pb)
{
	return lm_prom_cmp_labels(pa, pb);
}

/* most hold time first; equal ones by their labels, for a stable output */
static int lm_prom_by_hold(const void *pa, const void *pb)
{
	const struct lm_row *a = pa, *b = pb;
	uint64_t ha = a->v[LM_F_HOLD_TOTAL], hb = b->v[LM_F_HOLD_TOTAL];

	if (ha != hb)
		return ha > hb ? -1 : 1;
	return lm_prom_cmp_labels(a, b);
}

static bool lm_prom_is_other(const struct lm_row *r)
{
	return !strcmp(r->lock, LM_PROM_OTHER) && !strcmp(r->site, LM_PROM_OTHER);
}

/* the rows of @s with their label values, equal label sets merged: the count */
static size_t lm_prom_rows(struct lm_prom *p, const struct lm_snapshot *s, bool exact_sites)
{
	size_t i, n = 0, off = 0;

	for (i = 0; i < s->nr; i++) {
		const struct lm_row *r = &s->rows[i];
		struct lm_row *w;

		if (r->type <= LM_TYPE_NONE || r->type >= LM_NR_TYPES)
			continue;
		w = &p->series[n++];
		*w = *r;
		/*
		 * An overflow row's name follows its longest hold: its series
		 * keep one label set per type, or every new worst hold would
		 * start a new series and break the counters' rates.
		 */
		if (r->class == LM_CLASS_OVERFLOW) {
			w->lock = LM_OVERFLOW_NAME;
			w->site = LM_OVERFLOW_NAME;
			continue;
		}
		if (exact_sites)
			continue;
		/* a function name is never longer than its site */
		lm_site_func(p->sites + off, strlen(r->site) + 1, r->site);
		w->site = p->sites + off;
		off += strlen(w->site) + 1;
	}
	if (!n)
		return 0;
	qsort(p->series, n, sizeof(p->series[0]), lm_prom_by_labels);
	for (i = 1, off = 0; i < n; i++) {
		if (!lm_prom_cmp_labels(&p->series[off], &p->series[i]))
			lm_row_add(&p->series[off], &p->series[i]);
		else
			p->series[++off] = p->series[i];
	}
	return off + 1;
}

int lm_prom_build(struct lm_prom *p, const struct lm_snapshot *s, size_t max_series,
		  bool exact_sites)
{
	struct lm_row other[LM_NR_TYPES];
	size_t i, n, kept = 0, sites = 1;
	int t;

	memset(p, 0, sizeof(*p));
	p->h = &s->h;
	p->rows = s->nr;
	for (i = 0; i < s->nr; i++)
		sites += strlen(s->rows[i].site) + 1;
	/* room for the roll-ups behind the rows */
	p->series = malloc((s->nr + LM_NR_TYPES) * sizeof(*p->series));
	p->sites = malloc(sites);
	if (!p->series || !p->sites) {
		lm_prom_free(p);
		return -1;
	}
	n = lm_prom_rows(p, s, exact_sites);
	qsort(p->series, n, sizeof(p->series[0]), lm_prom_by_hold);
	memset(other, 0, sizeof(other));
	for (i = 0; i < n; i++) {
		struct lm_row *r = &p->series[i];

		if (kept < max_series && !lm_prom_is_other(r)) {
			p->series[kept++] = *r;
			continue;
		}
		lm_row_add(&other[r->type], r);
		other[r->type].type = r->type;
		p->other_rows++;
	}
	p->nr = kept;
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!other[t].type)
			continue;
		other[t].lock = LM_PROM_OTHER;
		other[t].site = LM_PROM_OTHER;
		p->series[p->nr++] = other[t];
	}
	return 0;
}

void lm_prom_free(struct lm_prom *p)
{
	free(p->series);
	free(p->sites);
	p->series = NULL;
	p->sites = NULL;
	p->nr = 0;
}

static void lm_prom_family(FILE *f, const char *name, enum lm_prom_kind kind, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, lm_prom_kinds[kind]);
}

static void lm_prom_u64(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

static void lm_prom_header(FILE *f, const struct lm_prom *p)
{
	const struct lm_header *h = p->h;
	struct lm_key_use ku;
	bool named;
	char num[32];
	int i;

	if (lm_has(h, LM_H_STATE)) {
		lm_prom_family(f, "lockmeter_metering", LM_PROM_GAUGE,
			       "1 while lockmeter meters, 0 when it is off (the numbers stay).");
		lm_prom_u64(f, "lockmeter_metering", h->on);
	}
	if (lm_has(h, LM_H_METERED_NS)) {
		lm_prom_family(f, "lockmeter_metered_seconds_total", LM_PROM_COUNTER,
			       "Time metering was on since the last reset: the denominator of utilization.");
		lm_prom_seconds(num, sizeof(num), h->metered_ns);
		fprintf(f, "lockmeter_metered_seconds_total %s\n", num);
	}
	if (lm_has(h, LM_H_RESETS)) {
		lm_prom_family(f, "lockmeter_resets_total", LM_PROM_COUNTER,
			       "Resets of the statistics since boot.");
		lm_prom_u64(f, "lockmeter_resets_total", h->resets);
	}
	if (lm_has(h, LM_H_CPUS)) {
		lm_prom_family(f, "lockmeter_cpus", LM_PROM_GAUGE, "CPUs whose tables are merged.");
		lm_prom_u64(f, "lockmeter_cpus", h->cpus);
	}
	if (lm_hdr_key_use(h, &ku)) {
		lm_prom_family(f, "lockmeter_keys_used", LM_PROM_GAUGE,
			       "Distinct (lock, site, type) keys in the kernel's key directory, all CPUs together "
			       "(a kernel of per-CPU tables: those of the fullest CPU).");
		lm_prom_u64(f, "lockmeter_keys_used", ku.used);
		lm_prom_family(f, "lockmeter_keys", LM_PROM_GAUGE,
			       "Keys the directory can hold; events of more keys count in the overflow rows "
			       "(a kernel of per-CPU tables: one CPU's table).");
		lm_prom_u64(f, "lockmeter_keys", ku.size);
	}
	/* the names before the key directory, which lockstat(8) promised */
	if (lm_has(h, LM_H_SLOTS_USED)) {
		lm_prom_family(f, "lockmeter_slots_used", LM_PROM_GAUGE,
			       "Deprecated: lockmeter_keys_used under its older name.");
		lm_prom_u64(f, "lockmeter_slots_used", h->slots_used);
	}
	if (lm_has(h, LM_H_SLOTS_PER_CPU)) {
		lm_prom_family(f, "lockmeter_slots_per_cpu", LM_PROM_GAUGE,
			       "Deprecated: lockmeter_keys under its older name.");
		lm_prom_u64(f, "lockmeter_slots_per_cpu", h->slots_per_cpu);
	}
	for (i = 0, named = false; i < LM_NR_LOSSES; i++) {
		if (i == LM_L_TRUNCATED || !lm_has(h, LM_H_LOSS + i))
			continue;
		if (!named)
			lm_prom_family(f, "lockmeter_losses_total", LM_PROM_COUNTER,
				       "Events lockmeter could not meter or attribute, by kind (see lockstat(8)).");
		named = true;
		fprintf(f, "lockmeter_losses_total{kind=\"%s\"} %llu\n", lm_loss_names[i],
			(unsigned long long)h->loss[i]);
	}
	for (i = 0; i < (int)ARRAY_SIZE(lm_prom_alerts); i++) {
		if (!lm_has(h, lm_prom_alerts[i].bit))
			continue;
		lm_prom_family(f, lm_prom_alerts[i].name, LM_PROM_COUNTER, lm_prom_alerts[i].help);
		lm_prom_u64(f, lm_prom_alerts[i].name,
			    *(const uint64_t *)((const char *)h + lm_hdr_keys[lm_prom_alerts[i].bit].off));
	}
	if (lm_has(h, LM_H_LOSS + LM_L_TRUNCATED)) {
		lm_prom_family(f, "lockmeter_snapshot_truncated_rows", LM_PROM_GAUGE,
			       "Rows left out of this snapshot: claimed faster than the kernel copied them.");
		lm_prom_u64(f, "lockmeter_snapshot_truncated_rows", h->loss[LM_L_TRUNCATED]);
	}
	if (lm_has(h, LM_H_END)) {
		lm_prom_family(f, "lockmeter_snapshot_timestamp_seconds", LM_PROM_GAUGE,
			       "Wall-clock time of the snapshot (Unix seconds).");
		fprintf(f, "lockmeter_snapshot_timestamp_seconds %lld.%09ld\n",
			(long long)h->end.tv_sec, h->end.tv_nsec);
	}
	lm_prom_family(f, "lockmeter_rows", LM_PROM_GAUGE,
		       "Rows (type, lock, call site) in the snapshot.");
	lm_prom_u64(f, "lockmeter_rows", p->rows);
	lm_prom_family(f, "lockmeter_export_other_rows", LM_PROM_GAUGE,
		       "Label sets summed into lock=\"other\" beyond --max-series.");
	lm_prom_u64(f, "lockmeter_export_other_rows", p->other_rows);
}

static uint64_t lm_prom_value(const struct lm_row *r, int field)
{
	if (field == LM_PROM_F_ALERTS)
		return r->alerts;
	if (field == LM_PROM_F_ALERTS_DROPPED)
		return r->alerts_dropped;
	return field == LM_PROM_F_CONTENDED ? lm_row_contended(r) : r->v[field];
}

static void lm_prom_sample(FILE *f, const struct lm_prom_metric *m, const struct lm_row *r)
{
	uint64_t v = lm_prom_value(r, m->field);
	char num[32];

	fprintf(f, "%s{type=\"%s\",lock=\"", m->name, lm_type_name(r->type));
	lm_prom_label(f, r->lock);
	fputs("\",site=\"", f);
	lm_prom_label(f, r->site);
	if (m->ns)
		lm_prom_seconds(num, sizeof(num), v);
	else
		lm_u64_str(num, v);
	fprintf(f, "\"} %s\n", num);
}

int lm_prom_print(FILE *f, const struct lm_prom *p)
{
	size_t i, k;

	lm_prom_header(f, p);
	for (k = 0; k < ARRAY_SIZE(lm_prom_row_metrics); k++) {
		const struct lm_prom_metric *m = &lm_prom_row_metrics[k];
		bool named = false;

		for (i = 0; i < p->nr; i++) {
			const struct lm_row *r = &p->series[i];

			if (m->sleeping && !lm_type_sleeping(r->type))
				continue;
			if ((m->field == LM_PROM_F_ALERTS || m->field == LM_PROM_F_ALERTS_DROPPED) &&
			    !r->has_alerts)
				continue;
			if (!named)
				lm_prom_family(f, m->name, m->kind, m->help);
			named = true;
			lm_prom_sample(f, m, r);
		}
	}
	return ferror(f) ? -1 : 0;
}
