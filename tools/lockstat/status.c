// SPDX-License-Identifier: GPL-2.0
/*
 * lockstat status: is metering on, for how long, how full the key
 * directory is, the memory it all takes, and the loss counters with what
 * they mean.
 */
#include <stdio.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"
#include "view.h"

struct status_params {
	struct lm_opts opts;
	bool json;
};

static const char *const status_msg[] = {
	"",
	"The lockmeter state: on or off, metered time, key directory use, memory, loss counters.",
	"",
	"  --json        as a JSON object (the \"header\" of print --json)",
	"  --source SRC  netlink, proc or auto (default)",
	"  -h, --help    this text",
	NULL,
};

static void status_usage(int err)
{
	lm_usage(err, "status", "[--json] [--source SRC]", status_msg, 0);
}

static int status_parse_args(int argc, char **argv, struct status_params *p)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, LM_OPT_JSON },
		{ "source", required_argument, NULL, LM_OPT_SOURCE },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	memset(p, 0, sizeof(*p));
	lm_opts_init(&p->opts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case LM_OPT_JSON: /* status's own, not the view's */
			p->json = true;
			break;
		default:
			ret = lm_opt(&p->opts, c, argv);
			if (ret)
				return ret;
			break;
		}
	}
	return lm_opts_no_operand(argc, argv);
}

/* "watch hold: spin 5ms, mutex 50ms" of the types that have a threshold, or "-" */
static void status_watch(const struct lm_header *h)
{
	static const char *const kinds[LM_NR_WATCH] = { "hold", "wait" };
	char dur[32];
	const char *sep;
	uint32_t t;
	int k;

	for (k = 0; k < LM_NR_WATCH; k++) {
		printf("watch %s:", kinds[k]);
		sep = " ";
		for (t = LM_TYPE_NONE + 1; t < LM_NR_TYPES; t++) {
			if (!h->watch_ns[k][t])
				continue;
			lm_fmt_dur(dur, sizeof(dur), h->watch_ns[k][t]);
			printf("%s%s %s", sep, lm_type_name(t), dur);
			sep = ", ";
		}
		puts(*sep == ' ' ? " -" : "");
	}
}

static unsigned long long status_kib(uint64_t bytes)
{
	return (unsigned long long)(bytes / 1024);
}

/*
 * "memory: ..." of the figures the kernel gives: mem_cpus, mem_rows and
 * mem_cap are a newer kernel's (one with "release"), absent from older
 * ones and their snapshots
 */
static void status_mem(const struct lm_header *h)
{
	bool cap = lm_has(h, LM_H_MEM_CAP);

	if (!lm_has(h, LM_H_MEM_PERCPU) || !lm_has(h, LM_H_MEM_TABLES)) {
		if (lm_has(h, LM_H_MEM_KEYS))
			printf("memory: %llu KiB key directory\n", status_kib(h->mem_keys));
		return;
	}
	printf("memory: %llu KiB per CPU", status_kib(h->mem_percpu));
	if (lm_has(h, LM_H_MEM_CPUS) && h->mem_cpus)
		printf(" on %llu CPUs", (unsigned long long)h->mem_cpus);
	if (lm_has(h, LM_H_MEM_KEYS))
		printf(" + %llu KiB key directory", status_kib(h->mem_keys));
	if (lm_has(h, LM_H_MEM_ROWS) && h->mem_tables)
		printf(", rows %llu KiB", status_kib(h->mem_rows));
	printf(", %llu KiB allocated", status_kib(h->mem_tables));
	if (cap)
		printf(" of at most %llu KiB", status_kib(h->mem_cap));
	if (!h->mem_tables)
		fputs(cap ? " (none before the first on, or after a release)" :
			    " (none until first on)", stdout);
	putchar('\n');
}

static void status_print(const struct lm_header *h)
{
	char top[32];
	struct lm_key_use ku;
	int i;

	printf("lockmeter: %s (from %s)\n", h->on ? "on" : "off", h->source);
	if (lm_has(h, LM_H_KERNEL))
		printf("kernel: %s\n", h->kernel);
	printf("cpus: %u\n", h->cpus);
	printf("metered: %.3f sec (%llu ns)\n", (double)h->metered_ns / 1e9,
	       (unsigned long long)h->metered_ns);
	if (lm_has(h, LM_H_RESETS))
		printf("resets: %llu since boot\n", (unsigned long long)h->resets);
	if (lm_hdr_key_use(h, &ku))
		printf("keys in use: %u / %u %s\n", ku.used, ku.size,
		       ku.shared ? "(shared by all CPUs)" :
				   "per CPU (fullest CPU; a kernel of per-CPU tables)");
	status_mem(h);
	if (lm_has(h, LM_H_MEM_TASK))
		printf("task_struct: +%llu bytes\n", (unsigned long long)h->mem_task);
	if (lm_has(h, LM_H_CAPTURES))
		printf("evidence: %llu captures (new maxima, with task and call chain)\n",
		       (unsigned long long)h->captures);
	if (h->nr_buckets) {
		lm_fmt_time(top, sizeof(top), (double)h->bound[h->nr_buckets - 1]);
		printf("histograms: %u buckets of hold and wait times, bounds %llu, %llu ... %llu ns (>= %s open)\n",
		       h->nr_buckets, (unsigned long long)h->bound[0],
		       (unsigned long long)h->bound[1],
		       (unsigned long long)h->bound[h->nr_buckets - 1], top);
	} else if (!strcmp(h->source, "netlink")) {
		printf("histograms: none (a kernel without them)\n");
	}
	if (h->has_watch)
		status_watch(h);
	if (lm_has(h, LM_H_ALERTS))
		printf("alerts: %llu over a threshold, %llu sent, %llu dropped\n",
		       (unsigned long long)h->alerts, (unsigned long long)h->alerts_sent,
		       (unsigned long long)h->alerts_dropped);
	for (i = 0; i < LM_NR_LOSSES; i++)
		if (lm_has(h, LM_H_LOSS + i))
			printf("%s: %llu\n", lm_loss_names[i], (unsigned long long)h->loss[i]);
	lm_table_losses(stdout, h);
}

int status_main(int argc, char **argv)
{
	struct status_params p;
	struct lm_snapshot snap;
	struct lm_source src;
	int ret;

	ret = status_parse_args(argc, argv, &p);
	if (ret)
		return lm_usage_ret(ret, status_usage);
	ret = lm_source_open(&src, p.opts.source);
	if (ret)
		goto out;
	lm_snap_init(&snap);
	ret = lm_source_status(&src, &snap);
	if (ret)
		goto out_free_snap;
	if (p.json) {
		lm_json_header(stdout, &snap.h, 0);
		putchar('\n');
	} else {
		status_print(&snap.h);
	}
	if (lm_write_check(stdout))
		ret = LM_EXIT_ERR;
out_free_snap:
	lm_snap_free(&snap);
	lm_source_close(&src);
out:
	return ret;
}
