// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat top: every interval, a snapshot of the running kernel (or the
 * next of the --replay files), minus the one before, as a sortable list of
 * the locks, or (lock, site) pairs, that did something in the interval.
 *
 * This file collects: it owns the source, the snapshots, the deltas and
 * what each key means.  The screen (view_top.c) and batch mode
 * (view_batch.c) only render a frame; curses never sees the source and
 * this file never calls curses.  Signal handlers only set flags.  The loop
 * sleeps in the screen's key wait, at most until the next sample is due,
 * so an idle top costs a few wakeups a second.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"
#include "top.h"

/* long-only options of top */
enum {
	TOP_OPT_BY_SITE = 512,
	TOP_OPT_REPLAY,
	TOP_OPT_TREE,
};

struct top_params {
	struct lm_opts opts;
	double delay_s;		/* -d */
	unsigned long count;	/* -n; 0: until q or ^C */
	bool batch;		/* -b */
	bool by_site;
	bool tree;
	char **replay;		/* --replay: the operands */
	size_t nr_replay;
};

/* top_quit: the signal that ends top (INT, TERM, HUP), 0 while none has come */
static volatile sig_atomic_t top_quit, top_winch, top_cont;

static void top_signal(int sig)
{
	switch (sig) {
	case SIGWINCH:
		top_winch = 1;
		break;
	case SIGCONT:
		top_cont = 1;
		break;
	default:
		top_quit = sig;
		break;
	}
}

/* top_sample(): the replay files ran out (not an LM_EXIT_* code) */
#define TOP_END		(-1)

static const char *const top_msg[] = {
	"",
	"Every interval, what each lock did in it: acquisitions per second, UTIL,",
	"CON, mean and longest hold and wait, and the wait's share of the CPUs.",
	"HMAX and WMAX are the longest since the row appeared (bold on the",
	"screen when set in the interval).  The first frame shows everything",
	"since metering started.  Rows sort by UTIL of the interval unless --sort",
	"says otherwise (HMAX: key s, or > and <).  The table's last line,",
	"*TOTAL*, adds up the frame's rows.",
	"",
	"  -b, --batch        print frames to standard output, no screen",
	"  -d, --delay SECS   the interval in seconds, or with a unit (500ms)",
	"                     (default 1; 0.05 s to 86400 s)",
	"  -n, --iterations N stop after N frames (default: until q or ^C)",
	"  --by-site          a row per (lock, call site), not per lock (key g)",
	"  --tree             each lock, its call sites beneath it (key T or F5)",
	"  --replay FILE...   frames from saved snapshots (lockstat get), in order,",
	"                     one per interval, instead of the running kernel",
	"  -h, --help         this text",
	"",
	"With -b, --json prints one JSON object per frame and line; --top N",
	"limits the rows of a frame.  Keys on the screen: h.",
	NULL,
};

/* [ and ]: NAME scrolls by this many columns, up to its longest names */
#define TOP_NAME_STEP		8
#define TOP_NAME_OFF_MAX	256

static const char *const top_keys_help[] = {
	"lockstat top: keys",
	"",
	"  < > (left, right)  sort by the next column left, right;  R  reverse the sort",
	"  s                  sort by a key by name: rate util con meanhold maxhold",
	"                     meanwait maxwait waitcpu p99hold p99wait type name ...",
	"  /                  show only locks or sites containing a string (empty: all)",
	"  t                  cycle the lock type: all, then each the interval has",
	"  g                  group by lock, or a row per (lock, site)",
	"  T F5               tree: each lock, its sites beneath; - fold, + open, * all",
	"  c                  cycle all CPUs merged, CPU 0, CPU 1, ... (netlink)",
	"  p                  pause; again to go on        [ ]  scroll NAME left, right",
	"  space              a new sample now (replay: the next file)",
	"  d                  change the interval (typed afresh; Enter alone keeps it)",
	"  r                  reset all statistics (root; asks first, y to do it)",
	"  o                  switch metering on, or off (root; off asks first)",
	"  up down j k PgUp PgDn Home End  select a row; it stays on its lock",
	"  Enter              the selected row's detail pane: the worst holder and",
	"                     its chain, where it blocked, the worst waiter, the owner",
	"  ^L                 repaint      q F10  quit      F1 h  help      F6 s  sort",
	"",
	"ACQ/s acquisitions a second; UTIL hold time / metered time; CON share",
	"of attempts that waited or failed; HMEAN, HMAX mean and longest hold;",
	"WMEAN, WMAX mean and longest wait of those that waited; %CPU total wait",
	"/ (CPUs x metered time).  HMAX, WMAX: since the row appeared; bold when",
	"set in this interval.  HP99 (128 columns and wider): the interval's 99th",
	"percentile of holds; HOLDER (148 columns and wider): who made HMAX.",
	"Narrower, NAME keeps the rest of the line: columns drop, %CPU first, then",
	"ACQ/s, WMEAN, CON, WMAX, TYPE, UTIL, HMEAN; under 100 TYPE abbreviates.",
	"*TOTAL*, the last line, adds up the rows (the tree: its locks).  man lockstat",
	NULL,
};

