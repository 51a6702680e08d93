// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: parsing of the shared options.  Each function prints what is
 * wrong and returns LM_EXIT_USAGE; none exits.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

/* the sort keys and the filters, as report and top both take them */
#define LM_HELP_KEYS							\
	"  -k, --key KEY     the same (perf lock's names for it)",		\
	"                    maxhold meanhold totalhold util con maxwait minwait meanwait", \
	"                    waitcpu total nowait spin reject abort blocked oncpu rate", \
	"                    contended holder p50hold p90hold p99hold p999hold p50wait", \
	"                    p90wait p99wait p999wait type name; perf lock's acquired", \
	"                    avg_wait wait_max wait_min wait_total hold_total and", \
	"                    klockstat's acq_count acq_max acq_total hld_count", \
	"                    hld_max hld_total are aliases", \
	"  -S KEY            the same (klockstat's name for it)",		\
	"  -r, --reverse     reverse the order (smallest first; name: Z to A)"
#define LM_HELP_FILTERS							\
	"  --name SUBSTR     only rows whose lock or site name contains SUBSTR", \
	"  -L, --lock-filter SUBSTR  the same (perf lock's, klockstat's names)", \
	"  -c, --caller SUBSTR  only rows whose call site contains SUBSTR", \
	"                    (klockstat's -c)",				\
	"  -i, --ignore-case  --name and --caller in any case",		\
	"  --pid PID, --comm COMM  only rows whose worst holder or worst waiter", \
	"                    (their evidence, netlink only) is that task; the", \
	"                    kernel meters every task, lockstat filters",	\
	"  -p PID, -t TID    --pid (perf lock's names): a task's pid is its", \
	"                    thread id, so -p keeps a process's main thread only", \
	"  --type TYPE       only TYPE (repeatable, or comma-separated), one of:", \
	LM_HELP_TYPES "                    ",				\
	"  -Y, --type-filter TYPE  the same (perf lock's name for it)",	\
	"  --min-con PCT     only locks with CON >= PCT",			\
	"  --min-util PCT    only locks with UTIL >= PCT"

const char *const lm_view_help[] = {
	"view options:",
	"  --sort KEY        sort locks, and sites under them, by KEY (default maxhold):",
	LM_HELP_KEYS,
	"  --top N           the first N locks of each section, N sites under each",
	"  -E, --entries N   the same (perf lock's names for it)",
	LM_HELP_FILTERS,
	"  --width N         the table in N columns, 0 no limit: columns drop by",
	"                    priority, NAME has the rest; default the terminal's",
	"                    width, else $COLUMNS, else no limit",
	"  --json            JSON instead of the table (raw ns and counts; the",
	"                    evidence, where the source has it)",
	NULL,
};

/* top's: one flat list of rows per frame, sorted by UTIL unless told */
const char *const lm_view_top_help[] = {
	"view options:",
	"  --sort KEY        sort the rows by KEY, of the interval (default util):",
	LM_HELP_KEYS,
	"  --top N           with -b: the first N rows of each frame; of the tree,",
	"                    N locks and N sites under each",
	"  -E, --entries N   the same (perf lock's names for it)",
	LM_HELP_FILTERS,
	"  --width N         with -b: the frames in N columns, 0 no limit; default",
	"                    the terminal's width, else $COLUMNS, else no limit",
	"  --json            with -b: a JSON object per frame and line (raw ns and",
	"                    counts, each row's evidence as report --json has it)",
	NULL,
};

/* the view options of the table only: top has its own columns, and no CSV */
const char *const lm_view_table_help[] = {
	"  --percentiles     hold and wait p50, p90, p99, p99.9 columns, estimated from",
	"                    the kernel's histograms (JSON and CSV always have them)",
	"  --stacks          under each call site, its worst hold's and worst wait's",
	"                    task, CPU, time and call chain (netlink sources only)",
	"  --csv             CSV instead of the table (raw ns and counts)",
	"  --folded          folded stacks for flame graphs: each site's worst hold",
	"                    chain, weighted by the site's total hold time in ns",
	NULL,
};

const char *const lm_source_help[] = {
	"source options:",
	"  --source SRC      netlink, proc or auto (default: netlink, /proc/lockmeter",
	"                    when the kernel has no lockmeter netlink family)",
	"  --cpu N           CPU N's table only (netlink)",
	NULL,
};

const char *const lm_exit_help[] = {
	"exit status: 0 ok, 1 other error, 2 usage, 3 permission denied (not root),",
	"  4 kernel without lockmeter, 5 no netlink family with --source=netlink,",
	"  6 snapshot file unreadable, 7 snapshot file corrupt, 8 no such lock (hist),",
	"  9 a regression (diff's gates; never an error), 10 no hold chain (--folded)",
	NULL,
};

