// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat top: what both renderers of a frame share (its columns, cells,
 * summary and loss lines), and batch mode (-b), which prints each frame
 * to a stream: as text, the screen's table without the screen, or as one
 * JSON object per line with raw counts and ns for scripts.
 *
 * A row is one interval's delta (lm_snap_delta()): counts, totals, means
 * and rates are the interval's; HMAX and WMAX are the longest since the
 * row appeared, which is the interval's own when ->fresh says so, and so
 * is HOLDER, the comm of the task that made HMAX.  HP99 is the p99 of the
 * interval's holds, from the histograms' difference ("-" without them).
 *
 * JSON, one line per frame:
 *   { "frame": N, "since_start": bool, "time": { "sec": S, "nsec": N },
 *     "interval_ns": metered ns of the interval, "wall_s": s,
 *     "metered_ns": since reset, "state": "on", "cpus": N, "cpu": N|null,
 *     "source": "netlink", "sort": { "key", "reverse" },
 *     "group": "lock", "site" or "tree",
 *     "losses": { name: total }, "losses_new": { name: in the interval },
 *     "rows_active": N, "total": null or { "rows": N, the 16 numbers, "rate",
 *       "hold_mean_ns" ... "wait_cpu_pct" of the frame's rows added up
 *       (the tree's: of its locks, N of them) },
 *     "rows": [ { "type", "lock", "class", ["site"],
 *       the 16 numbers ("hold_min_ns", "wait_min_ns" null when the
 *       interval cannot tell: it had holds, waits, none shorter than
 *       before), "rate": acquisitions/s, "hold_mean_ns", "wait_mean_ns",
 *       "util_pct", "con_pct", "wait_cpu_pct" (as report --json),
 *       "hold_max_new", "wait_max_new", and the evidence of
 *       the maxima as report --json has it: of the interval when *_new;
 *       the interval's percentiles and histograms as report --json has
 *       them; in the tree, a lock's "sites": [ rows of its sites ] } ] }
 */
#include <string.h>
#include <time.h>

#include "lockstat.h"
#include "top.h"
#include "view.h"

const enum lm_key_id lm_top_cols[] = {
	LM_K_RATE, LM_K_UTIL, LM_K_CON, LM_K_MEANHOLD, LM_K_MAXHOLD,
	LM_K_MEANWAIT, LM_K_MAXWAIT, LM_K_WAITCPU, LM_K_P99HOLD, LM_K_HOLDER, LM_K_TYPE, LM_K_NAME,
};
const unsigned int lm_top_nr_cols = ARRAY_SIZE(lm_top_cols);

const char *lm_top_header(enum lm_key_id k)
{
	switch (k) {
	case LM_K_MEANHOLD:
		return "HMEAN";
	case LM_K_MAXHOLD:
		return "HMAX";
	case LM_K_MEANWAIT:
		return "WMEAN";
	case LM_K_MAXWAIT:
		return "WMAX";
	case LM_K_WAITCPU:
		return "%CPU";
	default:
		return lm_keys[k].header;
	}
}

/* the length of @lock without the "[module]" that ends @site too */
static int lm_lock_len(const char *lock, const char *site)
{
	const char *mod = strrchr(lock, '[');
	size_t n = strlen(lock), m, k;

	if (!mod || lock[n - 1] != ']')
		return (int)n;
	m = n - (size_t)(mod - lock);
	k = strlen(site);
	if (k > m && !strcmp(site + k - m, mod))
		return (int)(mod - lock);
	return (int)n;
}

void lm_top_cell(char *buf, size_t len, enum lm_key_id k, const struct lm_row *r,
		 const struct lm_top_frame *f)
{
	char site[256];

	if (k != LM_K_NAME || !r->site) {
		lm_keys[k].print(buf, len, r, &f->ctx);
		return;
	}
	/* "lmt_lock[mod] lmt_take+0x1e[mod]" says the module once: at the site */
	lm_site_short(site, sizeof(site), r->site);
	snprintf(buf, len, "%.*s %s", lm_lock_len(r->lock, site), r->lock, site);
}

int lm_top_line(const struct lm_top_frame *f, size_t i)
{
	return f->line && i < f->nr ? f->line[i] : LM_TOP_FLAT;
}

void lm_top_name(char *buf, size_t len, const struct lm_top_frame *f, size_t i)
{
	if (lm_tree_site(lm_top_line(f, i)))
		lm_site_short(buf, len, f->rows[i]->site);
	else
		lm_top_cell(buf, len, LM_K_NAME, f->rows[i], f);
}

const char *lm_top_glyphs(int line, bool utf8)
{
	switch (line) {
	case LM_TL_LOCK:
		return "- ";
	case LM_TL_FOLDED:
		return "+ ";
	case LM_TL_ALONE:
		return "  ";
	case LM_TL_SITE:
		return utf8 ? "  \u251c\u2500 " : "  |- ";
	case LM_TL_SITE_LAST:
		return utf8 ? "  \u2514\u2500 " : "  `- ";
	default:
		return "";
	}
}

static double lm_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

void lm_top_summary(char *buf, size_t len, const struct lm_top_frame *f,
		    const struct lm_top_state *st)
{
	const struct lm_header *h = f->h;
	char clock[16] = "", cpus[40], span[64], keys[48] = "";
	struct lm_key_use ku;
	struct tm tm;

	if (lm_has(h, LM_H_END) && localtime_r(&h->end.tv_sec, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S ", &tm);
	if (st->cpu >= 0)
		snprintf(cpus, sizeof(cpus), "cpu %d of %u", st->cpu, h->cpus);
	else
		snprintf(cpus, sizeof(cpus), "%u cpus", h->cpus);
	if (f->since_start)
		snprintf(span, sizeof(span), "since start");
	else
		snprintf(span, sizeof(span), "interval %.2fs", f->wall_s);
	/* per CPU on an older kernel: the table header and status say so */
	if (lm_hdr_key_use(h, &ku))
		snprintf(keys, sizeof(keys), "  keys %u/%u", ku.used, ku.size);
	/* what matters most first: narrow screens cut the end */
	snprintf(buf, len, "lockstat top - %s%s%smetering %s  %s  %s, metered %.2fs of %.1fs%s  %s",
		 clock, st->paused ? "PAUSED " : "", f->replay_end ? "[end] " : "",
		 lm_has(h, LM_H_STATE) ? (h->on ? "on" : "off") : "?", cpus, span,
		 lm_secs((uint64_t)f->ctx.elapsed_ns), lm_secs(f->metered_ns), keys,
		 f->origin ? f->origin : "");
}

void lm_top_losses(char *buf, size_t len, const struct lm_top_frame *f)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < LM_NR_LOSSES; i++) {
		int k;

		if (!lm_has(f->h, LM_H_LOSS + i) || !f->h->loss[i])
			continue;
		k = snprintf(buf + n, len - n, "%s%s %llu (+%llu)", n ? "  " : "LOST: ",
			     lm_loss_names[i], (unsigned long long)f->h->loss[i],
			     (unsigned long long)f->loss_new[i]);
		if (k < 0 || (size_t)k >= len - n)
			return;
		n += k;
	}
}

int lm_top_width(enum lm_key_id k)
{
	int w = (int)strlen(lm_top_header(k));

	return lm_keys[k].width > w ? lm_keys[k].width : w;
}

bool lm_top_left(enum lm_key_id k)
{
	return k == LM_K_HOLDER || k == LM_K_TYPE || k == LM_K_NAME;
}

/* the narrow TYPE: the short names' columns */
#define LM_TYPE_NARROW_W	LM_TYPE_SHORT_MAX

int lm_top_col_width(enum lm_key_id k, const struct lm_top_layout *lo)
{
	return k == LM_K_TYPE && lo->narrow ? LM_TYPE_NARROW_W : lm_top_width(k);
}

void lm_top_type_cell(char *cell, size_t len, const struct lm_row *r,
		      const struct lm_top_layout *lo)
{
	if (r->type == LM_TYPE_NONE)
		snprintf(cell, len, "%s", LM_TOP_TOTAL_TYPE);
	else
		snprintf(cell, len, "%s", lm_type_fit(r->type, lm_top_col_width(LM_K_TYPE, lo)));
}

/* HP99 and HOLDER only where NAME keeps the room of a lock and its site */
static bool lm_top_wide_col(enum lm_key_id k, int width)
{
	if (width <= 0)
		return true;
	if (k == LM_K_P99HOLD)
		return width >= LM_HP99_MIN_COLS;
	return k != LM_K_HOLDER || width >= LM_HOLDER_MIN_COLS;
}

void lm_top_layout(struct lm_top_layout *lo, int width, const struct lm_key *sort)
{
	enum lm_key_id cols[LM_TOP_MAX_COLS];
	bool show[LM_TOP_MAX_COLS];
	int w[LM_TOP_MAX_COLS], used;
	unsigned int c, idx[LM_TOP_MAX_COLS];
	size_t i, n = 0;

	lo->narrow = width > 0 && width < LM_TOP_NARROW;
	for (c = 0; c < lm_top_nr_cols && c < LM_TOP_MAX_COLS; c++) {
		enum lm_key_id k = lm_top_cols[c];

		lo->show[c] = lm_top_wide_col(k, width);
		if (!lo->show[c] || k == LM_K_NAME)
			continue;
		cols[n] = k;
		w[n] = lm_top_col_width(k, lo) + 1;
		idx[n++] = c;
	}
	used = lm_cols_fit(cols, w, n, width, LM_TOP_NAME_MIN, sort, show);
	for (i = 0; i < n; i++)
		lo->show[idx[i]] = show[i];
	lo->name_w = width > 0 ? width - used : 0;
}

/* the rows of a frame that --top leaves (the tree's: lm_flat_build() cut it) */
static size_t lm_batch_rows(const struct lm_top_frame *f, size_t top)
{
	return top && !f->line && f->nr > top ? top : f->nr;
}

/* the bytes of the first @cols columns of @s: a UTF-8 character (a glyph) is one */
static int lm_cols_bytes(const char *s, int cols)
{
	const char *p = s;

	for (; *p && cols > 0; cols--)
		for (p++; (*p & 0xc0) == 0x80; p++)
			;
	return (int)(p - s);
}

/* @s and a line break; cut, a '>' in its last column, when wider than @width (0: no limit) */
static void lm_batch_line(FILE *out, const char *s, int width)
{
	if (width > 0 && s[lm_cols_bytes(s, width)])
		fprintf(out, "%.*s>\n", lm_cols_bytes(s, width - 1), s);
	else
		fprintf(out, "%s\n", s);
}

/*
 * A line of fields two blanks apart (the summary, the losses) at @width:
 * broken between fields, never inside one, continued two columns in
 */
static void lm_batch_fields(FILE *out, const char *s, int width)
{
	int at = 0, n;

	while (*s) {
		n = (int)strcspn(s, " ");
		while (s[n] == ' ' && s[n + 1] && s[n + 1] != ' ')
			n += 1 + (int)strcspn(s + n + 1, " ");
		if (at && width > 0 && at + 2 + n > width)
			at = fprintf(out, "\n  ") - 1;
		else if (at)
			at += fprintf(out, "  ");
		at += fprintf(out, "%.*s", n, s);
		s += n + strspn(s + n, " ");
	}
	fputc('\n', out);
}

/* row @i of the table, its tree's glyphs before NAME; @i == f->nr: the total line */
static void lm_batch_row(FILE *out, size_t i, const struct lm_top_frame *f,
			 const struct lm_top_layout *lo, bool utf8)
{
	const struct lm_row *r = i < f->nr ? f->rows[i] : &f->total;
	char cell[512], name[480];
	unsigned int c;

	for (c = 0; c < lm_top_nr_cols; c++) {
		enum lm_key_id k = lm_top_cols[c];

		if (!lo->show[c])
			continue;
		lm_top_cell(cell, sizeof(cell), k, r, f);
		if (k == LM_K_TYPE)
			lm_top_type_cell(cell, sizeof(cell), r, lo);
		if (k == LM_K_NAME && i < f->nr) {
			lm_top_name(name, sizeof(name), f, i);
			snprintf(cell, sizeof(cell), "%s%s", lm_top_glyphs(lm_top_line(f, i), utf8),
				 name);
		}
		if (k == LM_K_NAME)
			lm_batch_line(out, cell, lo->name_w);
		else
			fprintf(out, lm_top_left(k) ? "%-*s " : "%*s ", lm_top_col_width(k, lo), cell);
	}
}

void lm_batch_text(FILE *out, const struct lm_top_frame *f, const struct lm_top_state *st,
		   size_t top)
{
	int width = lm_out_width(st->filter.width);
	struct lm_top_layout lo;
	char line[512];
	unsigned int c;
	size_t i, n = lm_batch_rows(f, top);

	lm_top_layout(&lo, width, st->filter.key);
	lm_top_summary(line, sizeof(line), f, st);
	lm_batch_fields(out, line, width);
	lm_top_losses(line, sizeof(line), f);
	if (*line)
		lm_batch_fields(out, line, width);
	fputc('\n', out);
	for (c = 0; c < lm_top_nr_cols; c++) {
		enum lm_key_id k = lm_top_cols[c];

		if (!lo.show[c])
			continue;
		if (k == LM_K_NAME)
			lm_batch_line(out, lm_top_header(k), lo.name_w);
		else
			fprintf(out, lm_top_left(k) ? "%-*s " : "%*s ", lm_top_col_width(k, &lo),
				lm_top_header(k));
	}
	for (i = 0; i < n; i++)
		lm_batch_row(out, i, f, &lo, st->utf8);
	/* of all the frame's rows, --top or not */
	if (f->nr)
		lm_batch_row(out, f->nr, f, &lo, st->utf8);
	if (!f->nr)
		fprintf(out, "%s\n", f->nr_active ? "(no rows match the filters)" :
			lm_has(f->h, LM_H_STATE) && !f->h->on ?
			"(no lock activity: metering is off)" : "(no lock activity)");
	fputc('\n', out);
	fflush(out);
	lm_write_errno(out);
}

/*
 * Row @i of @f; a lock of the tree takes its sites along, as "sites": [ rows ].
 * Returns the index of the next row.
 */
static size_t lm_batch_json_row(FILE *out, const struct lm_top_frame *f, size_t i)
{
	const struct lm_row *r = f->rows[i];
	const struct lm_ctx *c = &f->ctx;
	const uint64_t *v = r->v;
	size_t k = i + 1;

	fprintf(out, "{ \"type\": \"%s\", \"lock\": ", lm_type_name(r->type));
	lm_json_str(out, r->lock);
	fprintf(out, ", \"class\": \"%s\"", lm_class_name(r->class));
	if (r->site) {
		fputs(", \"site\": ", out);
		lm_json_str(out, r->site);
	}
	lm_json_fields(out, r);
	fprintf(out, ", \"rate\": %.3f",
		c->elapsed_ns > 0 ? 1e9 * (double)v[LM_F_ACQUIRED] / c->elapsed_ns : 0);
	lm_json_derived(out, r, c);
	fprintf(out, ", \"hold_max_new\": %s, \"wait_max_new\": %s",
		r->fresh & (1U << LM_F_HOLD_MAX) ? "true" : "false",
		r->fresh & (1U << LM_F_WAIT_MAX) ? "true" : "false");
	lm_json_hist(out, r, c);
	lm_json_evidence(out, r);
	if (lm_top_line(f, i) == LM_TL_LOCK) {
		fputs(", \"sites\": [", out);
		while (lm_tree_site(lm_top_line(f, k))) {
			fputs(k > i + 1 ? ", " : " ", out);
			k = lm_batch_json_row(out, f, k);
		}
		fputs(" ]", out);
	}
	fputs(" }", out);
	return k;
}

static void lm_batch_json_losses(FILE *out, const char *name, const struct lm_header *h,
				 const uint64_t *loss)
{
	const char *sep = "";
	int i;

	fprintf(out, ", \"%s\": {", name);
	for (i = 0; i < LM_NR_LOSSES; i++) {
		if (!lm_has(h, LM_H_LOSS + i))
			continue;
		fprintf(out, "%s \"%s\": %llu", sep, lm_loss_names[i], (unsigned long long)loss[i]);
		sep = ",";
	}
	fputs(" }", out);
}

void lm_batch_json(FILE *out, const struct lm_top_frame *f, const struct lm_top_state *st,
		   size_t top)
{
	const struct lm_header *h = f->h;
	size_t i, n = lm_batch_rows(f, top);

	fprintf(out, "{ \"frame\": %lu, \"since_start\": %s", f->seq,
		f->since_start ? "true" : "false");
	if (lm_has(h, LM_H_END)) {
		fputs(", \"time\": ", out);
		lm_json_time(out, &h->end);
	}
	fprintf(out, ", \"interval_ns\": %.0f, \"wall_s\": %.6f, \"metered_ns\": %llu",
		f->ctx.elapsed_ns, f->wall_s, (unsigned long long)f->metered_ns);
	if (lm_has(h, LM_H_STATE))
		fprintf(out, ", \"state\": \"%s\"", h->on ? "on" : "off");
	fprintf(out, ", \"cpus\": %u", h->cpus);
	if (st->cpu >= 0)
		fprintf(out, ", \"cpu\": %d", st->cpu);
	else
		fputs(", \"cpu\": null", out);
	if (f->origin) {
		fputs(", \"source\": ", out);
		lm_json_str(out, f->origin);
	}
	fprintf(out, ", \"sort\": { \"key\": \"%s\", \"reverse\": %s }, \"group\": \"%s\"",
		st->filter.key->name, st->filter.reverse ? "true" : "false",
		st->tree ? "tree" : st->by_site ? "site" : "lock");
	lm_batch_json_losses(out, "losses", h, h->loss);
	lm_batch_json_losses(out, "losses_new", h, f->loss_new);
	fprintf(out, ", \"rows_active\": %zu, \"total\": ", f->nr_active);
	if (f->nr) {
		fprintf(out, "{ \"rows\": %zu", f->line ? f->nr_locks : f->nr);
		lm_json_fields(out, &f->total);
		fprintf(out, ", \"rate\": %.3f", f->ctx.elapsed_ns > 0 ?
			1e9 * (double)f->total.v[LM_F_ACQUIRED] / f->ctx.elapsed_ns : 0);
		lm_json_derived(out, &f->total, &f->ctx);
		fputs(" }", out);
	} else {
		fputs("null", out);
	}
	fputs(", \"rows\": [", out);
	for (i = 0; i < n;) {
		fputs(i ? ", " : " ", out);
		i = lm_batch_json_row(out, f, i);
	}
	fputs(n ? " ] }\n" : "] }\n", out);
	fflush(out);
	lm_write_errno(out);
}
