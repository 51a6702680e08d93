// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the lockmeter table, laid out as the historic lockstat printed
 * it (the lockmeter 1.5 report of 2003, lockstat(8)):
 *
 *   SPINLOCKS         HOLD            WAIT
 *     UTIL  CON    MEAN(  MAX )   MEAN(  MAX )(% CPU)     TOTAL NOWAIT SPIN RJECT  NAME
 *
 *          13.7%  2.4us(  51ms)  1.1us(  22ms)(0.15%)   6360789 86.3% 11.2%  2.6%  *TOTAL*
 *    0.59% 0.82%   13us(  51ms)   89us(  22ms)(0.02%)    126172 99.2% 0.82%    0%  kernel_flag
 *    0.02%    0%   26ms(  51ms)    0us                        2  100%    0%    0%    ext3_delete_inode+0x34
 *
 * One section per lock type, *TOTAL* first, each lock followed by its call
 * sites indented by two.  The sections of sleeping locks (lm_type_sleeping())
 * add ABORT, and the hold split into ONCPU and BLOCKED MEAN(MAX).  A title
 * too long to end before HOLD (PERCPU RWSEM WRITES) has a line of its own.
 * Cells come from the key table (model.c), so a column prints the same
 * value its --sort key compares.
 * A [heap] row has no lock name, only its site: it is a lock of its own,
 * named "[heap] site (N instances)", with no site line beneath.  A lock
 * in a slab object is named by its cache and offset, "dentry+0x58 (N
 * instances)", its sites beneath as a static lock's.  So is
 * an *overflow* row, the events of every key that found the kernel's key
 * directory full: "*overflow*(worst:LOCK) site", after its longest hold,
 * or "*overflow*" while it has none.
 *
 * With --stacks, each site (and each [heap] or *overflow* lock) is followed
 * by the evidence of its worst hold and worst wait, lockdep's way of
 * naming a task (comm/pid):
 *
 *         worst hold 51ms by rm/4242 on CPU 1, released at 1234.567890s in:
 *           ext3_delete_inode+0x34/0x120
 *           ...
 *         worst wait 22ms by cp/4250 on CPU 0, owner rm/4242 at its start,
 *         acquired at 1234.501234s in:  (one line)
 *
 * and for a sleeping lock whose holder blocked while holding it,
 * under the hold's chain, the longest stretch it was blocked:
 *
 *           blocked 49.1ms of it in schedule_timeout <- msleep <- lmt_x <- ...
 *             schedule_timeout+0x9e/0x170
 *             ...
 *
 * Times are since boot, as dmesg prints them.
 *
 * With --percentiles, HP50 ... HP99.9 and WP50 ... WP99.9 before NAME:
 * the hold and wait percentiles of each row, estimated from its
 * histogram (model.c), "-" without one.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lockstat.h"
#include "view.h"

static const char lm_rule[] =
	"___________________________________________________________________________________________";

enum lm_row_kind {
	LM_ROW_TOTAL,
	LM_ROW_LOCK,
	LM_ROW_SITE,
};

/* "func+0xoff/0xsize[mod]" -> "func+0xoff[mod]", as the historic report */
void lm_site_short(char *buf, size_t len, const char *site)
{
	const char *slash = strchr(site, '/'), *end;

	if (slash && !strncmp(slash + 1, "0x", 2)) {
		for (end = slash + 3; *end && strchr("0123456789abcdef", *end); end++)
			;
		if (end > slash + 3 && (!*end || *end == '[')) {
			snprintf(buf, len, "%.*s%s", (int)(slash - site), site, end);
			return;
		}
	}
	snprintf(buf, len, "%s", site);
}

/* one output line, built without printf: the table has a line per row */
struct lm_line {
	char b[2048];
	size_t n;
};

static void lm_put(struct lm_line *l, const char *s)
{
	size_t k = strlen(s);

	if (k > sizeof(l->b) - 2 - l->n)
		k = sizeof(l->b) - 2 - l->n;
	memcpy(l->b + l->n, s, k);
	l->n += k;
}

/* @s right-aligned in @width */
static void lm_put_pad(struct lm_line *l, int width, const char *s)
{
	int k = (int)strlen(s);

	for (; k < width && l->n < sizeof(l->b) - 2; k++)
		l->b[l->n++] = ' ';
	lm_put(l, s);
}

static void lm_cell(struct lm_line *l, const char *pre, enum lm_key_id id,
		    const struct lm_row *r, const struct lm_ctx *c, const char *post)
{
	const struct lm_key *k = &lm_keys[id];
	char buf[48];

	k->print(buf, sizeof(buf), r, c);
	lm_put(l, pre);
	lm_put_pad(l, k->width, buf);
	lm_put(l, post);
}

static void lm_cell_mean(struct lm_line *l, uint64_t total, uint64_t n)
{
	char buf[48];

	lm_fmt_time(buf, sizeof(buf), n ? (double)total / (double)n : 0);
	lm_put(l, " ");
	lm_put_pad(l, 6, buf);
	lm_put(l, "(");
}