void lm_opts_init(struct lm_opts *o)
{
	memset(o, 0, sizeof(*o));
	lm_filter_init(&o->view.filter);
	o->view.fmt = LM_FMT_TABLE;
	o->source = LM_SRC_AUTO;
	o->cpu = -1;
}

/* a percentage in [0, @max], "5", "0.5" or "5%": decimal digits only */
int lm_parse_pct(const char *arg, double max, double *out)
{
	char *end;
	double v;

	if (strspn(arg, "0123456789.") != strcspn(arg, "%") || *arg == '.')
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * A duration into ns: a decimal number and a unit, ns, us, ms or s
 * ("10us", "1.5ms").  A bare number is refused, 0 alone excepted: "5"
 * is no more 5 ns than 5 s.  Digits and one '.' only.
 */
int lm_parse_duration(const char *arg, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t n = strspn(arg, "0123456789.");
	unsigned int i;
	char *end;
	double v;

	if (!n || *arg == '.' || memchr(arg, '.', n) != memrchr(arg, '.', n))
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end != arg + n || !isfinite(v))
		return -1;
	if (!*end && v == 0) {
		*ns = 0;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].mult;
		if (v >= 18446744073709551616.0)
			return -1;
		*ns = (uint64_t)(v + 0.5);
		return 0;
	}
	return -1;
}

/*
 * An interval into seconds, in [@min, @max]: a bare number is seconds, as
 * top(1)'s -d, or a duration with its unit (lm_parse_duration()).
 */
int lm_parse_interval(const char *arg, double min, double max, double *s)
{
	size_t n = strspn(arg, "0123456789.");
	uint64_t ns;
	double v;

	if (arg[n] || !n) {
		if (lm_parse_duration(arg, &ns))
			return -1;
		v = (double)ns / 1e9;
	} else {
		if (*arg == '.' || memchr(arg, '.', n) != memrchr(arg, '.', n))
			return -1;
		v = strtod(arg, NULL);
	}
	if (!isfinite(v) || v < min || v > max)
		return -1;
	*s = v;
	return 0;
}

/* "spin,mutex" into a mask of 1 << type; no empty item */
int lm_parse_types(const char *arg, unsigned int *mask)
{
	unsigned int m = 0;
	char buf[32];
	size_t n;
	int t;

	for (;;) {
		n = strcspn(arg, ",");
		if (!n || n >= sizeof(buf))
			return -1;
		memcpy(buf, arg, n);
		buf[n] = '\0';
		t = lm_type_parse(buf);
		if (t < 0)
			return -1;
		m |= 1U << t;
		if (!arg[n])
			break;
		arg += n + 1;
	}
	*mask |= m;
	return 0;
}

/* --width N: 0 (no limit) to 9999 columns */
int lm_parse_width(const char *arg, int *width)
{
	uint64_t v;

	if (lm_parse_u64(arg, &v) || v > 9999) {
		lm_err("--width: '%s' is not a number of columns (0: no limit, up to 9999)", arg);
		return LM_EXIT_USAGE;
	}
	*width = (int)v;
	return 0;
}

