// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat report FILE: the table of a saved snapshot, offline, on any
 * machine.  FILE is a lockstat snapshot (lockstat get, record -o) or a
 * saved copy of /proc/lockmeter; "-" reads standard input.
 */
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"

struct report_params {
	struct lm_opts opts;
	const char *file;
};

static const char *const report_msg[] = {
	"",
	"The table of a snapshot saved by 'lockstat get' or 'lockstat record -o',",
	"or of a saved copy of /proc/lockmeter.  FILE '-' is standard input.",
	"",
	"  -h, --help        this text",
	NULL,
};

static void report_usage(int err)
{
	lm_usage(err, "report", "[OPTIONS] FILE", report_msg, LM_USAGE_VIEW);
}

static int report_parse_args(int argc, char **argv, struct report_params *p)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		LM_VIEW_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = lm_opts_parse(&p->opts, argc, argv, ":" LM_VIEW_SHORTOPTS "h", opts);
	if (ret)
		return ret;
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
	ret = lm_render(stdout, &snap, &p.opts.view.filter, p.opts.view.fmt);
out_free_snap:
	lm_snap_free(&snap);
	return ret;
}