/*
 * The columns of the table as they drop on a narrow line (lm_col_drop[],
 * by key): their part of the column line, as wide as their cells.  At the
 * full width the historic column line is printed instead, and NOWAIT is
 * a column narrower (its header leans into TOTAL's).
 */
enum lm_tcol_id {
	LM_T_UTIL, LM_T_CON, LM_T_HOLD, LM_T_WAIT, LM_T_TOTAL, LM_T_NOWAIT, LM_T_SPIN,
	LM_T_REJECT, LM_T_ABORT, LM_T_ONCPU, LM_T_BLOCKED, LM_T_PCT, LM_T_SORT = LM_T_PCT + 8,
	LM_NR_TCOLS
};

static const struct {
	enum lm_key_id key;
	const char *hdr;
	const char *title;	/* over its MEAN in the section's first line */
} lm_tcols[LM_NR_TCOLS] = {
	[LM_T_UTIL] = { .key = LM_K_UTIL, .hdr = "  UTIL" },
	[LM_T_CON] = { .key = LM_K_CON, .hdr = "   CON" },
	[LM_T_HOLD] = { .key = LM_K_MAXHOLD, .hdr = "   MEAN(  MAX )", .title = "HOLD" },
	[LM_T_WAIT] = { .key = LM_K_MAXWAIT, .hdr = "   MEAN(  MAX )(% CPU)", .title = "WAIT" },
	[LM_T_TOTAL] = { .key = LM_K_TOTAL, .hdr = "     TOTAL" },
	[LM_T_NOWAIT] = { .key = LM_K_NOWAIT, .hdr = " NOWAIT" },
	[LM_T_SPIN] = { .key = LM_K_SPIN, .hdr = "  SPIN" },
	[LM_T_REJECT] = { .key = LM_K_REJECT, .hdr = " RJECT" },
	[LM_T_ABORT] = { .key = LM_K_ABORT, .hdr = "  ABORT" },
	[LM_T_ONCPU] = { .key = LM_K_ONCPU, .hdr = "   MEAN(  MAX )", .title = "ONCPU" },
	[LM_T_BLOCKED] = { .key = LM_K_BLOCKED, .hdr = "   MEAN(  MAX )", .title = "BLOCKED" },
	[LM_T_PCT + 0] = { .key = LM_K_P50HOLD, .hdr = "    HP50" },
	[LM_T_PCT + 1] = { .key = LM_K_P90HOLD, .hdr = "    HP90" },
	[LM_T_PCT + 2] = { .key = LM_K_P99HOLD, .hdr = "    HP99" },
	[LM_T_PCT + 3] = { .key = LM_K_P999HOLD, .hdr = "  HP99.9" },
	[LM_T_PCT + 4] = { .key = LM_K_P50WAIT, .hdr = "    WP50" },
	[LM_T_PCT + 5] = { .key = LM_K_P90WAIT, .hdr = "    WP90" },
	[LM_T_PCT + 6] = { .key = LM_K_P99WAIT, .hdr = "    WP99" },
	[LM_T_PCT + 7] = { .key = LM_K_P999WAIT, .hdr = "  WP99.9" },
	/* the sort key where no other column shows it: its key and header vary */
	[LM_T_SORT] = { .key = LM_K_NAME, .hdr = "" },
};

#define LM_TABLE_NAME_MIN	24	/* columns drop before NAME gets less */

/* the table's layout: the columns a section shows; all at no limit */
struct lm_tlayout {
	bool show[LM_NR_TCOLS];
	bool narrow;		/* a column dropped: the column line of lm_tcols[] */
	enum lm_key_id sort;	/* the key of LM_T_SORT */
	int sort_w;		/* its cells' width, without the two blanks before */
	char sort_hdr[24];	/* its part of the column line, blanks before included */
};

/*
 * The column that shows sort key @k: its own, or the one it shares (a
 * MEAN, % CPU); LM_T_SORT where no other column does (TOTALHOLD,
 * MINWAIT, RATE, CONTENDED, HOLDER, a percentile without
 * --percentiles); -1 for TYPE and NAME, which the table always shows.
 */
static int lm_tcol_of(enum lm_key_id k, bool percentiles)
{
	int i;

	switch (k) {
	case LM_K_MEANHOLD:
		return LM_T_HOLD;
	case LM_K_MEANWAIT:
	case LM_K_WAITCPU:
		return LM_T_WAIT;
	case LM_K_TYPE:
	case LM_K_NAME:
		return -1;
	default:
		break;
	}
	for (i = 0; i < LM_T_SORT; i++)
		if (lm_tcols[i].key == k && (percentiles || i < LM_T_PCT))
			return i;
	return LM_T_SORT;
}

/* the header of the sort key's own column: MIN and HOLD alone say too little */
static const char *lm_sort_header(enum lm_key_id k)
{
	switch (k) {
	case LM_K_MINWAIT:
		return "WMIN";
	case LM_K_TOTALHOLD:
		return "HTOTAL";
	default:
		return lm_keys[k].header;
	}
}

