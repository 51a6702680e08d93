// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lockstat watch without a kernel: the durations --over
 * and --wait-over take, the exact durations an alert line prints, the
 * line and the JSON of alerts built here (hold with a blocked part, wait
 * with its owner, held with waiters, one without evidence, escapes), and
 * the count of alerts lost (seq gaps, overruns, the kernel's drops).
 */
#include <stdlib.h>
#include <string.h>

#include "lockstat.h"
#include "options.h"
#include "tap.h"
#include "view.h"

static void test_durations(void)
{
	static const struct {
		const char *arg;
		uint64_t ns;
	} good[] = {
		{ "5ms", 5000000 }, { "250us", 250000 }, { "1s", 1000000000 },
		{ "1000ns", 1000 }, { "1.5ms", 1500000 }, { "1000s", 1000000000000ULL },
		{ "2500ns", 2500 },
	};
	static const char *const bad[] = { "", "5 ms", "ms", "-1ms", "5m", "1e3", "5ms5", "1..2s",
					   "1000" };
	uint64_t ns;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		tap_ok(!lm_parse_duration(good[i].arg, &ns) && ns == good[i].ns,
		       "watch: duration '%s' is %llu ns", good[i].arg,
		       (unsigned long long)good[i].ns);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		tap_ok(lm_parse_duration(bad[i], &ns) == -1, "watch: duration '%s' refused", bad[i]);
}

static void test_fmt_dur(void)
{
	static const struct {
		uint64_t ns;
		const char *want;
	} c[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1us" }, { 250000, "250us" },
		{ 1500, "1.5us" }, { 5000000, "5ms" }, { 10210000, "10.21ms" },
		{ 10001000, "10.001ms" }, { 10000999, "10ms" }, { 1000000000, "1s" },
		{ 61234567890ULL, "61.234s" },
	};
	char buf[32], what[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		lm_fmt_dur(buf, sizeof(buf), c[i].ns);
		snprintf(what, sizeof(what), "fmt_dur(%llu)", (unsigned long long)c[i].ns);
		tap_str(buf, c[i].want, what);
	}
}

/* what @print wrote of @a, in a buffer to free */
static char *render(const struct lm_alert *a, bool json, bool stacks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		lm_watch_json(f, a);
	else
		lm_watch_print(f, a, stacks);
	fclose(f);
	return buf;
}

static void check(const struct lm_alert *a, bool json, bool stacks, const char *want,
		  const char *what)
{
	char *got = render(a, json, stacks);

	tap_str(got, want, what);
	free(got);
}

static void test_hold(void)
{
	struct lm_evidence ev = {
		.present = 1U << LM_EB_BLOCKED,
		.pid = 123, .cpu = 1, .context = LM_CONTEXT_TASK,
		.time_ns = 123456789012ULL, .comm = "lm_hold",
		.nr_frames = 2,
		.frame = { "lm_test_hold+0x3c/0x80 [test_lockmeter]", "kthread+0xd2/0x100" },
		.blocked_ns = 3000000, .nr_blocked = 1,
		.blocked_frame = { "schedule+0x27/0xf0" },
	};
	struct lm_alert a = {
		.present = 1U << LM_AB_EVIDENCE | 1U << LM_AB_SEQ | 1U << LM_AB_DROPPED,
		.kind = LM_ALERT_HOLD, .type = LM_TYPE_MUTEX, .class = LM_CLASS_STATIC,
		.ns = 10210000, .threshold_ns = 5000000, .seq = 7, .dropped = 2,
		.lock = "test_lm_mutex", .site = "lm_test_hold+0x3c/0x80[test_lockmeter]",
		.ev = &ev,
	};

	check(&a, false, false,
	      "[  123.456789] hold  mutex   10.21ms > 5ms     test_lm_mutex  "
	      "lm_test_hold+0x3c/0x80[test_lockmeter]  pid 123 lm_hold cpu 1 blocked 3ms\n",
	      "watch: a hold of a sleeping lock, with its blocked part");
	check(&a, false, true,
	      "[  123.456789] hold  mutex   10.21ms > 5ms     test_lm_mutex  "
	      "lm_test_hold+0x3c/0x80[test_lockmeter]  pid 123 lm_hold cpu 1 blocked 3ms\n"
	      "    lm_test_hold+0x3c/0x80 [test_lockmeter]\n"
	      "    kthread+0xd2/0x100\n"
	      "    blocked 3.0ms of it in schedule\n"
	      "      schedule+0x27/0xf0\n",
	      "watch: --stacks, the chain and where the holder blocked");
	check(&a, true, false,
	      "{ \"seq\": 7, \"kind\": \"hold\", \"type\": \"mutex\", \"class\": \"static\", "
	      "\"lock\": \"test_lm_mutex\", \"site\": \"lm_test_hold+0x3c/0x80[test_lockmeter]\", "
	      "\"ns\": 10210000, \"threshold_ns\": 5000000, \"time_ns\": 123456789012, "
	      "\"pid\": 123, \"comm\": \"lm_hold\", \"cpu\": 1, \"context\": \"task\", "
	      "\"stack\": [ \"lm_test_hold+0x3c/0x80 [test_lockmeter]\", \"kthread+0xd2/0x100\" ], "
	      "\"blocked_ns\": 3000000, \"blocked_stack\": [ \"schedule+0x27/0xf0\" ], "
	      "\"dropped\": 2 }\n",
	      "watch: the JSON of a hold");
}

static void test_wait_held(void)
{
	struct lm_evidence wev = {
		.present = 1U << LM_EB_OWNER_PID | 1U << LM_EB_OWNER_COMM,
		.pid = 432, .cpu = 0, .context = LM_CONTEXT_SOFTIRQ, .time_ns = 5000001000ULL,
		.comm = "lmt/waiter", .owner_pid = 431, .owner_comm = "lmt holder",
	};
	struct lm_alert w = {
		.present = 1U << LM_AB_EVIDENCE,
		.kind = LM_ALERT_WAIT, .type = LM_TYPE_SPIN, .class = LM_CLASS_HEAP,
		.ns = 1500, .threshold_ns = 1000, .lock = "[heap]", .site = "f+0x1/0x2",
		.ev = &wev,
	};
	struct lm_waiter waiters[] = {
		{ .pid = 500, .type = LM_TYPE_MUTEX, .waited_ns = 1900000000, .comm = "a\"b",
		  .site = "lmt_held_waiter+0x1e/0x40" },
		{ .pid = 501, .type = LM_TYPE_MUTEX, .waited_ns = 20000, .comm = "c" },
	};
	struct lm_alert h = {
		.kind = LM_ALERT_HELD, .type = LM_TYPE_MUTEX, .class = LM_CLASS_STATIC,
		.ns = 2500000000ULL, .threshold_ns = 1000000000, .lock = "lmt_mutex",
		.site = "s+0x2a/0x60", .waiters = waiters, .nr_waiters = 2,
	};

	check(&w, false, false,
	      "[    5.000001] wait  spin      1.5us > 1us     [heap]  f+0x1/0x2  pid 432 "
	      "lmt/waiter cpu 0 in softirq owner 431 lmt\\x20holder\n",
	      "watch: a wait in softirq, with its owner (a blank escaped)");
	check(&w, true, false,
	      "{ \"kind\": \"wait\", \"type\": \"spin\", \"class\": \"heap\", \"lock\": \"[heap]\", "
	      "\"site\": \"f+0x1/0x2\", \"ns\": 1500, \"threshold_ns\": 1000, "
	      "\"time_ns\": 5000001000, \"pid\": 432, \"comm\": \"lmt/waiter\", \"cpu\": 0, "
	      "\"context\": \"softirq\", \"stack\": [], \"owner_pid\": 431, "
	      "\"owner_comm\": \"lmt holder\" }\n",
	      "watch: the JSON of a wait: no seq, no dropped, an empty stack");
	check(&h, false, true,
	      "[           -] held  mutex      2.5s > 1s      lmt_mutex  s+0x2a/0x60 waiters 2\n"
	      "    waiter 500 a\"b waited 1.9s at lmt_held_waiter+0x1e (mutex)\n"
	      "    waiter 501 c waited 20us (mutex)\n",
	      "watch: held without evidence, its waiters with --stacks");
	check(&h, true, false,
	      "{ \"kind\": \"held\", \"type\": \"mutex\", \"class\": \"static\", "
	      "\"lock\": \"lmt_mutex\", \"site\": \"s+0x2a/0x60\", \"ns\": 2500000000, "
	      "\"threshold_ns\": 1000000000, \"waiters\": [ { \"pid\": 500, \"comm\": \"a\\\"b\", "
	      "\"site\": \"lmt_held_waiter+0x1e/0x40\", \"type\": \"mutex\", "
	      "\"waited_ns\": 1900000000 }, { \"pid\": 501, \"comm\": \"c\", \"type\": \"mutex\", "
	      "\"waited_ns\": 20000 } ] }\n",
	      "watch: the JSON of held: its waiters, a quote escaped");
}

static void test_count(void)
{
	struct lm_watch_count c = { 0 };
	struct lm_alert a = { .present = 1U << LM_AB_SEQ };
	static const struct {
		uint64_t seq;
		uint64_t lost;
	} seqs[] = { { 5, 0 }, { 6, 0 }, { 9, 2 }, { 10, 0 }, { 3, 0 }, { 5, 1 } };
	size_t i;
	bool ok = true;

	for (i = 0; i < ARRAY_SIZE(seqs); i++) {
		a.seq = seqs[i].seq;
		ok &= lm_watch_count_alert(&c, &a) == seqs[i].lost;
	}
	tap_ok(ok, "watch: seq gaps say the alerts lost before each, a seq going back starts again");
	tap_num(c.alerts, 6, "watch: alerts counted");
	tap_num(c.gaps, 3, "watch: alerts missing from the seq numbers");
	tap_num(lm_watch_lost(&c, 10, 14), 7, "watch: lost = seq gaps + kernel drops since the start");
	c.overruns = 5;
	tap_num(lm_watch_lost(&c, 10, 14), 9,
		"watch: more overruns than gaps: each overrun lost one at least");
	tap_num(lm_watch_lost(&c, 10, 2), 7, "watch: a reset in between: all of the kernel's drops now");
	a.present = 0;
	tap_num(lm_watch_count_alert(&c, &a), 0, "watch: an alert without seq shows no gap");
	tap_num(c.alerts, 7, "watch: and is counted");
}

int main(void)
{
	test_durations();
	test_fmt_dur();
	test_hold();
	test_wait_held();
	test_count();
	return tap_done();
}
