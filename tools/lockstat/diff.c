// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat diff A B: two saved snapshots compared, A before (kernel A,
 * or without a patch) and B after.
 *
 * Rows are matched by (type, lock name, site function): "+0xoff/0xsize"
 * is dropped from sites and "+0xoff" from lock names ("init_task+0x668"
 * is "init_task"), since offsets differ between builds, and so is what a
 * compiler appends to a symbol ("lookup_slow.isra.0" is "lookup_slow");
 * a module's name ("[test_lockmeter]") stays.  Another name is another
 * function: one renamed or inlined between two kernels is gone and new.
 * A name that is only an address matches only in the same build (release
 * and uname -v).  --exact matches the names as they are.
 * The overflow row of a type is one key, "*overflow*", on both sides,
 * whichever longest hold names it.
 * The rows of one snapshot with one key are merged first (lm_row_add), so
 * each key is one row per side.
 *
 * Per key, the columns of diff_cols[] for A and B and their change in
 * percent of A: UTIL and acquisitions per second relative to each
 * snapshot's own metered time, so runs of different lengths compare;
 * hold and wait p99 from the rows' histograms (estimates at bucket
 * resolution; "-" for a row without one).
 * The regression of a matched key is the largest relative increase of its
 * hold max, hold mean and, where both sides have one, hold p99; keys sort
 * by it, largest first, then the new (B only) and the gone (A only) ones.
 * A p99 in the open last bucket is a lower bound, so its change is a bound
 * too (">=+50%", "<=-20%"), and unknown ("?") when both sides are bounds.
 * The gates make the exit status LM_EXIT_REGRESS, never used for an
 * error: --fail-over PCT when a matched key's hold max, mean or p99 rose
 * by more than PCT percent and is, in B, at least --min-hold;
 * --fail-over-wait PCT the same of the waits, with --min-wait;
 * --fail-on-new when B has a key A has not, with a hold max of at least
 * --min-hold.  A change known only as "<=" or "?" passes no gate.
 * --type keeps the rows of its types only, before anything else: the
 * counts, the output and the gates are of those.  --top N only cuts the
 * output to the first N of each status; the counts and the gates still
 * see every row, so a regression is never hidden by it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"
#include "view.h"

/* long-only options of diff, past the shared ones */
enum diff_opt {
	DIFF_OPT_EXACT = 512,
	DIFF_OPT_FAIL_ON_NEW,
	DIFF_OPT_FAIL_OVER,
	DIFF_OPT_FAIL_OVER_WAIT,
	DIFF_OPT_MIN_HOLD,
	DIFF_OPT_MIN_WAIT,
	DIFF_OPT_TOP,
	DIFF_OPT_TYPE,
	DIFF_OPT_WIDTH,
};

/* what a gate looks at: holds (--fail-over) or waits (--fail-over-wait) */
enum diff_gate_id {
	DIFF_G_HOLD,
	DIFF_G_WAIT,
	DIFF_NR_GATES
};

struct diff_gate {
	bool on;		/* --fail-over or --fail-over-wait given */
	bool floor;		/* --min-hold or --min-wait given */
	double pct;
	uint64_t min_ns;
};

/* what the two snapshots' kernels are to each other */
enum diff_kernels {
	DIFF_K_SAME,		/* one release, one build (uname -v) where both say */
	DIFF_K_BUILDS,		/* one release, two builds */
	DIFF_K_DIFFER,		/* two releases, or one unknown */
};

struct diff_params {
	enum lm_fmt fmt;
	int width;		/* --width; -1 unset */
	bool exact;		/* match the names as they are */
	enum diff_kernels kernels;	/* not an option: of the two headers, once read */
	bool fail_new;		/* --fail-on-new */
	struct diff_gate gate[DIFF_NR_GATES];
	unsigned int types;	/* --type: a mask of 1 << type; 0 all */
	size_t top;		/* --top: the rows of each status output; 0 all */
	const char *file[2];	/* A, B */
};

/* the name a row is matched by, per side */
struct diff_key {
	uint32_t type;
	const char *lock;	/* normalised, in the side's name buffer */
	const char *site;
	int only;		/* 1 + the side: an address in another build, matches nothing */
	struct lm_row row;	/* all rows of the snapshot with this key */
};

struct diff_side {
	struct lm_snapshot snap;
	struct lm_ctx ctx;
	struct diff_key *keys;
	size_t nr;
	char *names;		/* the normalised names, NUL-separated */
};

enum diff_status {
	DIFF_MATCHED,
	DIFF_NEW,
	DIFF_GONE,
	DIFF_NR_STATUS
};

/* a change of a p99 whose side is a lower bound (the open last bucket) */
enum diff_bound {
	DIFF_EXACT,
	DIFF_AT_LEAST,		/* only B's is a bound: ">=" */
	DIFF_AT_MOST,		/* only A's is a bound: "<=" */
};

struct diff_entry {
	enum diff_status status;
	const struct diff_key *k[2];	/* NULL on the side it is missing */
	double regress;			/* matched: diff_regress() */
	enum diff_bound regress_bd;	/* the regression is that bound of the change */
	bool over;			/* past a gate: any of the next */
	bool over_gate[DIFF_NR_GATES];	/* matched: past --fail-over (-wait) and its floor */
	bool over_new;			/* new, with --fail-on-new, at or above --min-hold */
};

/* every entry of the --type filter, output or not (--top): the counts and the verdict */
struct diff_tally {
	size_t status[DIFF_NR_STATUS];
	size_t over_gate[DIFF_NR_GATES];
	size_t over_new;
	size_t over;			/* past any gate */
};

/*
 * The columns, one table: the JSON/CSV name, the header, a value of a
 * row and the cell printer.  A value is NAN when the row has none (a
 * p99 without a histogram): "-" in the table, null in JSON, empty in CSV.
 */
struct diff_col {
	const char *name;
	enum lm_key_id key;	/* the same value's sort key: its place in lm_col_drop[] */
	const char *group;	/* the header line above its first column: HOLD, WAIT or "" */
	const char *header;
	double (*val)(const struct lm_row *r, const struct lm_ctx *c);
	void (*fmt)(char *buf, size_t len, double v);
	/* a p99 in the open last bucket: its lower bound, shown ">=" as report does */
	bool (*ge)(const struct lm_row *r, const struct lm_ctx *c);
	const char *ge_name;	/* its JSON field (true) and CSV column (1, 0) */
};

static double diff_ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0;
}

static double col_util(const struct lm_row *r, const struct lm_ctx *c)
{
	return lm_util_pct(r, c);
}

static double col_con(const struct lm_row *r, const struct lm_ctx *c)
{
	(void)c;
	return lm_con_pct(r);
}