static void lm_tlayout(struct lm_tlayout *lo, const struct lm_view *v, bool sleeping, int width)
{
	enum lm_key_id keys[LM_NR_TCOLS];
	int w[LM_NR_TCOLS], i, n = 0, idx[LM_NR_TCOLS];
	bool show[LM_NR_TCOLS];
	enum lm_key_id sk = (enum lm_key_id)(v->filter->key - lm_keys);
	int sc = lm_tcol_of(sk, v->filter->percentiles);
	const char *hdr = lm_sort_header(sk);

	lo->sort = sk;
	lo->sort_w = lm_keys[sk].width > (int)strlen(hdr) ? lm_keys[sk].width : (int)strlen(hdr);
	snprintf(lo->sort_hdr, sizeof(lo->sort_hdr), "  %*s", lo->sort_w, hdr);
	for (i = 0; i < LM_NR_TCOLS; i++) {
		if (i == LM_T_SORT)
			lo->show[i] = sc == LM_T_SORT;
		else
			lo->show[i] = (sleeping || (i < LM_T_ABORT || i >= LM_T_PCT)) &&
				      (v->filter->percentiles || i < LM_T_PCT);
		if (!lo->show[i])
			continue;
		keys[n] = i == LM_T_SORT ? sk : lm_tcols[i].key;
		w[n] = i == LM_T_SORT ? lo->sort_w + 2 : (int)strlen(lm_tcols[i].hdr);
		idx[n++] = i;
	}
	/* the column of the sort key drops last */
	lm_cols_fit(keys, w, (size_t)n, width, LM_TABLE_NAME_MIN + 2,
		    sc < 0 ? NULL : &lm_keys[sc == LM_T_SORT ? sk : lm_tcols[sc].key], show);
	lo->narrow = false;
	for (i = 0; i < n; i++) {
		lo->show[idx[i]] = show[i];
		lo->narrow |= !show[i];
	}
}

/*
 * " (N instances)" of a row that merges instances: the kernel's estimate
 * from a 64-bucket set, which cannot tell more than LM_INST_SATURATED:
 * that many or more is "(266+ instances)".
 */
static void lm_put_inst(struct lm_line *l, unsigned long long inst)
{
	char num[24];

	lm_u64_str(num, inst);
	lm_put(l, " (");
	lm_put(l, num);
	if (inst >= LM_INST_SATURATED)
		lm_put(l, "+");
	lm_put(l, inst == 1 ? " instance)" : " instances)");
}

static void lm_row_name(struct lm_line *l, const struct lm_row *r, enum lm_row_kind kind)
{
	unsigned long long inst = r->v[LM_F_INSTANCES];
	char site[1024];

	if (kind == LM_ROW_TOTAL) {
		lm_put(l, "*TOTAL*");
	} else if (kind == LM_ROW_SITE) {
		lm_site_short(site, sizeof(site), r->site);
		lm_put(l, "  ");
		lm_put(l, site);
	} else if (r->class == LM_CLASS_HEAP) {
		lm_site_short(site, sizeof(site), r->site);
		lm_put(l, "[heap] ");
		lm_put(l, site);
		lm_put_inst(l, inst);
	} else if (r->class == LM_CLASS_SLAB) {
		lm_put(l, r->lock);
		lm_put_inst(l, inst);
	} else if (r->class == LM_CLASS_OVERFLOW && strcmp(r->site, LM_OVERFLOW_NAME)) {
		/* named after its longest hold: that lock, then where it was held */
		lm_site_short(site, sizeof(site), r->site);
		lm_put(l, r->lock);
		lm_put(l, " ");
		lm_put(l, site);
	} else {
		lm_put(l, r->lock);
	}
}

static void lm_table_row(FILE *f, const struct lm_view *v, const struct lm_row *r,
			 enum lm_row_kind kind, const struct lm_tlayout *lo)
{
	const struct lm_ctx *c = &v->ctx;
	const bool *on = lo->show;
	struct lm_line l;
	int k;

