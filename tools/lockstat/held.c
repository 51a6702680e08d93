// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat held [--over DURATION] [--json]: the locks held right now for
 * at least DURATION (default 1s), longest first, each with its holder,
 * for a sleeping lock the holder's chain now and the tasks waiting for
 * it (view_held.c renders them).
 *
 * Only the netlink family knows held locks (LOCKMETER_CMD_HELD_GET, which
 * needs CAP_SYS_ADMIN): /proc/lockmeter has no such view, so there is no
 * fallback.  The status comes first, to tell an empty list of a metering
 * kernel from that of a kernel that tracks nothing because metering is
 * off.  Held locks the kernel's copy had no room for are a WARNING line
 * of the table, and in JSON its "truncated" and a warning on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "nl.h"
#include "options.h"
#include "source.h"
#include "view.h"

#define HELD_OVER_DEFAULT	1000000000ULL	/* 1s */

enum held_opt {
	HELD_OPT_OVER = LM_OPT_TYPE + 1,
};

struct held_params {
	uint64_t over_ns;
	bool json;
};

static const char *const held_msg[] = {
	"",
	"The locks held right now for at least DURATION, longest first: type, how",
	"long so far, the holder (pid, comm, the CPU of a spinning lock), lock and",
	"acquire site; for a sleeping lock (mutex, rw_semaphore, rt_mutex,",
	"percpu_rw_semaphore, semaphore; on PREEMPT_RT spinlock_t and rwlock_t",
	"too) the holder's call chain now and each task waiting for it.  Needs",
	"the netlink family and CAP_SYS_ADMIN; lists nothing while metering is",
	"off.",
	"",
	"  --over DURATION  held at least this long: a number and its unit, 500ms,",
	"                   10us, 2s (default 1s; 0 lists every lock held)",
	"  --json           as one JSON object, raw ns",
	"  -h, --help       this text",
	NULL,
};

static void held_usage(int err)
{
	lm_usage(err, "held", "[--over DURATION] [--json]", held_msg, 0);
}

static int held_parse_args(int argc, char **argv, struct held_params *p)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "over", required_argument, NULL, HELD_OPT_OVER },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(p, 0, sizeof(*p));
	p->over_ns = HELD_OVER_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return LM_HELP;
		case LM_OPT_JSON:
			p->json = true;
			break;
		case HELD_OPT_OVER:
			if (lm_parse_duration(optarg, &p->over_ns)) {
				lm_err("held: --over: '%s' is not a duration: a number and its unit, ns, us, ms or s (500ms, 10us, 2s)",
				       optarg);
				return LM_EXIT_USAGE;
			}
			break;
		default:
			return lm_opt_error(c, argv);
		}
	}
	return lm_opts_no_operand(argc, argv);
}

int held_main(int argc, char **argv)
{
	struct held_params p;
	struct lm_held_list l;
	struct lm_header h = { 0 };
	struct lm_nl nl = { 0 };
	int ret;

	ret = held_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, held_usage);
	ret = lm_source_nl_only(&nl, "held", "held locks are known");
	if (ret)
		goto out;
	ret = lm_nl_status(&nl, &h);
	if (ret)
		goto out_close;
	lm_held_init(&l);
	ret = lm_nl_held(&nl, p.over_ns, &l);
	if (ret == LM_EXIT_PERM)
		lm_err("held: the holders' call chains are other tasks': it needs CAP_SYS_ADMIN");
	if (ret)
		goto out_free;
	if (p.json && l.has_truncated && l.truncated)
		lm_err("held: warning: %llu held lock%s did not fit the kernel's snapshot: not listed",
		       (unsigned long long)l.truncated, l.truncated == 1 ? "" : "s");
	if (p.json)
		lm_held_json(stdout, &l, p.over_ns, h.on);
	else
		lm_held_print(stdout, &l, p.over_ns, h.on);
out_free:
	lm_held_free(&l);
out_close:
	lm_nl_close(&nl);
out:
	return ret;
}