/* a mean of @total over @count, or a field as it is */
#define COL_MEAN(n, total, count)					\
static double col_##n(const struct lm_row *r, const struct lm_ctx *c)	\
{									\
	(void)c;							\
	return diff_ratio(r->v[LM_F_##total], r->v[LM_F_##count]);	\
}

#define COL_FIELD(n, f)							\
static double col_##n(const struct lm_row *r, const struct lm_ctx *c)	\
{									\
	(void)c;							\
	return (double)r->v[LM_F_##f];					\
}

COL_MEAN(hold_mean, HOLD_TOTAL, ACQUIRED)
COL_FIELD(hold_max, HOLD_MAX)
COL_MEAN(wait_mean, WAIT_TOTAL, SPIN)
COL_FIELD(wait_max, WAIT_MAX)

/* a p99 from the row's histogram; NAN without one (shown as "-") */
static double diff_p99(const struct lm_row *r, const struct lm_ctx *c, int kind)
{
	double ns;

	return lm_row_pct(r, c, kind, LM_P99, &ns) == LM_PCT_NONE ? NAN : ns;
}

static double col_hold_p99(const struct lm_row *r, const struct lm_ctx *c)
{
	return diff_p99(r, c, LM_HIST_HOLD);
}

static double col_wait_p99(const struct lm_row *r, const struct lm_ctx *c)
{
	return diff_p99(r, c, LM_HIST_WAIT);
}

static bool diff_p99_ge(const struct lm_row *r, const struct lm_ctx *c, int kind)
{
	double ns;

	return lm_row_pct(r, c, kind, LM_P99, &ns) == LM_PCT_GE;
}

static bool ge_hold_p99(const struct lm_row *r, const struct lm_ctx *c)
{
	return diff_p99_ge(r, c, LM_HIST_HOLD);
}

static bool ge_wait_p99(const struct lm_row *r, const struct lm_ctx *c)
{
	return diff_p99_ge(r, c, LM_HIST_WAIT);
}

static double col_rate(const struct lm_row *r, const struct lm_ctx *c)
{
	return c->elapsed_ns > 0 ? 1e9 * (double)r->v[LM_F_ACQUIRED] / c->elapsed_ns : 0;
}

enum diff_col_id {
	DIFF_C_UTIL,
	DIFF_C_CON,
	DIFF_C_HOLD_MEAN,
	DIFF_C_HOLD_MAX,
	DIFF_C_HOLD_P99,
	DIFF_C_WAIT_MEAN,
	DIFF_C_WAIT_MAX,
	DIFF_C_WAIT_P99,
	DIFF_C_RATE,
	DIFF_NR_COLS
};

static const struct diff_col diff_cols[DIFF_NR_COLS] = {
	[DIFF_C_UTIL] = { "util_pct", LM_K_UTIL, "", "UTIL", col_util, lm_fmt_pct },
	[DIFF_C_CON] = { "con_pct", LM_K_CON, "", "CON", col_con, lm_fmt_pct },
	[DIFF_C_HOLD_MEAN] = { "hold_mean_ns", LM_K_MEANHOLD, "HOLD", "MEAN", col_hold_mean,
			       lm_fmt_time },
	[DIFF_C_HOLD_MAX] = { "hold_max_ns", LM_K_MAXHOLD, "HOLD", "MAX", col_hold_max,
			      lm_fmt_time },
	[DIFF_C_HOLD_P99] = { "hold_p99_ns", LM_K_P99HOLD, "HOLD", "P99", col_hold_p99,
			      lm_fmt_time, ge_hold_p99, "hold_p99_ge" },
	[DIFF_C_WAIT_MEAN] = { "wait_mean_ns", LM_K_MEANWAIT, "WAIT", "MEAN", col_wait_mean,
			       lm_fmt_time },
	[DIFF_C_WAIT_MAX] = { "wait_max_ns", LM_K_MAXWAIT, "WAIT", "MAX", col_wait_max,
			      lm_fmt_time },
	[DIFF_C_WAIT_P99] = { "wait_p99_ns", LM_K_P99WAIT, "WAIT", "P99", col_wait_p99,
			      lm_fmt_time, ge_wait_p99, "wait_p99_ge" },
	[DIFF_C_RATE] = { "acq_per_s", LM_K_RATE, "", "ACQ/s", col_rate, lm_fmt_rate },
};

#define DIFF_W	8	/* every cell, a change ("+1234%") too */
#define DIFF_LEAD	10	/* "  +900%! A" before the cells */
#define DIFF_NAME_MIN	24	/* columns drop before TYPE LOCK SITE gets less */

static const char diff_rule[] =
	"___________________________________________________________________________________________";

static const char *const diff_msg[] = {
	"",
	"Compare two snapshots (lockstat get, record -o): A before, B after, each",
	"named with its kernel.  Rows match by (type, lock, site function):",
	"offsets (+0xoff/0xsize) and a compiler's suffixes (.isra.0, .cold) are",
	"ignored; a function renamed or inlined between two kernels shows as gone",
	"and new, as does, between two builds, a name that is only an address.",
	"Per match UTIL, CON, hold and wait mean, max and p99 (from histograms,",
	"'-' without), acquisitions per second (each over its own metered time)",
	"of A and B and the change in percent of A; sorted by regression, the",
	"largest increase of hold max, hold mean and hold p99 (where both sides",
	"have one); then the rows only B has (new) and those only A has (gone).",
	"A change to or from a p99 lower bound (>=) is a bound, >= or <=, and",
	"one between two lower bounds unknown, ?.",
	"",
	"  --csv               CSV instead of the table (raw numbers)",
	"  --exact             match the names as they are, offsets and suffixes too",
	"  --fail-on-new       exit 9 when B has a row A has not, its hold max at",
	"                      least --min-hold",
	"  --fail-over PCT     exit 9 when a matched row's hold max, mean or p99",
	"                      rose by more than PCT percent (a CI gate)",
	"  --fail-over-wait PCT  exit 9 when a matched row's wait max, mean or",
	"                      p99 rose by more than PCT percent",
	"  --json              JSON instead of the table (raw numbers)",
	"  --min-hold DUR      with --fail-over, --fail-on-new: only rows whose",
	"                      value is at least DUR in B (a number and its unit:",
	"                      ns, us, ms or s; default 0)",
	"  --min-wait DUR      the same for --fail-over-wait",
	"  --top N             only the first N rows of each: matched, new and gone",
	"                      (table, JSON and CSV); the counts and the gates",
	"                      still cover every row",
	"  --type TYPE         only rows of TYPE (repeatable, or comma-separated):",
	"                      compared, counted and gated; one of:",
	LM_HELP_TYPES "                      ",
	"  -Y, --type-filter TYPE  the same (perf lock's name for it)",
	"  --width N           the table in N columns (0: no limit); default the",
	"                      terminal's, else $COLUMNS, else no limit",
	"  -h, --help          this text",
	"",
	"exit status of diff: 0 no gate failed, 9 a gate found a regression, else",
	"an error's code below (1 a write error, 6 and 7 a snapshot file), never 9",
	NULL,
};

static void diff_usage(int err)
{
	lm_usage(err, "diff", "[OPTIONS] A B", diff_msg, 0);
}

static int diff_fmt_opt(struct diff_params *p, enum lm_fmt fmt)
{
	if (p->fmt != LM_FMT_TABLE) {
		lm_err("diff: --json and --csv exclude each other");
		return LM_EXIT_USAGE;
	}
	p->fmt = fmt;
	return 0;
}

/* --fail-over PCT, --fail-over-wait PCT, and their floors --min-hold DUR, --min-wait DUR */
static int diff_gate_opt(struct diff_params *p, int c, const char *arg)
{
	static const struct {
		int opt;
		const char *name;
		enum diff_gate_id gate;
		bool floor;
	} t[] = {
		{ DIFF_OPT_FAIL_OVER, "--fail-over", DIFF_G_HOLD, false },
		{ DIFF_OPT_FAIL_OVER_WAIT, "--fail-over-wait", DIFF_G_WAIT, false },
		{ DIFF_OPT_MIN_HOLD, "--min-hold", DIFF_G_HOLD, true },
		{ DIFF_OPT_MIN_WAIT, "--min-wait", DIFF_G_WAIT, true },
	};
	unsigned int i;
	struct diff_gate *g;

	for (i = 0; i + 1 < ARRAY_SIZE(t) && t[i].opt != c; i++)
		;
	g = &p->gate[t[i].gate];
	if (t[i].floor) {
		if (lm_parse_duration(arg, &g->min_ns)) {
			lm_err("diff: %s: '%s' is not a duration: a number and its unit, ns, us, ms or s (10us, 1.5ms, 2s)",
			       t[i].name, arg);
			return LM_EXIT_USAGE;
		}
		g->floor = true;
	} else {
		if (lm_parse_pct(arg, 1e9, &g->pct)) {
			lm_err("diff: %s: '%s' is not a percentage", t[i].name, arg);
			return LM_EXIT_USAGE;
		}
		g->on = true;
	}
	return 0;
}

/* --type TYPE, -Y TYPE: as report takes it; the types add up */
static int diff_type_opt(struct diff_params *p, const char *arg)
{
	char types[256];

	if (!lm_parse_types(arg, &p->types))
		return 0;
	lm_type_list(types, sizeof(types), ", ");
	lm_err("diff: --type: '%s': the types are %s", arg, types);
	return LM_EXIT_USAGE;
}

/* --top N: N rows of each status, 1 or more */
static int diff_top_opt(struct diff_params *p, const char *arg)
{
	uint64_t v;

	if (lm_parse_u64(arg, &v) || !v || v > SIZE_MAX) {
		lm_err("diff: --top: '%s' is not a positive number (of rows of each status)", arg);
		return LM_EXIT_USAGE;
	}
	p->top = (size_t)v;
	return 0;
}

static int diff_parse_args(int argc, char **argv, struct diff_params *p)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, LM_OPT_CSV },
		{ "exact", no_argument, NULL, DIFF_OPT_EXACT },
		{ "fail-on-new", no_argument, NULL, DIFF_OPT_FAIL_ON_NEW },
		{ "fail-over", required_argument, NULL, DIFF_OPT_FAIL_OVER },
		{ "fail-over-wait", required_argument, NULL, DIFF_OPT_FAIL_OVER_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "min-hold", required_argument, NULL, DIFF_OPT_MIN_HOLD },
		{ "min-wait", required_argument, NULL, DIFF_OPT_MIN_WAIT },
		{ "top", required_argument, NULL, DIFF_OPT_TOP },
		{ "type", required_argument, NULL, DIFF_OPT_TYPE },
		{ "type-filter", required_argument, NULL, 'Y' },
		{ "width", required_argument, NULL, DIFF_OPT_WIDTH },
		{ NULL, 0, NULL, 0 },
	};
	struct diff_gate *hold = &p->gate[DIFF_G_HOLD], *wait = &p->gate[DIFF_G_WAIT];
	int c, ret;

	memset(p, 0, sizeof(*p));
	p->fmt = LM_FMT_TABLE;
	p->width = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hY:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case LM_OPT_CSV:
		case LM_OPT_JSON:
			ret = diff_fmt_opt(p, c == LM_OPT_CSV ? LM_FMT_CSV : LM_FMT_JSON);
			if (ret)
				return ret;
			break;
		case DIFF_OPT_EXACT:
			p->exact = true;
			break;
		case DIFF_OPT_WIDTH:
			ret = lm_parse_width(optarg, &p->width);
			if (ret)
				return ret;
			break;
		case DIFF_OPT_FAIL_ON_NEW:
			p->fail_new = true;
			break;
		case DIFF_OPT_TOP:
			ret = diff_top_opt(p, optarg);
			if (ret)
				return ret;
			break;
		case 'Y':
		case DIFF_OPT_TYPE:
			ret = diff_type_opt(p, optarg);
			if (ret)
				return ret;
			break;
		case DIFF_OPT_FAIL_OVER:
		case DIFF_OPT_FAIL_OVER_WAIT:
		case DIFF_OPT_MIN_HOLD:
		case DIFF_OPT_MIN_WAIT:
			ret = diff_gate_opt(p, c, optarg);
			if (ret)
				return ret;
			break;
		default:
			return lm_opt_error(c, argv);
		}
	}
	if (hold->floor && !hold->on && !p->fail_new) {
		lm_err("diff: --min-hold is the floor of --fail-over or --fail-on-new; neither is given");
		return LM_EXIT_USAGE;
	}
	if (wait->floor && !wait->on) {
		lm_err("diff: --min-wait is the floor of --fail-over-wait, which is missing");
		return LM_EXIT_USAGE;
	}
	if (argc - optind != 2) {
		lm_err("diff: two snapshot files, A and B, are needed");
		return LM_EXIT_USAGE;
	}
	p->file[0] = argv[optind];
	p->file[1] = argv[optind + 1];
	return 0;
}

