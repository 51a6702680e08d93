// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat: the reader of lockmeter, which meters spinlock, rwlock, mutex,
 * rw_semaphore, rt_mutex, percpu_rw_semaphore and semaphore hold and wait
 * times per (lock, call site) in the kernel (CONFIG_LOCKMETER,
 * Documentation/locking/lockmeter.rst).
 *
 * This file only dispatches: each subcommand parses its own options in
 * its own file (ctl.c for on, off, reset and release; status.c, print.c,
 * record.c, get.c, report.c, top.c, export.c, diff.c, held.c, hist.c,
 * watch.c).
 * Data comes from the "lockmeter" netlink family (nl.c), /proc/lockmeter
 * (procfs.c) or a snapshot file (snapfile.c); model.c merges and sorts,
 * view_table.c and view_json.c render, view_prom.c for export; top draws
 * with view_top.c (curses) or view_batch.c; watch's alerts come from
 * nl.c and are printed by view_watch.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"

static const char *const msg[] = {
	"usage: lockstat COMMAND [OPTIONS]",
	"",
	"  on                   start metering",
	"  off                  stop metering (the numbers stay)",
	"  reset                zero all rows and counters",
	"  release              free the memory metering took (while off; the numbers go)",
	"  status               metering state, metered time, table use, losses",
	"  print                the lockmeter table of the running kernel",
	"  record [OPTIONS] -- CMD [ARGS]",
	"                       reset, on, run CMD, off, print the table",
	"  get -o FILE          save a snapshot of the statistics to FILE",
	"  report FILE          the table of a saved snapshot (offline)",
	"  diff A B             compare two snapshots: matched, new and gone rows",
	"  top                  live view of the busiest locks, per interval",
	"  held                 the locks held right now: holders, stacks, waiters",
	"  watch [--over DUR] [--wait-over DUR]",
	"                       a line per hold or wait over a threshold, as it happens",
	"  hist NAME[@SITE] [FILE]",
	"                       hold and wait histograms of one lock, percentiles",
	"  export               Prometheus text for node_exporter and PCP",
	"",
	"  lockstat COMMAND -h  the options of COMMAND (or: lockstat help COMMAND)",
	"  lockstat -V          the version",
	"",
	"quick start (as root, on a kernel with CONFIG_LOCKMETER):",
	"  record a workload    lockstat record -o run.snap -- make -j2",
	"  the worst holds      lockstat report --stacks run.snap",
	"  who waited           lockstat report --sort maxwait --stacks run.snap",
	"  compare two runs     lockstat diff before.snap after.snap",
	"  live view            lockstat top",
	"",
	NULL,
};

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
	bool changes;		/* changes the kernel's state: never suggested */
} cmds[] = {
	{ "diff", diff_main, false },
	{ "export", export_main, false },
	{ "get", get_main, false },
	{ "held", held_main, false },
	{ "hist", hist_main, false },
	{ "off", ctl_main, true },
	{ "on", ctl_main, true },
	{ "print", print_main, false },
	{ "record", record_main, true },
	{ "release", ctl_main, true },
	{ "report", report_main, false },
	{ "reset", ctl_main, true },
	{ "status", status_main, false },
	{ "top", top_main, false },
	{ "watch", watch_main, false },
};

static void usage(int err)
{
	FILE *f = err ? stderr : stdout;

	lm_print_lines(f, msg);
	lm_print_lines(f, lm_exit_help);
	fputs("  record: the exit status of CMD once the table is printed\n", f);
}

/* what main() returns: a write error on standard output is an error too */
static int lm_exit(int ret)
{
	if (lm_write_check(stdout))
		return ret ? ret : LM_EXIT_ERR;
	return ret;
}

static int lm_main(int argc, char **argv);

/* the edit distance of @a and @b (insert, delete, replace, swap two), at most 9 */
static unsigned int lm_distance(const char *a, const char *b)
{
	unsigned int d[12][12], i, j, la = strlen(a), lb = strlen(b);

	if (la > 10 || lb > 10)
		return 9;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			unsigned int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

/*
 * an unknown command: the nearest ones (within 2 edits, or a prefix), not
 * the whole usage; never one that changes the kernel's state (a typo of
 * 'report' must not run 'reset'), nor any for an option
 */
static void lm_unknown(const char *cmd)
{
	char near[128] = "";
	size_t n = 0;
	unsigned int i;

	if (*cmd == '-') {
		lm_err("unknown option '%s'; a command comes first", cmd);
		fputs("Try 'lockstat -h' for the commands.\n", stderr);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *name = cmds[i].name;

		if (cmds[i].changes || strlen(cmd) < 2 ||
		    (lm_distance(cmd, name) > 2 && strncmp(name, cmd, strlen(cmd))))
			continue;
		n += snprintf(near + n, sizeof(near) - n, "%s'%s'", n ? " or " : "", name);
		if (n >= sizeof(near))
			break;
	}
	if (*near)
		lm_err("unknown command '%s'; did you mean %s?", cmd, near);
	else
		lm_err("unknown command '%s'", cmd);
	fputs("Try 'lockstat -h' for the commands.\n", stderr);
}

int main(int argc, char **argv)
{
	return lm_exit(lm_main(argc, argv));
}

static int lm_main(int argc, char **argv)
{
	static char help[] = "-h";
	char *help_argv[] = { NULL, help, NULL };
	unsigned int i;
	bool want_help;

	if (argc < 2) {
		usage(1);
		return LM_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(0);
		return LM_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("lockstat %s (lockmeter format 1)\n", LOCKSTAT_VERSION);
		return LM_EXIT_OK;
	}
	/* "lockstat help CMD" is "lockstat CMD -h" */
	want_help = !strcmp(argv[1], "help");
	if (want_help)
		help_argv[0] = argv[2];
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[want_help ? 2 : 1], cmds[i].name))
			continue;
		if (want_help)
			return cmds[i].main(2, help_argv);
		return cmds[i].main(argc - 1, argv + 1);
	}
	lm_unknown(argv[want_help ? 2 : 1]);
	return LM_EXIT_USAGE;
}
