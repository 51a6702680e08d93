// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat report FILE: the table of a saved snapshot, offline, on any
 * machine.  FILE is a lockstat snapshot (lockstat get, record -o) or a
 * saved copy of /proc/lockmeter; "-" reads standard input.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"

struct report_params {
	struct lm_view_opts view;
	const char *file;
};

static const char *const report_msg[] = {
	"usage: lockstat report [OPTIONS] FILE",
	"",
	"The table of a snapshot saved by 'lockstat get' or 'lockstat record -o',",
	"or of a saved copy of /proc/lockmeter.  FILE '-' is standard input.",
	"",
	"  -h, --help        this text",
	NULL,
};

static void report_usage(int err)
{
	FILE *f = stdout;

	if (err) {
		fprintf(stderr, "%s\nTry 'lockstat report -h' for the options.\n", report_msg[0]);
		return;
	}

	lm_print_lines(f, report_msg);
	lm_print_lines(f, lm_view_help);
	fputc('\n', f);
	lm_print_lines(f, lm_exit_help);
}

static int report_parse_args(int argc, char **argv, struct report_params *p)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, LM_OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "min-con", required_argument, NULL, LM_OPT_MIN_CON },
		{ "min-util", required_argument, NULL, LM_OPT_MIN_UTIL },
		{ "name", required_argument, NULL, LM_OPT_NAME },
		{ "reverse", no_argument, NULL, 'r' },
		{ "sort", required_argument, NULL, LM_OPT_SORT },
		{ "top", required_argument, NULL, LM_OPT_TOP },
		{ "type", required_argument, NULL, LM_OPT_TYPE },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	lm_view_opts_init(&p->view);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hr", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case '?':
		case ':':
			return lm_opt_error(c, argv);
		default:
			if (lm_view_opt(&p->view, c, optarg))
				return LM_EXIT_USAGE;
			break;
		}
	}
	if (optind != argc - 1) {
		lm_err(optind == argc ? "report: no snapshot FILE given" :
		       "report: one snapshot FILE only");
		return LM_EXIT_USAGE;
	}
	p->file = argv[optind];
	return 0;
}

int report_main(int argc, char **argv)
{
	struct report_params p;
	struct lm_snapshot snap;
	int ret;

	ret = report_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, report_usage);
	lm_snap_init(&snap);
	ret = lm_snap_load(p.file, &snap);
	if (ret)
		goto out_free_snap;
	ret = lm_render(stdout, &snap, &p.view.filter, p.view.fmt);
out_free_snap:
	lm_snap_free(&snap);
	return ret;
}