/* the kernel a snapshot metered: lockmeter's release, else uname -r; NULL unknown */
static const char *diff_kernel(const struct lm_header *h)
{
	if (lm_has(h, LM_H_KERNEL) && *h->kernel)
		return h->kernel;
	if (lm_has(h, LM_H_RELEASE) && *h->release)
		return h->release;
	return NULL;
}

static enum diff_kernels diff_kernels(const struct lm_header *a, const struct lm_header *b)
{
	const char *ka = diff_kernel(a), *kb = diff_kernel(b);

	if (!ka || !kb || strcmp(ka, kb))
		return DIFF_K_DIFFER;
	if (lm_has(a, LM_H_UVERSION) && lm_has(b, LM_H_UVERSION) &&
	    strcmp(a->uversion, b->uversion))
		return DIFF_K_BUILDS;
	return DIFF_K_SAME;
}

static int diff_key_cmp(const void *pa, const void *pb)
{
	const struct diff_key *a = pa, *b = pb;
	int d;

	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	d = strcmp(a->lock, b->lock);
	if (!d)
		d = strcmp(a->site, b->site);
	return d ? d : (a->only > b->only) - (a->only < b->only);
}

/*
 * What a compiler appends to a symbol after a '.', and which differs from
 * build to build: a clone's kind (constprop, isra, part), a function's
 * cold part, LTO's and clang's marks (lto_priv, llvm, __uniq), an alias
 * (localalias), a static's or a clone's number.  A symbol is matched
 * without them; any other '.' part keeps the name as it is.  Within one
 * build a static's number (right after the name) is kept: two statics of
 * one name, the _rs.N of every ratelimit, are two locks there, not one.
 */