static void top_usage(int err)
{
	lm_usage(err, "top", "[OPTIONS] [--replay FILE...]", top_msg,
		 LM_USAGE_SOURCE | LM_USAGE_VIEW_TOP);
}

/* the interval: seconds, as top(1) has it, or a duration with its unit (500ms) */
static int top_parse_delay(const char *arg, double *out)
{
	return lm_parse_interval(arg, 0.05, 86400, out);
}

static int top_parse_args(int argc, char **argv, struct top_params *p)
{
	static const struct option opts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "by-site", no_argument, NULL, TOP_OPT_BY_SITE },
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "delay", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "replay", no_argument, NULL, TOP_OPT_REPLAY },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ "tree", no_argument, NULL, TOP_OPT_TREE },
		LM_VIEW_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	bool replay = false;
	uint64_t n;
	int c, ret;

	memset(p, 0, sizeof(*p));
	lm_opts_init(&p->opts);
	p->opts.view.filter.key = NULL;	/* top's own default, below */
	p->delay_s = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" LM_VIEW_SHORTOPTS "bd:hn:", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			p->batch = true;
			break;
		case 'd':
			if (top_parse_delay(optarg, &p->delay_s)) {
				lm_err("top: -d '%s': the interval is 0.05 to 86400 seconds, or with a unit (500ms)",
				       optarg);
				return LM_EXIT_USAGE;
			}
			break;
		case 'n':
			if (lm_parse_u64(optarg, &n) || !n || n > 1000000000) {
				lm_err("top: -n '%s' is not a positive count", optarg);
				return LM_EXIT_USAGE;
			}
			p->count = n;
			break;
		case TOP_OPT_BY_SITE:
			p->by_site = true;
			break;
		case TOP_OPT_REPLAY:
			replay = true;
			break;
		case TOP_OPT_TREE:
			p->tree = true;
			break;

		default:
			ret = lm_opt(&p->opts, c, argv);
			if (ret)
				return ret;
		}
	}
	/* what the interval did, not a maximum since the row appeared */
	if (!p->opts.view.filter.key)
		p->opts.view.filter.key = &lm_keys[LM_K_UTIL];
	if (p->opts.view.fmt == LM_FMT_CSV || p->opts.view.fmt == LM_FMT_FOLDED) {
		lm_err("top: no --csv or --folded; -b prints text, or JSON with --json");
		return LM_EXIT_USAGE;
	}
	if (p->opts.view.filter.stacks) {
		lm_err("top: no --stacks; the HOLDER column names the worst holder");
		return LM_EXIT_USAGE;
	}
	if (p->opts.view.filter.percentiles) {
		lm_err("top: no --percentiles; HP99 is a column, and --sort p99hold, p99wait ... sort by the interval's");
		return LM_EXIT_USAGE;
	}
	if (p->opts.view.fmt == LM_FMT_JSON && !p->batch) {
		lm_err("top: --json needs -b");
		return LM_EXIT_USAGE;
	}
	if (replay) {
		if (optind == argc) {
			lm_err("top: --replay needs snapshot files");
			return LM_EXIT_USAGE;
		}
		if (p->opts.cpu >= 0 || p->opts.source != LM_SRC_AUTO) {
			lm_err("top: --cpu and --source read the kernel; --replay reads files");
			return LM_EXIT_USAGE;
		}
		p->replay = argv + optind;
		p->nr_replay = argc - optind;
	} else {
		ret = lm_opts_no_operand(argc, argv);
		if (ret)
			return ret;
	}
	return lm_opts_check(&p->opts);
}

/* ---- collection ---- */

/* a lock of the tree, as top_lock_is() knows it again in the next frame */
struct top_lock {
	uint32_t type;
	char *lock;
	char *site;	/* a lock that is one site ([heap], *overflow*): that site */
};

struct top {
	const struct top_params *p;
	struct lm_source src;
	bool live;
	size_t next_file;		/* replay: the next file to read */
	struct lm_snapshot prev, cur, delta;
	bool have_prev, have_cur;
	struct timespec t_prev, t_cur;	/* CLOCK_MONOTONIC of the samples */
	struct lm_flat flat;
	struct lm_top_frame frame;
	struct lm_top_state st;
	bool have_frame;
	double delay_s;
	struct timespec due;		/* of the next sample */
	/* the selected row's lock and site (copies): the selection follows them */
	bool sel_known;
	uint32_t sel_type;
	char *sel_lock, *sel_site;
	/* the tree: the locks folded, or with fold_all those left open */
	bool fold_all;
	struct top_lock *fold;
	size_t nr_fold;
};

