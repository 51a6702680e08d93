/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: the options several subcommands share: the view options of
 * print, record and report, --source and --cpu, -h; and their help.
 */
#ifndef LOCKSTAT_OPTIONS_H
#define LOCKSTAT_OPTIONS_H

#include <getopt.h>

#include "model.h"
#include "source.h"
#include "view.h"

/* long-only options: codes past the characters */
enum lm_opt {
	LM_OPT_CPU = 256,
	LM_OPT_CSV,
	LM_OPT_FOLDED,
	LM_OPT_JSON,
	LM_OPT_MIN_CON,
	LM_OPT_MIN_UTIL,
	LM_OPT_NAME,
	LM_OPT_PERCENTILES,
	LM_OPT_SORT,
	LM_OPT_SOURCE,
	LM_OPT_STACKS,
	LM_OPT_TOP,
	LM_OPT_TYPE,
	LM_OPT_WIDTH,
	LM_OPT_PID,
	LM_OPT_COMM,
};

/*
 * the view options, for a subcommand's struct option table (and
 * LM_VIEW_SHORTOPTS in its optstring): perf lock's -E -k -L -Y -p -t,
 * klockstat's -S, -i, -c
 */
#define LM_VIEW_SHORTOPTS	"E:L:S:Y:c:ik:p:rt:"
#define LM_VIEW_LONGOPTS						\
	{ "csv", no_argument, NULL, LM_OPT_CSV },			\
	{ "entries", required_argument, NULL, 'E' },			\
	{ "folded", no_argument, NULL, LM_OPT_FOLDED },			\
	{ "json", no_argument, NULL, LM_OPT_JSON },			\
	{ "key", required_argument, NULL, 'k' },			\
	{ "min-con", required_argument, NULL, LM_OPT_MIN_CON },		\
	{ "min-util", required_argument, NULL, LM_OPT_MIN_UTIL },	\
	{ "name", required_argument, NULL, LM_OPT_NAME },		\
	{ "percentiles", no_argument, NULL, LM_OPT_PERCENTILES },	\
	{ "reverse", no_argument, NULL, 'r' },				\
	{ "sort", required_argument, NULL, LM_OPT_SORT },		\
	{ "stacks", no_argument, NULL, LM_OPT_STACKS },			\
	{ "top", required_argument, NULL, LM_OPT_TOP },			\
	{ "type", required_argument, NULL, LM_OPT_TYPE },		\
	{ "width", required_argument, NULL, LM_OPT_WIDTH },		\
	{ "lock-filter", required_argument, NULL, 'L' },		\
	{ "type-filter", required_argument, NULL, 'Y' },		\
	{ "ignore-case", no_argument, NULL, 'i' },			\
	{ "caller", required_argument, NULL, 'c' },			\
	{ "pid", required_argument, NULL, LM_OPT_PID },			\
	{ "comm", required_argument, NULL, LM_OPT_COMM }

struct lm_view_opts {
	struct lm_filter filter;
	enum lm_fmt fmt;
};

/* what the shared options set; a subcommand's table says which it takes */
struct lm_opts {
	struct lm_view_opts view;
	enum lm_src source;
	int cpu;		/* -1: all CPUs, merged */
	const char *output;	/* -o: where get and record save the snapshot */
};

/*
 * A help line of LM_HELP_TYPES and blanks: lm_usage() prints the names of
 * the lock types there, in lines of LM_HELP_COLS at most, each indented
 * by those blanks
 */
#define LM_HELP_TYPES		"\001"
#define LM_HELP_COLS		80

/* the shared help sections lm_usage() prints after a subcommand's text */
#define LM_USAGE_SOURCE		(1U << 0)
#define LM_USAGE_VIEW		(1U << 1)
#define LM_USAGE_VIEW_TOP	(1U << 2)	/* the view options top takes */

extern const char *const lm_view_help[];
extern const char *const lm_view_top_help[];
extern const char *const lm_view_table_help[];
extern const char *const lm_source_help[];
extern const char *const lm_exit_help[];

void lm_opts_init(struct lm_opts *o);
int lm_opt(struct lm_opts *o, int c, char **argv);
int lm_opts_parse(struct lm_opts *o, int argc, char **argv, const char *optstring,
		  const struct option *longopts);
int lm_opts_no_operand(int argc, char **argv);
int lm_opts_check(const struct lm_opts *o);
int lm_parse_pct(const char *arg, double max, double *out);
int lm_parse_duration(const char *arg, uint64_t *ns);
int lm_parse_interval(const char *arg, double min, double max, double *s);
int lm_parse_types(const char *arg, unsigned int *mask);
int lm_parse_width(const char *arg, int *width);
int lm_opt_error(int c, char **argv);
void lm_usage(int err, const char *cmd, const char *synopsis, const char *const *msg,
	      unsigned int parts);
int lm_usage_ret(int ret, void (*usage)(int err));

#endif /* LOCKSTAT_OPTIONS_H */
