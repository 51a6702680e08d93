// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat export --format prometheus: the statistics of the running
 * kernel, or of a snapshot FILE, in the Prometheus text exposition
 * format (view_prom.c), for the engines that already collect metrics:
 * node_exporter's textfile collector (--textfile-dir DIR writes
 * DIR/lockmeter.prom atomically: a temporary file beside it, fsync,
 * rename) and PCP's pmdaopenmetrics, which reads the same file.
 *
 * --interval SECS writes again every SECS seconds until SIGTERM or
 * SIGINT, which are blocked and waited for with sigtimedwait(): no busy
 * loop, no race between the check and the sleep, exit 0.  The first
 * export must succeed; a later failure is reported and tried again at
 * the next tick (the file keeps the last good export, and node_exporter's
 * node_textfile_mtime_seconds shows its age).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lockstat.h"
#include "options.h"
#include "snapfile.h"
#include "view_prom.h"

#define EXPORT_FILE		"lockmeter.prom"
#define EXPORT_MODE		0644	/* node_exporter runs as its own user */
#define EXPORT_MAX_INTERVAL	86400
#define EXPORT_LIMIT		1000000

enum export_opt {
	EXPORT_OPT_EXACT_SITES = LM_OPT_TYPE + 1,
	EXPORT_OPT_FORMAT,
	EXPORT_OPT_INTERVAL,
	EXPORT_OPT_MAX_SERIES,
	EXPORT_OPT_TEXTFILE_DIR,
};

struct export_params {
	struct lm_opts opts;	/* .source */
	const char *file;	/* a snapshot, or NULL: the running kernel */
	const char *dir;	/* --textfile-dir */
	char *path;		/* dir/lockmeter.prom */
	double interval_s;	/* 0: once */
	size_t max_series;
	bool exact_sites;
	bool source_given;
};

static const char *const export_msg[] = {
	"",
	"The statistics of the running kernel, or of a snapshot FILE ('-': standard",
	"input), as Prometheus text: to standard output, or atomically to",
	"DIR/" EXPORT_FILE " for node_exporter's textfile collector (also read by",
	"PCP's pmdaopenmetrics).  Counters end in _total, times are seconds.",
	"",
	"  --format FMT        prometheus (the only format, and the default)",
	"  --textfile-dir DIR  write DIR/" EXPORT_FILE " (a new file is mode 0644)",
	"  --interval SECS     write again every SECS seconds (0.1 to 86400), or with",
	"                      a unit (15s, 500ms), until SIGTERM or SIGINT; the",
	"                      running kernel only",
	"  --max-series N      keep the N (lock, site) series with the most hold time",
	"                      (default 200; 0: none), sum the rest per type into",
	"                      lock=\"other\",site=\"other\"",
	"  --exact-sites       site labels as the kernel names them (func+0xoff/0xsize);",
	"                      by default the function only, its rows merged",
	"  --source SRC        netlink, proc or auto (default: netlink, /proc/lockmeter",
	"                      when the kernel has no lockmeter netlink family)",
	"  -h, --help          this text",
	NULL,
};

static void export_usage(int err)
{
	lm_usage(err, "export", "[--format prometheus] [--textfile-dir DIR] [--interval SECS] [FILE]",
		 export_msg, 0);
}

static int export_parse_max(const char *arg, size_t *out)
{
	uint64_t v;

	if (lm_parse_u64(arg, &v) || v > EXPORT_LIMIT)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int export_opt(struct export_params *p, int c, char **argv)
{
	switch (c) {
	case EXPORT_OPT_EXACT_SITES:
		p->exact_sites = true;
		return 0;
	case EXPORT_OPT_FORMAT:
		if (!strcmp(optarg, "prometheus"))
			return 0;
		lm_err("export: unknown --format '%s' (the format is prometheus)", optarg);
		return LM_EXIT_USAGE;
	case EXPORT_OPT_INTERVAL:
		if (!lm_parse_interval(optarg, 0.1, EXPORT_MAX_INTERVAL, &p->interval_s))
			return 0;
		lm_err("--interval: '%s': the interval is 0.1 to %d seconds, or with a unit (15s)",
		       optarg, EXPORT_MAX_INTERVAL);
		return LM_EXIT_USAGE;
	case EXPORT_OPT_MAX_SERIES:
		if (!export_parse_max(optarg, &p->max_series))
			return 0;
		lm_err("--max-series: '%s' is not a number from 0 to %d", optarg, EXPORT_LIMIT);
		return LM_EXIT_USAGE;
	case EXPORT_OPT_TEXTFILE_DIR:
		if (*optarg) {
			p->dir = optarg;
			return 0;
		}
		lm_err("--textfile-dir: an empty directory name");
		return LM_EXIT_USAGE;
	case LM_OPT_SOURCE:
		p->source_given = true;
		break;
	}
	return lm_opt(&p->opts, c, argv);
}

static int export_parse_args(int argc, char **argv, struct export_params *p)
{
	static const struct option opts[] = {
		{ "exact-sites", no_argument, NULL, EXPORT_OPT_EXACT_SITES },
		{ "format", required_argument, NULL, EXPORT_OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ "interval", required_argument, NULL, EXPORT_OPT_INTERVAL },
		{ "max-series", required_argument, NULL, EXPORT_OPT_MAX_SERIES },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ "textfile-dir", required_argument, NULL, EXPORT_OPT_TEXTFILE_DIR },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(p, 0, sizeof(*p));
	lm_opts_init(&p->opts);
	p->max_series = LM_PROM_MAX_SERIES;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		ret = c == '?' || c == ':' ? lm_opt_error(c, argv) : export_opt(p, c, argv);
		if (ret)
			return ret;
	}
	if (argc - optind > 1) {
		lm_err("export: one snapshot FILE only");
		return LM_EXIT_USAGE;
	}
	if (optind < argc)
		p->file = argv[optind];
	if (p->file && p->source_given) {
		lm_err("export: --source is for the running kernel, not a snapshot FILE");
		return LM_EXIT_USAGE;
	}
	if (p->file && p->interval_s > 0) {
		lm_err("export: --interval reads the running kernel, not a snapshot FILE");
		return LM_EXIT_USAGE;
	}
	return 0;
}