static double top_ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void top_ts_add(struct timespec *ts, double s)
{
	double whole = floor(s);

	ts->tv_sec += (time_t)whole;
	ts->tv_nsec += (long)((s - whole) * 1e9);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static bool top_str_eq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static void top_sel_forget(struct top *t)
{
	free(t->sel_lock);
	free(t->sel_site);
	t->sel_lock = NULL;
	t->sel_site = NULL;
	t->sel_known = false;
}

/* remember the lock (and site) of the selected row, to keep it selected */
static void top_sel_keep(struct top *t)
{
	const struct lm_row *r;

	top_sel_forget(t);
	if (!t->have_frame || !t->frame.nr)
		return;
	if (t->st.sel >= t->frame.nr)
		t->st.sel = t->frame.nr - 1;
	r = t->frame.rows[t->st.sel];
	t->sel_lock = r->lock ? strdup(r->lock) : NULL;
	t->sel_site = r->site ? strdup(r->site) : NULL;
	t->sel_type = r->type;
	t->sel_known = (t->sel_lock || !r->lock) && (t->sel_site || !r->site);
	if (!t->sel_known)
		top_sel_forget(t);	/* out of memory: the selection stays by position */
}

/*
 * The selection onto the row of the remembered lock and site, or of the
 * lock alone (g changed the grouping); where neither is shown (a filter,
 * an idle interval) it stays where it was, and the lock is still
 * remembered for when it is shown again.
 */
static void top_sel_find(struct top *t)
{
	const struct lm_top_frame *fr = &t->frame;
	size_t i, lock_at = fr->nr;

	if (!t->sel_known) {
		top_sel_keep(t);
		return;
	}
	for (i = 0; i < fr->nr; i++) {
		const struct lm_row *r = fr->rows[i];

		if (r->type != t->sel_type || !top_str_eq(r->lock, t->sel_lock))
			continue;
		if (top_str_eq(r->site, t->sel_site)) {
			t->st.sel = i;
			return;
		}
		if (lock_at == fr->nr)
			lock_at = i;
	}
	if (lock_at < fr->nr)
		t->st.sel = lock_at;
}

/*
 * The frame's total line: its rows added up, named after their number;
 * in the tree, its locks' lines (each the sum of its sites)
 */
static void top_total(struct lm_top_frame *f)
{
	size_t i, n = 0;

	f->nr_locks = 0;
	if (!f->nr)
		return;
	for (i = 0; i < f->nr; i++) {
		if (lm_tree_site(lm_top_line(f, i)))
			continue;
		if (n++)
			lm_row_add(&f->total, f->rows[i]);
		else
			f->total = *f->rows[i];
	}
	f->nr_locks = f->line ? n : 0;
	snprintf(f->total_name, sizeof(f->total_name), "*TOTAL* of %zu %s%s", n,
		 f->line ? "lock" : "row", n == 1 ? "" : "s");
	f->total.type = LM_TYPE_NONE;
	f->total.lock = f->total_name;
	f->total.site = NULL;
}

static bool top_lock_is(const struct top_lock *l, const struct lm_row *r)
{
	return l->type == r->type && top_str_eq(l->lock, r->lock) && top_str_eq(l->site, r->site);
}

/* where the lock of row @r is in fold[]; nr_fold: not there */
static size_t top_fold_find(const struct top *t, const struct lm_row *r)
{
	size_t i;

	for (i = 0; i < t->nr_fold; i++)
		if (top_lock_is(&t->fold[i], r))
			break;
	return i;
}

/* lm_flat_fold()'s question: is the lock of row @r folded */
static bool top_folded(const struct lm_row *r, void *arg)
{
	const struct top *t = arg;

	return t->fold_all != (top_fold_find(t, r) < t->nr_fold);
}

static void top_fold_forget(struct top *t)
{
	size_t i;

	for (i = 0; i < t->nr_fold; i++) {
		free(t->fold[i].lock);
		free(t->fold[i].site);
	}
	free(t->fold);
	t->fold = NULL;
	t->nr_fold = 0;
}

/* fold (@fold) or open the lock of row @r; false: out of memory */
static bool top_fold_set(struct top *t, const struct lm_row *r, bool fold)
{
	size_t i = top_fold_find(t, r);
	struct top_lock *v;

	if ((i < t->nr_fold) == (fold != t->fold_all))
		return true;		/* it is already */
	if (i < t->nr_fold) {
		free(t->fold[i].lock);
		free(t->fold[i].site);
		t->fold[i] = t->fold[--t->nr_fold];
		return true;
	}
	v = realloc(t->fold, (t->nr_fold + 1) * sizeof(*v));
	if (!v)
		return false;
	t->fold = v;
	v += t->nr_fold;
	v->type = r->type;
	v->lock = r->lock ? strdup(r->lock) : NULL;
	v->site = r->site ? strdup(r->site) : NULL;
	if ((r->lock && !v->lock) || (r->site && !v->site)) {
		free(v->lock);
		free(v->site);
		return false;
	}
	t->nr_fold++;
	return true;
}

/* sort and filter the delta into the frame again, after a key */
static int top_build(struct top *t)
{
	struct lm_top_frame *f = &t->frame;
	enum lm_flat_mode mode = t->st.tree ? LM_FLAT_TREE :
				 t->st.by_site ? LM_FLAT_SITE : LM_FLAT_LOCK;

	lm_flat_free(&t->flat);
	if (lm_flat_build(&t->flat, &t->delta, &t->st.filter, mode)) {
		lm_err("out of memory");
		t->have_frame = false;
		return LM_EXIT_ERR;
	}
	lm_flat_fold(&t->flat, top_folded, t);
	f->rows = t->flat.rows;
	f->line = t->flat.line;
	f->nr = t->flat.nr;
	f->nr_active = t->flat.nr_all;
	top_total(f);
	top_sel_find(t);
	return 0;
}

/* the frame of cur against prev (none: since start) */
static int top_frame(struct top *t)
{
	struct lm_top_frame *f = &t->frame;
	unsigned long seq = f->seq;
	int ret, i;

	lm_flat_free(&t->flat);
	lm_snap_free(&t->delta);
	ret = lm_snap_delta(&t->delta, &t->cur, t->have_prev ? &t->prev : NULL);
	if (ret < 0) {
		lm_err("out of memory");
		t->have_frame = false;
		return LM_EXIT_ERR;
	}
	memset(f, 0, sizeof(*f));
	f->h = &t->delta.h;
	lm_ctx_init(&f->ctx, &t->delta.h);
	f->since_start = ret == 1;
	f->metered_ns = t->cur.h.metered_ns;
	f->seq = seq + 1;
	if (t->live) {
		f->origin = t->cur.h.source;
	} else {
		f->origin = strrchr(t->p->replay[t->next_file - 1], '/');
		f->origin = f->origin ? f->origin + 1 : t->p->replay[t->next_file - 1];
	}
	f->replay_end = !t->live && t->next_file == t->p->nr_replay;
	if (!f->since_start) {
		if (t->live)
			f->wall_s = top_ts_diff(&t->t_prev, &t->t_cur);
		else if (lm_has(&t->prev.h, LM_H_END) && lm_has(&t->cur.h, LM_H_END))
			f->wall_s = top_ts_diff(&t->prev.h.end, &t->cur.h.end);
	}
	for (i = 0; i < LM_NR_LOSSES; i++) {
		uint64_t c = t->cur.h.loss[i], p = t->prev.h.loss[i];

		f->loss_new[i] = f->since_start || c < p ? c : c - p;
	}
	t->have_frame = true;
	return top_build(t);
}

/* forget the samples: the next frame is since start (the old one stays) */
static void top_rebase(struct top *t)
{
	lm_flat_free(&t->flat);
	lm_snap_free(&t->delta);
	t->have_frame = false;
	lm_snap_free(&t->prev);
	lm_snap_free(&t->cur);
	t->have_cur = false;
	t->have_prev = false;
}

/* a header string both have, and which differs */
static bool top_hdr_differs(const struct lm_header *a, const struct lm_header *b, int bit,
			    const char *sa, const char *sb)
{
	return lm_has(a, bit) && lm_has(b, bit) && strcmp(sa, sb);
}

/*
 * Whether replay file @next follows @prev: the same machine and kernel,
 * and taken later.  Else it is said why, and its frame is since start (a
 * delta across two kernels, or backwards in time, is no interval).
 */
static bool top_replay_follows(const struct lm_header *prev, const struct lm_header *next,
			       const char *file)
{
	const char *why = NULL;

	if (top_hdr_differs(prev, next, LM_H_NODE, prev->node, next->node))
		why = "is from another machine (node)";
	else if (top_hdr_differs(prev, next, LM_H_RELEASE, prev->release, next->release) ||
		 top_hdr_differs(prev, next, LM_H_UVERSION, prev->uversion, next->uversion))
		why = "is from another kernel (release or version)";
	else if (lm_has(prev, LM_H_END) && lm_has(next, LM_H_END) &&
		 top_ts_diff(&prev->end, &next->end) < 0)
		why = "was taken before the file ahead of it (out of order)";
	if (!why)
		return true;
	lm_err("top: %s %s: its frame is since start", file, why);
	return false;
}

/*
 * The next snapshot into cur, the old cur into prev; TOP_END: replay ended.
 * Whether it works or not, the next sample is due an interval later, and
 * a replay file that cannot be read is not read again.
 */
static int top_sample(struct top *t)
{
	struct lm_snapshot next;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t->due);
	top_ts_add(&t->due, t->delay_s);
	lm_snap_init(&next);
	if (t->live) {
		ret = lm_source_read(&t->src, t->st.cpu, &next);
		clock_gettime(CLOCK_REALTIME, &next.h.end);
		lm_set(&next.h, LM_H_END);
	} else {
		if (t->next_file == t->p->nr_replay)
			return TOP_END;
		ret = lm_snap_load(t->p->replay[t->next_file++], &next);
		if (!ret && t->have_cur &&
		    !top_replay_follows(&t->cur.h, &next.h, t->p->replay[t->next_file - 1]))
			top_rebase(t);
	}
	if (ret) {
		lm_snap_free(&next);
		return ret;
	}
	/* the frame points into delta, delta into cur: both go first */
	lm_flat_free(&t->flat);
	lm_snap_free(&t->delta);
	t->have_frame = false;
	lm_snap_free(&t->prev);
	t->prev = t->cur;
	t->have_prev = t->have_cur;
	t->cur = next;
	t->have_cur = true;
	t->t_prev = t->t_cur;
	clock_gettime(CLOCK_MONOTONIC, &t->t_cur);
	return top_frame(t);
}

