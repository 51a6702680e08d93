// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat get -o FILE: save a snapshot of the running kernel's
 * statistics, with this machine's uname, for 'lockstat report' later or
 * elsewhere.  start and end in the file are the wall-clock times around
 * the read: the instant of the snapshot (record gives the metered run's).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"

struct get_params {
	const char *output;
	enum lm_src source;
	int cpu;
};

static const char *const get_msg[] = {
	"usage: lockstat get -o FILE [--source SRC] [--cpu N]",
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
	FILE *f = stdout;

	if (err) {
		fprintf(stderr, "%s\nTry 'lockstat get -h' for the options.\n", get_msg[0]);
		return;
	}

	lm_print_lines(f, get_msg);
	lm_print_lines(f, lm_source_help);
	fputc('\n', f);
	lm_print_lines(f, lm_exit_help);
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
	int c;

	memset(p, 0, sizeof(*p));
	p->cpu = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case 'o':
			p->output = optarg;
			break;
		case LM_OPT_CPU:
			if (lm_cpu_opt(optarg, &p->cpu))
				return LM_EXIT_USAGE;
			break;
		case LM_OPT_SOURCE:
			if (lm_source_opt(optarg, &p->source))
				return LM_EXIT_USAGE;
			break;
		default:
			return lm_opt_error(c, argv);
		}
	}
	if (optind < argc) {
		lm_err("get: unexpected argument '%s'", argv[optind]);
		return LM_EXIT_USAGE;
	}
	if (!p->output || !*p->output) {
		lm_err("get: -o FILE is required");
		return LM_EXIT_USAGE;
	}
	if (p->cpu >= 0 && p->source == LM_SRC_PROC) {
		lm_err("--cpu needs the netlink source: /proc/lockmeter has merged rows only");
		return LM_EXIT_USAGE;
	}
	return 0;
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
	ret = lm_source_open(&src, p.source);
	if (ret)
		goto out;
	lm_snap_init(&snap);
	clock_gettime(CLOCK_REALTIME, &snap.h.start);
	ret = lm_source_read(&src, p.cpu, &snap);
	if (ret)
		goto out_free_snap;
	clock_gettime(CLOCK_REALTIME, &snap.h.end);
	lm_set(&snap.h, LM_H_START);
	lm_set(&snap.h, LM_H_END);
	lm_hdr_put_str(&snap.h, LM_H_COMMAND, "get");
	ret = lm_snap_save(p.output, &snap);
out_free_snap:
	lm_snap_free(&snap);
	lm_source_close(&src);
out:
	return ret;
}
