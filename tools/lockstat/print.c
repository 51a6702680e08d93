// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat print: the lockmeter table (or JSON, CSV) of the running
 * kernel, as it stands: metering may still be on.
 */
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

struct print_params {
	struct lm_opts opts;
};

static const char *const print_msg[] = {
	"",
	"The lockmeter table of the running kernel: one section per lock type,",
	"*TOTAL* first, each lock followed by its call sites.",
	"",
	"  -h, --help        this text",
	NULL,
};

static void print_usage(int err)
{
	lm_usage(err, "print", "[OPTIONS]", print_msg, LM_USAGE_SOURCE | LM_USAGE_VIEW);
}

static int print_parse_args(int argc, char **argv, struct print_params *p)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		LM_VIEW_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = lm_opts_parse(&p->opts, argc, argv, "+:" LM_VIEW_SHORTOPTS "h", opts);
	if (!ret)
		ret = lm_opts_no_operand(argc, argv);
	if (!ret)
		ret = lm_opts_check(&p->opts);
	return ret;
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
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out;
	lm_snap_init(&snap);
	ret = lm_source_read(&src, p.opts.cpu, &snap);
	if (ret)
		goto out_free_snap;
	ret = lm_render(stdout, &snap, &p.opts.view.filter, p.opts.view.fmt);
out_free_snap:
	lm_snap_free(&snap);
	lm_source_close(&src);
out:
	return ret;
}
