// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat get -o FILE: save a snapshot of the running kernel's
 * statistics, with this machine's uname, for 'lockstat report' later or
 * elsewhere.  start and end in the file are the wall-clock times around
 * the read: the instant of the snapshot (record gives the metered run's).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"

struct get_params {
	struct lm_opts opts; /* .output: -o FILE */
};

static const char *const get_msg[] = {
	"",
	"Save a snapshot of the statistics to FILE ('-': standard output), to be",
	"read by 'lockstat report FILE', here or on another machine.",
	"",
	"  -o, --output FILE  where to write (required)",
	"  -h, --help         this text",
	NULL,
};

static void get_usage(int err)
{
	lm_usage(err, "get", "-o FILE [--source SRC] [--cpu N]", get_msg, LM_USAGE_SOURCE);
}

static int get_parse_args(int argc, char **argv, struct get_params *p)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	memset(p, 0, sizeof(*p));
	ret = lm_opts_parse(&p->opts, argc, argv, "+:ho:", opts);
	if (!ret)
		ret = lm_opts_no_operand(argc, argv);
	if (ret)
		return ret;
	if (!p->opts.output || !*p->opts.output) {
		lm_err("get: -o FILE is required");
		return LM_EXIT_USAGE;
	}
	return lm_opts_check(&p->opts);
}

int get_main(int argc, char **argv)
{
	struct lm_snapshot snap;
	struct lm_source src;
	struct get_params p;
	int ret;

	ret = get_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, get_usage);
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out;
	lm_snap_init(&snap);
	clock_gettime(CLOCK_REALTIME, &snap.h.start);
	ret = lm_source_read(&src, p.opts.cpu, &snap);
	if (ret)
		goto out_free_snap;
	clock_gettime(CLOCK_REALTIME, &snap.h.end);
	lm_set(&snap.h, LM_H_START);
	lm_set(&snap.h, LM_H_END);
	lm_hdr_put_str(&snap.h, LM_H_COMMAND, "get");
	ret = lm_snap_save(p.opts.output, &snap);
out_free_snap:
	lm_snap_free(&snap);
	lm_source_close(&src);
out:
	return ret;
}