	l.n = 0;
	if (on[LM_T_UTIL] && kind == LM_ROW_TOTAL)
		lm_put_pad(&l, lm_keys[LM_K_UTIL].width, "");
	else if (on[LM_T_UTIL])
		lm_cell(&l, "", LM_K_UTIL, r, c, "");
	if (on[LM_T_CON])
		lm_cell(&l, " ", LM_K_CON, r, c, "");
	if (on[LM_T_HOLD]) {
		lm_cell(&l, " ", LM_K_MEANHOLD, r, c, "(");
		lm_cell(&l, "", LM_K_MAXHOLD, r, c, ")");
	}
	if (on[LM_T_WAIT] && r->v[LM_F_SPIN]) {
		lm_cell(&l, " ", LM_K_MEANWAIT, r, c, "(");
		lm_cell(&l, "", LM_K_MAXWAIT, r, c, ")(");
		lm_cell(&l, "", LM_K_WAITCPU, r, c, ")");
	} else if (on[LM_T_WAIT]) {
		/* no waits: "0us" and the rest blank, as the historic report */
		lm_put(&l, "    0us               ");
	}
	if (on[LM_T_TOTAL])
		lm_cell(&l, "", LM_K_TOTAL, r, c, "");
	if (on[LM_T_NOWAIT])
		lm_cell(&l, lo->narrow ? "  " : " ", LM_K_NOWAIT, r, c, "");
	if (on[LM_T_SPIN])
		lm_cell(&l, " ", LM_K_SPIN, r, c, "");
	if (on[LM_T_REJECT])
		lm_cell(&l, " ", LM_K_REJECT, r, c, "");
	if (on[LM_T_ABORT])
		lm_cell(&l, " ", LM_K_ABORT, r, c, "");
	if (on[LM_T_ONCPU]) {
		lm_cell_mean(&l, r->v[LM_F_ONCPU_TOTAL], r->v[LM_F_ACQUIRED]);
		lm_cell(&l, "", LM_K_ONCPU, r, c, ")");
	}
	if (on[LM_T_BLOCKED]) {
		lm_cell_mean(&l, r->v[LM_F_BLOCKED_TOTAL], r->v[LM_F_ACQUIRED]);
		lm_cell(&l, "", LM_K_BLOCKED, r, c, ")");
	}
	for (k = LM_T_PCT; k < LM_T_SORT; k++)
		if (on[k])
			lm_cell(&l, " ", lm_tcols[k].key, r, c, "");
	if (on[LM_T_SORT]) {
		char buf[48];

		lm_keys[lo->sort].print(buf, sizeof(buf), r, c);
		lm_put(&l, "  ");
		lm_put_pad(&l, lo->sort_w, buf);
	}
	lm_put(&l, "  ");
	lm_row_name(&l, r, kind);
	l.b[l.n++] = '\n';
	fwrite(l.b, 1, l.n, f);
}

/* "rm/4242": the name escaped (it may hold any byte), then the pid */
static void lm_put_task(struct lm_line *l, const char *comm, uint32_t pid)
{
	char buf[4 * LM_COMM_MAX], num[24];

	lm_esc(buf, sizeof(buf), comm, "");
	lm_u64_str(num, pid);
	lm_put(l, buf);
	lm_put(l, "/");
	lm_put(l, num);
}

/* ns since boot as dmesg prints it: seconds and microseconds */
static void lm_put_uptime(struct lm_line *l, uint64_t ns)
{
	char num[24], us[8];

	lm_u64_str(num, ns / 1000000000);
	snprintf(us, sizeof(us), ".%06u", (unsigned int)(ns % 1000000000 / 1000));
	lm_put(l, num);
	lm_put(l, us);
}

static void lm_line_out(FILE *f, struct lm_line *l)
{
	l->b[l->n++] = '\n';
	fwrite(l->b, 1, l->n, f);
	l->n = 0;
}

/* a call chain, a line per frame, innermost first */
static void lm_table_frames(FILE *f, struct lm_line *l, const char *indent,
			    const char *const *frame, uint32_t n)
{
	char buf[4 * LM_FRAME_MAX];
	uint32_t i;

	for (i = 0; i < n; i++) {
		lm_esc(buf, sizeof(buf), frame[i], "");
		lm_put(l, indent);
		lm_put(l, buf);
		lm_line_out(f, l);
	}
}

/* a call chain, a line per frame after @indent, escaped, innermost first */
void lm_print_frames(FILE *f, const char *indent, const char *const *frame, uint32_t n)
{
	struct lm_line l;

	l.n = 0;
	lm_table_frames(f, &l, indent, frame, n);
}

/*
 * The head line of the evidence of @r's maximum of @kind, without its
 * indentation: who, on which CPU, the owner waited for, when, e.g.
 * "worst hold 51ms by rm/4242 on CPU 1, released at 1234.567890s in:"
 * (top's detail pane shows it too)
 */
void lm_ev_head_line(char *buf, size_t len, const struct lm_row *r, int kind)
{
	const struct lm_evidence *ev = r->ev[kind];
	char num[32];
	struct lm_line l;

	l.n = 0;
	lm_fmt_time(num, sizeof(num), (double)r->v[kind == LM_EV_HOLD ? LM_F_HOLD_MAX : LM_F_WAIT_MAX]);
	lm_put(&l, kind == LM_EV_HOLD ? "worst hold " : "worst wait ");
	lm_put(&l, num);
	lm_put(&l, " by ");
	lm_put_task(&l, ev->comm, ev->pid);
	lm_u64_str(num, ev->cpu);
	lm_put(&l, " on CPU ");
	lm_put(&l, num);
	if (ev->context != LM_CONTEXT_TASK) {
		lm_put(&l, " in ");
		lm_put(&l, lm_context_name(ev->context));
	}
	if (lm_ev_has(ev, LM_EB_OWNER_PID)) {
		lm_put(&l, ", owner ");
		lm_put_task(&l, lm_ev_has(ev, LM_EB_OWNER_COMM) ? ev->owner_comm : "?",
			    ev->owner_pid);
		lm_put(&l, " at its start");
	}
	lm_put(&l, kind == LM_EV_HOLD ? ", released at " : ", acquired at ");
	lm_put_uptime(&l, ev->time_ns);
	lm_put(&l, ev->nr_frames ? "s in:" : "s; no call chain");
	snprintf(buf, len, "%.*s", (int)l.n, l.b);
}