/* DIR must be a directory now; DIR/lockmeter.prom is checked at each write */
static int export_check_dir(struct export_params *p)
{
	struct stat st;

	if (stat(p->dir, &st)) {
		lm_err("--textfile-dir %s: %s", p->dir, strerror(errno));
		return errno == EACCES ? LM_EXIT_PERM : LM_EXIT_ERR;
	}
	if (!S_ISDIR(st.st_mode)) {
		lm_err("--textfile-dir %s: not a directory", p->dir);
		return LM_EXIT_ERR;
	}
	if (asprintf(&p->path, "%s/%s", p->dir, EXPORT_FILE) < 0) {
		p->path = NULL;
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	return 0;
}

static int export_write_fn(FILE *f, const void *arg)
{
	return lm_prom_print(f, arg);
}

/* the metrics of @s to standard output or the textfile */
static int export_write(const struct export_params *p, const struct lm_snapshot *s)
{
	struct lm_out out;
	struct lm_prom prom;
	int ret;

	if (lm_prom_build(&prom, s, p->max_series, p->exact_sites)) {
		lm_err("out of memory");
		return LM_EXIT_ERR;
	}
	if (!p->path) {
		ret = lm_prom_print(stdout, &prom);
		ret = lm_write_check(stdout) || ret ? LM_EXIT_ERR : 0;
		goto out_free;
	}
	ret = lm_out_open_regular(&out, p->path, EXPORT_MODE, "metrics");
	if (ret) {
		lm_out_abort(&out);
		goto out_free;
	}
	ret = lm_out_write(&out, export_write_fn, &prom);
out_free:
	lm_prom_free(&prom);
	return ret;
}

/* one export: a fresh snapshot of the source (or the FILE), written */
static int export_once(const struct export_params *p, struct lm_source *src)
{
	struct lm_snapshot snap;
	int ret;

	lm_snap_init(&snap);
	if (p->file) {
		ret = lm_snap_load(p->file, &snap);
	} else {
		ret = lm_source_read(src, -1, &snap);
		if (!ret) {
			clock_gettime(CLOCK_REALTIME, &snap.h.end);
			lm_set(&snap.h, LM_H_END);
		}
	}
	if (!ret)
		ret = export_write(p, &snap);
	lm_snap_free(&snap);
	return ret;
}

static void export_ts_add(struct timespec *ts, double s)
{
	double whole = floor(s);

	ts->tv_sec += (time_t)whole;
	ts->tv_nsec += (long)((s - whole) * 1e9);
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

/* until @due (CLOCK_MONOTONIC) or a signal of @set: true for the signal */
static bool export_wait(const sigset_t *set, const struct timespec *due)
{
	struct timespec now, left;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = due->tv_sec - now.tv_sec;
		left.tv_nsec = due->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000;
		}
		if (left.tv_sec < 0)
			return false;
		if (sigtimedwait(set, NULL, &left) >= 0)
			return true;
		if (errno == EAGAIN)
			return false;
		/* EINTR: another signal; wait on */
	}
}

/* export every interval until SIGTERM or SIGINT; the first must work */
static int export_loop(const struct export_params *p, struct lm_source *src)
{
	struct timespec due, now;
	sigset_t set, old;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	ret = export_once(p, src);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &due);
	for (;;) {
		export_ts_add(&due, p->interval_s);
		if (export_wait(&set, &due))
			break;
		if (export_once(p, src))
			lm_err("export failed; next try in %gs", p->interval_s);
		/* late (a slow read, a suspend): the next tick from now */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > due.tv_sec + (time_t)p->interval_s + 1)
			due = now;
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int export_main(int argc, char **argv)
{
	struct export_params p;
	struct lm_source src;
	int ret;

	ret = export_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, export_usage);
	if (p.dir) {
		ret = export_check_dir(&p);
		if (ret)
			goto out;
	}
	if (p.file) {
		ret = export_once(&p, NULL);
		goto out;
	}
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out;
	if (p.interval_s > 0)
		ret = export_loop(&p, &src);
	else
		ret = export_once(&p, &src);
	lm_source_close(&src);
out:
	free(p.path);
	return ret;
}