static bool diff_suffix(const char *s, size_t n, bool numbers)
{
	static const char *const kinds[] = {
		"constprop", "isra", "part", "cold", "lto_priv", "localalias", "llvm", "__uniq",
	};
	unsigned int i;

	if (n && strspn(s, "0123456789") >= n)
		return numbers;
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i]) == n && !memcmp(s, kinds[i], n))
			return true;
	return false;
}

/* @name without its symbol's suffixes, in place: "foo.isra.0[mod]" is "foo[mod]" */
static void diff_strip_suffixes(char *name, bool numbers)
{
	char *end = name + strcspn(name, "[");	/* a module's name stays */
	char *dot = memchr(name, '.', end - name), *p;
	size_t n;

	if (!dot)
		return;
	for (p = dot; p < end; p += 1 + n) {
		n = strcspn(p + 1, ".[");
		/* a clone's number follows its kind; a static's, the name */
		if (!diff_suffix(p + 1, n, numbers || p != dot))
			return;
	}
	memmove(dot, end, strlen(end) + 1);
}

/*
 * A name that is only an address (the kernel found no symbol, or hid it:
 * zeros), a raw per-CPU offset, or a module's code gone unnamed: in another
 * build the same string is other code or data, or none.
 */
static bool diff_addr_name(const char *name)
{
	size_t n = strspn(name, "0123456789abcdef");

	return (!name[n] && (n == 8 || n == 16)) || !strncmp(name, "percpu:0x", 9) ||
	       !strcmp(name, "[unloaded module]");
}

/* @name as it is matched, copied to *@p (moved past it) */
static const char *diff_name(char **p, const char *name, const struct diff_params *dp)
{
	char *dst = *p;
	size_t len = strlen(name) + 1;

	if (dp->exact) {
		memcpy(dst, name, len);
	} else {
		lm_site_func(dst, len, name);
		diff_strip_suffixes(dst, dp->kernels != DIFF_K_SAME);
	}
	*p = dst + strlen(dst) + 1;
	return dst;
}

/* @type is one --type names, or no --type is given */
static bool diff_type_kept(uint32_t type, const struct diff_params *dp)
{
	return !dp->types || (type < 32 && (dp->types & 1U << type));
}

/*
 * The keys of loaded snapshot @side, of the --type filter: named, sorted,
 * one per key (merged); a name that is an address matches only in the
 * same build.
 */
static int diff_side_keys(struct diff_side *sd, int side, const struct diff_params *dp)
{
	const struct lm_snapshot *s = &sd->snap;
	size_t i, j, nr = 0, len = 0;
	char *p;

	for (i = 0; i < s->nr; i++)
		len += strlen(s->rows[i].lock) + strlen(s->rows[i].site) + 2;
	sd->names = malloc(len ? len : 1);
	sd->keys = calloc(s->nr ? s->nr : 1, sizeof(*sd->keys));
	if (!sd->names || !sd->keys)
		return -1;
	p = sd->names;
	for (i = 0; i < s->nr; i++) {
		const struct lm_row *r = &s->rows[i];
		struct diff_key *k;

		if (!diff_type_kept(r->type, dp))
			continue;
		k = &sd->keys[nr++];
		k->type = r->type;
		k->row = *r;
		if (r->class == LM_CLASS_OVERFLOW) {
			/* named after its longest hold, different on each side */
			k->lock = LM_OVERFLOW_NAME;
			k->site = LM_OVERFLOW_NAME;
			continue;
		}
		k->lock = diff_name(&p, r->lock, dp);
		k->site = diff_name(&p, r->site, dp);
		if (!dp->exact && dp->kernels != DIFF_K_SAME &&
		    (diff_addr_name(k->lock) || diff_addr_name(k->site)))
			k->only = 1 + side;
	}
	qsort(sd->keys, nr, sizeof(*sd->keys), diff_key_cmp);
	for (i = 0, j = 0; i < nr; i++) {
		if (j && !diff_key_cmp(&sd->keys[j - 1], &sd->keys[i])) {
			lm_row_add(&sd->keys[j - 1].row, &sd->keys[i].row);
			continue;
		}
		sd->keys[j++] = sd->keys[i];
	}
	sd->nr = j;
	return 0;
}

static double diff_val(const struct diff_key *k, const struct diff_side *sd, int col)
{
	return diff_cols[col].val(&k->row, &sd->ctx);
}

/* B's change in percent of A; HUGE_VAL from 0, NAN for 0 to 0 or a value missing */
static double diff_change(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a > 0)
		return 100.0 * (b - a) / a;
	return b > 0 ? HUGE_VAL : NAN;
}

/* column @c of @k has a value that is only a lower bound (the open last bucket) */
static bool diff_ge(const struct diff_key *k, const struct diff_side *sd, int c)
{
	return diff_cols[c].ge && !isnan(diff_val(k, sd, c)) && diff_cols[c].ge(&k->row, &sd->ctx);
}

/*
 * The change of column @c of matched @e, and in *@bd whether it is a bound:
 * B a lower bound makes it at least the figure, A one at most; NAN when
 * both are (the change is unknown: "?", never "0%").
 */
static double diff_col_change(const struct diff_entry *e, const struct diff_side *sd, int c,
			      enum diff_bound *bd)
{
	bool ga = diff_ge(e->k[0], &sd[0], c), gb = diff_ge(e->k[1], &sd[1], c);
	double chg;

	*bd = DIFF_EXACT;
	if (ga && gb)
		return NAN;
	chg = diff_change(diff_val(e->k[0], &sd[0], c), diff_val(e->k[1], &sd[1], c));
	if (isfinite(chg))
		*bd = gb ? DIFF_AT_LEAST : ga ? DIFF_AT_MOST : DIFF_EXACT;
	return chg;
}

