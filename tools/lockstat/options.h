/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockstat: the options several subcommands share: the view options of
 * print, record and report, --source and --cpu.
 */
#ifndef LOCKSTAT_OPTIONS_H
#define LOCKSTAT_OPTIONS_H

#include "model.h"
#include "source.h"
#include "view.h"

/* long-only options: codes past the characters */
enum lm_opt {
	LM_OPT_CPU = 256,
	LM_OPT_CSV,
	LM_OPT_JSON,
	LM_OPT_MIN_CON,
	LM_OPT_MIN_UTIL,
	LM_OPT_NAME,
	LM_OPT_SORT,
	LM_OPT_SOURCE,
	LM_OPT_TOP,
	LM_OPT_TYPE,
};

struct lm_view_opts {
	struct lm_filter filter;
	enum lm_fmt fmt;
};

extern const char *const lm_view_help[];
extern const char *const lm_source_help[];
extern const char *const lm_exit_help[];

void lm_view_opts_init(struct lm_view_opts *o);
int lm_view_opt(struct lm_view_opts *o, int opt, const char *arg);
int lm_source_opt(const char *arg, enum lm_src *src);
int lm_cpu_opt(const char *arg, int *cpu);
int lm_parse_pct(const char *arg, double max, double *out);
int lm_parse_types(const char *arg, unsigned int *mask);
int lm_opt_error(int c, char **argv);
int lm_usage_ret(int ret, void (*usage)(int err));

#endif /* LOCKSTAT_OPTIONS_H */
