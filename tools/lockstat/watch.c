// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat watch [--over DUR] [--wait-over DUR] [--type T] [--json]
 * [--count N] [--stacks]: a line per hold or wait over a threshold, and
 * per sleeping lock still held over one, as the kernel sends them
 * (LOCKMETER_CMD_ALERT on the "alerts" multicast group; view_watch.c
 * prints them).
 *
 * With --over or --wait-over the thresholds are set first (WATCH_SET, of
 * type T or of every type), and those in place before (from the status)
 * set back at the end, so that nothing keeps alerting once watch is gone;
 * without either, the thresholds already set are used, and there must be
 * some.  SIGINT, SIGTERM and SIGHUP are blocked but while ppoll() waits
 * on the socket, so the thresholds are always restored; SIGPIPE is
 * ignored, a write error stops watch the same way.  The summary on
 * stderr counts the alerts printed and those lost: the kernel's
 * alerts_dropped since the start, and the socket's (lm_watch_lost()).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "nl.h"
#include "options.h"
#include "source.h"
#include "view.h"

#define WATCH_MIN_NS	1000ULL			/* the kernel's range */
#define WATCH_MAX_NS	1000000000000ULL	/* 1000 s */
#define WATCH_RCVBUF	(4 << 20)		/* bytes: bursts of alerts */
#define WATCH_DONE	(-1)			/* --count reached */

enum watch_opt {
	WATCH_OPT_COUNT = LM_OPT_TYPE + 1,
	WATCH_OPT_OVER,
	WATCH_OPT_WAIT_OVER,
};

struct watch_params {
	uint64_t ns[LM_NR_WATCH];	/* --over, --wait-over */
	bool set[LM_NR_WATCH];		/* given: set it, and restore it at the end */
	uint32_t type;			/* --type: 0, every type */
	uint64_t count;			/* 0: until a signal */
	bool json;
	bool stacks;
};

/* what the loop keeps between alerts */
struct watch_state {
	const struct watch_params *p;
	struct lm_watch_count count;
	uint64_t shown;			/* alerts printed */
	uint64_t dropped;		/* the kernel's alerts_dropped last seen */
};

static volatile sig_atomic_t watch_quit;

static const char *const watch_msg[] = {
	"",
	"A line per hold or wait longer than its lock type's threshold, and per",
	"sleeping lock still held longer (once per hold), as they happen:",
	"",
	"  [  123.456789] hold  spin    10.21ms > 5ms     LOCK  SITE  pid PID COMM cpu N",
	"",
	"(the time since boot as dmesg prints it; a wait adds \"owner PID COMM\", a",
	"sleeping lock's hold \"blocked DUR\", held \"waiters N\").  With --over or",
	"--wait-over the thresholds are set, and those in place before are set back",
	"when watch ends; without, those already set are used.  Ends after --count",
	"alerts, or on SIGINT or SIGTERM (exit 0), with \"lockstat watch: N alerts,",
	"M dropped\" on stderr.  Needs the netlink family, CAP_NET_ADMIN and",
	"CAP_SYS_ADMIN.",
	"",
	"  --over DUR       alert on holds longer than DUR: a number and its unit,",
	"                   5ms, 250us, 1s (1us to 1000s)",
	"  --wait-over DUR  alert on waits longer than DUR",
	"  --type TYPE      set the thresholds of TYPE only, and show its alerts",
	"                   only; TYPE is one of:",
	LM_HELP_TYPES "                     ",
	"  --count N        exit after N alerts",
	"  --stacks         under each alert its call chain, where the holder blocked",
	"                   and the tasks waiting (held)",
	"  --json           a JSON object per line, raw ns",
	"  -h, --help       this text",
	NULL,
};

static void watch_usage(int err)
{
	lm_usage(err, "watch",
		 "[--over DUR] [--wait-over DUR] [--type TYPE] [--count N] [--stacks] [--json]",
		 watch_msg, 0);
}

/* --over, --wait-over: a duration the kernel takes */
static int watch_dur(const char *opt, const char *arg, uint64_t *ns)
{
	if (!lm_parse_duration(arg, ns) && *ns >= WATCH_MIN_NS && *ns <= WATCH_MAX_NS)
		return 0;
	lm_err("watch: %s: '%s' is not a duration from 1us to 1000s: a number and its unit, ns, us, ms or s (5ms, 250us, 1s)",
	       opt, arg);
	return LM_EXIT_USAGE;
}