/* both sides have column @c and they are lower bounds: the change is unknown */
static bool diff_unknown(const struct diff_entry *e, const struct diff_side *sd, int c)
{
	return diff_ge(e->k[0], &sd[0], c) && diff_ge(e->k[1], &sd[1], c);
}

/*
 * The largest of the changes of a gate's max, mean and p99 (hold, or wait),
 * in percent: < 0 when all went down; NAN when none has one (0 to 0, no
 * p99).  *@bd: the largest is a bound.  *@over: the gate is on and one of
 * them rose past it, at or above its floor; a change known only to be at
 * most its figure never does.
 */
static double diff_regress(const struct diff_entry *e, const struct diff_side *sd,
			   const struct diff_gate *g, enum diff_gate_id id, enum diff_bound *bd,
			   bool *over)
{
	static const int cols[DIFF_NR_GATES][3] = {
		[DIFF_G_HOLD] = { DIFF_C_HOLD_MAX, DIFF_C_HOLD_MEAN, DIFF_C_HOLD_P99 },
		[DIFF_G_WAIT] = { DIFF_C_WAIT_MAX, DIFF_C_WAIT_MEAN, DIFF_C_WAIT_P99 },
	};
	double worst = NAN;
	enum diff_bound cbd;
	unsigned int i;

	*over = false;
	*bd = DIFF_EXACT;
	for (i = 0; i < ARRAY_SIZE(cols[id]); i++) {
		double b = diff_val(e->k[1], &sd[1], cols[id][i]);
		double chg = diff_col_change(e, sd, cols[id][i], &cbd);

		if (isnan(chg))
			continue;
		/* of two equal figures, the exact one */
		if (isnan(worst) || chg > worst || (chg == worst && cbd == DIFF_EXACT)) {
			worst = chg;
			*bd = cbd;
		}
		if (g->on && cbd != DIFF_AT_MOST && chg > g->pct && b >= (double)g->min_ns)
			*over = true;
	}
	return worst;
}

/* the gates of @e: the regression (holds), and whether it is past one */
static void diff_gates(struct diff_entry *e, const struct diff_side *sd,
		       const struct diff_params *p)
{
	const struct diff_gate *hold = &p->gate[DIFF_G_HOLD];
	enum diff_bound bd;

	if (e->status == DIFF_NEW) {
		e->over_new = p->fail_new &&
			      (double)e->k[1]->row.v[LM_F_HOLD_MAX] >= (double)hold->min_ns;
		e->over = e->over_new;
		return;
	}
	if (e->status != DIFF_MATCHED)
		return;
	e->regress = diff_regress(e, sd, hold, DIFF_G_HOLD, &e->regress_bd,
				  &e->over_gate[DIFF_G_HOLD]);
	diff_regress(e, sd, &p->gate[DIFF_G_WAIT], DIFF_G_WAIT, &bd, &e->over_gate[DIFF_G_WAIT]);
	e->over = e->over_gate[DIFF_G_HOLD] || e->over_gate[DIFF_G_WAIT];
}

static int diff_name_cmp(const struct diff_entry *a, const struct diff_entry *b)
{
	const struct diff_key *ka = a->k[0] ? a->k[0] : a->k[1];
	const struct diff_key *kb = b->k[0] ? b->k[0] : b->k[1];

	return diff_key_cmp(ka, kb);
}

/* matched by regression, most first; then new, then gone, by hold max */
static int diff_entry_cmp(const void *pa, const void *pb)
{
	const struct diff_entry *a = pa, *b = pb;
	uint64_t ma, mb;

	if (a->status != b->status)
		return a->status < b->status ? -1 : 1;
	if (a->status == DIFF_MATCHED && isnan(a->regress) != isnan(b->regress))
		return isnan(a->regress) ? 1 : -1;
	if (a->status == DIFF_MATCHED && a->regress != b->regress && !isnan(a->regress))
		return a->regress > b->regress ? -1 : 1;
	if (a->status != DIFF_MATCHED) {
		ma = (a->k[0] ? a->k[0] : a->k[1])->row.v[LM_F_HOLD_MAX];
		mb = (b->k[0] ? b->k[0] : b->k[1])->row.v[LM_F_HOLD_MAX];
		if (ma != mb)
			return ma > mb ? -1 : 1;
	}
	return diff_name_cmp(a, b);
}

/* A's and B's keys joined: matched, new, gone; sorted */
static struct diff_entry *diff_join(const struct diff_side *sd, const struct diff_params *p,
				    size_t *nr)
{
	struct diff_entry *ev = calloc(sd[0].nr + sd[1].nr + 1, sizeof(*ev));
	size_t i = 0, j = 0, n = 0;
	int d;

	if (!ev)
		return NULL;
	while (i < sd[0].nr || j < sd[1].nr) {
		struct diff_entry *e = &ev[n++];

		if (i == sd[0].nr)
			d = 1;
		else if (j == sd[1].nr)
			d = -1;
		else
			d = diff_key_cmp(&sd[0].keys[i], &sd[1].keys[j]);
		e->k[0] = d <= 0 ? &sd[0].keys[i++] : NULL;
		e->k[1] = d >= 0 ? &sd[1].keys[j++] : NULL;
		e->status = d < 0 ? DIFF_GONE : d > 0 ? DIFF_NEW : DIFF_MATCHED;
		diff_gates(e, sd, p);
	}
	qsort(ev, n, sizeof(*ev), diff_entry_cmp);
	*nr = n;
	return ev;
}

/* before --top: what all @n entries of @ev count, and how many are past a gate */
static void diff_tally(const struct diff_entry *ev, size_t n, struct diff_tally *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		t->status[ev[i].status]++;
		t->over_gate[DIFF_G_HOLD] += ev[i].over_gate[DIFF_G_HOLD];
		t->over_gate[DIFF_G_WAIT] += ev[i].over_gate[DIFF_G_WAIT];
		t->over_new += ev[i].over_new;
		t->over += ev[i].over;
	}
}

/* --top N: the first N entries of each status of sorted @ev kept, in place; how many */
static size_t diff_top(struct diff_entry *ev, size_t n, size_t top)
{
	enum diff_status status = DIFF_MATCHED;
	size_t i, kept = 0, run = 0;

	if (!top)
		return n;
	for (i = 0; i < n; i++) {
		run = i && ev[i].status == status ? run + 1 : 0;
		status = ev[i].status;
		if (run < top)
			ev[kept++] = ev[i];
	}
	return kept;
}

/* ---- the table ---- */

