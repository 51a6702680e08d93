// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat hist NAME[@SITE] [FILE]: the hold and wait histograms of one
 * lock, as text (view_hist.c), from the running kernel or from a
 * snapshot file (get -o, record -o).
 */
#include <string.h>
#include <sys/stat.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"

struct hist_params {
	struct lm_opts opts;	/* --source, --cpu, --type */
	struct lm_hist_target target;
	const char *file;	/* NULL: the running kernel */
};

static const char *const hist_msg[] = {
	"",
	"Text histograms of one lock's hold and wait times, all its call sites",
	"summed, or those of SITE (a function; offsets are ignored, and a module",
	"name when NAME or SITE gives none).  From the running kernel, or from",
	"FILE, a snapshot of 'lockstat get -o' or 'lockstat record -o'.",
	"Percentiles above each histogram are estimates at bucket resolution.",
	"",
	"  --type TYPE        only TYPE (repeatable, or comma-separated), one of:",
	LM_HELP_TYPES "                     ",
	"  --width N          the bars in N columns (default the terminal's, else",
	"                     $COLUMNS, else 80)",
	"  --json             one JSON object: the bounds, and per type the counts",
	"                     and percentiles, as report --json has them",
	"  -h, --help         this text",
	"",
	"exit status of hist: 8 when no row has that lock (and site); 1 when",
	"  the rows have no histograms (a kernel without them, or /proc)",
	NULL,
};

static void hist_usage(int err)
{
	lm_usage(err, "hist", "[OPTIONS] NAME[@SITE] [FILE]", hist_msg, LM_USAGE_SOURCE);
}

static int hist_parse_args(int argc, char **argv, struct hist_params *p)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ "type", required_argument, NULL, LM_OPT_TYPE },
		{ "width", required_argument, NULL, LM_OPT_WIDTH },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = lm_opts_parse(&p->opts, argc, argv, ":h", opts);
	if (ret)
		return ret;
	if (optind == argc) {
		lm_err("hist: no lock NAME given");
		return LM_EXIT_USAGE;
	}
	/* a snapshot where the lock's name goes: not a name to ask the kernel for */
	if (argc - optind == 1 && !stat(argv[optind], &st) && S_ISREG(st.st_mode)) {
		lm_err("hist: '%s' is a file, and NAME comes first: lockstat hist NAME[@SITE] %s",
		       argv[optind], argv[optind]);
		return LM_EXIT_USAGE;
	}
	if (argc - optind > 2) {
		lm_err("hist: one NAME[@SITE] and at most one FILE");
		return LM_EXIT_USAGE;
	}
	ret = lm_hist_target(&p->target, argv[optind]);
	if (ret)
		return ret;
	p->target.types = p->opts.view.filter.types;
	p->target.width = p->opts.view.filter.width;
	p->target.json = p->opts.view.fmt == LM_FMT_JSON;
	p->file = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (p->file && (p->opts.source != LM_SRC_AUTO || p->opts.cpu >= 0)) {
		lm_err("hist: --source and --cpu are for the running kernel, not a FILE");
		return LM_EXIT_USAGE;
	}
	return lm_opts_check(&p->opts);
}

int hist_main(int argc, char **argv)
{
	struct hist_params p;
	struct lm_snapshot snap;
	struct lm_source src;
	int ret;

	ret = hist_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, hist_usage);
	lm_snap_init(&snap);
	if (p.file) {
		ret = lm_snap_load(p.file, &snap);
	} else {
		ret = lm_source_open(&src, p.opts.source);
		if (ret)
			goto out_free_snap;
		ret = lm_source_read(&src, p.opts.cpu, &snap);
		lm_source_close(&src);
	}
	if (!ret)
		ret = lm_hist_print(stdout, &p.target, &snap,
				    p.file ? p.file : "the kernel's statistics");
out_free_snap:
	lm_snap_free(&snap);
	return ret;
}