/*
 * The longest stretch of the worst hold its holder spent blocked, and
 * where in a few functions: "blocked 49ms of it in schedule_timeout <-
 * msleep <- lmt_x <- ..." (only for evidence with LM_EB_BLOCKED)
 */
void lm_ev_blocked_line(char *buf, size_t len, const struct lm_evidence *ev)
{
	char name[4 * LM_FRAME_MAX];
	struct lm_line l;
	uint32_t i;

	l.n = 0;
	lm_fmt_time(name, sizeof(name), (double)ev->blocked_ns);
	lm_put(&l, "blocked ");
	lm_put(&l, name);
	lm_put(&l, ev->nr_blocked ? " of it in " : " of it; no call chain");
	for (i = 0; i < ev->nr_blocked && i < LM_BLOCKED_NAMES; i++) {
		lm_frame_func(name, sizeof(name), ev->blocked_frame[i]);
		lm_put(&l, i ? " <- " : "");
		lm_put(&l, name);
	}
	lm_put(&l, ev->nr_blocked > LM_BLOCKED_NAMES ? " <- ..." : "");
	snprintf(buf, len, "%.*s", (int)l.n, l.b);
}

/*
 * The evidence of @r's maximum of @kind: its head line, the chain, and
 * where the holder blocked with that chain beneath:
 *
 *         worst hold 50ms by lmt_sleeper/420 on CPU 0, released at 52.301445s in:
 *           lmt_mutex_sleeper+0x23/0x70 [test_lockmeter]
 *           blocked 49ms of it in schedule_timeout <- msleep <- lmt_x <- ...
 *             schedule_timeout+0x9e/0x170
 */
/* set while the table goes to lm_fit_text(): the evidence's sentences wrap */
static bool lm_table_fitted;

/* the indentation of a sentence of evidence, marked to wrap when fitted */
static void lm_put_prose(struct lm_line *l, const char *indent)
{
	static const char mark[] = { LM_PROSE, '\0' };

	if (lm_table_fitted)
		lm_put(l, mark);
	lm_put(l, indent);
}

static void lm_table_evidence(FILE *f, const struct lm_row *r, int kind)
{
	const struct lm_evidence *ev = r->ev[kind];
	struct lm_line l;

	l.n = 0;
	lm_put_prose(&l, "        ");
	lm_ev_head_line(l.b + l.n, sizeof(l.b) - 2 - l.n, r, kind);
	l.n += strlen(l.b + l.n);
	lm_line_out(f, &l);
	lm_table_frames(f, &l, "          ", ev->frame, ev->nr_frames);
	if (!lm_ev_has(ev, LM_EB_BLOCKED))
		return;
	lm_put_prose(&l, "          ");
	lm_ev_blocked_line(l.b + l.n, sizeof(l.b) - 2 - l.n, ev);
	l.n += strlen(l.b + l.n);
	lm_line_out(f, &l);
	lm_table_frames(f, &l, "            ", ev->blocked_frame, ev->nr_blocked);
}

static void lm_table_evidences(FILE *f, const struct lm_view *v, const struct lm_row *r)
{
	int k;

	if (!v->filter->stacks)
		return;
	for (k = 0; k < LM_NR_EV; k++)
		if (r->ev[k])
			lm_table_evidence(f, r, k);
}

/*
 * @s at column @col of a line @at columns long, or a blank after what is
 * there already (a long section title); the line's new length
 */
static int lm_head_at(FILE *f, int at, int col, const char *s)
{
	return at + fprintf(f, "%*s%s", col > at ? col - at : 1, "", s);
}

/*
 * A section's title, at the start of its first head line; a title too
 * long to end before @col, where the first column's title goes, has the
 * line to itself, so that the column titles stay over their columns
 */
static int lm_table_title(FILE *f, const struct lm_section *sec, int col)
{
	const char *title = lm_type_title(sec->type);

	if ((int)strlen(title) < col)
		return fprintf(f, "%s", title);
	fprintf(f, "%s\n", title);
	return 0;
}

/* the first head line of a section: its title, HOLD and WAIT (and the hold's split) */
static void lm_table_head(FILE *f, const struct lm_section *sec, bool sleeping)
{
	int at = lm_table_title(f, sec, 18);

	at = lm_head_at(f, at, 18, "HOLD");
	at = lm_head_at(f, at, 34, "WAIT");
	if (sleeping) {
		at = lm_head_at(f, at, 88, "ONCPU");
		lm_head_at(f, at, 102, "BLOCKED");
	}
	fputc('\n', f);
}