/* "+12%", "-3.5%", "0%", "new" (from 0), "-" (0 to 0, or none); a bound ">=+12%" */
static void diff_fmt_change(char *buf, size_t len, double chg, enum diff_bound bd)
{
	static const char *const mark[] = {
		[DIFF_EXACT] = "",
		[DIFF_AT_LEAST] = ">=",
		[DIFF_AT_MOST] = "<=",
	};

	if (isnan(chg))
		snprintf(buf, len, "-");
	else if (isinf(chg))
		snprintf(buf, len, "new");
	else if (fabs(chg) < 0.05)
		snprintf(buf, len, "%s0%%", mark[bd]);
	else if (fabs(chg) < 9.95)
		snprintf(buf, len, "%s%+.1f%%", mark[bd], chg);
	else
		snprintf(buf, len, "%s%+.0f%%", mark[bd], chg);
}

/* the change of column @c of matched @e as the table shows it: "?" between bounds */
static void diff_fmt_col_change(char *buf, size_t len, const struct diff_entry *e,
				const struct diff_side *sd, int c)
{
	enum diff_bound bd;
	double chg = diff_col_change(e, sd, c, &bd);

	if (diff_unknown(e, sd, c))
		snprintf(buf, len, "?");
	else
		diff_fmt_change(buf, len, chg, bd);
}

static void diff_table_cols(FILE *f, const char *lead, const struct diff_key *k,
			    const struct diff_side *sd, const bool *show)
{
	char buf[32];
	int c;

	fputs(lead, f);
	for (c = 0; c < DIFF_NR_COLS; c++) {
		double v = diff_val(k, sd, c);
		bool ge = diff_ge(k, sd, c);

		if (!show[c])
			continue;

		if (isnan(v))
			snprintf(buf, sizeof(buf), "-");
		else
			diff_cols[c].fmt(buf + 2 * ge, sizeof(buf) - 2, v);
		if (ge)
			memcpy(buf, ">=", 2);
		fprintf(f, "%*s", DIFF_W, buf);
	}
}

static void diff_table_name(FILE *f, const struct diff_key *k)
{
	fprintf(f, "  %s %s %s\n", lm_type_name(k->type), k->lock, k->site);
}

static void diff_table_entry(FILE *f, const struct diff_entry *e, const struct diff_side *sd,
			     const bool *show)
{
	const struct diff_key *named = e->k[1] ? e->k[1] : e->k[0];
	char buf[32];
	int c;

	if (e->status == DIFF_MATCHED)
		diff_fmt_change(buf, sizeof(buf), e->regress, e->regress_bd);
	else
		snprintf(buf, sizeof(buf), "%s", e->status == DIFF_NEW ? "new" : "gone");
	fprintf(f, "%7s%s", buf, e->over ? "!" : " ");
	if (e->k[0]) {
		diff_table_cols(f, " A", e->k[0], &sd[0], show);
		diff_table_name(f, named);
	}
	if (e->k[1]) {
		diff_table_cols(f, e->k[0] ? "         B" : " B", e->k[1], &sd[1], show);
		diff_table_name(f, named);
	}
	if (e->status != DIFF_MATCHED)
		return;
	fputs("         %", f);
	for (c = 0; c < DIFF_NR_COLS; c++) {
		if (!show[c])
			continue;
		diff_fmt_col_change(buf, sizeof(buf), e, sd, c);
		fprintf(f, "%*s", DIFF_W, buf);
	}
	fputc('\n', f);
}

/* what the ! marks: the gates given; and the rows past one that --top leaves out */
static void diff_table_gates(FILE *f, const struct diff_params *p, size_t hidden)
{
	static const char *const what[DIFF_NR_GATES][2] = {
		[DIFF_G_HOLD] = { "--fail-over", "" },
		[DIFF_G_WAIT] = { "--fail-over-wait", " (wait max, mean or p99)" },
	};
	const struct diff_gate *g;
	char dur[32];
	int i;

	for (i = 0; i < DIFF_NR_GATES; i++) {
		g = &p->gate[i];
		if (!g->on)
			continue;
		lm_fmt_time(dur, sizeof(dur), (double)g->min_ns);
		fprintf(f, "!: over %s %g%%%s with a B value of at least %s\n", what[i][0], g->pct,
			what[i][1], g->min_ns ? dur : "0ns");
	}
	if (p->fail_new) {
		lm_fmt_time(dur, sizeof(dur), (double)p->gate[DIFF_G_HOLD].min_ns);
		fprintf(f, "!: new (--fail-on-new) with a hold max of at least %s\n",
			p->gate[DIFF_G_HOLD].min_ns ? dur : "0ns");
	}
	if (hidden)
		fprintf(f, "!: %zu more row%s past a gate, not shown (--top %zu)\n", hidden,
			hidden == 1 ? "" : "s", p->top);
}

/* the types of --type, in their order, @sep between them */
static void diff_types(FILE *f, const struct diff_params *p, const char *sep)
{
	const char *s = "";
	int t;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!diff_type_kept(t, p))
			continue;
		fprintf(f, "%s%s", s, lm_type_name(t));
		s = sep;
	}
}

/* what --type and --top leave out, under the counts */
static void diff_table_subset(FILE *f, const struct diff_entry *ev, size_t n,
			      const struct diff_tally *t, const struct diff_params *p)
{
	size_t shown[DIFF_NR_STATUS] = { 0 }, i;

	if (p->types) {
		fputs("Only the types (--type): ", f);
		diff_types(f, p, ", ");
		fputc('\n', f);
	}
	if (!p->top)
		return;
	for (i = 0; i < n; i++)
		shown[ev[i].status]++;
	fprintf(f, "Showing the first %zu of each (--top): %zu of %zu matched, %zu of %zu new, %zu of %zu gone\n",
		p->top, shown[DIFF_MATCHED], t->status[DIFF_MATCHED], shown[DIFF_NEW],
		t->status[DIFF_NEW], shown[DIFF_GONE], t->status[DIFF_GONE]);
}

/* the columns a line of @width (0: any) shows, lm_col_drop[]'s order */
static void diff_table_fit(bool *show, int width)
{
	enum lm_key_id keys[DIFF_NR_COLS];
	int w[DIFF_NR_COLS], c;

	for (c = 0; c < DIFF_NR_COLS; c++) {
		keys[c] = diff_cols[c].key;
		w[c] = DIFF_W;
	}
	lm_cols_fit(keys, w, DIFF_NR_COLS, width > 0 ? width - DIFF_LEAD : 0, DIFF_NAME_MIN,
		    NULL, show);
}

/* the two kernels, when they are not known to be one build, and what that does */
static void diff_table_kernels(FILE *f, const struct diff_side *sd, const struct diff_params *p)
{
	const char *k[2] = { diff_kernel(&sd[0].snap.h), diff_kernel(&sd[1].snap.h) };

	if (p->kernels == DIFF_K_SAME)
		return;
	if (p->kernels == DIFF_K_BUILDS)
		fprintf(f, "Builds differ: both %s, uname -v not the same\n", k[0]);
	else
		fprintf(f, "Kernels %s: A %s, B %s\n", k[0] && k[1] ? "differ" : "may differ",
			k[0] ? k[0] : "unknown", k[1] ? k[1] : "unknown");
	if (!p->exact)
		fputs("A renamed or inlined function shows as gone and new, as does an address\n", f);
}

