// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat on | off | reset | release: switch metering, zero the
 * statistics, free the memory metering took.  Netlink
 * LOCKMETER_CMD_CONTROL, or a write to /proc/lockmeter; both need root
 * (CAP_SYS_ADMIN).  What a refusal means is said by lm_ctl_refused().
 */
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

struct ctl_params {
	const char *word;
	enum lm_ctl op;
	struct lm_opts opts;
};

static const char *ctl_word = "on";

static const char *const ctl_msg[] = {
	"",
	"  on       start metering (the held-lock records are cleared first)",
	"  off      stop metering; the numbers stay until reset",
	"  reset    zero all rows and loss counters; metered time restarts",
	"  release  free the memory metering took: rows, per-CPU state, key",
	"           directory, and so the numbers; only while off ('on' allocates again)",
	"",
	"  --source SRC  netlink, proc or auto (default)",
	"  -h, --help    this text",
	NULL,
};

static void ctl_usage(int err)
{
	lm_usage(err, ctl_word, "[--source SRC]", ctl_msg, 0);
}

static int ctl_parse_args(int argc, char **argv, struct ctl_params *p)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ NULL, 0, NULL, 0 },
	};
	int op, ret;

	memset(p, 0, sizeof(*p));
	p->word = argv[0];
	op = lm_ctl_find(p->word);
	if (op < 0) {
		lm_err("'%s' is none of on, off, reset, release", p->word);
		return LM_EXIT_USAGE;
	}
	p->op = op;
	ret = lm_opts_parse(&p->opts, argc, argv, "+:h", opts);
	if (ret)
		return ret;
	return lm_opts_no_operand(argc, argv);
}

int ctl_main(int argc, char **argv)
{
	struct lm_source src;
	struct ctl_params p;
	int ret;

	ctl_word = argv[0];
	ret = ctl_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, ctl_usage);
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out;
	ret = lm_source_control(&src, p.op);
	lm_source_close(&src);
out:
	return ret;
}