/* the two head lines of a section on a narrow line: titles over the MEANs */
static void lm_table_narrow_head(FILE *f, const struct lm_section *sec,
				 const struct lm_tlayout *lo)
{
	int i, x = 0, at = 0;

	/* the first title over a column shown: where the section's title must end */
	for (i = 0; i < LM_NR_TCOLS && !(lo->show[i] && lm_tcols[i].title); i++)
		if (lo->show[i])
			x += (int)strlen(lm_tcols[i].hdr);
	at = lm_table_title(f, sec, i < LM_NR_TCOLS ? x + 3 : INT_MAX);
	x = 0;
	for (i = 0; i < LM_NR_TCOLS; i++) {
		if (!lo->show[i])
			continue;
		/* over MEAN */
		if (lm_tcols[i].title)
			at = lm_head_at(f, at, x + 3, lm_tcols[i].title);
		x += (int)strlen(lm_tcols[i].hdr);
	}
	fputc('\n', f);
	for (i = 0; i < LM_NR_TCOLS; i++)
		if (lo->show[i])
			fputs(i == LM_T_SORT ? lo->sort_hdr : lm_tcols[i].hdr, f);
	fputs("  NAME\n", f);
}

static void lm_table_section(FILE *f, const struct lm_view *v, const struct lm_section *sec,
			     int width)
{
	static const char pcts[] =
		"   HP50    HP90    HP99  HP99.9    WP50    WP90    WP99  WP99.9";
	const char *pct = v->filter->percentiles ? pcts : "";
	bool sleeping = lm_type_sleeping(sec->type);
	struct lm_tlayout lo;
	const char *sort_hdr;
	size_t i, j;

	fprintf(f, "\n%s\n", lm_rule);
	lm_tlayout(&lo, v, sleeping, width);
	sort_hdr = lo.show[LM_T_SORT] ? lo.sort_hdr : "";
	if (lo.narrow) {
		lm_table_narrow_head(f, sec, &lo);
	} else if (sleeping) {
		lm_table_head(f, sec, true);
		fprintf(f, "  UTIL  CON    MEAN(  MAX )   MEAN(  MAX )(%% CPU)     TOTAL NOWAIT SPIN RJECT  ABORT   MEAN(  MAX )   MEAN(  MAX )%s%s  NAME\n",
			pct, sort_hdr);
	} else {
		lm_table_head(f, sec, false);
		fprintf(f, "  UTIL  CON    MEAN(  MAX )   MEAN(  MAX )(%% CPU)     TOTAL NOWAIT SPIN RJECT%s%s  NAME\n",
			pct, sort_hdr);
	}
	fputc('\n', f);
	lm_table_row(f, v, &sec->total, LM_ROW_TOTAL, &lo);
	for (i = 0; i < sec->nr_locks; i++) {
		const struct lm_lock *lk = &sec->locks[i];

		lm_table_row(f, v, &lk->agg, LM_ROW_LOCK, &lo);
		if (lm_lock_per_site(lk->agg.class)) {
			lm_table_evidences(f, v, &lk->agg);
			continue;
		}
		for (j = 0; j < lk->nr_sites; j++) {
			lm_table_row(f, v, lk->sites[j], LM_ROW_SITE, &lo);
			lm_table_evidences(f, v, lk->sites[j]);
		}
	}
}

static void lm_table_time(FILE *f, const char *label, const struct timespec *ts)
{
	time_t t = ts->tv_sec;
	char buf[64];
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm)) {
		fprintf(f, "%s%lld.%09ld\n", label, (long long)ts->tv_sec, ts->tv_nsec);
		return;
	}
	fprintf(f, "%s%s.%03ld", label, buf, ts->tv_nsec / 1000000);
	if (strftime(buf, sizeof(buf), "%Z", &tm))
		fprintf(f, " %s", buf);
	fputc('\n', f);
}

static double lm_ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void lm_table_system(FILE *f, const struct lm_header *h)
{
	static const int parts[] = { LM_H_SYSTEM, LM_H_NODE, LM_H_RELEASE, LM_H_UVERSION,
				     LM_H_MACHINE };
	const char *sep = "";
	unsigned int i;

	fputs("System: ", f);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		if (!lm_has(h, parts[i]))
			continue;
		fprintf(f, "%s%s", sep, (const char *)h + lm_hdr_keys[parts[i]].off);
		sep = " ";
	}
	if (lm_has(h, LM_H_KERNEL) && (!lm_has(h, LM_H_RELEASE) || strcmp(h->kernel, h->release)))
		fprintf(f, "%slockmeter kernel %s", sep, h->kernel);
	else if (!*sep)
		fputs("unknown", f);
	fputc('\n', f);
}