/* whether the locale (LC_ALL, LC_CTYPE, LANG) has UTF-8; lockstat stays in the C locale */
static bool top_utf8(void)
{
	bool utf8 = setlocale(LC_CTYPE, "") && !strcmp(nl_langinfo(CODESET), "UTF-8");

	setlocale(LC_CTYPE, "C");
	return utf8;
}

static int top_open(struct top *t, const struct top_params *p)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->live = !p->nr_replay;
	t->delay_s = p->delay_s;
	t->st.filter = p->opts.view.filter;
	t->st.cpu = p->opts.cpu;
	t->st.by_site = p->by_site;
	t->st.tree = p->tree;
	/* the screen draws the tree with the terminal's line characters */
	t->st.utf8 = p->batch && top_utf8();
	t->st.help_text = top_keys_help;
	if (t->st.filter.name) {
		snprintf(t->st.name, sizeof(t->st.name), "%s", t->st.filter.name);
		t->st.filter.name = t->st.name;
	}
	lm_snap_init(&t->prev);
	lm_snap_init(&t->cur);
	lm_snap_init(&t->delta);
	return t->live ? lm_source_open(&t->src, p->opts.source) : 0;
}

static void top_close(struct top *t)
{
	lm_flat_free(&t->flat);
	lm_snap_free(&t->delta);
	lm_snap_free(&t->cur);
	lm_snap_free(&t->prev);
	top_sel_forget(t);
	top_fold_forget(t);
	if (t->live)
		lm_source_close(&t->src);
}

