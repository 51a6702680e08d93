// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat record [OPTIONS] -- CMD [ARGS]: reset, switch metering on,
 * run CMD (fork, execvp), wait for it, switch metering off, then print
 * the table (and with -o save the snapshot).  The start and end wall
 * times frame CMD.  -o FILE is checked, and its temporary file created,
 * before CMD runs; the table is printed even when the save fails.  While CMD runs, lockstat ignores SIGINT and SIGQUIT so
 * that ^C stops CMD, not the recording.
 *
 * Exit status: CMD's once the table is printed (128 + N when a signal N
 * killed it; 127 when it could not be run), otherwise lockstat's own
 * code for what failed.  Metering is switched off on every path after on.
 * --hist NAME[@SITE] adds the histograms of that lock after the table
 * (view_hist.c); without such a row, exit status 8 once all is done.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"
#include "view.h"

/* long-only options of record, past the shared ones */
enum record_opt {
	RECORD_OPT_HIST = 512,
};

struct record_params {
	struct lm_opts opts; /* .output: -o FILE */
	bool hist;		/* --hist NAME[@SITE] */
	struct lm_hist_target target;
	char **cmd;
};

static const char *const record_msg[] = {
	"",
	"Reset, switch metering on, run CMD, switch it off when CMD ends, print",
	"the table.  The exit status is CMD's (128+N if signal N killed it, 127",
	"if it could not be run) once the table is printed; lockstat's own",
	"codes (below) when lockstat failed.",
	"",
	"  -o, --output FILE  also save the snapshot to FILE (see 'report')",
	"  --hist NAME[@SITE] after the table, the hold and wait histograms of",
	"                     that lock (see 'hist'); exit 8 when it has no row",
	"  -h, --help         this text",
	NULL,
};

static void record_usage(int err)
{
	lm_usage(err, "record", "[OPTIONS] [--] CMD [ARGS]", record_msg,
		 LM_USAGE_SOURCE | LM_USAGE_VIEW);
}

static int record_parse_args(int argc, char **argv, struct record_params *p)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, LM_OPT_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ "hist", required_argument, NULL, RECORD_OPT_HIST },
		{ "output", required_argument, NULL, 'o' },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		LM_VIEW_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(p, 0, sizeof(*p));
	lm_opts_init(&p->opts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" LM_VIEW_SHORTOPTS "ho:", opts, NULL)) != -1) {
		if (c == RECORD_OPT_HIST) {
			if (p->hist) {
				lm_err("record: --hist once only");
				return LM_EXIT_USAGE;
			}
			ret = lm_hist_target(&p->target, optarg);
			if (ret)
				return ret;
			p->hist = true;
			continue;
		}
		ret = lm_opt(&p->opts, c, argv);
		if (ret)
			return ret;
	}
	if (p->hist && p->opts.view.fmt != LM_FMT_TABLE) {
		lm_err("record: --hist goes with the table, not --json, --csv or --folded");
		return LM_EXIT_USAGE;
	}
	p->target.types = p->opts.view.filter.types;
	if (optind == argc) {
		lm_err("record: no CMD to run");
		return LM_EXIT_USAGE;
	}
	ret = lm_opts_check(&p->opts);
	if (ret)
		return ret;
	p->cmd = argv + optind;
	return 0;
}

/* run @cmd to its end; its wait status in *status */
static int record_run(char **cmd, int *status)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int ret = 0;
	pid_t pid;

	sigemptyset(&ign.sa_mask);
	fflush(stdout);
	fflush(stderr);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid = fork();
	if (pid < 0) {
		lm_err("fork: %s", strerror(errno));
		ret = LM_EXIT_ERR;
		goto out_restore;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(cmd[0], cmd);
		lm_err("cannot run %s: %s", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			lm_err("waitpid: %s", strerror(errno));
			ret = LM_EXIT_ERR;
			break;
		}
	}
out_restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return ret;
}

/* CMD's wait status as an exit status; @say: tell how it ended */
static int record_status(const char *cmd, int status, bool say)
{
	if (WIFEXITED(status)) {
		if (say && WEXITSTATUS(status))
			lm_err("%s exited with status %d", cmd, WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		if (say)
			lm_err("%s was killed by signal %d (%s)", cmd, WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return LM_EXIT_ERR;
}

int record_main(int argc, char **argv)
{
	struct timespec start, end;
	struct record_params p;
	struct lm_snapshot snap;
	struct lm_source src;
	struct lm_out out;
	int ret, off, save, status = 0;
	bool ran = false;

	ret = record_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, record_usage);
	/* a file that cannot be written is found before CMD runs, not after */
	if (p.opts.output) {
		ret = lm_out_open(&out, p.opts.output);
		if (ret)
			goto out_abort;
	}
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out_abort;
	lm_snap_init(&snap);
	ret = lm_source_control(&src, LM_CTL_RESET);
	if (ret)
		goto out_close;
	clock_gettime(CLOCK_REALTIME, &start);
	ret = lm_source_control(&src, LM_CTL_ON);
	if (ret)
		goto out_close;
	ret = record_run(p.cmd, &status);
	ran = !ret;
	clock_gettime(CLOCK_REALTIME, &end);
	off = lm_source_control(&src, LM_CTL_OFF);
	if (ret || off) {
		ret = ret ? ret : off;
		goto out_close;
	}
	ret = lm_source_read(&src, p.opts.cpu, &snap);
	if (ret)
		goto out_free_snap;
	snap.h.start = start;
	snap.h.end = end;
	lm_set(&snap.h, LM_H_START);
	lm_set(&snap.h, LM_H_END);
	lm_hdr_put_str(&snap.h, LM_H_COMMAND, "record");
	/* the table first: a failed save must not lose it */
	ret = lm_render(stdout, &snap, &p.opts.view.filter, p.opts.view.fmt);
	if (p.hist) {
		int hist;

		printf("\n");
		hist = lm_hist_print(stdout, &p.target, &snap, "the recorded statistics");
		ret = ret ? ret : hist;
	}
	if (p.opts.output) {
		save = lm_out_commit(&out, &snap);
		ret = ret ? ret : save;
	}
out_free_snap:
	lm_snap_free(&snap);
out_close:
	lm_source_close(&src);
out_abort:
	if (p.opts.output)
		lm_out_abort(&out);
	/* how CMD ended, last, whatever happened after it */
	if (ran) {
		int cmd_ret = record_status(p.cmd[0], status, true);

		if (!ret)
			ret = cmd_ret;
	}
	return ret;
}
