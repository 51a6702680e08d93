// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat on | off | reset: switch metering, zero the statistics.
 * Netlink LOCKMETER_CMD_CONTROL, or a write to /proc/lockmeter; both need
 * root (CAP_SYS_ADMIN).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

struct ctl_params {
	const char *word;
	enum lm_ctl op;
	enum lm_src source;
};

static const char *ctl_word = "on";

static const char *const ctl_msg[] = {
	"",
	"  on      start metering (the held-lock records are cleared first)",
	"  off     stop metering; the numbers stay until reset",
	"  reset   zero all rows and loss counters; metered time restarts",
	"",
	"  --source SRC  netlink, proc or auto (default)",
	"  -h, --help    this text",
	"",
	NULL,
};

static void ctl_usage(int err)
{
	FILE *f = err ? stderr : stdout;

	fprintf(f, "usage: lockstat %s [--source SRC]\n", ctl_word);
	if (err) {
		fprintf(f, "Try 'lockstat %s -h' for the options.\n", ctl_word);
		return;
	}
	lm_print_lines(f, ctl_msg);
	lm_print_lines(f, lm_exit_help);
}

static int ctl_parse_args(int argc, char **argv, struct ctl_params *p)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	p->word = argv[0];
	if (!strcmp(p->word, "on"))
		p->op = LM_CTL_ON;
	else if (!strcmp(p->word, "off"))
		p->op = LM_CTL_OFF;
	else
		p->op = LM_CTL_RESET;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case LM_OPT_SOURCE:
			if (lm_source_opt(optarg, &p->source))
				return LM_EXIT_USAGE;
			break;
		default:
			return lm_opt_error(c, argv);
		}
	}
	if (optind < argc) {
		lm_err("%s: unexpected argument '%s'", p->word, argv[optind]);
		return LM_EXIT_USAGE;
	}
	return 0;
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
	ret = lm_source_open(&src, p.source);
	if (ret)
		goto out;
	ret = lm_source_control(&src, p.op);
	lm_source_close(&src);
out:
	return ret;
}