static void diff_table(FILE *f, const struct diff_entry *ev, size_t n,
		       const struct diff_tally *t, const struct diff_side *sd,
		       const struct diff_params *p, int width)
{
	const char *group = "", *k;
	size_t i, over = 0;
	bool show[DIFF_NR_COLS];
	int c, s, pad;

	diff_table_fit(show, width);
	for (i = 0; i < n; i++)
		over += ev[i].over;
	for (s = 0; s < 2; s++) {
		k = diff_kernel(&sd[s].snap.h);
		fprintf(f, "%s: %s, kernel %s\n", s ? "B (after)" : "A (before)", p->file[s],
			k ? k : "unknown");
		lm_table_header(f, &sd[s].snap.h);
		fputc('\n', f);
	}
	fprintf(f, "%s\n", diff_rule);
	diff_table_kernels(f, sd, p);
	fprintf(f, "Matched by %s: %zu matched, %zu new, %zu gone\n",
		p->exact ? "exact names" : "function (offsets, .isra.0 ignored)",
		t->status[DIFF_MATCHED], t->status[DIFF_NEW], t->status[DIFF_GONE]);
	diff_table_subset(f, ev, n, t, p);
	fputs("REGRESS: the largest increase of hold max, mean and p99, B over A\n", f);
	fputs(">=, <=: a bound, as a side's p99 is a lower bound; ?: both are, unknown\n", f);
	diff_table_gates(f, p, t->over - over);
	fprintf(f, "\n%s\n%-10s", diff_rule, "");
	/* a group's name over its first column shown, right-aligned in it */
	for (c = 0, pad = 0; c < DIFF_NR_COLS; c++) {
		if (!show[c])
			continue;
		pad += DIFF_W;
		if (!*diff_cols[c].group || !strcmp(diff_cols[c].group, group))
			continue;
		group = diff_cols[c].group;
		fprintf(f, "%*s", pad, group);
		pad = 0;
	}
	fprintf(f, "\n%-10s", "REGRESS");
	for (c = 0; c < DIFF_NR_COLS; c++)
		if (show[c])
			fprintf(f, "%*s", DIFF_W, diff_cols[c].header);
	fputs("  TYPE LOCK SITE\n", f);
	for (i = 0; i < n; i++) {
		fputc('\n', f);
		diff_table_entry(f, &ev[i], sd, show);
	}
	if (!n)
		fprintf(f, "\nNo rows%s in either snapshot.\n", p->types ? " of those types" : "");
}

/* ---- JSON and CSV: raw numbers ---- */

/* a bound in JSON and CSV */
static const char *const diff_bound_names[] = {
	[DIFF_EXACT] = "",
	[DIFF_AT_LEAST] = "ge",
	[DIFF_AT_MOST] = "le",
};

static const char *const diff_kernels_names[] = {
	[DIFF_K_SAME] = "same",
	[DIFF_K_BUILDS] = "builds_differ",
	[DIFF_K_DIFFER] = "differ",
};

static const char *const diff_status_names[] = {
	[DIFF_MATCHED] = "matched",
	[DIFF_NEW] = "new",
	[DIFF_GONE] = "gone",
};

/* a number, or null for none (a change from 0 or of 0 to 0) */
static void diff_json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.3f", v);
	else
		fputs("null", f);
}

static void diff_json_side(FILE *f, const char *name, const struct diff_key *k,
			   const struct diff_side *sd)
{
	int c;

	fprintf(f, ", \"%s\": ", name);
	if (!k) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (c = 0; c < DIFF_NR_COLS; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : " ", diff_cols[c].name);
		diff_json_num(f, diff_val(k, sd, c));
		if (diff_ge(k, sd, c))
			fprintf(f, ", \"%s\": true", diff_cols[c].ge_name);
	}
	lm_json_fields(f, &k->row);
	fputs(" }", f);
}

static void diff_json_entry(FILE *f, const struct diff_entry *e, const struct diff_side *sd)
{
	const struct diff_key *k = e->k[1] ? e->k[1] : e->k[0];
	enum diff_bound bd;
	int c;

	fprintf(f, "    { \"status\": \"%s\", \"type\": \"%s\", \"lock\": ",
		diff_status_names[e->status], lm_type_name(k->type));
	lm_json_str(f, k->lock);
	fputs(", \"site\": ", f);
	lm_json_str(f, k->site);
	fputs(", \"regress_pct\": ", f);
	diff_json_num(f, e->status == DIFF_MATCHED ? e->regress : NAN);
	if (e->status == DIFF_MATCHED && e->regress_bd != DIFF_EXACT)
		fprintf(f, ", \"regress_bound\": \"%s\"", diff_bound_names[e->regress_bd]);
	fprintf(f, ", \"over\": %s", e->over ? "true" : "false");
	diff_json_side(f, "a", e->k[0], &sd[0]);
	diff_json_side(f, "b", e->k[1], &sd[1]);
	fputs(", \"change_pct\": ", f);
	if (e->status != DIFF_MATCHED) {
		fputs("null }", f);
		return;
	}
	fputc('{', f);
	for (c = 0; c < DIFF_NR_COLS; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : " ", diff_cols[c].name);
		diff_json_num(f, diff_col_change(e, sd, c, &bd));
		if (bd != DIFF_EXACT)
			fprintf(f, ", \"%s_bound\": \"%s\"", diff_cols[c].name,
				diff_bound_names[bd]);
	}
	fputs(" } }", f);
}