void lm_table_header(FILE *f, const struct lm_header *h)
{
	bool record = lm_has(h, LM_H_START) && lm_has(h, LM_H_END) &&
		      !(lm_has(h, LM_H_COMMAND) && !strcmp(h->command, "get"));
	double metered = lm_has(h, LM_H_METERED_NS) ? (double)h->metered_ns / 1e9 : 0;
	struct lm_key_use ku;

	fprintf(f, "%s\n", lm_rule);
	lm_table_system(f, h);
	if (lm_has(h, LM_H_CPU))
		fprintf(f, "CPU %u only (of %u)", h->cpu, h->cpus);
	else
		fprintf(f, "All (%u) CPUs", lm_has(h, LM_H_CPUS) ? h->cpus : 0);
	if (lm_has(h, LM_H_STATE))
		fprintf(f, ", metering %s", h->on ? "on" : "off");
	if (lm_has(h, LM_H_SOURCE))
		fprintf(f, ", from %s", h->source);
	fputs("\n\n", f);
	if (record) {
		lm_table_time(f, "Start time: ", &h->start);
		lm_table_time(f, "End   time: ", &h->end);
		/* record's own clock may go back (settimeofday): no negative time */
		if (lm_ts_diff(&h->start, &h->end) >= 0)
			fprintf(f, "Delta Time: %.3f sec", lm_ts_diff(&h->start, &h->end));
		else
			fputs("Delta Time: unknown (the wall clock went back)", f);
		fprintf(f, ", metered %.3f sec (%llu ns)", metered,
			(unsigned long long)h->metered_ns);
	} else {
		if (lm_has(h, LM_H_END))
			lm_table_time(f, "Snapshot:   ", &h->end);
		fprintf(f, "Metered Time: %.3f sec (%llu ns)", metered,
			(unsigned long long)h->metered_ns);
	}
	if (lm_hdr_key_use(h, &ku))
		fprintf(f, ", keys in use: %u / %u%s (%.1f%%)", ku.used, ku.size,
			ku.shared ? "" : " per CPU", lm_key_use_pct(&ku));
	fputc('\n', f);
	lm_table_losses(f, h);
}

/* the banner: what each non-zero loss counter means for the numbers */
void lm_table_losses(FILE *f, const struct lm_header *h)
{
	static const struct {
		const char *lead;
		const char *one;
		const char *many;
		const char *meaning;
	} msg[LM_NR_LOSSES] = {
		[LM_L_DROPPED] = { "WARNING", "acquisition was", "acquisitions were",
			"not metered: a CPU's held-lock stack was full (CONFIG_LOCKMETER_STACK_DEPTH); counts and holds are low" },
		[LM_L_UNMATCHED] = { "note", "release had", "releases had",
			"no recorded acquisition; normal right after 'on', for locks taken before it" },
		[LM_L_RECURSION] = { "WARNING", "lock operation", "lock operations",
			"came from inside lockmeter's own bookkeeping on their CPU (a tracepoint or kprobe on its path) and were not metered" },
		[LM_L_TABLE_FULL] = { "WARNING", "event found", "events found",
			"the key directory full; their keys have no rows of their own, totals are exact (see the *overflow* rows, named after their longest hold)" },
		[LM_L_EVICTED] = { "WARNING", "sleeping-lock record was", "sleeping-lock records were",
			"evicted: a task held more than CONFIG_LOCKMETER_TASK_DEPTH; those releases count as unmatched" },
		[LM_L_IRQCTX] = { "note", "sleeping-lock operation was", "sleeping-lock operations were",
			"in interrupt context or with interrupts off and not metered (a trylock or release in a hardirq or softirq; an rw_semaphore read trylock with interrupts off, and its release)" },
		[LM_L_TRUNCATED] = { "WARNING", "row was", "rows were",
			"left out of this snapshot: claimed faster than the kernel could copy them" },
		[LM_L_NOTASK] = { "WARNING", "sleeping-lock acquisition was", "sleeping-lock acquisitions were",
			"not metered: the task had no records (older than the kernel's record cache, or its allocation at fork failed) and their pool was empty" },
		[LM_L_STACKS_FULL] = { "WARNING", "call chain was", "call chains were",
			"not kept: a CPU's store of chains was full; that evidence has no frames" },
		[LM_L_HIST_LOST] = { "WARNING", "histogram bucket wrap was", "histogram bucket wraps were",
			"not counted (a CPU's spill table was full): those buckets are short by 65536 each" },
	};
	/* a kernel of per-CPU tables (no keys line) lost rows of one CPU's table */
	static const char per_cpu_full[] =
		"a CPU's table full; rows are missing, totals are exact (see the *overflow* rows)";
	struct lm_key_use ku;
	const char *meaning;
	int i;

	for (i = 0; i < LM_NR_LOSSES; i++) {
		unsigned long long n = h->loss[i];

		if (!lm_has(h, LM_H_LOSS + i) || !n)
			continue;
		meaning = msg[i].meaning;
		if (i == LM_L_TABLE_FULL && lm_hdr_key_use(h, &ku) && !ku.shared)
			meaning = per_cpu_full;
		fprintf(f, "%s: %llu %s %s\n", msg[i].lead, n, n == 1 ? msg[i].one : msg[i].many,
			meaning);
	}
}