static int watch_type(const char *arg, uint32_t *type)
{
	char types[256];
	int t = lm_type_parse(arg);

	if (t > LM_TYPE_NONE) {
		*type = (uint32_t)t;
		return 0;
	}
	lm_type_list(types, sizeof(types), ", ");
	lm_err("watch: --type: '%s': the types are %s", arg, types);
	return LM_EXIT_USAGE;
}

static int watch_parse_args(int argc, char **argv, struct watch_params *p)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, WATCH_OPT_COUNT },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "over", required_argument, NULL, WATCH_OPT_OVER },
		{ "stacks", no_argument, NULL, LM_OPT_STACKS },
		{ "type", required_argument, NULL, LM_OPT_TYPE },
		{ "wait-over", required_argument, NULL, WATCH_OPT_WAIT_OVER },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(p, 0, sizeof(*p));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'h':
			return LM_HELP;
		case WATCH_OPT_COUNT:
			if (lm_parse_u64(optarg, &p->count) || !p->count) {
				lm_err("watch: --count: '%s' is not a positive number", optarg);
				ret = LM_EXIT_USAGE;
			}
			break;
		case LM_OPT_JSON:
			p->json = true;
			break;
		case WATCH_OPT_OVER:
		case WATCH_OPT_WAIT_OVER: {
			int k = c == WATCH_OPT_OVER ? LM_WATCH_HOLD : LM_WATCH_WAIT;

			ret = watch_dur(c == WATCH_OPT_OVER ? "--over" : "--wait-over", optarg,
					&p->ns[k]);
			p->set[k] = true;
			break;
		}
		case LM_OPT_STACKS:
			p->stacks = true;
			break;
		case LM_OPT_TYPE:
			ret = watch_type(optarg, &p->type);
			break;
		default:
			return lm_opt_error(c, argv);
		}
		if (ret)
			return ret;
	}
	return lm_opts_no_operand(argc, argv);
}

/* a threshold of @type (0: of any type) set in @h */
static bool watch_any(const struct lm_header *h, uint32_t type)
{
	uint32_t t;
	int k;

	for (k = 0; k < LM_NR_WATCH; k++)
		for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++)
			if ((!type || t == type) && h->watch_ns[k][t])
				return true;
	return false;
}

static void watch_perm(void)
{
	fputs("lockstat watch: needs CAP_NET_ADMIN and CAP_SYS_ADMIN\n", stderr);
}

static int watch_set(struct lm_nl *nl, const struct watch_params *p)
{
	int ret;

	ret = lm_nl_watch_set(nl, p->type, p->set[LM_WATCH_HOLD] ? &p->ns[LM_WATCH_HOLD] : NULL,
			      p->set[LM_WATCH_WAIT] ? &p->ns[LM_WATCH_WAIT] : NULL);
	if (ret == LM_EXIT_PERM)
		watch_perm();
	return ret;
}

/*
 * The thresholds watch set back to those of @h0, the status at the start:
 * of --type's type; else every type's cleared, then those that had one
 * set again.  Only the kinds watch set.
 */
static int watch_restore(struct lm_nl *nl, const struct watch_params *p,
			 const struct lm_header *h0)
{
	static const uint64_t zero;
	const uint64_t *v[LM_NR_WATCH];
	uint32_t t;
	int k, ret, err;

	for (k = 0; k < LM_NR_WATCH; k++)
		v[k] = !p->set[k] ? NULL : p->type ? &h0->watch_ns[k][p->type] : &zero;
	ret = lm_nl_watch_set(nl, p->type, v[LM_WATCH_HOLD], v[LM_WATCH_WAIT]);
	for (t = LM_TYPE_NONE + 1; !p->type && !ret && t < LM_NR_TYPES; t++) {
		for (k = 0; k < LM_NR_WATCH; k++)
			v[k] = p->set[k] && h0->watch_ns[k][t] ? &h0->watch_ns[k][t] : NULL;
		if (!v[LM_WATCH_HOLD] && !v[LM_WATCH_WAIT])
			continue;
		err = lm_nl_watch_set(nl, t, v[LM_WATCH_HOLD], v[LM_WATCH_WAIT]);
		ret = ret ? ret : err;
	}
	if (ret)
		lm_err("watch: the thresholds in place before could not be set back; 'echo watch off > /proc/lockmeter' clears them all");
	return ret;
}