static void diff_json(FILE *f, const struct diff_entry *ev, size_t n,
		      const struct diff_tally *t, const struct diff_side *sd,
		      const struct diff_params *p)
{
	size_t i;
	int s;

	fputs("{\n  \"format\": 1,\n  \"a\": ", f);
	lm_json_header(f, &sd[0].snap.h, 2);
	fputs(",\n  \"b\": ", f);
	lm_json_header(f, &sd[1].snap.h, 2);
	fprintf(f, ",\n  \"match\": \"%s\",\n  \"kernels\": \"%s\"",
		p->exact ? "exact" : "function", diff_kernels_names[p->kernels]);
	if (p->types) {
		fputs(",\n  \"types\": [ \"", f);
		diff_types(f, p, "\", \"");
		fputs("\" ]", f);
	}
	if (p->top) {
		/* the rows are cut; the counts are of all of them */
		fprintf(f, ",\n  \"top\": %zu,\n  \"counts\": {", p->top);
		for (s = 0; s < DIFF_NR_STATUS; s++)
			fprintf(f, "%s\"%s\": %zu", s ? ", " : " ", diff_status_names[s],
				t->status[s]);
		fputs(" }", f);
	}
	fputs(",\n  \"rows\": [", f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		diff_json_entry(f, &ev[i], sd);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* a number or, for none, an empty field */
static void diff_csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.3f", v);
	else
		fputc(',', f);
}

static void diff_csv(FILE *f, const struct diff_entry *ev, size_t n,
		     const struct diff_side *sd)
{
	static const char *const pre[] = { "a_", "b_", "change_" };
	size_t i;
	int c, s;

	fputs("status,type,lock,site,regress_pct,over", f);
	for (s = 0; s < 3; s++)
		for (c = 0; c < DIFF_NR_COLS; c++)
			fprintf(f, ",%s%s", pre[s], diff_cols[c].name);
	for (s = 0; s < 2; s++)
		for (c = 0; c < DIFF_NR_COLS; c++)
			if (diff_cols[c].ge)
				fprintf(f, ",%s%s", pre[s], diff_cols[c].ge_name);
	fputs(",regress_bound", f);
	for (c = 0; c < DIFF_NR_COLS; c++)
		if (diff_cols[c].ge)
			fprintf(f, ",change_%s_bound", diff_cols[c].name);
	fputs(",a_kernel,b_kernel\n", f);
	for (i = 0; i < n; i++) {
		const struct diff_entry *e = &ev[i];
		const struct diff_key *k = e->k[1] ? e->k[1] : e->k[0];
		const char *kernel;
		enum diff_bound bd;

		fprintf(f, "%s,%s,", diff_status_names[e->status], lm_type_name(k->type));
		lm_csv_str(f, k->lock);
		fputc(',', f);
		lm_csv_str(f, k->site);
		diff_csv_num(f, e->status == DIFF_MATCHED ? e->regress : NAN);
		fprintf(f, ",%d", e->over);
		for (s = 0; s < 2; s++)
			for (c = 0; c < DIFF_NR_COLS; c++)
				diff_csv_num(f, e->k[s] ? diff_val(e->k[s], &sd[s], c) : NAN);
		for (c = 0; c < DIFF_NR_COLS; c++)
			diff_csv_num(f, e->status == DIFF_MATCHED ?
					diff_col_change(e, sd, c, &bd) : NAN);
		for (s = 0; s < 2; s++)
			for (c = 0; c < DIFF_NR_COLS; c++)
				if (diff_cols[c].ge)
					fputs(!e->k[s] || isnan(diff_val(e->k[s], &sd[s], c)) ? "," :
					      diff_ge(e->k[s], &sd[s], c) ? ",1" : ",0", f);
		fprintf(f, ",%s", e->status == DIFF_MATCHED ? diff_bound_names[e->regress_bd] : "");
		for (c = 0; c < DIFF_NR_COLS; c++) {
			if (!diff_cols[c].ge)
				continue;
			bd = DIFF_EXACT;
			if (e->status == DIFF_MATCHED)
				diff_col_change(e, sd, c, &bd);
			fprintf(f, ",%s", diff_bound_names[bd]);
		}
		for (s = 0; s < 2; s++) {
			kernel = diff_kernel(&sd[s].snap.h);
			fputc(',', f);
			lm_csv_str(f, kernel ? kernel : "");
		}
		fputc('\n', f);
	}
}

/* the table, at the output's width: columns dropped, the rest fitted (lm_fit_text) */
static int diff_table_out(const struct diff_entry *ev, size_t n, const struct diff_tally *t,
			  const struct diff_side *sd, const struct diff_params *p)
{
	int width = lm_out_width(p->width);
	size_t len;
	char *buf;
	FILE *mem;

	if (!width) {
		diff_table(stdout, ev, n, t, sd, p, 0);
		return 0;
	}
	mem = open_memstream(&buf, &len);
	if (!mem) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	diff_table(mem, ev, n, t, sd, p, width);
	if (fclose(mem)) {
		free(buf);
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	lm_fit_text(stdout, buf, len, width);
	free(buf);
	return 0;
}

/* @n entries of @ev output (--top), the verdict of all of them (@t) */
static int diff_render(const struct diff_entry *ev, size_t n, const struct diff_tally *t,
		       const struct diff_side *sd, const struct diff_params *p)
{
	size_t over_hold = t->over_gate[DIFF_G_HOLD], over_wait = t->over_gate[DIFF_G_WAIT];
	int ret;

	switch (p->fmt) {
	case LM_FMT_JSON:
		diff_json(stdout, ev, n, t, sd, p);
		break;
	case LM_FMT_CSV:
		diff_csv(stdout, ev, n, sd);
		break;
	default:
		ret = diff_table_out(ev, n, t, sd, p);
		if (ret)
			return ret;
		break;
	}
	/* an error is never a regression: the output is part of the verdict */
	if (lm_write_check(stdout))
		return LM_EXIT_ERR;
	if (over_hold)
		lm_err("diff: %zu matched row%s regressed by more than %g%% (--fail-over)",
		       over_hold, over_hold == 1 ? "" : "s", p->gate[DIFF_G_HOLD].pct);
	if (over_wait)
		lm_err("diff: %zu matched row%s waited more than %g%% longer (--fail-over-wait)",
		       over_wait, over_wait == 1 ? "" : "s", p->gate[DIFF_G_WAIT].pct);
	if (t->over_new)
		lm_err("diff: %zu new row%s (--fail-on-new)", t->over_new,
		       t->over_new == 1 ? "" : "s");
	return t->over ? LM_EXIT_REGRESS : LM_EXIT_OK;
}

int diff_main(int argc, char **argv)
{
	struct diff_params p;
	struct diff_side sd[2];
	struct diff_tally t;
	struct diff_entry *ev;
	size_t n;
	int ret, s;

	ret = diff_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, diff_usage);
	memset(sd, 0, sizeof(sd));
	for (s = 0; s < 2; s++)
		lm_snap_init(&sd[s].snap);
	for (s = 0; s < 2; s++) {
		ret = lm_snap_load(p.file[s], &sd[s].snap);
		if (ret)
			goto out_free_sides;
		lm_ctx_init(&sd[s].ctx, &sd[s].snap.h);
	}
	p.kernels = diff_kernels(&sd[0].snap.h, &sd[1].snap.h);
	for (s = 0; s < 2; s++)
		if (diff_side_keys(&sd[s], s, &p))
			goto out_nomem;
	ev = diff_join(sd, &p, &n);
	if (!ev)
		goto out_nomem;
	diff_tally(ev, n, &t);
	ret = diff_render(ev, diff_top(ev, n, p.top), &t, sd, &p);
	free(ev);
	goto out_free_sides;
out_nomem:
	lm_err("out of memory");
	ret = LM_EXIT_ERR;
out_free_sides:
	for (s = 0; s < 2; s++) {
		free(sd[s].keys);
		free(sd[s].names);
		lm_snap_free(&sd[s].snap);
	}
	return ret;
}