static void top_signals(bool screen)
{
	struct sigaction sa = { .sa_handler = top_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (screen) {
		sigaction(SIGWINCH, &sa, NULL);
		sigaction(SIGCONT, &sa, NULL);
	}
}

/* ---- batch ---- */

static void top_print(struct top *t)
{
	size_t top = t->p->opts.view.filter.top;

	if (t->p->opts.view.fmt == LM_FMT_JSON)
		lm_batch_json(stdout, &t->frame, &t->st, top);
	else
		lm_batch_text(stdout, &t->frame, &t->st, top);
}

/* sleep until @due, or a signal */
static void top_sleep_until(const struct timespec *due)
{
	while (!top_quit &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, due, NULL) == EINTR)
		;
}

static int top_batch(struct top *t)
{
	unsigned long n;
	int ret = 0;

	for (n = 0; !top_quit && (!t->p->count || n < t->p->count); n++) {
		if (n && t->live)
			top_sleep_until(&t->due);
		if (top_quit)
			break;
		ret = top_sample(t);
		if (ret == TOP_END)
			return 0;	/* the replay files ran out */
		if (ret)
			return ret;
		top_print(t);
		if (lm_write_check(stdout))
			return LM_EXIT_ERR;
	}
	return 0;
}

/* ---- the screen's keys ---- */

static void top_say(struct top *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void top_say(struct top *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->st.msg, sizeof(t->st.msg), fmt, ap);
	va_end(ap);
}

/* a new sample now; errors land in the status line; true: a new frame */
static bool top_refresh(struct top *t)
{
	char why[sizeof(t->st.msg)];
	int ret = top_sample(t);

	if (!ret)
		return true;
	if (ret == TOP_END) {
		top_say(t, "end of the replay: %zu files", t->p->nr_replay);
		return false;
	}
	/* what lm_err() said, after what top does about it */
	memcpy(why, t->st.msg, sizeof(why));
	if (t->live)
		top_say(t, "sampling failed, next try in %gs: %s", t->delay_s, why);
	else
		top_say(t, "file skipped: %s", why);
	return false;
}

