// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat print: the lockmeter table (or JSON, CSV) of the running
 * kernel, as it stands: metering may still be on.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

struct print_params {
	struct lm_view_opts view;
	enum lm_src source;
	int cpu;
};

static const char *const print_msg[] = {
	"usage: lockstat print [OPTIONS]",
	"",
	"The lockmeter table of the running kernel: one section per lock type,",
	"*TOTAL* first, each lock followed by its call sites.",
	"",
	"  -h, --help        this text",
	NULL,
};

static void print_usage(int err)
{
	FILE *f = stdout;

	if (err) {
		fprintf(stderr, "%s\nTry 'lockstat print -h' for the options.\n", print_msg[0]);
		return;
	}

	lm_print_lines(f, print_msg);
	lm_print_lines(f, lm_source_help);
	lm_print_lines(f, lm_view_help);
	fputc('\n', f);
	lm_print_lines(f, lm_exit_help);
}

static int print_parse_args(int argc, char **argv, struct print_params *p)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "csv", no_argument, NULL, LM_OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "min-con", required_argument, NULL, LM_OPT_MIN_CON },
		{ "min-util", required_argument, NULL, LM_OPT_MIN_UTIL },
		{ "name", required_argument, NULL, LM_OPT_NAME },
		{ "reverse", no_argument, NULL, 'r' },
		{ "sort", required_argument, NULL, LM_OPT_SORT },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ "top", required_argument, NULL, LM_OPT_TOP },
		{ "type", required_argument, NULL, LM_OPT_TYPE },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	lm_view_opts_init(&p->view);
	p->cpu = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hr", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case LM_OPT_CPU:
			if (lm_cpu_opt(optarg, &p->cpu))
				return LM_EXIT_USAGE;
			break;
		case LM_OPT_SOURCE:
			if (lm_source_opt(optarg, &p->source))
				return LM_EXIT_USAGE;
			break;
		case '?':
		case ':':
			return lm_opt_error(c, argv);
		default:
			if (lm_view_opt(&p->view, c, optarg))
				return LM_EXIT_USAGE;
			break;
		}
	}
	if (optind < argc) {
		lm_err("print: unexpected argument '%s'", argv[optind]);
		return LM_EXIT_USAGE;
	}
	if (p->cpu >= 0 && p->source == LM_SRC_PROC) {
		lm_err("--cpu needs the netlink source: /proc/lockmeter has merged rows only");
		return LM_EXIT_USAGE;
	}
	return 0;
}

int print_main(int argc, char **argv)
{
	struct print_params p;
	struct lm_snapshot snap;
	struct lm_source src;
	int ret;

	ret = print_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, print_usage);
	ret = lm_source_open(&src, p.source);
	if (ret)
		goto out;
	lm_snap_init(&snap);
	ret = lm_source_read(&src, p.cpu, &snap);
	if (ret)
		goto out_free_snap;
	ret = lm_render(stdout, &snap, &p.view.filter, p.view.fmt);
out_free_snap:
	lm_snap_free(&snap);
	lm_source_close(&src);
out:
	return ret;
}