/* an alert has come: printed, unless --type leaves it out */
static int watch_alert(const struct lm_alert *a, void *arg)
{
	struct watch_state *st = arg;
	uint64_t lost = lm_watch_count_alert(&st->count, a);

	if (lost)
		fprintf(stderr, "lockstat watch: %llu alert%s lost: the socket's buffer was full\n",
			(unsigned long long)lost, lost == 1 ? "" : "s");
	if (lm_alert_has(a, LM_AB_DROPPED) && a->dropped > st->dropped) {
		fprintf(stderr, "lockstat watch: the kernel dropped %llu alert%s (queue full or rate limit)\n",
			(unsigned long long)(a->dropped - st->dropped),
			a->dropped - st->dropped == 1 ? "" : "s");
		st->dropped = a->dropped;
	}
	if (st->p->type && a->type != st->p->type)
		return 0;
	if (st->p->json)
		lm_watch_json(stdout, a);
	else
		lm_watch_print(stdout, a, st->p->stacks);
	if (lm_write_check(stdout))
		return LM_EXIT_ERR;
	st->shown++;
	return st->p->count && st->shown >= st->p->count ? WATCH_DONE : 0;
}

static void watch_signal(int sig)
{
	(void)sig;
	watch_quit = 1;
}

/* SIGINT, SIGTERM, SIGHUP caught but blocked (*@old: the mask before), SIGPIPE ignored */
static void watch_signals(sigset_t *old)
{
	struct sigaction sa = { .sa_handler = watch_signal };	/* no SA_RESTART */
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* the alerts until --count, a signal (0) or an error */
static int watch_loop(struct lm_nl *ev, struct watch_state *st, const sigset_t *unblocked)
{
	struct pollfd pfd = { .fd = lm_nl_fd(ev), .events = POLLIN };
	int ret;

	while (!watch_quit) {
		/* the signals come only while it waits: none is missed before */
		if (ppoll(&pfd, 1, NULL, unblocked) < 0) {
			if (errno == EINTR)
				continue;
			lm_err("watch: poll: %s", strerror(errno));
			return LM_EXIT_ERR;
		}
		/* an overrun is POLLERR: the receive says ENOBUFS, and counts it */
		ret = lm_nl_alerts(ev, watch_alert, st, &st->count.overruns);
		if (ret)
			return ret == WATCH_DONE ? 0 : ret;
	}
	return 0;
}

static void watch_summary(struct lm_nl *nl, const struct lm_header *h0,
			  const struct watch_state *st)
{
	struct lm_header h = { 0 };
	uint64_t now = st->dropped;

	/* the status now; else the count the last alert carried */
	if (!lm_nl_status(nl, &h) && lm_has(&h, LM_H_ALERTS_DROPPED))
		now = h.alerts_dropped;
	fprintf(stderr, "lockstat watch: %llu alert%s, %llu dropped\n",
		(unsigned long long)st->shown, st->shown == 1 ? "" : "s",
		(unsigned long long)lm_watch_lost(&st->count, h0->alerts_dropped, now));
}

int watch_main(int argc, char **argv)
{
	struct watch_params p;
	struct watch_state st = { .p = &p };
	struct lm_header h0 = { 0 };
	struct lm_nl nl = { 0 }, ev = { 0 };
	bool set;
	sigset_t old;
	int ret, err;

	ret = watch_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, watch_usage);
	set = p.set[LM_WATCH_HOLD] || p.set[LM_WATCH_WAIT];
	ret = lm_source_nl_only(&nl, "watch", "alerts are sent");
	if (ret)
		goto out;
	ret = lm_nl_status(&nl, &h0);
	if (ret)
		goto out_close;
	if (!h0.has_watch) {
		lm_err("watch: this kernel's lockmeter sends no alerts (a kernel before lockstat watch)");
		ret = LM_EXIT_ERR;
		goto out_close;
	}
	if (!set && !watch_any(&h0, p.type)) {
		lm_err("watch: no threshold set: give --over or --wait-over");
		ret = LM_EXIT_ERR;
		goto out_close;
	}
	st.dropped = h0.alerts_dropped;
	watch_signals(&old);
	/* subscribed first: no alert of the thresholds set goes unheard */
	ret = lm_nl_open(&ev);
	if (ret) {
		lm_err("watch: %s", ev.why);
		goto out_signals;
	}
	ret = lm_nl_subscribe(&ev, WATCH_RCVBUF);
	if (ret == LM_EXIT_PERM)
		watch_perm();
	if (ret)
		goto out_close_ev;
	ret = set ? watch_set(&nl, &p) : 0;
	if (ret)
		goto out_close_ev;
	ret = watch_loop(&ev, &st, &old);
	if (set) {
		err = watch_restore(&nl, &p, &h0);
		ret = ret ? ret : err;
	}
	watch_summary(&nl, &h0, &st);
out_close_ev:
	lm_nl_close(&ev);
out_signals:
	sigprocmask(SIG_SETMASK, &old, NULL);
out_close:
	lm_nl_close(&nl);
out:
	return ret;
}