static void top_sort_step(struct top *t, int dir)
{
	unsigned int i, n = lm_top_nr_cols;
	int at = dir > 0 ? -1 : 0;

	for (i = 0; i < n; i++)
		if (&lm_keys[lm_top_cols[i]] == t->st.filter.key)
			at = (int)i;
	at = (at + dir + (int)n) % (int)n;
	t->st.filter.key = &lm_keys[lm_top_cols[at]];
	t->st.filter.reverse = false;
	top_say(t, "sort: %s", t->st.filter.key->name);
}

static void top_sort_prompt(struct top *t)
{
	char buf[32] = "";
	const struct lm_key *k;

	if (lm_screen_prompt("sort key: ", buf, sizeof(buf)) != 1 || !buf[0])
		return;
	k = lm_key_find(buf);
	if (!k) {
		top_say(t, "no sort key '%s' (h lists them)", buf);
		return;
	}
	t->st.filter.key = k;
	t->st.filter.reverse = false;
	top_say(t, "sort: %s", k->name);
}

static void top_name_prompt(struct top *t)
{
	char buf[sizeof(t->st.name)];

	snprintf(buf, sizeof(buf), "%s", t->st.name);
	if (lm_screen_prompt("show names containing: ", buf, sizeof(buf)) != 1)
		return;
	memcpy(t->st.name, buf, sizeof(buf));
	t->st.filter.name = t->st.name[0] ? t->st.name : NULL;
	top_say(t, t->st.name[0] ? "filter: \"%s\"" : "filter: none%s", t->st.name);
}

/* the line starts empty, as in top(1): what is typed is the interval, not appended to it */
static void top_delay_prompt(struct top *t)
{
	char buf[32] = "", prompt[64];
	double d;

	snprintf(prompt, sizeof(prompt), "interval in seconds (now %g): ", t->delay_s);
	if (lm_screen_prompt(prompt, buf, sizeof(buf)) != 1)
		return;
	if (!buf[0]) {
		top_say(t, "interval: %gs, unchanged", t->delay_s);
		return;
	}
	if (top_parse_delay(buf, &d)) {
		top_say(t, "interval '%s': 0.05 to 86400 seconds, or with a unit", buf);
		return;
	}
	t->delay_s = d;
	clock_gettime(CLOCK_MONOTONIC, &t->due);
	top_ts_add(&t->due, d);
	top_say(t, "interval: %gs", d);
}

/* whether the interval has a row of type @ty */
static bool top_type_active(const struct top *t, int ty)
{
	size_t i;

	for (i = 0; i < t->delta.nr; i++)
		if ((int)t->delta.rows[i].type == ty)
			return true;
	return false;
}

/* all types, then each in turn that the interval has rows of, then all again */
static void top_type_step(struct top *t)
{
	unsigned int m = t->st.filter.types;
	int ty = LM_TYPE_NONE;

	if (m && !(m & (m - 1)))
		ty = __builtin_ctz(m);
	while (++ty < LM_NR_TYPES && t->have_frame && !top_type_active(t, ty))
		;
	t->st.filter.types = ty < LM_NR_TYPES ? 1U << ty : 0;
	top_say(t, "type: %s", t->st.filter.types ? lm_type_name(ty) : "all");
}

static void top_cpu_step(struct top *t)
{
	unsigned int cpus = t->have_cur ? t->cur.h.cpus : 0;

	if (!t->live || t->src.used != LM_SRC_NETLINK) {
		top_say(t, "per-CPU tables need the netlink source%s",
			t->live ? "" : ", not a replay");
		return;
	}
	t->st.cpu = t->st.cpu + 1 < (int)cpus ? t->st.cpu + 1 : -1;
	top_rebase(t);
	top_refresh(t);
	if (t->st.cpu >= 0)
		top_say(t, "cpu %d: since start first, then per interval", t->st.cpu);
	else
		top_say(t, "all cpus: since start first, then per interval");
}

/* @ask: the question before @op is done (NULL: none); y does it */
static void top_control(struct top *t, enum lm_ctl op, const char *what, const char *ask)
{
	if (!t->live) {
		top_say(t, "%s: a replay has no kernel to control", what);
		return;
	}
	if (ask && lm_screen_confirm(ask) != 1) {
		top_say(t, "%s: not done", what);
		return;
	}
	t->st.msg[0] = '\0';
	if (lm_source_control(&t->src, op))
		return;		/* lm_err() said why in the status line */
	if (op == LM_CTL_RESET) {
		/* a frame of the first few ms after a reset says nothing: wait */
		top_rebase(t);
		top_say(t, "reset: done; the next frame counts from the reset");
		return;
	}
	top_refresh(t);
	top_say(t, "%s: done", what);
}