static int lm_parse_size(const char *arg, size_t *out)
{
	uint64_t v;

	if (lm_parse_u64(arg, &v) || !v || v > SIZE_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* the sort keys, each with what it sorts by and its other names */
static void lm_keys_list(FILE *f)
{
	const char *alias, *from, *sep;
	size_t pos;
	int i;

	for (i = 0; i < LM_NR_KEYS; i++) {
		fprintf(f, "  %-10s %s", lm_keys[i].name, lm_keys[i].help);
		sep = "; also ";
		pos = 0;
		while ((alias = lm_key_alias(&lm_keys[i], &pos, &from))) {
			fprintf(f, "%s%s (%s)", sep, alias, from);
			sep = ", ";
		}
		fputc('\n', f);
	}
}

/* --stacks is the table's; JSON and folded stacks have the evidence anyway */
static int lm_stacks_check(const struct lm_view_opts *o)
{
	if (o->filter.stacks && o->fmt == LM_FMT_CSV) {
		lm_err("--stacks: CSV has no evidence (--json has it, always)");
		return LM_EXIT_USAGE;
	}
	return 0;
}

/* 0: taken; 1: not a view option; LM_EXIT_USAGE: bad argument */
static int lm_view_opt(struct lm_view_opts *o, int opt, const char *arg)
{
	struct lm_filter *f = &o->filter;
	char types[256];
	uint64_t v;

	switch (opt) {
	case 'r':
		f->reverse = true;
		return 0;
	case LM_OPT_CSV:
	case LM_OPT_FOLDED:
	case LM_OPT_JSON:
		if (o->fmt != LM_FMT_TABLE) {
			lm_err("--json, --csv and --folded exclude each other");
			return LM_EXIT_USAGE;
		}
		o->fmt = opt == LM_OPT_CSV ? LM_FMT_CSV : opt == LM_OPT_FOLDED ? LM_FMT_FOLDED :
			 LM_FMT_JSON;
		return lm_stacks_check(o);
	case LM_OPT_STACKS:
		f->stacks = true;
		return lm_stacks_check(o);
	case LM_OPT_PERCENTILES:
		f->percentiles = true;
		return 0;
	case LM_OPT_MIN_CON:
		if (!lm_parse_pct(arg, 100, &f->min_con))
			return 0;
		lm_err("--min-con: '%s' is not a percentage (0 to 100)", arg);
		return LM_EXIT_USAGE;
	case LM_OPT_MIN_UTIL:
		if (!lm_parse_pct(arg, 1e9, &f->min_util))
			return 0;
		lm_err("--min-util: '%s' is not a percentage", arg);
		return LM_EXIT_USAGE;
	case 'L':
	case LM_OPT_NAME:
		if (!*arg) {
			lm_err("%s needs a non-empty string", opt == 'L' ? "-L/--lock-filter" : "--name");
			return LM_EXIT_USAGE;
		}
		f->name = arg;
		return 0;
	case 'c':
		if (!*arg) {
			lm_err("-c/--caller needs a non-empty string");
			return LM_EXIT_USAGE;
		}
		f->caller = arg;
		return 0;
	case 'i':
		f->icase = true;
		return 0;
	case LM_OPT_COMM:
		if (!*arg || strlen(arg) >= LM_COMM_MAX) {
			lm_err("--comm: '%s' is not a task name (1 to %d bytes)", arg, LM_COMM_MAX - 1);
			return LM_EXIT_USAGE;
		}
		f->comm = arg;
		return 0;
	case 'p':
	case 't':
	case LM_OPT_PID:
		if (lm_parse_u64(arg, &v) || v > UINT32_MAX) {
			lm_err("%s: '%s' is not a pid", opt == LM_OPT_PID ? "--pid" :
			       opt == 'p' ? "-p" : "-t", arg);
			return LM_EXIT_USAGE;
		}
		f->pid = (uint32_t)v;
		f->has_pid = true;
		return 0;
	case 'k':
	case 'S':
	case LM_OPT_SORT:
		f->key = lm_key_find(arg);
		if (f->key)
			return 0;
		lm_err("%s: unknown key '%s'; the keys are:", opt == 'k' ? "-k/--key" :
		       opt == 'S' ? "-S" : "--sort", arg);
		lm_keys_list(stderr);
		return LM_EXIT_USAGE;
	case 'E':
	case LM_OPT_TOP:
		if (!lm_parse_size(arg, &f->top))
			return 0;
		lm_err("%s: '%s' is not a positive number", opt == 'E' ? "-E/--entries" : "--top",
		       arg);
		return LM_EXIT_USAGE;
	case LM_OPT_WIDTH:
		return lm_parse_width(arg, &f->width);
	case 'Y':
	case LM_OPT_TYPE:
		if (!lm_parse_types(arg, &f->types))
			return 0;
		lm_type_list(types, sizeof(types), ", ");
		lm_err("--type: '%s': the types are %s", arg, types);
		return LM_EXIT_USAGE;
	}
	return 1;
}

static int lm_source_opt(const char *arg, enum lm_src *src)
{
	if (!strcmp(arg, "netlink"))
		*src = LM_SRC_NETLINK;
	else if (!strcmp(arg, "proc"))
		*src = LM_SRC_PROC;
	else if (!strcmp(arg, "auto"))
		*src = LM_SRC_AUTO;
	else {
		lm_err("--source: '%s' is none of netlink, proc, auto", arg);
		return LM_EXIT_USAGE;
	}
	return 0;
}

static int lm_cpu_opt(const char *arg, int *cpu)
{
	uint64_t v;

	if (lm_parse_u64(arg, &v) || v > 65535) {
		lm_err("--cpu: '%s' is not a CPU number", arg);
		return LM_EXIT_USAGE;
	}
	*cpu = (int)v;
	return 0;
}

/* getopt_long() returned '?' or ':' (with opterr 0 and a ':' optstring) */
int lm_opt_error(int c, char **argv)
{
	const char *cmd = argv[0];

	if (c == ':') {
		if (optopt > 0 && optopt < 256)
			lm_err("%s: option '-%c' needs an argument", cmd, optopt);
		else
			lm_err("%s: option '%s' needs an argument", cmd, argv[optind - 1]);
	} else if (!optopt) {
		lm_err("%s: unknown option '%s'", cmd, argv[optind - 1]);
	} else if (optopt == 'n' && (!strcmp(cmd, "report") || !strcmp(cmd, "print") ||
				     !strcmp(cmd, "record"))) {
		/* klockstat's -n N is the number of locks; top(1)'s, and ours, the frames */
		lm_err("%s: unknown option '-n'; klockstat's -n N is --top N here (top's -n is its number of frames)",
		       cmd);
	} else if (!strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '=')) {
		lm_err("%s: option '%.*s' takes no argument", cmd,
		       (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
	} else {
		lm_err("%s: unknown option '-%c'", cmd, optopt < 256 ? optopt : '?');
	}
	return LM_EXIT_USAGE;
}

/*
 * What getopt_long() (opterr 0, a ':' optstring) returned, for any option
 * but the subcommand's own: 0 taken, LM_HELP for -h, else LM_EXIT_USAGE
 * (said why)
 */
int lm_opt(struct lm_opts *o, int c, char **argv)
{
	switch (c) {
	case 'h':
		return LM_HELP;
	case '?':
	case ':':
		return lm_opt_error(c, argv);
	case LM_OPT_CPU:
		return lm_cpu_opt(optarg, &o->cpu);
	case LM_OPT_SOURCE:
		return lm_source_opt(optarg, &o->source);
	case 'o':
		o->output = optarg;
		return 0;
	}
	return lm_view_opt(&o->view, c, optarg) ? LM_EXIT_USAGE : 0;
}

/*
 * The options of a subcommand that has none of its own (@longopts and
 * @optstring, with a leading ':', say which of the shared ones it takes)
 * into @o: 0, LM_HELP for -h, else LM_EXIT_USAGE (said why)
 */
int lm_opts_parse(struct lm_opts *o, int argc, char **argv, const char *optstring,
		  const struct option *longopts)
{
	int c, ret;

	lm_opts_init(o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		ret = lm_opt(o, c, argv);
		if (ret)
			return ret;
	}
	return 0;
}

/* after the options, of a subcommand that takes no operand */
int lm_opts_no_operand(int argc, char **argv)
{
	if (optind < argc) {
		lm_err("%s: unexpected argument '%s'", argv[0], argv[optind]);
		return LM_EXIT_USAGE;
	}
	return 0;
}

/* what the options exclude together */
int lm_opts_check(const struct lm_opts *o)
{
	if (o->cpu >= 0 && o->source == LM_SRC_PROC) {
		lm_err("--cpu needs the netlink source: /proc/lockmeter has merged rows only");
		return LM_EXIT_USAGE;
	}
	return 0;
}

/* the names of the lock types, blank-separated, in lines of @indent blanks and words */
static void lm_help_types(FILE *f, int indent)
{
	int t, at = 0;

	for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
		const char *name = lm_type_name(t);
		int len = (int)strlen(name);

		if (at && at + 1 + len > LM_HELP_COLS) {
			fputc('\n', f);
			at = 0;
		}
		at += at ? fprintf(f, " %s", name) : fprintf(f, "%*s%s", indent, "", name);
	}
	fputc('\n', f);
}

/* lines of help; a line of LM_HELP_TYPES and blanks is the type names, so indented */
static void lm_help_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++) {
		if (!strncmp(*lines, LM_HELP_TYPES, strlen(LM_HELP_TYPES)))
			lm_help_types(f, (int)strlen(*lines + strlen(LM_HELP_TYPES)));
		else
			fprintf(f, "%s\n", *lines);
	}
}