/* with --stacks: what evidence there is, and what its times mean */
const char *lm_ev_none_why(const struct lm_header *h)
{
	if (lm_has(h, LM_H_SOURCE) && !strcmp(h->source, "proc"))
		return "none: /proc/lockmeter has no holders or call chains (netlink has)";
	if (!lm_has(h, LM_H_CAPTURES))
		return "none in this snapshot (its kernel reports no captures)";
	return NULL;
}

static void lm_table_ev_note(FILE *f, const struct lm_view *v)
{
	const struct lm_header *h = v->h;
	const char *why = lm_ev_none_why(h);

	if (why) {
		fprintf(f, "Evidence: %s\n", why);
		return;
	}
	fprintf(f, "Evidence: %llu captures (a hold or wait that set its row's maximum on its CPU); "
		"times in s since boot\n", (unsigned long long)h->captures);
}

/* with --percentiles: what the columns are, or why there are none */
static void lm_table_pct_note(FILE *f, const struct lm_header *h)
{
	if (!h->nr_buckets) {
		fputs("Percentiles: none: no histograms in this snapshot (a kernel without them, "
		      "or /proc/lockmeter); the columns say -\n", f);
		return;
	}
	fprintf(f, "Percentiles: estimates at bucket resolution (%u buckets, interpolated inside "
		"one); HP hold, WP wait; >= the open last bucket; - no histogram\n",
		h->nr_buckets);
}

/*
 * --percentiles on a line too narrow for some of them: which did not fit
 * in the sections shown, said once, not left for the reader to miss
 */
static void lm_table_pct_dropped(FILE *f, const struct lm_view *v, int width)
{
	bool gone[LM_NR_TCOLS] = { false };
	struct lm_tlayout lo;
	int t, i, n = 0;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!v->sec[t].nr_rows)
			continue;
		lm_tlayout(&lo, v, lm_type_sleeping(t), width);
		for (i = LM_T_PCT; i < LM_T_SORT; i++)
			gone[i] |= !lo.show[i];
	}
	for (i = LM_T_PCT; i < LM_T_SORT; i++) {
		if (!gone[i])
			continue;
		fprintf(f, "%s%s", n++ ? "," : "Not shown at this width:",
			lm_tcols[i].hdr + strspn(lm_tcols[i].hdr, " ") - 1);
	}
	if (n)
		fprintf(f, "; %d columns are too few (--width 0, or a wider COLUMNS, shows %s)\n",
			width, n > 1 ? "them" : "it");
}

static void lm_table_print_in(FILE *f, const struct lm_view *v, int width)
{
	int t, shown = 0;

	lm_table_header(f, v->h);
	if (v->filter->stacks)
		lm_table_ev_note(f, v);
	if (v->filter->percentiles) {
		lm_table_pct_note(f, v->h);
		if (width)
			lm_table_pct_dropped(f, v, width);
	}
	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!v->sec[t].nr_rows)
			continue;
		lm_table_section(f, v, &v->sec[t], width);
		shown++;
	}
	if (!shown)
		fprintf(f, "\n%s\n", v->h->rows ? "No rows match the filters." :
			"No lock activity was metered.");
}

/*
 * The table at the output's width (lm_out_width()): columns dropped by
 * lm_col_drop[], the lines then fitted (lm_fit_text(): rows cut, prose
 * wrapped); at no limit, as it always was
 */
void lm_table_print(FILE *f, const struct lm_view *v)
{
	int width = lm_out_width(v->filter->width);
	size_t len;
	char *buf;
	FILE *mem;

	mem = width ? open_memstream(&buf, &len) : NULL;
	if (!mem) {
		lm_table_print_in(f, v, 0);
		lm_write_errno(f);
		return;
	}
	lm_table_fitted = true;
	lm_table_print_in(mem, v, width);
	lm_table_fitted = false;
	if (!fclose(mem))
		lm_fit_text(f, buf, len, width);
	free(buf);
}

int lm_render(FILE *f, const struct lm_snapshot *s, const struct lm_filter *flt,
	      enum lm_fmt fmt)
{
	struct lm_view v;
	const char *why;
	int ret;

	if (lm_view_build(&v, s, flt)) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	switch (fmt) {
	case LM_FMT_TABLE:
		lm_table_print(f, &v);
		break;
	case LM_FMT_JSON:
		lm_json_print(f, &v);
		break;
	case LM_FMT_CSV:
		lm_csv_print(f, &v);
		break;
	case LM_FMT_FOLDED:
		if (lm_folded_print(f, &v))
			break;
		/* a flame graph pipeline fails here, where the cause is, not at an empty graph */
		why = lm_ev_none_why(&s->h);
		if (s->h.rows && why)
			lm_err("--folded: no hold chain to print: evidence %s", why);
		else
			lm_err("--folded: no hold chain to print: %s", s->h.rows ?
			       "no row that the filters keep has the chain of its worst hold" :
			       "no lock activity was metered");
		ret = lm_write_check(f);
		lm_view_free(&v);
		return ret ? ret : LM_EXIT_NOEVIDENCE;
	}
	lm_view_free(&v);
	return lm_write_check(f);
}