/* move the selection @by rows, within the frame's rows; the screen follows */
static void top_select(struct top *t, long by)
{
	size_t nr = t->have_frame ? t->frame.nr : 0;
	size_t sel = t->st.sel < nr ? t->st.sel : (nr ? nr - 1 : 0);

	if (by < 0)
		sel -= (size_t)-by < sel ? (size_t)-by : sel;
	else
		sel = sel + (size_t)by < nr ? sel + (size_t)by : (nr ? nr - 1 : 0);
	t->st.sel = sel;
	top_sel_keep(t);
}

/* NAME's text moved by a step to the left (@dir 1) or back (-1) */
static void top_name_scroll(struct top *t, int dir)
{
	unsigned int *off = &t->st.name_off;

	if (dir > 0 && *off + TOP_NAME_STEP <= TOP_NAME_OFF_MAX)
		*off += TOP_NAME_STEP;
	else if (dir < 0)
		*off = *off > TOP_NAME_STEP ? *off - TOP_NAME_STEP : 0;
	if (*off)
		top_say(t, "NAME from its column %u (] further, [ back)", *off + 1);
	else
		top_say(t, "NAME from its start");
}

/* T, F5: the tree, or the list it came from */
static void top_tree_key(struct top *t)
{
	t->st.tree = !t->st.tree;
	if (t->st.tree)
		top_say(t, "tree: each lock, its sites beneath; - folds a lock, + opens it, * all");
	else
		top_say(t, "tree off: a row per %s", t->st.by_site ? "(lock, site)" : "lock");
}

/* the tree's row of the lock of the selected row; SIZE_MAX: no tree, no row */
static size_t top_tree_lock_at(const struct top *t)
{
	const struct lm_top_frame *f = &t->frame;
	size_t i;

	if (!t->st.tree || !t->have_frame || !f->nr || !f->line)
		return SIZE_MAX;
	i = t->st.sel < f->nr ? t->st.sel : f->nr - 1;
	while (i && lm_tree_site(f->line[i]))
		i--;
	return i;
}

/* -, +: fold or open the lock of the selected row; - on a site selects its lock */
static void top_fold_key(struct top *t, bool fold)
{
	const char *what = fold ? "fold" : "open";
	size_t i = top_tree_lock_at(t);
	char name[160];

	if (!t->st.tree) {
		top_say(t, "%s: in the tree (T or F5)", what);
		return;
	}
	if (i == SIZE_MAX) {
		top_say(t, "%s: no lock to %s", what, what);
		return;
	}
	lm_top_name(name, sizeof(name), &t->frame, i);
	if (t->frame.line[i] == LM_TL_ALONE) {
		top_say(t, "%s: %s is one site, nothing beneath", what, name);
		return;
	}
	if (!top_fold_set(t, t->frame.rows[i], fold)) {
		top_say(t, "%s: out of memory", what);
		return;
	}
	if (fold) {
		t->st.sel = i;
		top_sel_keep(t);
	}
	top_say(t, "%s: %s", fold ? "folded" : "open", name);
}

/* *: open every lock when one is folded, else fold them all (htop's *) */
static void top_fold_all(struct top *t)
{
	bool folded = false;
	size_t i = top_tree_lock_at(t), k;

	if (!t->st.tree) {
		top_say(t, "fold all: in the tree (T or F5)");
		return;
	}
	for (k = 0; i != SIZE_MAX && k < t->frame.nr; k++)
		folded |= t->frame.line[k] == LM_TL_FOLDED;
	top_fold_forget(t);
	t->fold_all = !folded;
	if (t->fold_all && i != SIZE_MAX) {
		t->st.sel = i;
		top_sel_keep(t);
	}
	top_say(t, folded ? "all locks open" : "all locks folded: + opens one, * all");
}