/*
 * A subcommand's help: "usage: lockstat CMD SYNOPSIS", then with @err a
 * hint, on stderr; else @msg, the shared sections in @parts
 * (LM_USAGE_*) and the exit codes, on stdout.
 */
void lm_usage(int err, const char *cmd, const char *synopsis, const char *const *msg,
	      unsigned int parts)
{
	FILE *f = err ? stderr : stdout;

	fprintf(f, "usage: lockstat %s %s\n", cmd, synopsis);
	if (err) {
		fprintf(f, "Try 'lockstat %s -h' for the options.\n", cmd);
		return;
	}
	lm_help_lines(f, msg);
	if (parts & LM_USAGE_SOURCE)
		lm_help_lines(f, lm_source_help);
	if (parts & LM_USAGE_VIEW)
		lm_help_lines(f, lm_view_help);
	else if (parts & LM_USAGE_VIEW_TOP)
		lm_help_lines(f, lm_view_top_help);
	if (parts & LM_USAGE_VIEW)
		lm_help_lines(f, lm_view_table_help);
	fputc('\n', f);
	lm_print_lines(f, lm_exit_help);
}

/* what a subcommand's main returns for what its parse_args returned */
int lm_usage_ret(int ret, void (*usage)(int err))
{
	if (ret == LM_HELP) {
		usage(0);
		return LM_EXIT_OK;
	}
	usage(1);
	return ret;
}