/* what a key does; false: quit */
static bool top_key(struct top *t, int key, size_t *scroll)
{
	if (t->st.help) {
		t->st.help = false;
		return key != 'q';
	}
	t->st.msg[0] = '\0';
	switch (key) {
	case 'q':
	case 'Q':
		return false;
	case 'h':
	case '?':
		t->st.help = true;
		break;
	case '<':
	case ',':
	case LM_TK_LEFT:
		top_sort_step(t, -1);
		break;
	case '>':
	case '.':
	case LM_TK_RIGHT:
		top_sort_step(t, 1);
		break;
	case 'R':
		t->st.filter.reverse = !t->st.filter.reverse;
		top_say(t, "sort: %s%s", t->st.filter.key->name,
			t->st.filter.reverse ? ", reversed" : "");
		break;
	case 's':
		top_sort_prompt(t);
		break;
	case '/':
		top_name_prompt(t);
		break;
	case 't':
		top_type_step(t);
		break;
	case '[':
	case ']':
		top_name_scroll(t, key == ']' ? 1 : -1);
		break;
	case 'g':
		/* from the tree: back to the list it came from */
		if (t->st.tree)
			t->st.tree = false;
		else
			t->st.by_site = !t->st.by_site;
		top_say(t, "a row per %s", t->st.by_site ? "(lock, site)" : "lock");
		break;
	case 'T':
		top_tree_key(t);
		break;
	case '+':
	case '=':
	case '-':
		top_fold_key(t, key == '-');
		break;
	case '*':
		top_fold_all(t);
		break;
	case 'c':
		top_cpu_step(t);
		break;
	case 'p':
		t->st.paused = !t->st.paused;
		if (!t->st.paused)
			top_refresh(t);
		break;
	case ' ':
		top_refresh(t);
		break;
	case 'd':
		top_delay_prompt(t);
		break;
	case 'r':
		top_control(t, LM_CTL_RESET, "reset", "reset all statistics? (y/N) ");
		break;
	case 'o':
		if (t->have_cur && lm_has(&t->cur.h, LM_H_STATE) && t->cur.h.on)
			top_control(t, LM_CTL_OFF, "metering off", "switch metering off? (y/N) ");
		else
			top_control(t, LM_CTL_ON, "metering on", NULL);
		break;
	case LM_TK_UP:
	case 'k':
		top_select(t, -1);
		break;
	case LM_TK_DOWN:
	case 'j':
		top_select(t, 1);
		break;
	case LM_TK_PGUP:
		top_select(t, -(long)lm_screen_page());
		break;
	case LM_TK_PGDN:
		top_select(t, (long)lm_screen_page());
		break;
	case LM_TK_HOME:
		t->st.sel = 0;
		*scroll = 0;
		top_sel_keep(t);
		break;
	case LM_TK_END:
		top_select(t, t->have_frame ? (long)t->frame.nr : 0);
		break;
	case '\r':
	case '\n':
		t->st.detail = !t->st.detail;
		if (t->st.detail && !(t->have_frame && t->frame.nr))
			top_say(t, "detail: no row to show (it opens on the selected row)");
		break;
	case 'L' - '@':		/* ^L */
		lm_screen_redraw();
		break;
	case LM_TK_RESIZE:
		lm_screen_resize();
		break;
	default:
		top_say(t, "unknown key (h: help)");
		break;
	}
	if (t->have_frame && top_build(t))
		return false;
	return true;
}

/* ms until the next sample is due, at most 500 so that flags are seen */
static int top_wait_ms(const struct top *t)
{
	struct timespec now;
	double ms;

	if (t->st.paused || (!t->live && t->next_file == t->p->nr_replay))
		return 500;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = top_ts_diff(&now, &t->due) * 1000;
	if (ms <= 0)
		return 0;
	return ms > 500 ? 500 : (int)ceil(ms);
}

static bool top_due(const struct top *t)
{
	struct timespec now;

	if (!t->live && t->next_file == t->p->nr_replay)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return top_ts_diff(&t->due, &now) >= 0;
}

static int top_screen(struct top *t)
{
	unsigned long frames = 0;
	size_t scroll = 0;
	bool draw = true;
	int ret, key;

	ret = lm_screen_open(&top_quit);
	if (ret)
		return ret;
	lm_err_capture(t->st.msg, sizeof(t->st.msg));
	clock_gettime(CLOCK_MONOTONIC, &t->due);
	while (!top_quit) {
		if (top_winch) {
			top_winch = 0;
			lm_screen_resize();
			draw = true;
		}
		if (top_cont) {
			top_cont = 0;
			lm_screen_redraw();
			draw = true;
		}
		if (!t->st.paused && top_due(t)) {
			if (t->p->count && frames == t->p->count)
				break;
			t->st.msg[0] = '\0';
			if (top_refresh(t))
				frames++;	/* a failed sample is no frame */
			draw = true;
		}
		if (draw)
			lm_screen_draw(t->have_frame ? &t->frame : NULL, &t->st, &scroll);
		key = lm_screen_key(top_wait_ms(t));
		if (key == LM_TK_HUP)
			break;
		draw = key != LM_TK_NONE;
		/* a prompt of the key may have seen the hang-up */
		if (draw && (!top_key(t, key, &scroll) || lm_screen_hungup()))
			break;
	}
	lm_err_capture(NULL, 0);
	lm_screen_close();
	if (lm_screen_hungup() || top_quit == SIGHUP) {
		lm_err("top: the terminal hung up");
		return LM_EXIT_ERR;
	}
	return 0;
}

int top_main(int argc, char **argv)
{
	struct top_params p;
	struct top t;
	int ret;

	ret = top_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, top_usage);
	ret = top_open(&t, &p);
	if (ret)
		goto out_close;
	top_signals(!p.batch);
	ret = p.batch ? top_batch(&t) : top_screen(&t);
out_close:
	top_close(&t);
	return ret;
}
